"""Sort and search: parity with PyTorch (values, indices, dtypes, gradients of values) over
0-d, empty, non-contiguous, negative-dim, integer/bool and NaN inputs; stability and ties;
unique/searchsorted/histc/bincount edge cases; error paths."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import DimError, DTypeError, IndexingError, ShapeError

from .test_linalg import _data, parity

F = [np.float64, np.float32]
NAN = float("nan")


def _ties(shape, dtype, seed=0):
    """Data with many equal values, so order among ties matters."""
    return np.random.default_rng(seed).integers(0, 3, size=shape).astype(dtype)


# -- sort, argsort, topk, kthvalue ------------------------------------------------------

SORTS = [
    ("sort", lambda m, x: m.sort(x, stable=True), (3, 5)),
    ("sort-dim0-desc", lambda m, x: x.sort(dim=0, descending=True, stable=True), (4, 3)),
    ("sort-neg", lambda m, x: m.sort(x, dim=-2, descending=True, stable=True), (2, 4, 3)),
    ("sort-0d", lambda m, x: m.sort(x, stable=True), ()),
    ("sort-empty", lambda m, x: m.sort(x, dim=0, stable=True), (0, 3)),
    ("sort-empty-dim", lambda m, x: m.sort(x, stable=True), (2, 0)),
    ("argsort", lambda m, x: m.argsort(x, dim=0, descending=True, stable=True), (4, 3)),
    ("msort", lambda m, x: m.msort(x), (4, 3)),
    ("topk", lambda m, x: m.topk(x, 2), (3, 5)),
    ("topk-smallest", lambda m, x: x.topk(3, dim=0, largest=False), (4, 3)),
    ("topk-k0", lambda m, x: m.topk(x, 0), (3, 5)),
    ("topk-0d", lambda m, x: m.topk(x, 1), ()),
    ("topk-all", lambda m, x: m.topk(x, 5, -1), (2, 5)),
    ("topk-empty", lambda m, x: m.topk(x, 1), (0, 3)),
    ("kthvalue", lambda m, x: m.kthvalue(x, 2), (3, 5)),
    ("kthvalue-keepdim", lambda m, x: x.kthvalue(4, 0, True), (4, 3)),
    ("kthvalue-0d", lambda m, x: m.kthvalue(x, 1), ()),
    ("kthvalue-empty", lambda m, x: m.kthvalue(x, 1, 1), (0, 3)),
]
STABLE = [c for c in SORTS if "sort" in c[0] and c[0] != "msort"]


@pytest.mark.parametrize("dtype", F, ids=["f64", "f32"])
@pytest.mark.parametrize("nc", [False, True], ids=["c", "nc"])
@pytest.mark.parametrize("name,fn,shape", SORTS, ids=[c[0] for c in SORTS])
def test_sort_parity(name, fn, shape, nc, dtype):
    parity(fn, _data(shape, dtype), nc=nc)


@pytest.mark.parametrize("dtype", [np.int64, np.int16, np.uint8, np.bool_, np.float32])
@pytest.mark.parametrize("name,fn,shape", STABLE, ids=[c[0] for c in STABLE])
def test_sort_ties_stable_parity(name, fn, shape, dtype):
    """Data full of ties: the indices equal torch's stable sort, both directions."""
    parity(fn, _ties(shape, dtype), nc=True)


def test_sort_stability_and_nan():
    x = np.array([2.0, NAN, 1.0, 2.0, NAN, 1.0, 3.0])
    for desc in (False, True):
        parity(lambda m, t: m.sort(t, descending=desc, stable=True), x)
    bf = lucid.tensor(np.array([3.0, 1.0, 2.0], np.float32)).to(lucid.bfloat16)
    v, i = lucid.sort(bf)
    assert v.dtype is lucid.bfloat16 and i.tolist() == [1, 2, 0]


