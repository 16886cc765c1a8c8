"""Element-wise binary and ternary ops and the arithmetic operators: parity with PyTorch
(values, dtypes, gradients) over broadcasting, 0-d, empty and non-contiguous inputs, every
dtype pair, Python scalars, special values (inf, nan, signed zero, division by zero); in-place
forms; error paths."""

import itertools

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import DTypeError, LucidError, ShapeError
from lucid.errors import DivisionByZeroError

from .saves_check import assert_saves_like_torch


def _m(*args):
    """The module (torch or lucid) of the tensors among ``args``, so one lambda serves
    both."""
    return torch if any(isinstance(x, torch.Tensor) for x in args) else lucid


def _np(t):
    t = t.detach()
    if isinstance(t, torch.Tensor):
        return (t.double() if t.is_floating_point() else t).numpy()
    return (t.double() if t.dtype.is_floating_point else t).numpy()


def _dname(t):
    return str(t.dtype).rsplit(".", 1)[-1]


def _same(l, t, rtol, atol):
    assert _dname(l) == _dname(t), (_dname(l), _dname(t))
    assert tuple(l.shape) == tuple(t.shape)
    np.testing.assert_allclose(_np(l), _np(t), rtol=rtol, atol=atol, equal_nan=True)


def _leaves(args, nc):
    """Lucid and torch leaves from numpy arrays (float ones require grad) and the inputs made
    from them (transposed views when ``nc``); other arguments pass through."""
    out = {"l": ([], []), "t": ([], [])}
    for a in args:
        if not isinstance(a, np.ndarray):
            for k in out:
                out[k][1].append(a)
            continue
        flip = nc and a.ndim >= 2
        base = np.ascontiguousarray(a.swapaxes(0, -1)) if flip else a
        for key, mod in (("l", lucid), ("t", torch)):
            leaf = mod.tensor(base.copy(), requires_grad=a.dtype.kind == "f")
            out[key][0].append(leaf)
            out[key][1].append(leaf.transpose(0, -1) if flip else leaf)
    return out


TOL = {np.float32: (2e-6, 1e-6), np.float64: (1e-12, 1e-14)}


def parity(fn, *args, tfn=None, nc=False, rtol=1e-12, atol=1e-14):
    """``fn`` on Lucid and torch agree in dtype, shape, values (nan included) and the
    gradients of every float leaf under a random upstream gradient."""
    ins = _leaves(args, nc)
    lo, to = fn(*ins["l"][1]), (tfn or fn)(*ins["t"][1])
    _same(lo, to, rtol, atol)
    assert lo.requires_grad == to.requires_grad
    if not to.requires_grad:
        return lo
    go = np.random.default_rng(1).standard_normal(tuple(to.shape))
    lo.backward(lucid.tensor(go).to(lo.dtype))
    to.backward(torch.tensor(go).to(to.dtype))
    for l, t in zip(ins["l"][0], ins["t"][0]):
        if t.grad is None:
            assert l.grad is None or not np.any(l.grad.numpy())
        else:
            _same(l.grad, t.grad, rtol, atol)
    return lo


