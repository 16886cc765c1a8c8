"""Element-wise unary ops against PyTorch: values, dtypes, gradients, special values,
in-place variants, clamp's bounds, the error function family and every error path."""

import math

import ml_dtypes
import numpy as np
import pytest
import torch

import lucid

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

_RNG = np.random.default_rng(1234)


def _u(lo, hi):
    return lambda *shape: _RNG.uniform(lo, hi, size=shape)


# name -> data in the op's smooth domain
DOMAIN = {
    "neg": _u(-3, 3),
    "abs": _u(-3, 3),
    "sign": _u(-3, 3),
    "exp": _u(-3, 3),
    "exp2": _u(-3, 3),
    "expm1": _u(-3, 3),
    "log": _u(0.1, 5),
    "log2": _u(0.1, 5),
    "log10": _u(0.1, 5),
    "log1p": _u(-0.9, 5),
    "sqrt": _u(0.1, 5),
    "rsqrt": _u(0.1, 5),
    "square": _u(-3, 3),
    "reciprocal": _u(0.2, 3),
    "sin": _u(-4, 4),
    "cos": _u(-4, 4),
    "tan": _u(-1.2, 1.2),
    "asin": _u(-0.95, 0.95),
    "acos": _u(-0.95, 0.95),
    "atan": _u(-4, 4),
    "sinh": _u(-3, 3),
    "cosh": _u(-3, 3),
    "tanh": _u(-3, 3),
    "asinh": _u(-4, 4),
    "acosh": _u(1.1, 5),
    "atanh": _u(-0.95, 0.95),
    "sigmoid": _u(-6, 6),
    "relu": _u(-3, 3),
    "erf": _u(-3, 3),
    "erfc": _u(-3, 3),
    "erfinv": _u(-0.95, 0.95),
    "floor": _u(-3, 3),
    "ceil": _u(-3, 3),
    "round": _u(-3, 3),
    "trunc": _u(-3, 3),
    "frac": _u(-3, 3),
    "logit": _u(0.05, 0.95),
    "sinc": _u(-3, 3),
    "nan_to_num": _u(-3, 3),
}
OPS = sorted(DOMAIN)
PREDICATES = ["isnan", "isinf", "isposinf", "isneginf", "isfinite", "signbit"]
ALIASES = {
    "negative": "neg",
    "absolute": "abs",
    "sgn": "sign",
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
    "fix": "trunc",
    "clip": "clamp",
}
TOL = {np.float64: dict(rtol=1e-12, atol=1e-14), np.float32: dict(rtol=2e-6, atol=1e-6)}


def _pair(data, grad=True):
    lx = lucid.tensor(data, requires_grad=grad and data.dtype.kind == "f")
    tx = torch.tensor(data, requires_grad=grad and data.dtype.kind == "f")
    return lx, tx


def _check_fwd_bwd(name, data, tol, lfn=None, tfn=None, **kw):
    lfn = lfn or getattr(lucid, name)
    tfn = tfn or getattr(torch, name)
    lx, tx = _pair(data)
    ly, ty = lfn(lx, **kw), tfn(tx, **kw)
    assert ly.dtype.name == str(ty.dtype).removeprefix("torch.")
    assert tuple(ly.shape) == tuple(ty.shape)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **tol)
    if ty.requires_grad:
        go = _RNG.standard_normal(ty.shape).astype(data.dtype)
        (lg,) = lucid.autograd.grad(ly, lx, lucid.tensor(go))
        (tg,) = torch.autograd.grad(ty, tx, torch.tensor(go))
        np.testing.assert_allclose(lg.numpy(), tg.numpy(), **tol)


# -- parity over dtypes and layouts -------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("name", OPS)
def test_parity_with_torch(name, dtype):
    data = DOMAIN[name](4, 5).astype(dtype)
    _check_fwd_bwd(name, data, TOL[dtype])  # contiguous
    _check_fwd_bwd(name, data.T, TOL[dtype])  # non-contiguous
    _check_fwd_bwd(name, data[1, 2], TOL[dtype])  # 0-d
    _check_fwd_bwd(name, data[:0], TOL[dtype])  # empty


