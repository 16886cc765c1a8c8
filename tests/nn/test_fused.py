"""F.fused_linear_relu, F.fused_linear_gelu and nn.FusedLinear against torch's
F.relu(F.linear(...)) / F.gelu(F.linear(...)): values and the input, weight and bias
gradients over shapes, dtypes, both GELU forms; double backward; the module over a Linear's
state dict; autocast; errors."""

import numpy as np
import pytest
import torch

import lucid
from lucid import nn
from lucid.errors import ArgumentError, ArgumentTypeError, DTypeError, ShapeError
from lucid.nn import functional as F

NP = {lucid.float32: np.float32, lucid.float64: np.float64}
TOL = {lucid.float32: dict(rtol=1e-5, atol=1e-5), lucid.float64: dict(rtol=1e-12, atol=1e-12)}
TF = torch.nn.functional
ACTS = [("relu", "none"), ("gelu", "none"), ("gelu", "tanh")]


def _rand(shape, dt=lucid.float64, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(NP[dt])


def _lucid(act, approx):
    if act == "relu":
        return F.fused_linear_relu
    return lambda x, w, b=None: F.fused_linear_gelu(x, w, b, approximate=approx)


def _torch(act, approx):
    if act == "relu":
        return lambda x, w, b=None: TF.relu(TF.linear(x, w, b))
    return lambda x, w, b=None: TF.gelu(TF.linear(x, w, b), approximate=approx)


@pytest.mark.parametrize("dt", [lucid.float32, lucid.float64])
@pytest.mark.parametrize("act,approx", ACTS)
@pytest.mark.parametrize("xshape", [(6, 4), (2, 3, 4), (4,), (0, 4)])
@pytest.mark.parametrize("bias", [True, False])
def test_matches_torch(dt, act, approx, xshape, bias):
    arrs = [_rand(xshape, dt), _rand((5, 4), dt, 1)] + ([_rand((5,), dt, 2)] if bias else [])
    la = [lucid.tensor(a, requires_grad=True) for a in arrs]
    ta = [torch.tensor(a, requires_grad=True) for a in arrs]
    ly, ty = _lucid(act, approx)(*la), _torch(act, approx)(*ta)
    assert tuple(ly.shape) == tuple(ty.shape) and ly.dtype is dt
    assert ly.grad_fn.name() == "FusedLinearBackward"
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **TOL[dt])
    g = _rand(tuple(ty.shape), dt, 3)
    ly.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    for l, t in zip(la, ta):
        np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), **TOL[dt])


def test_relu_gradient_is_zero_where_the_preactivation_is_zero():
    x = lucid.tensor([[1.0, -1.0]], requires_grad=True)
    w = lucid.tensor([[1.0, 1.0], [2.0, 1.0]], requires_grad=True)
    y = F.fused_linear_relu(x, w)  # z = [0, 1]
    y.sum().backward()
    assert y.tolist() == [[0.0, 1.0]]
    assert x.grad.tolist() == [[2.0, 1.0]] and w.grad.tolist() == [[0.0, 0.0], [1.0, -1.0]]


@pytest.mark.parametrize("act,approx", ACTS)
def test_double_backward_matches_torch(act, approx):
    arrs = [_rand((3, 4)), _rand((2, 4), seed=1), _rand((2,), seed=2)]
    la = [lucid.tensor(a, requires_grad=True) for a in arrs]
    ta = [torch.tensor(a, requires_grad=True) for a in arrs]
    lg = lucid.autograd.grad(_lucid(act, approx)(*la).pow(2).sum(), la, create_graph=True)
    tg = torch.autograd.grad(_torch(act, approx)(*ta).pow(2).sum(), ta, create_graph=True)
    lh = lucid.autograd.grad(sum(g.sum() for g in lg), la)
    th = torch.autograd.grad(sum(g.sum() for g in tg), ta)
    for l, t in zip(lh, th):
        np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-10, atol=1e-12)


def test_only_the_wanted_gradients():
    x = lucid.tensor(_rand((3, 4)))
    w = lucid.tensor(_rand((2, 4), seed=1), requires_grad=True)
    F.fused_linear_gelu(x, w).sum().backward()
    tw = torch.tensor(_rand((2, 4), seed=1), requires_grad=True)
    TF.gelu(TF.linear(torch.tensor(_rand((3, 4))), tw)).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-12)
    assert x.grad is None


@pytest.mark.parametrize("act,approx", ACTS)
def test_module_over_a_linear_state_dict(act, approx):
    t = torch.nn.Linear(4, 3)
    m = nn.FusedLinear(4, 3, activation=act, approximate=approx)
    m.load_state_dict(t.state_dict())
    x = _rand((5, 4), lucid.float32)
    np.testing.assert_allclose(
        m(lucid.tensor(x)).detach().numpy(),
        _torch(act, approx)(torch.tensor(x), t.weight, t.bias).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    assert list(m.state_dict()) == ["weight", "bias"] and isinstance(m, nn.Linear)
    assert f"activation={act}" in repr(m) and ("tanh" in repr(m)) == (approx == "tanh")


def test_module_init_as_linear_and_no_bias():
    lucid.manual_seed(0)
    a = nn.Linear(6, 3)
    lucid.manual_seed(0)
    b = nn.FusedLinear(6, 3)
    np.testing.assert_array_equal(a.weight.detach().numpy(), b.weight.detach().numpy())
    c = nn.FusedLinear(6, 3, bias=False, activation="gelu")
    assert c.bias is None and tuple(c(lucid.zeros(2, 6)).shape) == (2, 3)


def test_half_and_autocast():
    x, w = _rand((4, 3), lucid.float32), _rand((2, 3), lucid.float32, 1)
    y = F.fused_linear_relu(lucid.tensor(x).to(lucid.bfloat16), lucid.tensor(w).to(lucid.bfloat16))
    assert y.dtype is lucid.bfloat16
    np.testing.assert_allclose(y.float().numpy(), np.maximum(x @ w.T, 0), rtol=3e-2, atol=3e-2)
    lw = lucid.tensor(w, requires_grad=True)
    with lucid.autocast("cpu", dtype=lucid.bfloat16):
        z = F.fused_linear_gelu(lucid.tensor(x), lw)
    assert z.dtype is lucid.bfloat16
    z.float().sum().backward()
    assert lw.grad.dtype is lucid.float32


def test_errors():
    x, w = lucid.zeros(2, 3), lucid.zeros(4, 3)
    with pytest.raises(ShapeError, match="fused_linear_relu: input of shape"):
        F.fused_linear_relu(lucid.zeros(2, 5), w)
    with pytest.raises(ShapeError, match="fused_linear_gelu: weight must be 2-D"):
        F.fused_linear_gelu(x, lucid.zeros(3))
    with pytest.raises(ShapeError, match="bias of shape"):
        F.fused_linear_relu(x, w, lucid.zeros(3))
    with pytest.raises(DTypeError, match="weight type"):
        F.fused_linear_relu(x, w.double())
    with pytest.raises(DTypeError, match="floating input"):
        F.fused_linear_relu(lucid.zeros(2, 3, dtype=lucid.int64), w)
    with pytest.raises(ArgumentTypeError, match="argument 'weight'"):
        F.fused_linear_relu(x, [[1.0]])
    with pytest.raises(ArgumentError, match="approximate"):
        F.fused_linear_gelu(x, w, approximate="erf")
    with pytest.raises(ArgumentError, match="activation"):
        nn.FusedLinear(3, 4, activation="tanh")
    with pytest.raises(ArgumentError, match="approximate"):
        nn.FusedLinear(3, 4, approximate="tanh")