def test_topk_kthvalue_ties():
    """Among ties torch's order is unspecified: values must match, indices must point at
    the values."""
    x = _ties((4, 7), np.float64, seed=3)
    for largest in (True, False):
        lv, li = lucid.topk(lucid.tensor(x), 4, largest=largest)
        tv, _ = torch.topk(torch.tensor(x), 4, largest=largest)
        np.testing.assert_array_equal(lv.numpy(), tv.numpy())
        np.testing.assert_array_equal(np.take_along_axis(x, li.numpy(), -1), lv.numpy())
        assert len({tuple(r) for r in np.sort(li.numpy(), -1)}) >= 1
        assert all(len(set(r)) == 4 for r in li.numpy().tolist())
    lv, li = lucid.kthvalue(lucid.tensor(x), 3, 0)
    np.testing.assert_array_equal(lv.numpy(), torch.kthvalue(torch.tensor(x), 3, 0)[0].numpy())
    np.testing.assert_array_equal(x[li.numpy(), np.arange(7)], lv.numpy())


def test_sort_grad_goes_back_through_permutation():
    x = lucid.tensor([3.0, 1.0, 2.0], requires_grad=True)
    r = lucid.sort(x, descending=True)
    assert r.indices.dtype is lucid.int64 and not r.indices.requires_grad
    (r.values * lucid.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert x.grad.tolist() == [1.0, 100.0, 10.0]
    t = lucid.tensor([3.0, 1.0, 2.0], requires_grad=True)
    lucid.topk(t, 1).values.sum().backward()
    assert t.grad.tolist() == [1.0, 0.0, 0.0]


SORT_ERRORS = [
    (lambda x: lucid.sort(x, 2), DimError, r"sort: dimension out of range"),
    (
        lambda x: lucid.topk(x, 6),
        IndexingError,
        r"topk: selected index k out of range \(got k=6 for a dim of size 5",
    ),
    (lambda x: lucid.topk(x, -1), IndexingError, r"topk: selected index k out of range"),
    (lambda x: lucid.kthvalue(x, 0), IndexingError, r"kthvalue: selected number k out of range"),
    (lambda x: lucid.kthvalue(x, 4, 0), IndexingError, r"expected 1 <= k <= 3"),
    (lambda x: lucid.argsort(x, -3), DimError, r"^argsort: dimension out of range"),
]


@pytest.mark.parametrize("fn,err,msg", SORT_ERRORS, ids=[str(i) for i in range(len(SORT_ERRORS))])
def test_sort_errors(fn, err, msg):
    with pytest.raises(err, match=msg):
        fn(lucid.tensor(_data((3, 5), np.float64)))


# -- unique ------------------------------------------------------------------------------

UNIQUES = [
    ("flat", lambda m, x: m.unique(x), np.array([[3, 1, 2], [1, 0, 3]])),
    (
        "inverse-counts",
        lambda m, x: m.unique(x, return_inverse=True, return_counts=True),
        np.array([[3, 1, 2], [1, 0, 3]]),
    ),
    (
        "dim0",
        lambda m, x: m.unique(x, dim=0, return_inverse=True, return_counts=True),
        np.array([[1, 2], [1, 2], [0, 3]]),
    ),
    (
        "dim-neg",
        lambda m, x: m.unique(x, dim=-1, return_inverse=True),
        np.array([[1, 1, 0], [2, 2, 3]]),
    ),
    (
        "floats-nan",
        lambda m, x: m.unique(x, return_inverse=True, return_counts=True),
        np.array([3.0, NAN, 1.0, 1.0, NAN]),
    ),
    ("bool", lambda m, x: m.unique(x, return_counts=True), np.array([True, False, True])),
    ("0d", lambda m, x: m.unique(x, return_inverse=True, return_counts=True), np.array(3)),
    ("empty", lambda m, x: m.unique(x, return_inverse=True, return_counts=True), np.zeros((0, 2))),
    (
        "empty-dim",
        lambda m, x: m.unique(x, dim=0, return_inverse=True, return_counts=True),
        np.zeros((0, 2)),
    ),
    (
        "consecutive",
        lambda m, x: m.unique_consecutive(x, return_inverse=True, return_counts=True),
        np.array([1, 1, 2, 2, 1, 3]),
    ),
    (
        "consecutive-2d",
        lambda m, x: x.unique_consecutive(return_counts=True),
        np.array([[1, 1], [2, 1]]),
    ),
    (
        "consecutive-dim",
        lambda m, x: m.unique_consecutive(x, return_inverse=True, return_counts=True, dim=0),
        np.array([[1, 1], [1, 1], [2, 1], [1, 1]]),
    ),
    (
        "consecutive-0d",
        lambda m, x: m.unique_consecutive(x, return_inverse=True, return_counts=True),
        np.array(4),
    ),
    (
        "consecutive-nan",
        lambda m, x: m.unique_consecutive(x, return_counts=True),
        np.array([NAN, NAN, 1.0, 1.0]),
    ),
]


@pytest.mark.parametrize("name,fn,x", UNIQUES, ids=[c[0] for c in UNIQUES])
def test_unique_parity(name, fn, x):
    # (torch marks unique's float outputs as requiring grad though it has no derivative)
    out = parity(lambda m, t: fn(m, t.detach()), x)
    assert all(not t.requires_grad for t in out)


def test_unique_sorted_false_is_sorted_as_documented():
    """PyTorch leaves the order of ``sorted=False`` unspecified; Lucid documents a sorted
    result: the same set as torch's, in ascending order, with matching counts/inverse."""
    x = np.array([5, 1, 5, 2, 1, 5])
    v, inv, c = lucid.tensor(x).unique(sorted=False, return_inverse=True, return_counts=True)
    assert v.tolist() == [1, 2, 5] and c.tolist() == [2, 1, 3]
    np.testing.assert_array_equal(v.numpy()[inv.numpy()], x)
    tv, tinv, tc = torch.tensor(x).unique(sorted=False, return_inverse=True, return_counts=True)
    assert dict(zip(tv.tolist(), tc.tolist())) == dict(zip(v.tolist(), c.tolist()))
    np.testing.assert_array_equal(tv.numpy()[tinv.numpy()], x)


def test_unique_errors():
    with pytest.raises(DimError, match="unique: dimension out of range"):
        lucid.unique(lucid.tensor([[1, 2]]), dim=2)
    with pytest.raises(DimError, match="unique: dimension specified as 0 but tensor has no"):
        lucid.unique(lucid.tensor(3), dim=0)
    with pytest.raises(ShapeError, match="unique: there are 0 sized dimensions"):
        lucid.unique(lucid.tensor(np.zeros((2, 0))), dim=0)
    with pytest.raises(DimError, match="unique_consecutive: dimension out of range"):
        lucid.unique_consecutive(lucid.tensor([1, 2]), dim=1)


# -- searchsorted, bucketize -----------------------------------------------------------------

SEQ = np.array([1.0, 2.0, 2.0, 3.0, 5.0])
SEQ2 = np.array([[1, 3, 5, 7, 9], [2, 2, 4, 4, 6]])
SEARCHES = [
    ("1d", lambda m, s, v: m.searchsorted(s, v), SEQ, np.array([0.0, 2.0, 2.5, 5.0, 6.0])),
    (
        "1d-right",
        lambda m, s, v: m.searchsorted(s, v, right=True),
        SEQ,
        np.array([[0.0, 2.0], [2.5, 5.0]]),
    ),
    ("1d-side", lambda m, s, v: m.searchsorted(s, v, side="right"), SEQ, np.array([2.0, 3.0])),
    ("1d-int32", lambda m, s, v: m.searchsorted(s, v, out_int32=True), SEQ, np.array([2.0])),
    ("nd", lambda m, s, v: m.searchsorted(s, v), SEQ2, np.array([[0, 3, 10], [2, 3, 6]])),
    (
        "nd-right",
        lambda m, s, v: m.searchsorted(s, v, right=True),
        SEQ2,
        np.array([[0, 3, 10], [2, 4, 6]]),
    ),
    (
        "nd-3d",
        lambda m, s, v: m.searchsorted(s, v),
        np.sort(_data((2, 3, 4), np.float64), -1),
        _data((2, 3, 2), np.float64, 1),
    ),
    (
        "mixed-dtypes",
        lambda m, s, v: m.searchsorted(s, v),
        np.array([1, 2, 3]),
        np.array([1.5, 2.0]),
    ),
    ("empty-values", lambda m, s, v: m.searchsorted(s, v), SEQ, np.zeros((0,))),
    ("empty-seq", lambda m, s, v: m.searchsorted(s, v), np.zeros((0,)), np.array([1.0])),
    ("0d-value", lambda m, s, v: m.searchsorted(s, v), SEQ, np.array(2.0)),
    (
        "bucketize",
        lambda m, v, b: m.bucketize(v, b),
        np.array([[0.0, 2.0, 2.5], [5.0, 6.0, 1.0]]),
        SEQ,
    ),
    (
        "bucketize-right",
        lambda m, v, b: m.bucketize(v, b, right=True, out_int32=True),
        np.array([0.0, 2.0, 2.5, 5.0]),
        SEQ,
    ),
]


@pytest.mark.parametrize("name,fn,a,b", SEARCHES, ids=[c[0] for c in SEARCHES])
def test_search_parity(name, fn, a, b):
    parity(lambda m, x, y: fn(m, x.detach(), y.detach()), a, b)


def test_search_sorter_and_scalars():
    s, order = np.array([3.0, 1.0, 2.0]), np.array([1, 2, 0])
    for side in ("left", "right"):
        parity(
            lambda m, x, v, o: m.searchsorted(x, v, side=side, sorter=o),
            s,
            np.array([2.0, 0.5, 4.0]),
            order,
        )
    s2 = np.array([[3, 1, 2], [9, 7, 8]])
    o2 = np.argsort(s2, -1)
    parity(lambda m, x, v, o: m.searchsorted(x, v, sorter=o), s2, np.array([[2], [8]]), o2)
    assert lucid.searchsorted(lucid.tensor(SEQ), 2.5).tolist() == 3
    assert lucid.bucketize(2.5, lucid.tensor(SEQ)).tolist() == 3


SEARCH_ERRORS = [
    (
        lambda: lucid.searchsorted(lucid.tensor([[1, 2]]), lucid.tensor([1, 5])),
        ShapeError,
        r"first N-1 dimensions .* \[1, 2\] and input value tensor \[2\]",
    ),
    (lambda: lucid.searchsorted(lucid.tensor([[1, 2]]), 1), ShapeError, r"searchsorted: "),
    (
        lambda: lucid.searchsorted(lucid.tensor(1), lucid.tensor([1])),
        ShapeError,
        r"searchsorted: boundaries tensor should be 1 dimension or more",
    ),
    (
        lambda: lucid.searchsorted(lucid.tensor([1.0]), lucid.tensor([1.0]), side="bad"),
        ValueError,
        r"searchsorted: side can only be 'left' or 'right'",
    ),
    (
        lambda: lucid.searchsorted(
            lucid.tensor([1.0]), lucid.tensor([1.0]), side="left", right=True
        ),
        ValueError,
        r"can't be set to opposites",
    ),
    (
        lambda: lucid.searchsorted(
            lucid.tensor([2.0, 1]), lucid.tensor([1.0]), sorter=lucid.tensor([1.0, 0])
        ),
        DTypeError,
        r"sorter must be",
    ),
    (
        lambda: lucid.searchsorted(
            lucid.tensor([2.0, 1]), lucid.tensor([1.0]), sorter=lucid.tensor([1, 0, 2])
        ),
        ShapeError,
        r"same size",
    ),
    (
        lambda: lucid.searchsorted(
            lucid.tensor([2.0, 1]), lucid.tensor([1.0]), sorter=lucid.tensor([1, 5])
        ),
        IndexingError,
        r"out of range",
    ),
    (
        lambda: lucid.searchsorted(lucid.tensor([True]), lucid.tensor([True])),
        DTypeError,
        r"must be numeric, got bool",
    ),
    (
        lambda: lucid.bucketize(lucid.tensor([1, 5]), lucid.tensor([[1, 2]])),
        ShapeError,
        r"bucketize: boundaries tensor must be 1 dimension, but got dim\(2\)",
    ),
]


@pytest.mark.parametrize(
    "fn,err,msg", SEARCH_ERRORS, ids=[str(i) for i in range(len(SEARCH_ERRORS))]
)
def test_search_errors(fn, err, msg):
    with pytest.raises(err, match=msg):
        fn()


# -- histc, bincount -----------------------------------------------------------------------

HISTS = [
    ("default", {}, _data((40,), np.float64)),
    ("bins", {"bins": 3}, np.array([1.0, 2, 3, 4])),
    ("range", {"bins": 4, "min": -0.5, "max": 0.5}, _data((5, 6), np.float64)),
    ("edges", {"bins": 5, "min": 0, "max": 1}, np.array([0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.1])),
    ("equal-range", {"bins": 4, "min": 1, "max": 1}, np.array([0.6, 1.0, 1.4])),
    ("constant-data", {"bins": 4}, np.array([2.0, 2.0])),
    ("empty", {"bins": 3}, np.zeros((0,))),
    ("nan-inf-outside", {"bins": 3, "min": 0, "max": 3}, np.array([0.0, 1, 2, 3, NAN, np.inf])),
]


@pytest.mark.parametrize("dtype", F, ids=["f64", "f32"])
@pytest.mark.parametrize("name,kw,x", HISTS, ids=[c[0] for c in HISTS])
def test_histc_parity(name, kw, x, dtype):
    parity(lambda m, t: m.histc(t.detach(), **kw), x.astype(dtype))


def test_histc_errors():
    x = lucid.tensor([1.0, 2.0])
    with pytest.raises(DTypeError, match="histc: expected a floating point input, got int64"):
        lucid.histc(lucid.tensor([1, 2]))
    with pytest.raises(ValueError, match="histc: bins must be > 0, but got 0"):
        lucid.histc(x, bins=0)
    with pytest.raises(ValueError, match="histc: max must be larger than min"):
        lucid.histc(x, bins=3, min=3, max=1)
    with pytest.raises(ValueError, match=r"histc: range of \[nan, nan\] is not finite"):
        lucid.histc(lucid.tensor([1.0, NAN]))


BINCOUNTS = [
    ("plain", lambda m, x: m.bincount(x), np.array([0, 1, 1, 4])),
    ("minlength", lambda m, x: x.bincount(minlength=7), np.array([0, 1, 1, 4])),
    ("empty", lambda m, x: m.bincount(x), np.zeros((0,), np.int64)),
    ("empty-minlength", lambda m, x: m.bincount(x, minlength=3), np.zeros((0,), np.int64)),
    ("uint8", lambda m, x: m.bincount(x), np.array([1, 2, 2], np.uint8)),
]


@pytest.mark.parametrize("name,fn,x", BINCOUNTS, ids=[c[0] for c in BINCOUNTS])
def test_bincount_parity(name, fn, x):
    parity(fn, x)


@pytest.mark.parametrize("wdtype", [np.float32, np.float64, np.int64, np.float16])
def test_bincount_weights_dtype(wdtype):
    w = np.array([0.5, 1.0, 2.0, 4.0]).astype(wdtype)
    parity(lambda m, x, t: m.bincount(x, t.detach(), 6), np.array([0, 1, 1, 4]), w)


def test_bincount_errors():
    with pytest.raises(ValueError, match="bincount: only supports non-negative inputs"):
        lucid.bincount(lucid.tensor([-1, 2]))
    with pytest.raises(ShapeError, match=r"bincount: only supports 1-d inputs, got shape \(1, 2\)"):
        lucid.bincount(lucid.tensor([[1, 2]]))
    with pytest.raises(DTypeError, match="bincount: only supports integral inputs, got float32"):
        lucid.bincount(lucid.tensor([1.0, 2.0]))
    with pytest.raises(DTypeError, match="got bool"):
        lucid.bincount(lucid.tensor([True, False]))
    with pytest.raises(ValueError, match="bincount: minlength should be >= 0, got -1"):
        lucid.bincount(lucid.tensor([1, 2]), minlength=-1)
    with pytest.raises(ShapeError, match="bincount: weights should be 1-d and have the same"):
        lucid.bincount(lucid.tensor([1, 2]), weights=lucid.tensor([1.0, 2.0, 3.0]))