@pytest.mark.parametrize("name", OPS + PREDICATES)
def test_tensor_method_matches_function(name):
    x = lucid.tensor(DOMAIN.get(name, _u(-2, 2))(3))
    np.testing.assert_array_equal(getattr(x, name)().numpy(), getattr(lucid, name)(x).numpy())


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_aliases(alias):
    target = ALIASES[alias]
    x = lucid.tensor(DOMAIN.get(target, _u(-0.9, 0.9))(5))
    kw = {"min": -0.5} if target == "clamp" else {}
    want = getattr(lucid, target)(x, **kw).numpy()
    np.testing.assert_array_equal(getattr(lucid, alias)(x, **kw).numpy(), want)
    np.testing.assert_array_equal(getattr(x, alias)(**kw).numpy(), want)
    y = x.clone()
    getattr(y, alias + "_")(**kw)
    np.testing.assert_array_equal(y.numpy(), want)


_HALF = {
    "float16": (np.float16, torch.float16, 2e-3),
    "bfloat16": (ml_dtypes.bfloat16, torch.bfloat16, 1.6e-2),
}


@pytest.mark.parametrize("half", sorted(_HALF))
@pytest.mark.parametrize("name", OPS)
def test_half_precision_parity(name, half):
    npdt, tdt, rtol = _HALF[half]
    data = DOMAIN[name](16).astype(np.float32).astype(npdt)
    lx = lucid.tensor(data, requires_grad=True)
    tx = torch.tensor(data.astype(np.float32)).to(tdt).requires_grad_()
    ly, ty = getattr(lucid, name)(lx), getattr(torch, name)(tx)
    assert ly.dtype.name == half
    np.testing.assert_allclose(
        ly.detach().numpy().astype(np.float32), ty.detach().float().numpy(), rtol=rtol, atol=rtol
    )
    ly.backward(lucid.ones_like(ly))
    ty.backward(torch.ones_like(ty))
    assert lx.grad.dtype.name == half
    np.testing.assert_allclose(
        lx.grad.numpy().astype(np.float32), tx.grad.float().numpy(), rtol=4 * rtol, atol=4 * rtol
    )


# -- dtypes ----------------------------------------------------------------------------------

_INT_DTYPES = ["bool", "uint8", "int8", "int32", "int64"]


def _int_data(dt):
    if dt == "bool":
        return np.array([True, False, True])
    lo = 0 if dt == "uint8" else -3
    return np.arange(lo, lo + 7).astype(dt)


@pytest.mark.parametrize("dt", _INT_DTYPES)
@pytest.mark.parametrize("name", OPS + PREDICATES + ["square"])
def test_integer_and_bool_inputs_match_torch(name, dt):
    data = _int_data(dt)
    tx = torch.from_numpy(data.copy())
    try:
        want = getattr(torch, name)(tx)
    except (RuntimeError, TypeError, NotImplementedError):
        with pytest.raises(lucid.errors.DTypeError, match=name):
            getattr(lucid, name)(lucid.tensor(data))
        return
    got = getattr(lucid, name)(lucid.tensor(data))
    assert got.dtype.name == str(want.dtype).removeprefix("torch.")
    np.testing.assert_allclose(
        got.numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=1e-6, atol=1e-6
    )


def test_real_valued_ops_follow_default_dtype():
    x = lucid.tensor([1, 2, 3])
    lucid.set_default_dtype(lucid.float64)
    try:
        assert lucid.exp(x).dtype is lucid.float64
        assert lucid.sqrt(x).dtype is lucid.float64
    finally:
        lucid.set_default_dtype(lucid.float32)
    assert lucid.sqrt(x).dtype is lucid.float32


# -- special values and domain edges ---------------------------------------------------------

_SPECIAL = np.array(
    [
        np.nan,
        np.inf,
        -np.inf,
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        1e-30,
        -1e-30,
        30.0,
        -30.0,
        800.0,
        -800.0,
    ]
)


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("name", OPS + PREDICATES)
def test_special_values(name, dtype):
    data = _SPECIAL.astype(dtype)
    tol = TOL[dtype]
    lx, tx = _pair(data, grad=name not in PREDICATES)
    ly, ty = getattr(lucid, name)(lx), getattr(torch, name)(tx)
    np.testing.assert_allclose(
        ly.detach().numpy().astype(np.float64), ty.detach().numpy().astype(np.float64), **tol
    )
    if name in PREDICATES:
        return
    ly.backward(lucid.ones_like(ly))
    ty.backward(torch.ones_like(ty))
    got, want = lx.grad.numpy(), tx.grad.numpy().copy()
    for value, grad in _DOCUMENTED_GRAD.get(name, ()):
        # the op's Notes fix this value; torch's depends on the CPU's SIMD path
        at = (data == value) & (np.signbit(data) == np.signbit(value))
        assert at.any()
        np.testing.assert_array_equal(got[at], np.full(at.sum(), grad, dtype))
        want[at] = grad
    np.testing.assert_allclose(got, want, **tol)


