"""Comparison and logic ops and operators: parity with PyTorch (values, dtypes) over every
dtype pair, Python scalars, broadcasting, 0-d, empty and non-contiguous inputs, nan and inf;
``equal``/``allclose``/``isclose``/``isin`` semantics; in-place forms; error paths."""

import itertools
import operator

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import DTypeError, LucidError, ShapeError

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


def _same(l, t):
    assert str(l.dtype).rsplit(".", 1)[-1] == str(t.dtype).rsplit(".", 1)[-1]
    assert tuple(l.shape) == tuple(t.shape)
    lv = l.numpy() if not l.dtype.is_floating_point else l.double().numpy()
    tv = t.numpy() if not t.is_floating_point() else t.double().numpy()
    np.testing.assert_array_equal(lv, tv)


def _m(*args):
    return torch if any(isinstance(x, torch.Tensor) for x in args) else lucid


def _torch_call(fn, ta, tb):
    """``fn`` on torch operands; where torch's signature refuses a Python scalar, the scalar
    as a 0-d tensor (the same promotion)."""
    try:
        return fn(ta, tb)
    except TypeError as e:
        if (
            tb is None
            or isinstance(tb, torch.Tensor)
            or not any(m in str(e) for m in ("must be Tensor", "invalid combination"))
        ):
            raise
    return fn(ta, torch.tensor(tb))


def _torch_or_raise(fn, la, lb, ta, tb):
    try:
        to = _torch_call(fn, ta, tb)
    except (RuntimeError, TypeError, NotImplementedError):
        with pytest.raises(LucidError):
            fn(la, lb)
        return
    _same(fn(la, lb), to)


OPS = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
    "greater": lambda a, b: _m(a, b).greater(a, b),
    "greater_equal": lambda a, b: _m(a, b).greater_equal(a, b),
    "less": lambda a, b: _m(a, b).less(a, b),
    "less_equal": lambda a, b: _m(a, b).less_equal(a, b),
    "not_equal": lambda a, b: _m(a, b).not_equal(a, b),
    "logical_and": lambda a, b: _m(a, b).logical_and(a, b),
    "logical_or": lambda a, b: _m(a, b).logical_or(a, b),
    "logical_xor": lambda a, b: _m(a, b).logical_xor(a, b),
    "and": operator.and_,
    "or": operator.or_,
    "xor": operator.xor,
    "bitwise_and": lambda a, b: _m(a, b).bitwise_and(a, b),
}


@pytest.mark.parametrize("name", list(OPS))
def test_every_dtype_pair_and_scalar(name):
    fn = OPS[name]
    a_vals = [[-3.0, 0.0, 2.0, 1.0], [1.0, -1.0, 3.0, 2.0]]
    b_vals = [2.0, 0.0, 2.0, -1.0]
    for da, db in itertools.product(DTYPES, DTYPES):
        la, ta = _typed(a_vals, da)
        lb, tb = _typed(b_vals, db)
        _torch_or_raise(fn, la, lb, ta, tb)
    for da in DTYPES:
        la, ta = _typed(a_vals, da)
        for s in (2, -1, 0.5, 2.0, True, False):
            _torch_or_raise(fn, la, s, ta, s)
            _torch_or_raise(lambda x, y: fn(y, x), la, s, ta, s)


SHAPES = [((3, 4), (4,)), ((2, 1, 3), (4, 1)), ((), (2, 3)), ((), ()), ((0, 3), (3,)), ((0,), ())]


@pytest.mark.parametrize("name", ["eq", "lt", "ge", "logical_xor", "xor"])
def test_shapes_and_noncontiguous(name):
    fn = OPS[name]
    rng = np.random.default_rng(0)
    for sa, sb in SHAPES:
        a, b = rng.integers(-2, 3, sa), rng.integers(-2, 3, sb)
        _same(fn(lucid.tensor(a), lucid.tensor(b)), fn(torch.tensor(a), torch.tensor(b)))
    a = rng.integers(-2, 3, (4, 3))
    b = rng.integers(-2, 3, (3, 4))
    lo = fn(lucid.tensor(a).transpose(0, 1), lucid.tensor(b))
    assert not lucid.tensor(a).transpose(0, 1).is_contiguous()
    _same(lo, fn(torch.tensor(a).T, torch.tensor(b)))


