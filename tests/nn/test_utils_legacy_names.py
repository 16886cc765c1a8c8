"""lucid.nn.utils' smaller PyTorch names: skip_init (torch.nn.utils.init), and the
deprecated clip_grad_norm and stateless.functional_call, which warn as PyTorch's."""

import pytest

import lucid
import lucid.nn as nn

torch = pytest.importorskip("torch")


def test_skip_init_builds_the_module_and_checks_its_class():
    m = nn.utils.skip_init(nn.Linear, 5, 2, bias=False)
    assert isinstance(m, nn.Linear) and tuple(m.weight.shape) == (2, 5) and m.bias is None
    assert nn.utils.init.skip_init is nn.utils.skip_init
    with pytest.raises(lucid.errors.ArgumentError, match="must take a 'device' argument"):
        nn.utils.skip_init(nn.ReLU)
    with pytest.raises(TypeError, match="skip_init: expected a Module class"):
        nn.utils.skip_init(int)
    with pytest.raises(RuntimeError):
        torch.nn.utils.skip_init(torch.nn.ReLU)


def test_deprecated_clip_grad_norm_and_stateless_call_warn_as_torch():
    lucid.manual_seed(0)
    m = nn.Linear(3, 2)
    m(lucid.ones(1, 3)).sum().backward()
    with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated"):
        total = nn.utils.clip_grad_norm(m.parameters(), 0.1)
    grads = lucid.cat([p.grad.flatten() for p in m.parameters()])
    assert float(total) > 0.1 and abs(float(grads.norm()) - 0.1) < 1e-5
    w = {"weight": lucid.zeros(2, 3), "bias": lucid.ones(2)}
    with pytest.warns(FutureWarning, match="stateless.functional_call` is deprecated"):
        out = nn.utils.stateless.functional_call(m, w, (lucid.ones(1, 3),))
    assert out.tolist() == [[1.0, 1.0]]