# gradients at points where PyTorch's result differs between CPUs (documented in the op's Notes)
_DOCUMENTED_GRAD = {"logit": [(0.0, math.inf), (-0.0, math.inf)]}


def test_logit_gradient_at_signed_zero_is_documented_inf():
    for dt in (lucid.float32, lucid.float64):
        x = lucid.tensor([0.0, -0.0, 1.0], dtype=dt, requires_grad=True)
        lucid.logit(x).backward(lucid.ones_like(x))
        assert x.grad.tolist() == [math.inf, math.inf, math.inf]
        x = lucid.tensor([-0.0, 0.5], dtype=dt, requires_grad=True)
        lucid.logit(x, eps=0.0).backward(lucid.ones_like(x))
        assert x.grad.tolist() == [math.inf, 4.0]


def test_domain_edges():
    assert lucid.log(lucid.tensor(0.0)).item() == -math.inf
    assert math.isnan(lucid.sqrt(lucid.tensor(-1.0)).item())
    assert math.isnan(lucid.acosh(lucid.tensor(0.5)).item())
    assert lucid.atanh(lucid.tensor(1.0)).item() == math.inf
    assert lucid.erfinv(lucid.tensor(-1.0)).item() == -math.inf
    assert math.isnan(lucid.erfinv(lucid.tensor(1.5)).item())
    assert lucid.sigmoid(lucid.tensor(-1000.0)).item() == 0.0
    assert lucid.reciprocal(lucid.tensor(-0.0)).item() == -math.inf
    assert lucid.sinc(lucid.tensor(0.0)).item() == 1.0


# -- the error function family at float64 precision -----------------------------------------


def test_erf_erfc_float64_precision():
    x = np.concatenate(
        [np.linspace(-7, 7, 4001), np.logspace(-300, 1.4, 300), -np.logspace(-300, 1.4, 300)]
    )
    for name in ("erf", "erfc"):
        got = getattr(lucid, name)(lucid.tensor(x)).numpy()
        want = np.array([getattr(math, name)(v) for v in x])
        np.testing.assert_allclose(got, want, rtol=5e-13, atol=0)
    assert lucid.erfc(lucid.tensor(26.0)).item() == pytest.approx(math.erfc(26.0), rel=1e-13)


