"""F.symlog, F.symexp and F.two_hot (DreamerV3) against their definitions written in torch:
values, gradients (the analytic ones at 0), inverses, dtypes, edge cases and errors."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import ArgumentTypeError, DTypeError, ShapeError
from lucid.nn import functional as F

NP = {lucid.float32: np.float32, lucid.float64: np.float64}
TOL = {lucid.float32: dict(rtol=1e-6, atol=1e-6), lucid.float64: dict(rtol=1e-13, atol=1e-13)}


def _rand(shape, dt=lucid.float64, seed=0, scale=3.0):
    return (scale * np.random.default_rng(seed).standard_normal(shape)).astype(NP[dt])


def _t_symlog(x):
    return torch.sign(x) * torch.log1p(x.abs())


def _t_symexp(x):
    return torch.sign(x) * torch.expm1(x.abs())


@pytest.mark.parametrize("dt", [lucid.float32, lucid.float64])
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4)])
@pytest.mark.parametrize("name", ["symlog", "symexp"])
def test_values_and_gradients_match_torch(dt, shape, name):
    x = _rand(shape, dt)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ly = getattr(F, name)(lx)
    ty = {"symlog": _t_symlog, "symexp": _t_symexp}[name](tx)
    assert ly.dtype is dt and tuple(ly.shape) == tuple(ty.shape)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **TOL[dt])
    g = _rand(shape, dt, 1)
    ly.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **TOL[dt])


def test_gradient_at_zero_is_one():
    # sign(x) * log1p(|x|) composed by autograd would give 0 here
    for fn in (F.symlog, F.symexp):
        x = lucid.tensor([0.0, -0.0], requires_grad=True)
        fn(x).sum().backward()
        assert x.grad.tolist() == [1.0, 1.0]


def test_analytic_derivatives_and_second_order():
    x = lucid.tensor([-2.0, 0.5, 3.0], dtype=lucid.float64, requires_grad=True)
    (g,) = lucid.autograd.grad(F.symlog(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 1 / (1 + np.abs([-2.0, 0.5, 3.0])))
    (gg,) = lucid.autograd.grad(g.sum(), x)
    v = np.array([-2.0, 0.5, 3.0])
    np.testing.assert_allclose(gg.numpy(), -np.sign(v) / (1 + np.abs(v)) ** 2)
    (h,) = lucid.autograd.grad(F.symexp(x).sum(), x)
    np.testing.assert_allclose(h.numpy(), np.exp(np.abs(v)))


def test_inverse_and_special_values():
    x = lucid.tensor([-1000.0, -1.0, 0.0, 1e-8, 1.0, 1000.0], dtype=lucid.float64)
    np.testing.assert_allclose(F.symexp(F.symlog(x)).numpy(), x.numpy(), rtol=1e-12)
    assert F.symlog(lucid.tensor([-100.0, 100.0])).tolist() == pytest.approx(
        [-4.6151, 4.6151], abs=1e-4
    )
    s = F.symlog(lucid.tensor([float("inf"), float("-inf"), float("nan")]))
    assert s[0].item() == float("inf") and s[1].item() == float("-inf") and np.isnan(s[2].item())
    assert F.symexp(lucid.tensor([200.0])).item() == float("inf")  # float32 overflow


def test_integer_input_gives_float():
    y = F.symlog(lucid.tensor([-3, 0, 3]))
    assert y.dtype is lucid.float32
    np.testing.assert_allclose(y.numpy(), np.sign([-3, 0, 3]) * np.log1p([3, 0, 3]), rtol=1e-6)


def _t_two_hot(x, bins):
    """The definition written out in torch: clamp, neighbouring bins, linear weights."""
    k = bins.shape[0]
    x = x.clamp(bins[0], bins[-1])
    lo = (torch.searchsorted(bins, x, right=True) - 1).clamp(0, k - 2)
    w = ((x - bins[lo]) / (bins[lo + 1] - bins[lo])).unsqueeze(-1)
    oh = torch.nn.functional.one_hot
    return oh(lo, k).to(x.dtype) * (1 - w) + oh(lo + 1, k).to(x.dtype) * w


@pytest.mark.parametrize("dt", [lucid.float32, lucid.float64])
@pytest.mark.parametrize("shape", [(), (7,), (2, 3), (0,)])
def test_two_hot_matches_torch(dt, shape):
    bins = np.array([-4.0, -1.0, 0.0, 0.5, 2.0, 5.0], dtype=NP[dt])
    x = _rand(shape, dt)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ly, ty = F.two_hot(lx, lucid.tensor(bins)), _t_two_hot(tx, torch.tensor(bins))
    assert tuple(ly.shape) == tuple(shape) + (6,) and ly.dtype is dt
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **TOL[dt])
    g = _rand(tuple(shape) + (6,), dt, 2)
    ly.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **TOL[dt])


def test_two_hot_properties():
    bins = lucid.tensor([-2.0, 0.0, 1.0, 3.0])
    x = lucid.tensor([-5.0, -2.0, -1.0, 0.0, 0.25, 1.0, 2.5, 3.0, 9.0])
    y = F.two_hot(x, bins)
    np.testing.assert_allclose(y.sum(-1).numpy(), np.ones(9), rtol=1e-6)
    # the expectation gives the (clamped) value back
    np.testing.assert_allclose(
        (y * bins).sum(-1).numpy(), np.clip(x.numpy(), -2.0, 3.0), rtol=1e-6, atol=1e-7
    )
    assert y[0].tolist() == [1, 0, 0, 0] and y[-1].tolist() == [0, 0, 0, 1]  # clamped
    assert y[3].tolist() == [0, 1, 0, 0] and y[5].tolist() == [0, 0, 1, 0]  # on a bin
    assert y[4].tolist() == pytest.approx([0, 0.75, 0.25, 0])
    assert ((y > 0).sum(-1) <= 2).all().item()


def test_two_hot_integer_input_and_bins_gradient():
    y = F.two_hot(lucid.tensor([1, 2]), lucid.tensor([0.0, 4.0], dtype=lucid.float64))
    assert y.dtype is lucid.float64 and y.tolist() == [[0.75, 0.25], [0.5, 0.5]]
    b = np.array([0.0, 1.0, 3.0])
    lb, tb = lucid.tensor(b, requires_grad=True), torch.tensor(b, requires_grad=True)
    x = np.array([0.3, 2.0])
    (
        F.two_hot(lucid.tensor(x), lb) * lucid.tensor([1.0, 2.0, 3.0], dtype=lucid.float64)
    ).sum().backward()
    (
        _t_two_hot(torch.tensor(x), tb) * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    ).sum().backward()
    np.testing.assert_allclose(lb.grad.numpy(), tb.grad.numpy(), rtol=1e-12)


def test_errors():
    with pytest.raises(ShapeError, match="two_hot: bins must be a 1-D tensor"):
        F.two_hot(lucid.zeros(3), lucid.zeros(2, 2))
    for n in (0, 1):
        with pytest.raises(ShapeError, match="two_hot: bins must be a 1-D tensor of at least two"):
            F.two_hot(lucid.zeros(3), lucid.zeros(n))
    with pytest.raises(DTypeError, match="two_hot: bins must be a floating"):
        F.two_hot(lucid.zeros(3), lucid.tensor([0, 1]))
    with pytest.raises(ArgumentTypeError, match="symlog: argument 'input'"):
        F.symlog(1.0)
    with pytest.raises(ArgumentTypeError, match="two_hot: argument 'bins'"):
        F.two_hot(lucid.zeros(3), [0.0, 1.0])
