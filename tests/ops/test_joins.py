"""Joins and splits: parity with PyTorch (values, dtypes, gradients, including outputs left
unused), dtype promotion, empty and legacy-empty inputs, views of split outputs, errors."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import DimError, DTypeError, LucidError, ShapeError

from .test_shape import _data, _m, parity


def _cat(name):
    return lambda *xs: getattr(_m(xs[0]), name)(list(xs))


CASES = [
    ("cat", lambda a, b: _m(a).cat([a, b]), [(2, 3), (1, 3)]),
    ("cat-neg", lambda a, b, c: _m(a).cat([a, b, c], -1), [(2, 1), (2, 3), (2, 2)]),
    ("cat-one", lambda a: _m(a).cat([a], 1), [(2, 3)]),
    ("cat-empty", lambda a, b: _m(a).cat((a, b), 1), [(2, 0), (2, 3)]),
    ("cat-all-empty", lambda a, b: _m(a).cat([a, b], 0), [(0, 3), (0, 3)]),
    ("cat-legacy-empty", lambda a, b: _m(a).cat([a, b], 1), [(2, 3), (0,)]),
    ("concat", lambda a, b: _m(a).concat([a, b], dim=-2), [(2, 3), (1, 3)]),
    ("concatenate", lambda a, b: _m(a).concatenate([a, b], 0), [(2,), (3,)]),
    ("stack", lambda a, b: _m(a).stack([a, b]), [(2, 3), (2, 3)]),
    ("stack-neg", lambda a, b: _m(a).stack((a, b), -1), [(2, 3), (2, 3)]),
    ("stack-0d", lambda a, b: _m(a).stack([a, b]), [(), ()]),
    ("stack-empty", lambda a, b: _m(a).stack([a, b], 1), [(0, 2), (0, 2)]),
    ("hstack-1d", _cat("hstack"), [(3,), (2,)]),
    ("hstack-2d", _cat("hstack"), [(2, 1), (2, 3)]),
    ("hstack-0d", _cat("hstack"), [(), (2,)]),
    ("vstack", _cat("vstack"), [(3,), (2, 3)]),
    ("row_stack", _cat("row_stack"), [(3,), (3,)]),
    ("dstack", _cat("dstack"), [(2, 3), (2, 3, 2)]),
    ("dstack-1d", _cat("dstack"), [(3,), (3,)]),
    ("column_stack", _cat("column_stack"), [(3,), (3, 2), (3,)]),
    ("column_stack-0d", _cat("column_stack"), [(), ()]),
    ("atleast_1d", lambda a: _m(a).atleast_1d(a), [()]),
    ("atleast_2d", lambda a, b: _m(a).atleast_2d(a, b), [(3,), ()]),
    ("atleast_3d", lambda a, b, c: _m(a).atleast_3d([a, b, c]), [(3,), (2, 3), ()]),
    ("split-int", lambda x: x.split(2, 1), [(3, 5)]),
    ("split-int-exact", lambda x: _m(x).split(x, 3), [(6, 2)]),
    ("split-big", lambda x: x.split(10), [(3, 2)]),
    ("split-sizes", lambda x: x.split([1, 0, 3], -1), [(2, 4)]),
    ("split-empty", lambda x: x.split(2), [(0, 3)]),
    ("split-zero-empty", lambda x: x.split(0), [(0, 3)]),
    ("split-one-used", lambda x: x.split([1, 3])[1], [(4, 2)]),
    ("chunk", lambda x: x.chunk(3, -1), [(2, 7)]),
    ("chunk-fewer", lambda x: _m(x).chunk(x, 4), [(6,)]),
    ("chunk-empty", lambda x: x.chunk(3), [(0, 2)]),
    ("chunk-some-used", lambda x: x.chunk(3)[::2], [(6, 2)]),
    ("tensor_split", lambda x: x.tensor_split(3), [(7, 2)]),
    ("tensor_split-more", lambda x: _m(x).tensor_split(x, 4, dim=1), [(2, 3)]),
    ("tensor_split-idx", lambda x: x.tensor_split([1, 4], -1), [(2, 6)]),
    ("tensor_split-neg", lambda x: x.tensor_split([-2]), [(5,)]),
    ("tensor_split-unsorted", lambda x: x.tensor_split([1, 7, 3]), [(5, 2)]),
    ("tensor_split-tensor", lambda x: x.tensor_split(_m(x).tensor([2, 3])), [(5,)]),
    ("tensor_split-tensor0d", lambda x: x.tensor_split(_m(x).tensor(2)), [(5,)]),
    ("unbind", lambda x: x.unbind(), [(3, 2)]),
    ("unbind-neg", lambda x: _m(x).unbind(x, -1), [(2, 3)]),
    ("unbind-one-used", lambda x: x.unbind(1)[2], [(2, 3, 2)]),
    ("unbind-empty-dim", lambda x: x.unbind(1), [(2, 0)]),
    ("iter", lambda x: list(x), [(3, 2)]),
]


def _ids(cases):
    return [c[0] for c in cases]


@pytest.mark.parametrize("nc", [False, True], ids=["contig", "noncontig"])
@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_parity_float64(case, nc):
    _, fn, shapes = case
    if nc and not any(len(s) >= 2 for s in shapes):
        pytest.skip("no dim to transpose")
    parity(fn, *[_data(s, np.float64, i) for i, s in enumerate(shapes)], nc=nc)


@pytest.mark.parametrize(
    "dtype", [np.float32, np.int64, np.uint8, np.bool_], ids=["f32", "i64", "u8", "bool"]
)
@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_parity_other_dtypes(case, dtype):
    _, fn, shapes = case
    parity(fn, *[_data(s, dtype, i) for i, s in enumerate(shapes)], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "dts",
    [(np.float32, np.float64), (np.int64, np.float32), (np.bool_, np.int32), (np.uint8, np.int8)],
    ids=["f32+f64", "i64+f32", "bool+i32", "u8+i8"],
)
@pytest.mark.parametrize("op", ["cat", "stack"])
def test_promotion(op, dts):
    parity(
        lambda a, b: getattr(_m(a), op)([a, b]),
        _data((2, 3), dts[0]),
        _data((2, 3), dts[1], 1),
        rtol=1e-6,
        atol=1e-6,
    )


def test_cat_legacy_empty_promotes():
    out = lucid.cat(
        [lucid.tensor(np.zeros((2, 2), np.float32)), lucid.tensor(np.zeros(0, np.float64))], 1
    )
    ref = torch.cat([torch.zeros(2, 2), torch.zeros(0, dtype=torch.float64)], 1)
    assert out.shape == ref.shape and out.dtype.name == "float64" == str(ref.dtype)[6:]


def test_split_outputs_are_views():
    x = lucid.tensor(np.arange(12.0).reshape(4, 3))
    parts = x.split([1, 3])
    assert all(p._base is x and np.shares_memory(p.numpy(), x.numpy()) for p in parts)
    parts[1].mul_(0.0)
    assert x._version == parts[0]._version == 1
    np.testing.assert_array_equal(x.numpy()[1:], 0)
    rows = x.unbind(1)
    assert rows[2]._base is x and rows[2].shape == (4,)
    rows[2].add_(5.0)
    np.testing.assert_array_equal(x.numpy()[:, 2], [7, 5, 5, 5])


def test_split_of_view_chains_to_base():
    """A split output of a view writes through to the root base on in-place."""
    x0 = _data((3, 4), np.float64)
    res = []
    for mod in (lucid, torch):
        x = mod.tensor(x0, requires_grad=True)
        b = x * 1.0
        v = b.t()
        part = v.narrow(0, 2, 2)  # chunk's outputs refuse in-place writes (PyTorch)
        part.mul_(3.0)
        (b * b).sum().backward()
        res.append((b.detach().numpy(), x.grad.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_unused_outputs_get_zero_grad():
    x = lucid.tensor(_data((3, 4), np.float64), requires_grad=True)
    a, b, c = x.unbind(0)
    (b * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0] * 4, [2] * 4, [0] * 4])
    y = lucid.tensor(_data((5,), np.float64), requires_grad=True)
    y.split(2)[2].sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [0, 0, 0, 0, 1])


def test_cat_grad_only_where_required():
    a = lucid.tensor(_data((2, 3), np.float64), requires_grad=True)
    b = lucid.tensor(_data((2, 2), np.float64))
    y = lucid.cat([a, b], 1)
    (y * y).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * a.detach().numpy())
    assert b.grad is None


def test_grad_fn_names():
    x = lucid.tensor(_data((4, 2), np.float64), requires_grad=True)
    assert type(lucid.cat([x, x]).grad_fn).__name__ == "CatBackward"
    assert type(lucid.stack([x, x]).grad_fn).__name__ == "StackBackward"
    assert type(x.split(2)[0].grad_fn).__name__ == "SplitBackward"
    assert type(x.unbind()[0].grad_fn).__name__ == "UnbindBackward"


# -- errors -------------------------------------------------------------------------

_a = lucid.tensor(np.zeros((2, 3)))
_b = lucid.tensor(np.zeros((2, 4)))
_s = lucid.tensor(1.0)

ERRORS = [
    (
        lambda: lucid.cat([_a, _b]),
        ShapeError,
        r"cat: sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 "
        r"for tensor number 1.*\(dimension 1\)",
    ),
    (
        lambda: lucid.cat([_a, lucid.tensor(np.zeros((2, 3, 1)))]),
        ShapeError,
        "cat: tensors must have same number of dimensions: got 2 and 3",
    ),
    (lambda: lucid.cat([_s, _s]), ShapeError, r"cat: zero-dimensional tensor \(at position 0\)"),
    (
        lambda: lucid.cat([lucid.tensor([]), _s]),
        ShapeError,
        r"cat: zero-dimensional tensor \(at "
        r"position 1\)",
    ),
    (lambda: lucid.cat([_a, _a], 2), DimError, r"cat: dimension out of range.*2"),
    (lambda: lucid.cat([]), ShapeError, "cat: expected a non-empty list"),
    (lambda: lucid.cat(_a), ShapeError, "cat: expected a sequence of tensors"),
    (lambda: lucid.cat([_a, 1.0]), DTypeError, "cat: expected Tensor as element 1"),
    (
        lambda: lucid.stack([_a, _b]),
        ShapeError,
        r"stack: expects each tensor to be equal size, but got \[2, 3\] at entry 0 and \[2, 4\] "
        "at entry 1",
    ),
    (lambda: lucid.stack([_a, _a], 3), DimError, "stack"),
    (lambda: lucid.stack([]), ShapeError, "stack: expected a non-empty list"),
    (lambda: lucid.hstack([_a, _b.t()]), ShapeError, "^hstack: sizes of tensors must match"),
    (lambda: _a.split(-1), ShapeError, "split: split_size must be non-negative"),
    (lambda: _a.split(0), ShapeError, "split: split_size can only be 0 if dimension size is 0"),
    (
        lambda: _a.split([1, 2]),
        ShapeError,
        r"split: split_with_sizes expects split_sizes to sum exactly to 2 .*split_sizes=\[1, 2\]",
    ),
    (lambda: _a.split([3, -1], 1), ShapeError, "split_with_sizes"),
    (lambda: _a.split(1, 2), DimError, "split"),
    (lambda: _s.split(1), DimError, "split: expects at least a 1-dimensional tensor"),
    (lambda: _a.chunk(2.0), DTypeError, "chunk: chunks must be an int, got float"),
    (lambda: _a.split([1.0, 1.0]), DTypeError, "split: expected a sequence of ints"),
    (lambda: _a.chunk(0), ShapeError, "chunk: expects `chunks` to be greater than 0, got: 0"),
    (lambda: _s.chunk(2), DimError, "chunk"),
    (lambda: _a.tensor_split(0), ShapeError, "tensor_split: number of sections must be larger"),
    (lambda: _a.tensor_split(lucid.tensor([1.5])), ShapeError, "tensor_split: expected"),
    (lambda: _a.tensor_split(2, 3), DimError, "tensor_split"),
    (lambda: _s.unbind(), DimError, "unbind: dimension specified as 0 but tensor has no dim"),
    (lambda: _a.unbind(2), DimError, "unbind"),
    (lambda: iter(_s), TypeError, "0-d"),
]


@pytest.mark.parametrize("fn,exc,match", ERRORS, ids=[e[2][:30] for e in ERRORS])
def test_errors(fn, exc, match):
    with pytest.raises(exc, match=match):
        fn()
    assert issubclass(exc, (LucidError, TypeError))