def test_nan_and_inf():
    vals = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0]
    a, b = zip(*itertools.product(vals, vals))
    for name in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"):
        fn = OPS[name]
        _same(fn(lucid.tensor(a), lucid.tensor(b)), fn(torch.tensor(a), torch.tensor(b)))
    _same(lucid.logical_not(lucid.tensor(vals)), torch.logical_not(torch.tensor(vals)))


def test_results_are_bool_and_never_require_grad():
    x = lucid.tensor([1.0, 2.0], requires_grad=True)
    for r in (
        x == 1,
        x < 2.0,
        x != x,
        lucid.logical_and(x, x),
        lucid.isclose(x, x),
        lucid.isin(x, x),
        lucid.logical_not(x),
    ):
        assert r.dtype is lucid.bool and not r.requires_grad and r.grad_fn is None


def test_unary_logic_and_invert():
    for name in DTYPES:
        l, t = _typed([[-2.0, 0.0, 3.0]], name)
        _same(lucid.logical_not(l), torch.logical_not(t))
        _torch_or_raise(lambda x, _: ~x, l, None, t, None)
        _torch_or_raise(lambda x, _: _m(x).bitwise_not(x), l, None, t, None)


def test_isclose_matches_torch():
    a = [1.0, 1.0 + 1e-6, 1.1, float("inf"), float("inf"), float("nan"), 0.0, -0.0, 1e-9]
    b = [1.0, 1.0, 1.0, float("inf"), -float("inf"), float("nan"), 1e-9, 0.0, 0.0]
    for dt in ("float64", "float32", "float16", "bfloat16"):
        la, ta = _typed(a, dt)
        lb, tb = _typed(b, dt)
        for kw in (
            {},
            {"equal_nan": True},
            {"rtol": 0.0, "atol": 0.0},
            {"rtol": 0.2, "atol": 0.0},
            {"rtol": 0.0, "atol": 1e-8},
        ):
            _same(lucid.isclose(la, lb, **kw), torch.isclose(ta, tb, **kw))
            assert lucid.allclose(la, lb, **kw) == torch.allclose(ta, tb, **kw)
    for dt in ("int64", "int8", "uint8", "bool"):
        la, ta = _typed([0, 1, 5, 100, -128, 2**62 + 1], dt)
        lb, tb = _typed([0, 2, 5, 101, 127, 2**62], dt)
        for kw in ({}, {"rtol": 0.01}, {"atol": 1.0}, {"atol": 0.5, "rtol": 0.0}):
            _same(lucid.isclose(la, lb, **kw), torch.isclose(ta, tb, **kw))
    _same(
        lucid.isclose(lucid.tensor([[1.0], [2.0]]), lucid.tensor([1.0, 2.0])),
        torch.isclose(torch.tensor([[1.0], [2.0]]), torch.tensor([1.0, 2.0])),
    )
    assert lucid.allclose(lucid.tensor([1.0, 2.0]), lucid.tensor([[1.0, 2.0]]))
    assert not lucid.allclose(lucid.tensor([1.0]), lucid.tensor([1.1]))


def test_equal():
    f = lucid.tensor([1.0, 2.0])
    assert (
        lucid.equal(f, lucid.tensor([1, 2]))
        is torch.equal(torch.tensor([1.0, 2.0]), torch.tensor([1, 2]))
        is True
    )
    assert lucid.equal(f, lucid.tensor([[1.0, 2.0]])) is False
    assert lucid.equal(lucid.tensor([float("nan")]), lucid.tensor([float("nan")])) is False
    assert f.equal(lucid.tensor([1.0, 3.0])) is False
    assert lucid.equal(lucid.tensor([]), lucid.tensor([])) is True


