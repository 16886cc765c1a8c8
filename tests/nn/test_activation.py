"""Activations: nn.functional and the layers against PyTorch (values and gradients, every
option, float32/float64, non-contiguous and empty inputs), in-place forms, RReLU's random
slopes, gumbel-softmax, errors."""

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.errors import ArgumentError, DTypeError, ShapeError

from ..ops.surface_helpers import check

TOL = {np.float64: dict(rtol=1e-10, atol=1e-12), np.float32: dict(rtol=1e-5, atol=1e-6)}


def _x(*shape, scale=3.0, seed=0):
    return np.random.default_rng(seed).standard_normal(shape) * scale


# (name, kwargs): every option is a separate case, so ignoring one fails its case
CASES = [
    ("relu", {}),
    ("relu6", {}),
    ("leaky_relu", {}),
    ("leaky_relu", {"negative_slope": 0.3}),
    ("elu", {}),
    ("elu", {"alpha": 0.4}),
    ("selu", {}),
    ("celu", {}),
    ("celu", {"alpha": 2.5}),
    ("gelu", {}),
    ("gelu", {"approximate": "tanh"}),
    ("silu", {}),
    ("mish", {}),
    ("sigmoid", {}),
    ("tanh", {}),
    ("softplus", {}),
    ("softplus", {"beta": 2.0}),
    ("softplus", {"beta": 0.5, "threshold": 1.0}),
    ("softsign", {}),
    ("hardtanh", {}),
    ("hardtanh", {"min_val": -0.5, "max_val": 2.0}),
    ("hardsigmoid", {}),
    ("hardswish", {}),
    ("hardshrink", {}),
    ("hardshrink", {"lambd": 1.5}),
    ("softshrink", {}),
    ("softshrink", {"lambd": 1.2}),
    ("tanhshrink", {}),
    ("logsigmoid", {}),
    ("glu", {}),
    ("glu", {"dim": 0}),
    ("threshold", {"threshold": 0.5, "value": -2.0}),
    ("softmax", {"dim": 1}),
    ("softmax", {"dim": 0}),
    ("softmin", {"dim": 1}),
    ("log_softmax", {"dim": -1}),
    ("rrelu", {}),
    ("rrelu", {"lower": 0.2, "upper": 0.6}),
]


def _ids(cases):
    return [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for n, kw in cases]


# PyTorch's float64 hardsigmoid gradient uses 1/6 rounded to float32 (relative error 3e-8)
_GTOL = {"hardsigmoid": dict(rtol=1e-7, atol=1e-9)}


def _fns(name, kw):
    return (lambda x: getattr(F, name)(x, **kw)), (lambda x: getattr(TF, name)(x, **kw))


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("name,kw", CASES, ids=_ids(CASES))
def test_parity(name, kw, dtype):
    lf, tf = _fns(name, kw)
    check(lf, tf, _x(4, 6).astype(dtype), tol=TOL[dtype], gtol=_GTOL.get(name))


@pytest.mark.parametrize("name,kw", CASES, ids=_ids(CASES))
def test_non_contiguous_and_empty(name, kw):
    lf, tf = _fns(name, kw)
    check(lf, tf, _x(4, 6, seed=1), noncontig=True, tol=TOL[np.float64], gtol=_GTOL.get(name))
    if name != "glu" or kw.get("dim") != 0:
        check(lf, tf, _x(0, 6), tol=TOL[np.float64])


def test_large_inputs_stay_finite():
    x = np.array([-800.0, -50.0, -1.0, 0.0, 1.0, 50.0, 800.0])
    for name in ("elu", "selu", "celu", "softplus", "mish", "logsigmoid", "silu", "gelu"):
        lf, tf = _fns(name, {})
        check(lf, tf, x, tol=TOL[np.float64])


def test_gradient_at_kinks_as_torch():
    # hardtanh/relu6/hardsigmoid: 0 at the bounds (PyTorch's kernels test strictly inside)
    x = np.array([-3.0, -1.0, 0.0, 1.0, 3.0, 6.0])
    for name in ("hardtanh", "relu6", "hardsigmoid", "leaky_relu", "threshold"):
        kw = {"threshold": 1.0, "value": 0.0} if name == "threshold" else {}
        lf, tf = _fns(name, kw)
        check(lf, tf, x, tol=dict(rtol=1e-7, atol=1e-8))


def test_prelu_weight_gradients():
    x, w = _x(3, 4, 5), np.array([0.1, -0.3, 0.25, 2.0])
    check(F.prelu, TF.prelu, x, w, tol=TOL[np.float64])
    check(F.prelu, TF.prelu, x, np.array([0.4]), tol=TOL[np.float64])
    check(F.prelu, TF.prelu, _x(7), np.array([0.4]), tol=TOL[np.float64])


def test_prelu_errors():
    with pytest.raises(ShapeError, match="prelu"):
        F.prelu(lucid.randn(2, 3), lucid.ones(4))