def test_erfinv_float64_precision():
    x = np.concatenate(
        [
            np.linspace(-0.999999, 0.999999, 4001),
            1 - np.logspace(-15, -1, 60),
            np.logspace(-300, -1, 60),
        ]
    )
    got = lucid.erfinv(lucid.tensor(x)).numpy()
    np.testing.assert_allclose(got, torch.erfinv(torch.from_numpy(x)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(np.array([math.erf(v) for v in got]), x, rtol=1e-14)


# -- rounding ------------------------------------------------------------------------------


@pytest.mark.parametrize("decimals", [-3, -1, 0, 1, 2, 4])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_round_decimals(decimals, dtype):
    data = np.concatenate(
        [_RNG.uniform(-5000, 5000, 50), [0.125, 2.675, -0.5, 1.5, 2.5, 0.045, 1234.5678]]
    ).astype(dtype)
    got = lucid.round(lucid.tensor(data), decimals=decimals)
    want = torch.round(torch.from_numpy(data), decimals=decimals)
    assert got.dtype.name == str(want.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_round_ties_to_even_and_integer_errors():
    x = lucid.tensor([0.5, 1.5, 2.5, -0.5, -1.5])
    assert lucid.round(x).tolist() == [0.0, 2.0, 2.0, -0.0, -2.0]
    i = lucid.tensor([1, 2])
    assert lucid.round(i).dtype is lucid.int64
    with pytest.raises(lucid.errors.DTypeError, match="round.*decimals.*int64"):
        lucid.round(i, decimals=1)
    with pytest.raises(lucid.errors.DTypeError, match="round: decimals must be an int"):
        lucid.round(x, decimals=1.5)


# -- clamp ---------------------------------------------------------------------------------

_CLAMP_CASES = [
    dict(min=-0.5),
    dict(max=0.5),
    dict(min=-0.5, max=0.5),
    dict(min=0.5, max=-0.5),
    dict(min=0, max=1),
]


@pytest.mark.parametrize("kw", _CLAMP_CASES, ids=str)
def test_clamp_number_bounds(kw):
    data = np.array([-1.0, -0.5, -0.2, 0.0, 0.5, 0.7, np.nan, np.inf])
    _check_fwd_bwd("clamp", data, TOL[np.float64], **kw)


@pytest.mark.parametrize("which", ["min", "max", "both", "min-number-max-tensor"])
def test_clamp_tensor_bounds_and_gradients(which):
    x = _RNG.uniform(-1, 1, (3, 4))
    lo = _RNG.uniform(-1, 0.5, (4,))
    hi = _RNG.uniform(-0.5, 1, (3, 1))
    lo[0], x[0, 0] = x[0, 0], x[0, 0]  # a tie: x == min
    args = {"min": [lo], "max": [hi], "both": [lo, hi], "min-number-max-tensor": [hi]}[which]
    ts = [torch.tensor(a, requires_grad=True) for a in [x] + args]
    ls = [lucid.tensor(a, requires_grad=True) for a in [x] + args]

    def call(lib, t):
        if which == "min":
            return lib.clamp(t[0], min=t[1])
        if which == "max":
            return lib.clamp(t[0], max=t[1])
        if which == "both":
            return lib.clamp(t[0], t[1], t[2])
        return lib.clamp(
            t[0], min=torch.tensor(-0.3, dtype=torch.float64) if lib is torch else -0.3, max=t[1]
        )

    ly, ty = call(lucid, ls), call(torch, ts)
    np.testing.assert_array_equal(ly.detach().numpy(), ty.detach().numpy())
    go = _RNG.standard_normal(ty.shape)
    lg = lucid.autograd.grad(ly, ls, lucid.tensor(go))
    tg = torch.autograd.grad(ty, ts, torch.tensor(go))
    for a, b in zip(lg, tg):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_clamp_dtype_promotion():
    i = lucid.tensor([1, -2, 3])
    ti = torch.tensor([1, -2, 3])
    for kw in (dict(min=1.5), dict(min=0), dict(min=1, max=2.5), dict(min=lucid.tensor(0.2))):
        tkw = {
            k: torch.tensor(v.item()) if isinstance(v, lucid.Tensor) else v for k, v in kw.items()
        }
        got, want = lucid.clamp(i, **kw), torch.clamp(ti, **tkw)
        assert got.dtype.name == str(want.dtype).removeprefix("torch.")
        np.testing.assert_allclose(got.numpy(), want.numpy())
    h = lucid.tensor([0.1, 0.9], dtype=lucid.float16)
    assert lucid.clamp(h, min=0.2).dtype is lucid.float16
    assert lucid.clamp(lucid.tensor([True, False]), min=0).dtype is lucid.int64
    assert (
        lucid.clamp(lucid.tensor([1.0, 2.0]), lucid.tensor([1.5], dtype=lucid.float64)).dtype
        is lucid.float64
    )


def test_clamp_errors():
    x = lucid.tensor([1.0, 2.0])
    with pytest.raises(lucid.errors.DTypeError, match="clamp: at least one of 'min' or 'max'"):
        lucid.clamp(x)
    with pytest.raises(lucid.errors.DTypeError, match="clamp: min must be a number"):
        lucid.clamp(x, min="0")
    with pytest.raises(lucid.errors.DTypeError, match="clamp: not implemented for bool"):
        lucid.clamp(lucid.tensor([True]), min=False, max=True)
    with pytest.raises(lucid.errors.DTypeError, match="clamp: bound -1000 .* int8"):
        lucid.clamp(lucid.tensor([1], dtype=lucid.int8), min=-1000)
    with pytest.raises(lucid.errors.ShapeError, match="clamp"):
        lucid.clamp(x, min=lucid.tensor([1.0, 2.0, 3.0]))


def test_clamp_min_max_helpers():
    x = lucid.tensor([-1.0, 0.5, 2.0])
    assert lucid.clamp_min(x, 0.0).tolist() == [0.0, 0.5, 2.0]
    assert x.clamp_max(1.0).tolist() == [-1.0, 0.5, 1.0]
    x.clamp_min_(0.0)
    assert x.tolist() == [0.0, 0.5, 2.0]


# -- nan_to_num, logit, sinc -------------------------------------------------------------------


@pytest.mark.parametrize("dt", ["float64", "float32", "float16", "bfloat16", "int64"])
@pytest.mark.parametrize(
    "kw", [{}, dict(nan=1.5, posinf=7.0, neginf=-7.0), dict(posinf=1e10)], ids=str
)
def test_nan_to_num(dt, kw):
    data = np.array([np.nan, np.inf, -np.inf, 1.0, -2.0]) if dt != "int64" else np.arange(4)
    tx = torch.tensor(data).to(getattr(torch, dt))
    lx = lucid.tensor(data, dtype=getattr(lucid, dt))
    got, want = lucid.nan_to_num(lx, **kw), torch.nan_to_num(tx, **kw)
    assert got.dtype.name == dt
    np.testing.assert_array_equal(got.numpy().astype(np.float64), want.to(torch.float64).numpy())


def test_nan_to_num_gradient_and_errors():
    data = np.array([np.nan, np.inf, 1.0, -2.0])
    _check_fwd_bwd("nan_to_num", data, TOL[np.float64], nan=3.0)
    with pytest.raises(lucid.errors.DTypeError, match="nan_to_num: posinf must be a number"):
        lucid.nan_to_num(lucid.tensor(data), posinf="big")


@pytest.mark.parametrize("eps", [None, 0.0, 0.1, 0.3, -1.0])
def test_logit_eps(eps):
    data = np.array([-0.2, 0.0, 0.05, 0.1, 0.3, 0.5, 0.9, 1.0, 1.3])
    _check_fwd_bwd("logit", data, TOL[np.float64], eps=eps)


def test_logit_bad_eps():
    with pytest.raises(lucid.errors.DTypeError, match="logit: eps must be a float"):
        lucid.logit(lucid.tensor([0.5]), eps="0.1")


def test_sinc_at_zero_first_and_second_derivative():
    x = lucid.tensor([0.0, 0.25], dtype=lucid.float64, requires_grad=True)
    tx = torch.tensor([0.0, 0.25], dtype=torch.float64, requires_grad=True)
    (g,) = lucid.autograd.grad(lucid.sinc(x).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad(torch.sinc(tx).sum(), tx, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-12)
    (gg,) = lucid.autograd.grad(g.sum(), x)
    (tgg,) = torch.autograd.grad(tg.sum(), tx)
    np.testing.assert_allclose(gg.numpy()[1:], tgg.numpy()[1:], rtol=1e-10)
    assert gg.numpy()[0] == 0.0  # PyTorch's where() lets a nan through here


@pytest.mark.parametrize(
    "name",
    [
        "tanh",
        "sigmoid",
        "erf",
        "erfinv",
        "rsqrt",
        "asin",
        "acosh",
        "logit",
        "atan",
        "reciprocal",
        "sqrt",
        "log1p",
    ],
)
def test_second_derivative_matches_torch(name):
    data = DOMAIN[name](6)
    lx, tx = _pair(data)
    (g,) = lucid.autograd.grad(getattr(lucid, name)(lx).sum(), lx, create_graph=True)
    (tg,) = torch.autograd.grad(getattr(torch, name)(tx).sum(), tx, create_graph=True)
    (gg,) = lucid.autograd.grad(g.sum(), lx)
    (tgg,) = torch.autograd.grad(tg.sum(), tx)
    np.testing.assert_allclose(gg.numpy(), tgg.numpy(), rtol=1e-10, atol=1e-12)


# -- in place --------------------------------------------------------------------------------

_INPLACE = [n for n in OPS if n not in ("nan_to_num",)] + ["nan_to_num", "clamp"]


@pytest.mark.parametrize("name", _INPLACE)
def test_inplace_value_version_and_leaf_error(name):
    kw = {"min": -0.5, "max": 0.5} if name == "clamp" else {}
    data = DOMAIN.get(name, _u(-1, 1))(6)
    x = lucid.tensor(data)
    v0 = x._version
    out = getattr(x, name + "_")(**kw)
    assert out is x and x._version == v0 + 1
    np.testing.assert_allclose(
        x.numpy(), getattr(torch, name)(torch.tensor(data), **kw).numpy(), rtol=1e-12
    )
    f = getattr(lucid, name + "_")
    y = lucid.tensor(data)
    f(y, **kw)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    leaf = lucid.tensor(data, requires_grad=True)
    with pytest.raises(lucid.errors.AutogradError, match=f"{name}_: a leaf Variable"):
        getattr(leaf, name + "_")(**kw)


@pytest.mark.parametrize("name", ["sigmoid", "tanh", "exp", "relu", "clamp", "sqrt", "abs"])
def test_inplace_gradient_matches_torch(name):
    kw = {"min": 0.2} if name == "clamp" else {}
    data = _RNG.uniform(0.1, 2, (2, 3))
    grads = []
    for lib in (lucid, torch):
        x = lib.tensor(data, requires_grad=True)
        y = x * 2
        getattr(y.transpose(0, 1), name + "_")(**kw)  # through a view
        (y * y).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_inplace_float_result_into_integer_tensor_raises():
    x = lucid.tensor([1, 2, 3])
    with pytest.raises(lucid.errors.DTypeError, match="exp_: result type float32 can't be cast"):
        x.exp_()
    x.neg_()
    assert x.tolist() == [-1, -2, -3]


def test_saved_tensor_modified_in_place_raises():
    x = lucid.tensor([0.5, 1.0], requires_grad=True)
    y = x * 1
    z = lucid.sigmoid(y)  # saves its output
    z.mul_(2)
    with pytest.raises(lucid.errors.VersionMismatchError, match="SigmoidBackward"):
        z.sum().backward()


# -- dunders, bool and dtype errors ------------------------------------------------------------


def test_dunders():
    data = np.array([1.5, -2.0, 0.0])
    x = lucid.tensor(data, requires_grad=True)
    assert (-x).tolist() == [-1.5, 2.0, -0.0]
    assert (+x) is x
    assert abs(x).tolist() == [1.5, 2.0, 0.0]
    (-x + abs(x)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [-1 + 1, -1 - 1, -1 + 0])
    assert (-lucid.tensor([1], dtype=lucid.uint8)).tolist() == [255]


@pytest.mark.parametrize(
    "fn",
    [
        lambda b: -b,
        lambda b: +b,
        lambda b: abs(b),
        lucid.relu,
        lucid.floor,
        lucid.trunc,
        lucid.round,
        lucid.neg,
    ],
)
def test_bool_rejected(fn):
    with pytest.raises(lucid.errors.DTypeError, match="bool"):
        fn(lucid.tensor([True, False]))


def test_frac_rejects_integers():
    with pytest.raises(
        lucid.errors.DTypeError, match="frac: expected a floating point tensor, got dtype int64"
    ):
        lucid.frac(lucid.tensor([1, 2]))


def test_python_scalars_and_lists_are_accepted():
    assert lucid.exp(0.0).item() == 1.0
    assert lucid.neg([1, 2]).tolist() == [-1, -2]
    assert lucid.floor(2.5).item() == 2.0


def test_step_ops_give_zero_gradients():
    for name in ("sign", "floor", "ceil", "round", "trunc"):
        x = lucid.tensor([0.3, -1.7], requires_grad=True)
        getattr(lucid, name)(x).sum().backward()
        assert x.grad.tolist() == [0.0, 0.0], name


def test_predicates_do_not_record_graph():
    x = lucid.tensor([1.0, float("nan")], requires_grad=True)
    y = lucid.isnan(x)
    assert y.dtype is lucid.bool and not y.requires_grad and y.grad_fn is None


# -- autocast policy -----------------------------------------------------------------------


def test_autocast_policies():
    x = lucid.tensor([0.5, -1.0], dtype=lucid.float16)
    with lucid.amp.autocast("cpu", dtype=lucid.float16):
        assert lucid.erf(x).dtype is lucid.float32  # FORCE_FP32
        assert lucid.sigmoid(x).dtype is lucid.float32
        assert lucid.relu(x).dtype is lucid.float16  # KEEP_INPUT
        assert lucid.clamp(x, min=0.0).dtype is lucid.float16
        assert lucid.neg(x).dtype is lucid.float16