def _rand(shape, kind, dtype, seed):
    rng = np.random.default_rng(seed)
    if kind == "pos":
        x = rng.uniform(0.5, 2.0, shape)
    elif kind == "nz":
        x = rng.uniform(0.3, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    else:
        x = rng.uniform(-3.0, 3.0, shape)
    return np.asarray(x, dtype=dtype)


def _div(mode):
    return lambda a, b: _m(a, b).div(a, b, rounding_mode=mode)


def _floordiv(a, b):
    """``a // b``; on torch (whose ``//`` has no derivative) the equivalent
    ``div(rounding_mode="floor")``, which has Lucid's zero gradient."""
    if _m(a, b) is lucid:
        return a // b
    a, b = (x if isinstance(x, torch.Tensor) else torch.tensor(x) for x in (a, b))
    return torch.div(a, b, rounding_mode="floor")


# name -> (fn taking (a, b) of one module, domain of a, domain of b)
BINARY = {
    "add": (lambda a, b: a + b, "any", "any"),
    "mul": (lambda a, b: a * b, "any", "any"),
    "sub": (lambda a, b: a - b, "any", "any"),
    "sub_alpha": (lambda a, b: _m(a, b).sub(a, b, alpha=-2.5), "any", "any"),
    "rsub": (lambda a, b: _m(a, b).rsub(a, b, alpha=2), "any", "any"),
    "div": (lambda a, b: a / b, "any", "nz"),
    "div_floor": (_div("floor"), "any", "nz"),
    "div_trunc": (_div("trunc"), "any", "nz"),
    "floor_divide": (lambda a, b: _floordiv(a, b), "any", "nz"),
    "true_divide": (lambda a, b: _m(a, b).true_divide(a, b), "any", "nz"),
    "pow": (lambda a, b: a**b, "pos", "any"),
    "float_power": (lambda a, b: _m(a, b).float_power(a, b), "pos", "any"),
    "remainder": (lambda a, b: a % b, "any", "nz"),
    "fmod": (lambda a, b: _m(a, b).fmod(a, b), "any", "nz"),
    "atan2": (lambda a, b: _m(a, b).atan2(a, b), "any", "any"),
    "arctan2": (lambda a, b: _m(a, b).arctan2(a, b), "any", "any"),
    "hypot": (lambda a, b: _m(a, b).hypot(a, b), "any", "any"),
    "maximum": (lambda a, b: _m(a, b).maximum(a, b), "any", "any"),
    "minimum": (lambda a, b: _m(a, b).minimum(a, b), "any", "any"),
    "fmax": (lambda a, b: _m(a, b).fmax(a, b), "any", "any"),
    "fmin": (lambda a, b: _m(a, b).fmin(a, b), "any", "any"),
    "logaddexp": (lambda a, b: _m(a, b).logaddexp(a, b), "any", "any"),
    "logaddexp2": (lambda a, b: _m(a, b).logaddexp2(a, b), "any", "any"),
    "xlogy": (lambda a, b: _m(a, b).xlogy(a, b), "any", "pos"),
    "copysign": (lambda a, b: _m(a, b).copysign(a, b), "nz", "any"),
    "where": (lambda a, b: _m(a, b).where(a > 0, a, b), "any", "any"),
    "lerp": (lambda a, b: _m(a, b).lerp(a, b, 0.3), "any", "any"),
    "lerp_tensor": (lambda a, b: _m(a, b).lerp(a, b, b), "any", "any"),
    "addcmul": (lambda a, b: _m(a, b).addcmul(a, b, a, value=0.5), "any", "any"),
    "addcdiv": (lambda a, b: _m(a, b).addcdiv(b, a, b, value=2), "any", "nz"),
}

SHAPES = [
    ((3, 4), (4,)),
    ((2, 1, 3), (4, 1)),
    ((), (2, 3)),
    ((2, 3), ()),
    ((), ()),
    ((0, 3), (3,)),
    ((3, 4), (3, 4)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(BINARY))
def test_float_parity_over_shapes(name, dtype):
    fn, da, db = BINARY[name]
    rtol, atol = TOL[dtype]
    for i, (sa, sb) in enumerate(SHAPES):
        parity(fn, _rand(sa, da, dtype, i), _rand(sb, db, dtype, i + 10), rtol=rtol, atol=atol)
    a, b = _rand((4, 3), da, dtype, 7), _rand((4, 3), db, dtype, 8)
    parity(fn, a, b, nc=True, rtol=rtol, atol=atol)


SPECIAL = np.array([-np.inf, -3.5, -1.0, -0.0, 0.0, 0.5, 1.0, 2.0, np.inf, np.nan])
_GRID_A, _GRID_B = (g.ravel() for g in np.meshgrid(SPECIAL, SPECIAL, indexing="ij"))
# torch's own gradients at these points are not from its formulas (fused kernels)
_SPECIAL_VALUES_ONLY = {"lerp", "lerp_tensor", "logaddexp2"}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's inf - inf in add/mul
@pytest.mark.parametrize("name", list(BINARY))
def test_special_values(name):
    """inf, nan, signed zeros and zero divisors, every pair: values and gradients."""
    fn = BINARY[name][0]
    if name in _SPECIAL_VALUES_ONLY:
        lo = fn(lucid.tensor(_GRID_A), lucid.tensor(_GRID_B))
        to = fn(torch.tensor(_GRID_A), torch.tensor(_GRID_B))
        _same(lo, to, 1e-12, 1e-15)  # torch's logaddexp2(-1, -1) is -5e-17, not 0
        return
    parity(fn, _GRID_A.copy(), _GRID_B.copy(), rtol=1e-12, atol=1e-300)


def test_signed_zero_and_division_by_zero_values():
    a = lucid.tensor([1.0, -1.0, 0.0, -0.0, np.inf])
    z = lucid.tensor([0.0, 0.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal((a / z).numpy(), [np.inf, -np.inf, np.nan, np.nan, np.inf])
    np.testing.assert_array_equal(
        np.signbit(lucid.remainder(lucid.tensor(-4.0), 2.0).numpy()), True
    )
    assert lucid.floor_divide(lucid.tensor(5.0), 0.1).item() == 49.0 == 5.0 // 0.1
    with np.errstate(all="raise"):  # no NumPy warning leaks out of the kernels
        for f in (
            lambda: a / z,
            lambda: a // z,
            lambda: a % z,
            lambda: lucid.fmod(a, z),
            lambda: z**-1.0,
            lambda: lucid.xlogy(a, z),
            lambda: a**0.5,
        ):
            f()


# -- every dtype pair and Python scalars: same dtype, values and errors as torch ----------

DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
]


def _typed(vals, name):
    t = torch.tensor(vals).to(getattr(torch, name))
    return lucid.tensor(t.double().numpy()).to(name), t


def _torch_call(fn, ta, tb):
    """``fn`` on torch operands; where torch's signature refuses a Python scalar, the scalar
    as a 0-d tensor (the same promotion)."""
    try:
        return fn(ta, tb)
    except TypeError as e:
        if isinstance(tb, torch.Tensor) or not any(
            m in str(e) for m in ("must be Tensor", "invalid combination", "infer")
        ):
            raise
    return fn(ta, torch.tensor(tb))


def _both_or_raise(fn, la, lb, ta, tb):
    """Same dtype and values as torch, or a Lucid error where torch raises."""
    try:
        to = _torch_call(fn, ta, tb)
    except (RuntimeError, TypeError, NotImplementedError):
        with pytest.raises(LucidError):
            fn(la, lb)
        return
    lo = fn(la, lb)
    half = "16" in _dname(to)
    _same(lo, to, 1e-2 if half else 1e-6, 1e-2 if half else 1e-6)


DTYPE_OPS = [n for n in BINARY if n not in ("where", "lerp_tensor")]


@pytest.mark.parametrize("name", DTYPE_OPS)
def test_every_dtype_pair_and_scalar(name):
    fn = BINARY[name][0]
    a_vals = [[-3.0, 0.0, 2.0], [1.0, -1.0, 3.0]]
    b_vals = [2.0, -3.0, 1.0]  # no zero divisor (integer division raises)
    for da, db in itertools.product(DTYPES, DTYPES):
        la, ta = _typed(a_vals, da)
        lb, tb = _typed(b_vals, db)
        _both_or_raise(fn, la, lb, ta, tb)
    if name in ("lerp", "addcmul", "addcdiv"):
        return  # their tensor arguments take no Python number
    for da in DTYPES:
        la, ta = _typed(a_vals, da)
        for s in (2, -2, 0.5, True):
            for f in (fn, lambda x, y: fn(y, x)):
                _both_or_raise(f, la, s, ta, s)


@pytest.mark.parametrize("name", ["div_floor", "div_trunc", "floor_divide", "remainder", "fmod"])
def test_integer_division_by_zero_raises(name):
    fn = BINARY[name][0]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(torch.tensor([1, 2]), torch.tensor([0, 1]))
    for dt in (lucid.int64, lucid.int32, lucid.uint8):
        with pytest.raises(DivisionByZeroError, match="division by zero"):
            fn(lucid.tensor([1, 2], dtype=dt), lucid.tensor([0, 1], dtype=dt))
    with pytest.raises(ZeroDivisionError):
        fn(lucid.tensor([1, 2]), 0)


def test_integer_semantics_match_torch():
    a = [-7, -6, -1, 0, 1, 6, 7, 127, -128]
    b = [2, -2, 3, -3, 5]
    for dt in ("int8", "int32", "int64"):
        la, ta = _typed([[x] for x in a], dt)
        lb, tb = _typed(b, dt)
        for fn in (
            lambda x, y: x // y,
            lambda x, y: x % y,
            lambda x, y: _m(x).fmod(x, y),
            _div("trunc"),
            lambda x, y: x * y,
            lambda x, y: x - y,
        ):
            _same(fn(la, lb), fn(ta, tb), 0, 0)
    base, exp_ = _typed([[2], [1], [-1], [0], [3], [-2]], "int64")
    e, te = _typed([-3, -2, -1, 0, 1, 2, 63], "int64")
    _same(base**e, exp_**te, 0, 0)  # negative exponents and overflow wrap
    e, te = _typed([3, 2, 1, 0, 1, 2, 63], "int64")
    _same(2**e, 2**te, 0, 0)
    _same(e**3, te**3, 0, 0)
    _same(lucid.tensor([True, False]) ** 2, torch.tensor([True, False]) ** 2, 0, 0)


def test_half_precision_matches_torch():
    rng = np.random.default_rng(4)
    a, b = rng.uniform(-3, 3, (4, 5)), rng.uniform(0.3, 3, (5,))
    for dt in ("float16", "bfloat16"):
        for name in DTYPE_OPS:
            fn, da, db = BINARY[name]
            x = np.abs(a) + 0.5 if da == "pos" else a
            la, ta = _typed(x.tolist(), dt)
            lb, tb = _typed(b.tolist(), dt)
            _both_or_raise(fn, la, lb, ta, tb)


# -- gradients in special positions ---------------------------------------------------------


def test_maximum_minimum_split_ties_and_pass_nan():
    a = np.array([1.0, 2.0, np.nan, 3.0, 0.0])
    b = np.array([1.0, 0.5, 1.0, np.nan, 4.0])
    for op in (torch.maximum, torch.minimum, torch.fmax, torch.fmin):
        name = op.__name__
        parity(lambda x, y: getattr(_m(x), name)(x, y), a, b)


def test_pow_gradient_masks_at_zero():
    a = np.array([0.0, 0.0, 0.0, 2.0, -2.0])
    b = np.array([0.0, 2.0, -1.0, 0.0, 3.0])
    parity(lambda x, y: x**y, a, b)
    parity(lambda x: x**0, a)
    parity(lambda x: x**2, a)
    parity(lambda x: 2.0**x, b)
    parity(lambda x: 0.0**x, b)


def test_where_gradients_are_masked():
    x = np.array([-1.0, 0.0, 1.0, 4.0])
    parity(lambda t: _m(t).where(t > 0, t * 2, 0.0), x)
    parity(lambda t: _m(t).where(t > 0, t, t * float("inf")), x)  # inf * 0 is nan, as torch
    parity(lambda t, u: _m(t).where(t > u, t, u), x, x[::-1].copy())


# (name, fn over inputs (t0, t1, t2), which inputs require grad): after the op, each input
# in turn is written in place; backward must raise exactly where torch's does (the value was
# saved) and otherwise give torch's gradients (what the backward does not need is not saved).
SAVES = [
    ("mul_scalar", lambda t: t[0] * 3.0, (0,)),
    ("div_scalar", lambda t: t[0] / 4.0, (0,)),
    ("remainder_scalar", lambda t: t[0] % 3.0, (0,)),
    ("remainder", lambda t: t[0] % t[1], (0,)),
    ("fmod", lambda t: _m(t[0]).fmod(t[0], t[1]), (0,)),
    ("hypot", lambda t: _m(t[0]).hypot(t[0], t[1]), (0,)),
    ("copysign", lambda t: _m(t[0]).copysign(t[0], t[1]), (0,)),
    ("copysign_b", lambda t: _m(t[0]).copysign(t[0], t[1]), (1,)),
    ("copysign_ab", lambda t: _m(t[0]).copysign(t[0], t[1]), (0, 1)),
    ("where", lambda t: _m(t[0]).where(t[2] > 1, t[0], t[1]), (0, 1)),
    ("lerp_a", lambda t: _m(t[0]).lerp(t[0], t[1], t[2]), (0,)),
    ("lerp_w", lambda t: _m(t[0]).lerp(t[0], t[1], t[2]), (2,)),
    ("addcmul", lambda t: _m(t[0]).addcmul(t[0], t[1], t[2], value=0.5), (1,)),
    ("addcdiv", lambda t: _m(t[0]).addcdiv(t[0], t[1], t[2], value=2.0), (1,)),
    ("addcdiv_x", lambda t: _m(t[0]).addcdiv(t[0], t[1], t[2], value=2.0), (0,)),
    ("addcdiv_t2", lambda t: _m(t[0]).addcdiv(t[0], t[1], t[2], value=2.0), (2,)),
    ("addcmul_x", lambda t: _m(t[0]).addcmul(t[0], t[1], t[2], value=0.5), (0,)),
    ("atan2", lambda t: _m(t[0]).atan2(t[0], t[1]), (1,)),
    ("pow", lambda t: t[0] ** t[1], (0,)),
]


@pytest.mark.parametrize("name,fn,wrt", SAVES, ids=[s[0] for s in SAVES])
def test_inputs_the_backward_does_not_need_are_not_saved(name, fn, wrt):
    vals = [np.array([0.5, 1.5, 2.5]), np.array([1.25, -0.75, 2.0]), np.array([0.5, 2.0, 1.5])]
    assert_saves_like_torch(name, fn, wrt, vals)


def test_where_promotes_and_accepts_scalars():
    cond = [True, False, True]
    for x, y in (
        (1, 0),
        (1.5, 0),
        (True, False),
        ("i32", 0.5),
        ("i32", "f64"),
        ("u8", "i8"),
        ("f16", 2),
        ("b", 3),
    ):

        def mk(v, mod):
            names = {
                "i32": "int32",
                "f64": "float64",
                "u8": "uint8",
                "i8": "int8",
                "f16": "float16",
                "b": "bool",
            }
            if isinstance(v, str):
                return mod.tensor([1, 0, 2]).to(getattr(mod, names[v]))
            return v

        lo = lucid.where(lucid.tensor(cond), mk(x, lucid), mk(y, lucid))
        to = torch.where(torch.tensor(cond), mk(x, torch), mk(y, torch))
        _same(lo, to, 0, 0)
    _same(
        lucid.where(lucid.tensor([1, 0], dtype=lucid.uint8), 1.0, 2.0),
        torch.tensor([1.0, 2.0]),
        0,
        0,
    )
    x = lucid.tensor([1.0, -2.0, 3.0])
    _same(x.where(x > 0, -1.0), torch.tensor([1.0, -1.0, 3.0]), 0, 0)


def test_lerp_weight_forms():
    a, b = np.linspace(-1, 1, 6).reshape(2, 3), np.linspace(2, 0, 6).reshape(2, 3)
    for w in (0.0, 1.0, 0.25, 0.75, -1.5):
        parity(lambda x, y: _m(x).lerp(x, y, w), a, b)
    parity(lambda x, y, w: _m(x).lerp(x, y, w), a, b, np.array([0.2, 0.7, 1.2]))
    lo = lucid.lerp(
        lucid.tensor(a).float(), lucid.tensor(b).float(), lucid.tensor(0.5, dtype=lucid.float64)
    )
    assert lo.dtype is lucid.float32


def test_addcmul_addcdiv_promote_like_torch():
    t1 = np.array([[1.0, -2.0, 3.0]])
    t2 = np.array([[0.5], [2.0]])
    parity(lambda x, y, z: _m(x).addcmul(x, y, z, value=-3), np.zeros(3), t1, t2)
    parity(lambda x, y, z: _m(x).addcdiv(x, y, z, value=0.5), np.zeros(3), t1, t2)
    for mod in (lucid, torch):
        i = mod.tensor([2, 3])
        assert _dname(mod.addcmul(i, i, i, value=2)) == "int64"
        assert _dname(mod.addcmul(mod.tensor([1.0]), i, i)) == "float32"
        assert _dname(mod.addcdiv(mod.tensor([1.0]), mod.tensor([2.0]), i)) == "float32"
    np.testing.assert_array_equal(
        lucid.addcmul(
            lucid.tensor([2, 3]), lucid.tensor([2, 3]), lucid.tensor([2, 3]), value=2.5
        ).numpy(),
        torch.addcmul(
            torch.tensor([2, 3]), torch.tensor([2, 3]), torch.tensor([2, 3]), value=2.5
        ).numpy(),
    )


# -- operators and in-place forms -----------------------------------------------------------

OPERATORS = [
    lambda a, b: a - b,
    lambda a, b: a / b,
    _floordiv,
    lambda a, b: a % b,
    lambda a, b: a**b,
]


def test_reflected_operators_with_scalars():
    x = np.array([[0.5, -1.5, 2.0]])
    for op in OPERATORS:
        # bool scalars: torch rejects ``True - t`` (so does Lucid) and crashes on ``True ** t``
        for s in (2, -3.5) if op in (OPERATORS[0], OPERATORS[4]) else (2, -3.5, True):
            parity(lambda t: op(t, s), np.abs(x))
            if op is OPERATORS[3]:  # torch has no derivative of ``scalar % t``
                _same(s % lucid.tensor(x), s % torch.tensor(x), 1e-12, 0)
                continue
            parity(lambda t: op(s, t), np.abs(x) if op is OPERATORS[4] else x)
    for op in OPERATORS[:4]:  # torch's ``7 / t`` is ``t.reciprocal() * 7``: 1 ulp off
        _same(op(7, lucid.tensor([2, -3])), op(7, torch.tensor([2, -3])), 2e-7, 0)
    t = lucid.tensor([1.0, 2.0], requires_grad=True)
    (3.0 % t).sum().backward()  # d(a - b floor(a/b))/db = -floor(a/b)
    assert t.grad.tolist() == [-3.0, -1.0]


INPLACE = [
    ("sub_", (2.0,), {}),
    ("sub_", (np.array([1.0, 2.0, 3.0]),), {"alpha": 2}),
    ("subtract_", (1,), {}),
    ("div_", (np.array([2.0, -4.0, 0.5]),), {}),
    ("div_", (3,), {"rounding_mode": "floor"}),
    ("divide_", (2,), {}),
    ("true_divide_", (2,), {}),
    ("pow_", (2,), {}),
    ("pow_", (np.array([0.5, 2.0, 3.0]),), {}),
    ("remainder_", (0.7,), {}),
    ("fmod_", (-0.7,), {}),
    ("atan2_", (np.array([1.0, -2.0, 0.5]),), {}),
    ("arctan2_", (np.array([1.0]),), {}),
    ("hypot_", (np.array([1.0, 2.0, 0.5]),), {}),
    ("xlogy_", (2.0,), {}),
    ("copysign_", (-1.0,), {}),
    ("lerp_", (np.array([1.0, 2.0, 0.5]), 0.3), {}),
    ("addcmul_", (np.array([1.0, 2.0, 0.5]), np.array([2.0])), {"value": 2}),
    ("addcdiv_", (np.array([1.0, 2.0, 0.5]), np.array([2.0])), {"value": 2}),
    ("float_power_", (2,), {}),
]


@pytest.mark.parametrize("method,args,kwargs", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_methods_match_torch(method, args, kwargs):
    base = np.array([0.5, 1.5, 2.5])

    def run(mod):
        w = mod.tensor(base.copy(), requires_grad=True)
        others = [
            mod.tensor(a, requires_grad=True) if isinstance(a, np.ndarray) else a for a in args
        ]
        x = w * 1.0
        res = getattr(x, method)(*others, **kwargs)
        assert res is x
        (x * mod.tensor([1.0, -2.0, 3.0], dtype=x.dtype)).sum().backward()
        return [x, w.grad] + [o.grad for o in others if isinstance(o, mod.Tensor)]

    for l, t in zip(run(lucid), run(torch)):
        _same(l, t, 1e-12, 1e-14)


def test_augmented_assignment_operators():
    for op in ("-=", "/=", "//=", "%=", "**=", "&=", "|=", "^="):
        outs = []
        for mod in (lucid, torch):
            x = mod.tensor([5, 6, 7]) if op in ("&=", "|=", "^=") else mod.tensor([5.0, 6, 7])
            y = x
            exec(f"x {op} 3")
            assert y is x
            outs.append(x)
        _same(outs[0], outs[1], 0, 0)
    x = lucid.tensor([1, 2])
    with pytest.raises(DTypeError, match="divide_.*float32.*int64"):
        x /= 2
    x //= 2
    x.floor_divide_(lucid.tensor([1, -1]))
    assert x.tolist() == [0, -1]
    with pytest.raises(DTypeError, match="float_power_.*float64"):
        lucid.tensor([1.0]).float_power_(2)


# -- errors ----------------------------------------------------------------------------------


def test_error_paths():
    f, i, b = lucid.tensor([1.0, 2.0]), lucid.tensor([1, 2]), lucid.tensor([True, False])
    cases = [
        (DTypeError, "sub: .*bool", lambda: b - b),
        (DTypeError, "sub: .*bool", lambda: i - b),
        (DTypeError, "sub: .*bool", lambda: 1 - b),
        (DTypeError, "sub: .*alpha", lambda: lucid.sub(i, i, alpha=0.5)),
        (
            ValueError,
            "div: .*rounding_mode.*'round'",
            lambda: lucid.div(f, f, rounding_mode="round"),
        ),
        (DTypeError, "pow: integers to negative", lambda: i**-1),
        (DTypeError, "pow: .*bool", lambda: b**b),
        (DTypeError, "div.*bool", lambda: b // b),
        (DTypeError, "remainder: .*bool", lambda: b % b),
        (DTypeError, "hypot: .*int64", lambda: lucid.hypot(i, i)),
        (DTypeError, "logaddexp: .*int64", lambda: lucid.logaddexp(i, i)),
        (DTypeError, "logaddexp2: .*int64", lambda: lucid.logaddexp2(i, i)),
        (DTypeError, "lerp: .*int64", lambda: lucid.lerp(i, i, 0.5)),
        (
            DTypeError,
            "lerp: expected dtype float32 for `end`",
            lambda: lucid.lerp(f, f.double(), 0.5),
        ),
        (
            DTypeError,
            "lerp: expected dtype float32 for `weight`",
            lambda: lucid.lerp(f, f, f.double()),
        ),
        (DTypeError, "lerp: .*'end' must be a Tensor", lambda: lucid.lerp(f, 2.0, 0.5)),
        (DTypeError, "addcdiv: integer division", lambda: lucid.addcdiv(f, i, i)),
        (DTypeError, "addcmul: .*tensor1.*must be a Tensor", lambda: lucid.addcmul(f, 2, f)),
        (DTypeError, "where: expected condition to be a bool", lambda: lucid.where(i, f, f)),
        (DTypeError, "where: expected a Tensor or a number", lambda: lucid.where(b, f, "x")),
        (DTypeError, "sub: expected a Tensor or a number", lambda: f - "x"),
        (
            ShapeError,
            r"div: shapes \(2,\), \(3,\) cannot be broadcast",
            lambda: f / lucid.tensor([1.0, 2.0, 3.0]),
        ),
        (
            ShapeError,
            r"where: shapes .*cannot be broadcast",
            lambda: lucid.where(b, f, lucid.tensor([1.0, 2.0, 3.0])),
        ),
        (
            ShapeError,
            r"lerp: shapes .*cannot be broadcast",
            lambda: lucid.lerp(f, lucid.tensor([1.0, 2.0, 3.0]), 0.5),
        ),
    ]
    for exc, match, fn in cases:
        with pytest.raises(exc, match=match):
            fn()
    with pytest.raises(TypeError):
        f - None


def test_results_never_require_grad_for_integer_outputs():
    x = lucid.tensor([1.0, 2.5], requires_grad=True)
    assert (x // 1).requires_grad  # like torch: float rounding keeps the graph
    assert not (lucid.tensor([3, 4]) // 2).requires_grad
    with lucid.no_grad():
        assert not (x - 1).requires_grad