def test_rrelu_training_slopes():
    lucid.manual_seed(0)
    x = lucid.tensor(-np.abs(_x(1000)) - 0.1, requires_grad=True)
    y = F.rrelu(x, 0.1, 0.4, training=True)
    slope = (y / x).detach().numpy()
    assert slope.min() >= 0.1 and slope.max() <= 0.4 and slope.std() > 0.05
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slope, rtol=1e-12)
    pos = lucid.tensor(np.abs(_x(50)))
    np.testing.assert_array_equal(F.rrelu(pos, training=True).numpy(), pos.numpy())
    lucid.manual_seed(0)
    again = F.rrelu(x.detach(), 0.1, 0.4, training=True)
    np.testing.assert_array_equal(again.numpy(), y.detach().numpy())


def test_rrelu_eval_is_mean_slope():
    x = _x(5, 3)
    out = F.rrelu(lucid.tensor(x), 0.1, 0.5, training=False).numpy()
    np.testing.assert_allclose(out, np.where(x >= 0, x, 0.3 * x), rtol=1e-12)


@pytest.mark.parametrize(
    "name,args",
    [
        ("relu", ()),
        ("relu6", ()),
        ("elu", (0.5,)),
        ("selu", ()),
        ("celu", (0.5,)),
        ("leaky_relu", (0.2,)),
        ("hardtanh", (-0.5, 0.5)),
        ("silu", ()),
        ("mish", ()),
        ("hardsigmoid", ()),
        ("hardswish", ()),
        ("threshold", (0.2, 9.0)),
    ],
)
def test_inplace_option(name, args):
    x = _x(3, 4)
    a = lucid.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    la, tb = a * 1.0, b * 1.0
    lr = getattr(F, name)(la, *args, inplace=True)
    tr = getattr(TF, name)(tb, *args, inplace=True)
    assert lr is la and tr is tb
    np.testing.assert_allclose(la.detach().numpy(), tb.detach().numpy(), rtol=1e-12)
    g = np.random.default_rng(2).standard_normal(x.shape)
    la.backward(lucid.tensor(g))
    tb.backward(torch.tensor(g))
    np.testing.assert_allclose(
        a.grad.numpy(), b.grad.numpy(), **_GTOL.get(name, dict(rtol=1e-10, atol=1e-12))
    )


@pytest.mark.parametrize(
    "name", ["relu_", "elu_", "leaky_relu_", "hardtanh_", "selu_", "celu_", "rrelu_"]
)
def test_inplace_functions(name):
    x = _x(3, 4)
    a, b = lucid.tensor(x), torch.tensor(x)
    r = getattr(F, name)(a)
    getattr(TF, name)(b)
    assert r is a
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_threshold_inplace_function():
    x = _x(6)
    a = lucid.tensor(x)
    F.threshold_(a, 0.1, 20.0)
    np.testing.assert_array_equal(a.numpy(), np.where(x > 0.1, x, 20.0))


