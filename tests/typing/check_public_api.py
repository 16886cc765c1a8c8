"""Type-checker tests of the public API, checked by mypy in ``make lint`` (not run by pytest).

Every line must pass, except those marked ``# type: ignore[code]``: each is a wrong call
the checker must refuse (``warn_unused_ignores`` turns an accepted one into an error), so
a signature that loses its annotations or its keyword-only marker fails the lint.
"""

import lucid
from lucid import nn, optim

x: lucid.Tensor = lucid.zeros(2, 3, dtype=lucid.float32, device="cpu")
y = lucid.tensor([1.0, 2.0], requires_grad=True)
z = lucid.full((2,), 1.5)
e = lucid.eye(3, 4)
r = lucid.arange(0, 10, 2)
s = lucid.linspace(0.0, 1.0, 5)
o = lucid.ones((2, 3), device=lucid.device("cpu"))
assert lucid.is_tensor(o)

m = nn.Linear(3, 2)
same: nn.Linear = m.train(False).eval().to("cpu").requires_grad_(True)  # Self keeps the type
params: list[nn.Parameter] = list(m.parameters())
names = [n for n, _ in m.named_parameters(prefix="m")]
sd = m.state_dict()
m.load_state_dict(sd, strict=True)
m.zero_grad(set_to_none=True)
opt = optim.SGD(m.parameters(), lr=0.1)
opt.zero_grad()
opt.step()
opt.load_state_dict(opt.state_dict())

lucid.zeros(2, 3, dtyp=lucid.float32)  # type: ignore[call-arg]
lucid.tensor([1.0], True)  # type: ignore[call-arg,arg-type]
lucid.eye("3")  # type: ignore[arg-type]
lucid.full((2,), "one")  # type: ignore[arg-type]
m.train("yes")  # type: ignore[arg-type]
m.zero_grad(True, False)  # type: ignore[call-arg]
opt.zero_grad(set_to_None=True)  # type: ignore[call-arg]
m.load_state_dict(sd, True, False, True)  # type: ignore[call-arg]
wrong: nn.Conv2d = m.eval()  # type: ignore[assignment]

import lucid.nn.functional as F  # noqa: E402

h: lucid.Tensor = F.relu(F.linear(x, lucid.zeros(4, 3)), inplace=False)
p = F.softmax(h, dim=-1)
q = F.log_softmax(h, dim=1)
F.dropout(h, p=0.1, training=True)
F.mse_loss(p, q, reduction="sum")
F.gelu(h, approximate="tanh")
F.layer_norm(h, (4,), eps=1e-6)

F.relu(h, True, True)  # type: ignore[call-arg]
F.conv2d(h)  # type: ignore[call-arg]
F.dropout(h, training="yes")  # type: ignore[arg-type]
F.softmax(h, dim="last")  # type: ignore[arg-type]
