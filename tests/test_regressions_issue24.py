"""Regression tests of issue 24, item 5: bugs where Lucid differed from PyTorch.

One test per bug, named after it; each compares with real torch where it applies and
failed before its fix.
"""

import numpy as np
import pytest

import lucid
import lucid.nn.functional as F
from lucid.errors import AutogradError

torch = pytest.importorskip("torch")
TF = torch.nn.functional

_PIECEWISE = [-4.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, 7.0, float("nan")]


def _both(data, dtype="float64"):
    x = lucid.tensor(np.array(data, dtype=dtype), requires_grad=True)
    t = torch.tensor(np.array(data, dtype=dtype), requires_grad=True)
    return x, t


# -- 1. second derivative of the piecewise-linear activations -------------------------------

@pytest.mark.parametrize("name,kw", [("relu6", {}), ("leaky_relu", {}),
                                     ("leaky_relu", {"negative_slope": 0.2}),
                                     ("hardtanh", {"min_val": -2.0, "max_val": 0.5}),
                                     ("relu", {})])
def test_piecewise_activation_first_gradient_has_grad_fn(name, kw):
    x, t = _both(_PIECEWISE)
    w = np.linspace(-1.0, 2.0, len(_PIECEWISE))
    (g,) = lucid.autograd.grad(getattr(F, name)(x, **kw), x, lucid.tensor(w),
                               create_graph=True)
    (gt,) = torch.autograd.grad(getattr(TF, name)(t, **kw), t, torch.tensor(w),
                                create_graph=True)
    assert g.grad_fn is not None and gt.grad_fn is not None
    np.testing.assert_array_equal(g.detach().numpy(), gt.detach().numpy())
    (gg,) = lucid.autograd.grad(g.sum(), x)
    (ggt,) = torch.autograd.grad(gt.sum(), t)
    np.testing.assert_array_equal(gg.numpy(), ggt.numpy())        # zeros, both


def test_hardsigmoid_first_gradient_has_grad_fn_whose_backward_raises():
    x, t = _both(_PIECEWISE)
    (g,) = lucid.autograd.grad(F.hardsigmoid(x).sum(), x, create_graph=True)
    (gt,) = torch.autograd.grad(TF.hardsigmoid(t).sum(), t, create_graph=True)
    assert g.grad_fn is not None and gt.grad_fn is not None
    # PyTorch scales by float32(1/6) even in float64
    np.testing.assert_allclose(g.detach().numpy(), gt.detach().numpy(), rtol=1e-7)
    with pytest.raises(RuntimeError, match="not implemented"):
        torch.autograd.grad(gt.sum(), t)
    with pytest.raises(AutogradError, match="hardsigmoid.*not implemented"):
        lucid.autograd.grad(g.sum(), x)
    # hardswish, composed without it, keeps its second derivative (as PyTorch's)
    x, t = _both([-3.5, -3.0, -1.0, 0.0, 2.0, 3.0, 4.0])
    (g,) = lucid.autograd.grad(F.hardswish(x).sum(), x, create_graph=True)
    (gt,) = torch.autograd.grad(TF.hardswish(t).sum(), t, create_graph=True)
    np.testing.assert_allclose(lucid.autograd.grad(g.sum(), x)[0].numpy(),
                               torch.autograd.grad(gt.sum(), t)[0].numpy(), rtol=1e-12)


def test_hardtanh_gradient_passes_at_nan_like_torch():
    x, t = _both([float("nan"), -1.0, 0.0, 1.0])
    F.hardtanh(x).backward(lucid.full((4,), 2.0, dtype=lucid.float64))
    TF.hardtanh(t).backward(torch.full((4,), 2.0, dtype=torch.float64))
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
