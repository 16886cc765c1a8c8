"""Identity, Linear, Bilinear, LazyLinear, Flatten, Unflatten and F.linear / F.bilinear vs
torch: values, gradients for inputs and parameters, init bounds, reprs."""

import math

import numpy as np
import pytest
import torch

import lucid
from lucid import nn
from lucid.errors import ArgumentTypeError, DTypeError, ShapeError
from lucid.nn import functional as F

TOL = {lucid.float32: dict(rtol=1e-5, atol=1e-5), lucid.float64: dict(rtol=1e-12, atol=1e-12)}
NP = {lucid.float32: np.float32, lucid.float64: np.float64}


def _rand(shape, dt, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(NP[dt])


def _pair(a):
    return lucid.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _close(l, t, dt):
    np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), **TOL[dt])


@pytest.mark.parametrize("dt", [lucid.float32, lucid.float64])
@pytest.mark.parametrize("xshape", [(5, 4), (2, 3, 4), (4,), (0, 4), (2, 0, 4)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_parity(dt, xshape, bias):
    lx, tx = _pair(_rand(xshape, dt))
    lw, tw = _pair(_rand((3, 4), dt, 1))
    lb, tb = _pair(_rand((3,), dt, 2)) if bias else (None, None)
    lo, to = F.linear(lx, lw, lb), torch.nn.functional.linear(tx, tw, tb)
    assert lo.shape == to.shape and lo.dtype is dt
    _close(lo, to, dt)
    g = _rand(to.shape, dt, 3)
    lo.backward(lucid.tensor(g))
    to.backward(torch.tensor(g))
    _close(lx.grad, tx.grad, dt)
    _close(lw.grad, tw.grad, dt)
    if bias:
        _close(lb.grad, tb.grad, dt)


def test_linear_non_contiguous_input_and_vector_weight():
    a = _rand((4, 6), lucid.float32)
    lx, tx = _pair(a)
    lw, tw = _pair(_rand((2, 4), lucid.float32, 1))
    lo = F.linear(lx.t(), lw)
    to = torch.nn.functional.linear(tx.t(), tw)
    _close(lo, to, lucid.float32)
    lo.sum().backward()
    to.sum().backward()
    _close(lx.grad, tx.grad, lucid.float32)
    lv, tv = _pair(_rand((4,), lucid.float32, 2))
    _close(F.linear(lx.t(), lv), torch.nn.functional.linear(tx.t(), tv), lucid.float32)
    x3 = _rand((2, 3, 4), lucid.float32)
    _close(
        F.linear(lucid.tensor(x3), lv),
        torch.nn.functional.linear(torch.tensor(x3), tv),
        lucid.float32,
    )


def test_linear_errors():
    with pytest.raises(ShapeError, match="linear: input of shape \\(2, 5\\)"):
        F.linear(lucid.ones(2, 5), lucid.ones(3, 4))
    with pytest.raises(ArgumentTypeError, match="linear: argument 'weight'"):
        F.linear(lucid.ones(2, 4), [[1.0]])
    with pytest.raises(ArgumentTypeError, match="linear: argument 'bias'.*float"):
        F.linear(lucid.ones(2, 4), lucid.ones(3, 4), 1.0)
    with pytest.raises(ShapeError, match="linear: weight must be 1-D or 2-D"):
        F.linear(lucid.ones(2, 4), lucid.ones(1, 3, 4))
    with pytest.raises(ShapeError, match="linear: input of shape \\(\\)"):
        F.linear(lucid.tensor(1.0), lucid.ones(3, 4))
    with pytest.raises(ShapeError, match="linear: bias of shape \\(4,\\)"):
        F.linear(lucid.ones(2, 4), lucid.ones(3, 4), lucid.ones(4))
    with pytest.raises(
        DTypeError, match="linear: input type \\(float32\\) and bias type \\(float64\\)"
    ):
        F.linear(lucid.ones(2, 4), lucid.ones(3, 4), lucid.ones(3, dtype=lucid.float64))


def test_linear_module_init_and_repr():
    m = nn.Linear(200, 300)
    assert repr(m) == repr(torch.nn.Linear(200, 300))
    assert repr(nn.Linear(2, 3, bias=False)) == repr(torch.nn.Linear(2, 3, bias=False))
    bound = 1 / math.sqrt(200)  # kaiming_uniform_(a=sqrt(5)) on fan_in 200
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert w.shape == (300, 200) and b.shape == (300,)
    assert bound * 0.99 < np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert w.std() == pytest.approx(bound / math.sqrt(3), rel=0.03)
    assert [k for k, _ in m.named_parameters()] == ["weight", "bias"]
    assert nn.Linear(2, 3, bias=False).bias is None
    assert nn.Linear(2, 3, dtype=lucid.float64).weight.dtype is lucid.float64
    assert nn.Linear(0, 3).bias.abs().sum().item() == 0  # fan_in 0: bound 0


def test_linear_module_parity_with_torch_weights():
    tm = torch.nn.Linear(4, 3)
    m = nn.Linear(4, 3)
    m.load_state_dict({k: lucid.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    lx, tx = _pair(_rand((2, 5, 4), lucid.float32))
    lo, to = m(lx), tm(tx)
    _close(lo, to, lucid.float32)
    (lo**2).sum().backward()
    (to**2).sum().backward()
    _close(lx.grad, tx.grad, lucid.float32)
    _close(m.weight.grad, tm.weight.grad, lucid.float32)
    _close(m.bias.grad, tm.bias.grad, lucid.float32)


@pytest.mark.parametrize("dt", [lucid.float32, lucid.float64])
@pytest.mark.parametrize("lead", [(5,), (2, 3), (0,)])
@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_parity(dt, lead, bias):
    l1, t1 = _pair(_rand(lead + (3,), dt))
    l2, t2 = _pair(_rand(lead + (4,), dt, 1))
    lw, tw = _pair(_rand((2, 3, 4), dt, 2))
    lb, tb = _pair(_rand((2,), dt, 3)) if bias else (None, None)
    lo, to = F.bilinear(l1, l2, lw, lb), torch.nn.functional.bilinear(t1, t2, tw, tb)
    assert lo.shape == to.shape
    _close(lo, to, dt)
    g = _rand(to.shape, dt, 4)
    lo.backward(lucid.tensor(g))
    to.backward(torch.tensor(g))
    for a, b in [(l1, t1), (l2, t2), (lw, tw)] + ([(lb, tb)] if bias else []):
        _close(a.grad, b.grad, dt)


def test_bilinear_module():
    m = nn.Bilinear(5, 4, 3)
    assert repr(m) == repr(torch.nn.Bilinear(5, 4, 3))
    assert m.weight.shape == (3, 5, 4)
    bound = 1 / math.sqrt(5)
    assert np.abs(m.weight.detach().numpy()).max() <= bound
    assert np.abs(m.bias.detach().numpy()).max() <= bound
    assert m(lucid.randn(2, 5), lucid.randn(2, 4)).shape == (2, 3)
    with pytest.raises(ShapeError, match="bilinear: inputs of shapes"):
        m(lucid.randn(2, 5), lucid.randn(3, 4))


def test_lazy_linear():
    m = nn.LazyLinear(3)
    assert repr(m) == repr(torch.nn.LazyLinear(3))
    assert isinstance(m.weight, nn.UninitializedParameter)
    y = m(lucid.randn(2, 7))
    assert y.shape == (2, 3) and type(m) is nn.Linear and m.in_features == 7
    assert type(m.weight) is nn.Parameter and m.weight.shape == (3, 7)
    assert np.abs(m.weight.detach().numpy()).max() <= 1 / math.sqrt(7)
    assert repr(m) == "Linear(in_features=7, out_features=3, bias=True)"
    nb = nn.LazyLinear(2, bias=False)
    nb(lucid.randn(4))
    assert nb.bias is None and nb.weight.shape == (2, 4)


def test_lazy_linear_loads_state_dict():
    src = nn.Linear(5, 2)
    m = nn.LazyLinear(2)
    m.load_state_dict(src.state_dict())
    assert m.weight.shape == (5 * 0 + 2, 5)
    np.testing.assert_array_equal(m.weight.detach().numpy(), src.weight.detach().numpy())


def test_identity():
    m = nn.Identity(3, foo=1)
    x = lucid.ones(2)
    assert m(x) is x and repr(m) == "Identity()"


@pytest.mark.parametrize("start,end", [(1, -1), (0, -1), (1, 2), (-2, -1), (2, 2)])
def test_flatten(start, end):
    a = _rand((2, 3, 4, 5), lucid.float32)
    lo = nn.Flatten(start, end)(lucid.tensor(a))
    to = torch.nn.Flatten(start, end)(torch.tensor(a))
    assert lo.shape == to.shape
    _close(lo, to, lucid.float32)
    assert repr(nn.Flatten(start, end)) == repr(torch.nn.Flatten(start, end))


def test_flatten_default_and_non_contiguous():
    a = _rand((4, 3, 2), lucid.float32)
    lo = nn.Flatten()(lucid.tensor(a).transpose(0, 2))
    to = torch.nn.Flatten()(torch.tensor(a).transpose(0, 2))
    _close(lo, to, lucid.float32)


@pytest.mark.parametrize("dim,size", [(1, (2, 3)), (-1, [3, -1]), (0, (2, 2))])
def test_unflatten(dim, size):
    a = _rand((4, 6), lucid.float32)
    lo = nn.Unflatten(dim, size)(lucid.tensor(a))
    to = torch.nn.Unflatten(dim, size)(torch.tensor(a))
    assert lo.shape == to.shape
    assert repr(nn.Unflatten(dim, size)) == repr(torch.nn.Unflatten(dim, size))
    with pytest.raises(ArgumentTypeError, match="Unflatten"):
        nn.Unflatten(1, 6)


def test_linear_dtype_checks_and_half():
    with pytest.raises(DTypeError, match="linear: input type \\(float64\\) and weight type"):
        F.linear(lucid.ones(2, 3, dtype=lucid.float64), lucid.ones(4, 3))
    with pytest.raises(ShapeError, match="bias of shape"):
        F.linear(lucid.ones(2, 3), lucid.ones(4, 3), lucid.ones(3))
    x = _rand((3, 4), lucid.float32)
    w = _rand((2, 4), lucid.float32, 1)
    out = F.linear(lucid.tensor(x).half(), lucid.tensor(w).half())
    assert out.dtype is lucid.float16
    np.testing.assert_allclose(out.float().numpy(), x @ w.T, rtol=1e-2, atol=1e-2)


def test_linear_under_autocast():
    x = lucid.tensor(_rand((3, 4), lucid.float32))
    m = nn.Linear(4, 2)
    with lucid.autocast("cpu", dtype=lucid.bfloat16):
        out = m(x.bfloat16())  # bf16 input, float32 parameters
        assert out.dtype is lucid.bfloat16
    out.float().sum().backward()
    assert m.weight.grad.dtype is lucid.float32 and m.bias.grad.dtype is lucid.float32
    np.testing.assert_allclose(m.bias.grad.numpy(), [3.0, 3.0])


def test_linear_is_one_node_with_analytic_grads():
    x = lucid.randn(2, 3, requires_grad=True)
    w = nn.Parameter(lucid.randn(4, 3))
    b = nn.Parameter(lucid.randn(4))
    out = F.linear(x, w, b)
    assert out.grad_fn.name() == "LinearBackward"
    assert out.grad_fn.next_functions[0][0] is not None
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.ones((4, 2)) @ x.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), [2, 2, 2, 2])
    xe = lucid.zeros(0, 3, requires_grad=True)
    F.linear(xe, w, b).sum().backward()
    assert xe.grad.shape == (0, 3)


@pytest.mark.parametrize(
    "x_shape, out", [((5, 0), 4), ((2, 3, 0), 4), ((0, 0), 4), ((3, 2), 0), ((0, 3), 2)]
)
@pytest.mark.parametrize("bias", [True, False])
def test_linear_with_a_zero_size_dim_matches_torch(x_shape, out, bias):
    # in_features 0 (AdaptiveLogSoftmaxWithLoss's narrow tail), out_features 0, no rows
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(x_shape), rng.standard_normal((out, x_shape[-1]))
    b = rng.standard_normal(out) if bias else None
    lt = [lucid.tensor(a, requires_grad=True) for a in (x, w, b) if a is not None]
    tt = [torch.tensor(a, requires_grad=True) for a in (x, w, b) if a is not None]
    ly, ty = F.linear(*lt), torch.nn.functional.linear(*tt)
    assert tuple(ly.shape) == tuple(ty.shape)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy())
    (ly.sum() * 2).backward()
    (ty.sum() * 2).backward()
    for a, r in zip(lt, tt):
        np.testing.assert_allclose(a.grad.numpy(), r.grad.numpy())
