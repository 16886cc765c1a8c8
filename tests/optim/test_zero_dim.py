"""0-d parameters: every optimizer updates them as PyTorch does (a ufunc on 0-d arrays
returns a scalar, which in-place steps of a kernel cannot write to)."""

import pytest
import torch

import lucid

CASES = [
    ("SGD", dict(lr=0.1, weight_decay=0.1, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, maximize=True)),
    ("Adam", dict(weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(maximize=True)),
    ("NAdam", dict(weight_decay=0.1)),
    ("RAdam", dict()),
    ("Adamax", dict(weight_decay=0.1)),
    ("Adagrad", dict(weight_decay=0.1)),
    ("Adadelta", dict(weight_decay=0.1)),
    ("RMSprop", dict(momentum=0.5, centered=True, weight_decay=0.1)),
    ("ASGD", dict(weight_decay=0.1)),
    ("Rprop", dict()),
]


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_zero_dim_parameter_matches_torch(name, kw):
    lp, tp = lucid.nn.Parameter(lucid.tensor(1.5)), torch.nn.Parameter(torch.tensor(1.5))
    lo, to = getattr(lucid.optim, name)([lp], **kw), getattr(torch.optim, name)([tp], **kw)
    for step in range(4):
        g = 0.3 - 0.2 * step
        lp.grad, tp.grad = lucid.tensor(g), torch.tensor(g)
        lo.step()
        to.step()
        assert lp.shape == () and lp.item() == pytest.approx(tp.item(), rel=1e-6, abs=1e-7)