def test_isin_matches_torch():
    cases = [
        ([1, 2, 3], [1.5, 2.0]),
        ([[1, 2], [3, 4]], [[1], [4]]),
        ([1.0, float("nan")], [float("nan"), 1.0]),
        ([5, 6], []),
        ([], [1, 2]),
    ]
    for e, t in cases:
        for invert in (False, True):
            _same(
                lucid.isin(lucid.tensor(e), lucid.tensor(t), invert=invert),
                torch.isin(torch.tensor(e), torch.tensor(t), invert=invert),
            )
    _same(lucid.isin(lucid.tensor([1, 2, 3]), 2), torch.isin(torch.tensor([1, 2, 3]), 2))
    _same(lucid.isin(2, lucid.tensor([1, 2, 3])), torch.isin(2, torch.tensor([1, 2, 3])))
    _same(
        lucid.isin(lucid.tensor([1, 2], dtype=lucid.uint8), lucid.tensor([2, 300])),
        torch.isin(torch.tensor([1, 2], dtype=torch.uint8), torch.tensor([2, 300])),
    )


def test_equality_operators_with_foreign_objects():
    t = lucid.tensor([1, 2])
    assert (t == None) is False and (t != None) is True  # noqa: E711 (torch semantics)
    assert (t == "a") is False and (t == [1, 2]) is False
    assert t in [t]
    with pytest.raises(TypeError):
        t < None  # noqa: B015
    assert len({t, lucid.tensor([1, 2])}) == 2  # still hashable by identity
    _same(np.int64(1) == t, torch.tensor([True, False]))


INPLACE = [
    "eq_",
    "ne_",
    "lt_",
    "le_",
    "gt_",
    "ge_",
    "greater_",
    "less_equal_",
    "not_equal_",
    "logical_and_",
    "logical_or_",
    "logical_xor_",
]


@pytest.mark.parametrize("method", INPLACE)
def test_inplace_comparisons_keep_dtype(method):
    for dt in ("float32", "int64"):
        l, t = _typed([0.0, 1.0, 2.0], dt)
        lo, to = getattr(l, method)(1), getattr(t, method)(torch.tensor(1))
        assert lo is l
        _same(lo, to)


def test_inplace_logic_and_bitwise():
    for method, arg in (
        ("logical_not_", ()),
        ("bitwise_not_", ()),
        ("bitwise_and_", (6,)),
        ("bitwise_or_", (6,)),
        ("bitwise_xor_", (6,)),
    ):
        l, t = _typed([0, 3, 5], "int32")
        assert getattr(l, method)(*arg) is l
        _same(l, getattr(t, method)(*arg))
    b = lucid.tensor([True, False])
    b &= lucid.tensor([True, True])
    b |= lucid.tensor([False, False])
    b ^= True
    assert b.tolist() == [False, True]
    with pytest.raises(DTypeError, match="bitwise_and_.*int64.*bool"):
        b &= 2


def test_error_paths():
    f, i = lucid.tensor([1.0, 2.0]), lucid.tensor([1, 2])
    cases = [
        (DTypeError, "bitwise_and: .*float32", lambda: f & f),
        (DTypeError, "bitwise_or: .*float32", lambda: i | 1.5),
        (DTypeError, "bitwise_not: .*float32", lambda: ~f),
        (DTypeError, "isclose: .*same dtype.*int64 and float32", lambda: lucid.isclose(i, f)),
        (DTypeError, "isclose: argument 'other' must be a Tensor", lambda: lucid.isclose(f, 1.0)),
        (ValueError, "isclose: rtol and atol", lambda: lucid.isclose(f, f, rtol=-1)),
        (
            DTypeError,
            "isin: unsupported input type bool",
            lambda: lucid.isin(i, lucid.tensor([True])),
        ),
        (DTypeError, "isin: expected elements or test_elements", lambda: lucid.isin(1, 2)),
        (
            ShapeError,
            r"lt: shapes \(2,\), \(3,\) cannot be broadcast",
            lambda: f < lucid.tensor([1.0, 2.0, 3.0]),
        ),
        (DTypeError, "eq: expected a Tensor or a number", lambda: lucid.eq(f, "x")),
    ]
    for exc, match, fn in cases:
        with pytest.raises(exc, match=match):
            fn()