def test_softmax_implicit_dim_warns_and_dtype():
    x = _x(2, 3, 4)
    with pytest.warns(UserWarning, match="Implicit dimension"):
        y = F.softmax(lucid.tensor(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(y.numpy(), TF.softmax(torch.tensor(x)).numpy(), rtol=1e-12)
    y32 = F.log_softmax(lucid.tensor(x), 1, dtype=lucid.float32)
    assert y32.dtype is lucid.float32
    assert F.softmin(lucid.tensor(x), 1, dtype=lucid.float32).dtype is lucid.float32
    check(lambda t: F.softmin(t, 2), lambda t: TF.softmin(t, 2), x, tol=TOL[np.float64])


def test_gumbel_softmax():
    logits = _x(4, 5, scale=1.0)
    lucid.manual_seed(3)
    y1 = F.gumbel_softmax(lucid.tensor(logits), tau=1.0)
    np.testing.assert_allclose(y1.numpy().sum(-1), 1.0, rtol=1e-12)
    lucid.manual_seed(3)
    y2 = F.gumbel_softmax(lucid.tensor(logits), tau=0.5)  # same noise, half temperature
    sq = y1.numpy() ** 2
    np.testing.assert_allclose(y2.numpy(), sq / sq.sum(-1, keepdims=True), rtol=1e-10)
    x = lucid.tensor(logits, requires_grad=True)
    lucid.manual_seed(3)
    h = F.gumbel_softmax(x, hard=True)
    hn = h.detach().numpy()
    assert set(np.unique(hn)) <= {0.0, 1.0} and (hn.sum(-1) == 1).all()
    np.testing.assert_array_equal(hn.argmax(-1), y1.numpy().argmax(-1))
    (h * lucid.tensor(np.arange(5.0))).sum().backward()
    assert np.abs(x.grad.numpy()).sum() > 0  # straight-through gradient
    lucid.manual_seed(3)
    d0 = F.gumbel_softmax(lucid.tensor(logits.T), dim=0)
    np.testing.assert_allclose(d0.numpy().sum(0), 1.0, rtol=1e-12)
    with pytest.warns(UserWarning, match="eps"):
        F.gumbel_softmax(lucid.tensor(logits), eps=1e-3)


def test_errors_name_the_function():
    with pytest.raises(ArgumentError, match="gelu"):
        F.gelu(lucid.randn(3), approximate="fast")
    with pytest.raises(ShapeError, match="glu"):
        F.glu(lucid.randn(3, 5))
    with pytest.raises(DTypeError, match="gelu"):
        F.gelu(lucid.tensor([1, 2]))
    with pytest.raises(ArgumentError, match="softshrink"):
        F.softshrink(lucid.randn(3), -1.0)
    with pytest.raises(ArgumentError, match="rrelu"):
        F.rrelu(lucid.randn(3), 0.5, 0.1)
    with pytest.raises(ArgumentError, match="hardtanh"):
        F.hardtanh(lucid.randn(3), 1.0, -1.0)


# -- modules -------------------------------------------------------------------------------

MODULES = [
    ("ReLU", ()),
    ("ReLU6", ()),
    ("LeakyReLU", (0.2,)),
    ("ELU", (0.5,)),
    ("SELU", ()),
    ("CELU", (0.5,)),
    ("GELU", ()),
    ("GELU", ("tanh",)),
    ("SiLU", ()),
    ("Mish", ()),
    ("Sigmoid", ()),
    ("Tanh", ()),
    ("Softplus", (2.0, 5.0)),
    ("Softsign", ()),
    ("Hardtanh", (-2.0, 1.5)),
    ("Hardsigmoid", ()),
    ("Hardswish", ()),
    ("Hardshrink", (0.7,)),
    ("Softshrink", (0.3,)),
    ("Tanhshrink", ()),
    ("Threshold", (0.1, 20.0)),
    ("GLU", (1,)),
    ("LogSigmoid", ()),
    ("Softmax", (1,)),
    ("Softmin", (0,)),
    ("LogSoftmax", (-1,)),
    ("Softmax2d", ()),
    ("RReLU", (0.1, 0.2)),
]


@pytest.mark.parametrize("name,args", MODULES, ids=[f"{n}{a}" for n, a in MODULES])
def test_modules(name, args):
    lm, tm = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    lm.eval()
    tm.eval()
    assert repr(lm) == repr(tm)
    check(lm, tm, _x(2, 4, 3, 2), tol=TOL[np.float64], gtol=_GTOL.get(name.lower()))


def test_inplace_module_repr_and_effect():
    lm, tm = nn.ReLU(inplace=True), torch.nn.ReLU(inplace=True)
    assert repr(lm) == repr(tm) == "ReLU(inplace=True)"
    x = lucid.tensor(_x(5))
    assert lm(x) is x and (x.numpy() >= 0).all()
    for name, args in [
        ("LeakyReLU", (0.1, True)),
        ("ELU", (1.0, True)),
        ("SELU", (True,)),
        ("Hardtanh", (-1.0, 1.0, True)),
        ("Threshold", (0.0, 1.0, True)),
        ("RReLU", (0.1, 0.3, True)),
        ("SiLU", (True,)),
    ]:
        assert repr(getattr(nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))


def test_prelu_module():
    lm, tm = nn.PReLU(3, init=0.1), torch.nn.PReLU(3, init=0.1)
    assert repr(lm) == repr(tm) == "PReLU(num_parameters=3)"
    assert [n for n, _ in lm.named_parameters()] == ["weight"]
    np.testing.assert_array_equal(lm.weight.detach().numpy(), np.full(3, 0.1, np.float32))
    x = _x(2, 3, 4).astype(np.float32)
    a, b = lucid.tensor(x), torch.tensor(x)
    lm(a).sum().backward()
    tm(b).sum().backward()
    np.testing.assert_allclose(lm.weight.grad.numpy(), tm.weight.grad.numpy(), rtol=1e-5)
    assert nn.PReLU(dtype=lucid.float64).weight.dtype is lucid.float64


def test_rrelu_module_train_and_eval():
    m = nn.RReLU(0.1, 0.3)
    x = lucid.tensor(-np.abs(_x(500)) - 0.1)
    lucid.manual_seed(1)
    s_train = (m(x) / x).numpy()
    assert s_train.std() > 0.01
    m.eval()
    np.testing.assert_allclose((m(x) / x).numpy(), 0.2, rtol=1e-12)


def test_softmax2d_rejects_2d():
    with pytest.raises(ShapeError, match="Softmax2d"):
        nn.Softmax2d()(lucid.randn(3, 4))


def test_half_inputs_keep_their_dtype():
    x = _x(4, 5, scale=1.0).astype(np.float32)
    for name in ("gelu", "silu"):
        ref = getattr(F, name)(lucid.tensor(x)).numpy()
        for dt in (lucid.float16, lucid.bfloat16):
            h = lucid.tensor(x).to(dt).requires_grad_()
            y = getattr(F, name)(h)
            assert y.dtype is dt
            y.sum().backward()
            assert h.grad.dtype is dt
            np.testing.assert_allclose(y.float().detach().numpy(), ref, rtol=2e-2, atol=2e-2)
