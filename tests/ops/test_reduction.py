"""Reductions and scans: parity with PyTorch (values, dtypes, gradients) over dims None /
int / tuple / negative / empty, keepdim, 0-d, empty and non-contiguous inputs, float32 /
float64 and integer/bool inputs; ties; zeros in products; (values, indices) results;
error paths."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import ArgumentTypeError, DimError, DTypeError, ShapeError

pytestmark = pytest.mark.filterwarnings("ignore:.*degrees of freedom:UserWarning")

F32, F64 = np.float32, np.float64
TOL = {F32: (2e-5, 1e-5), F64: (1e-10, 1e-12)}
LAYOUTS = [(F32, False), (F64, True)]  # float32 contiguous, float64 non-contiguous


def _m(x):
    """The module (torch or lucid) a tensor belongs to, so one lambda serves both."""
    return torch if isinstance(x, torch.Tensor) else lucid


def _dname(dt):
    return str(dt).rsplit(".", 1)[-1]


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-3, 4, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _leaves(a, nc):
    """Lucid and torch leaves and the inputs made of them (non-contiguous with ``nc``)."""
    out = []
    flip = nc and a.ndim >= 2
    base = np.ascontiguousarray(a.swapaxes(0, -1)) if flip else a
    for mod in (lucid, torch):
        leaf = mod.tensor(base.copy(), requires_grad=a.dtype.kind == "f")
        out.append((leaf, leaf.transpose(0, -1) if flip else leaf))
    return out


def _list(r):
    return [r] if isinstance(r, (lucid.Tensor, torch.Tensor)) else list(r)


def parity(fn, a, nc=False, tfn=None, tol=None):
    """``fn`` on Lucid and torch agree: shapes, dtypes, values, and the input gradient
    under a random upstream gradient for every differentiable output."""
    rtol, atol = tol or TOL.get(a.dtype.type, (1e-10, 1e-12))
    (ll, lx), (tl, tx) = _leaves(a, nc)
    lo, to = _list(fn(lx)), _list((tfn or fn)(tx))
    assert len(lo) == len(to)
    for l, t in zip(lo, to):
        assert tuple(l.shape) == tuple(t.shape)
        assert l.dtype.name == _dname(t.dtype), (l.dtype, t.dtype)
        np.testing.assert_allclose(
            l.detach().numpy().astype(F64), t.detach().numpy().astype(F64), rtol=rtol, atol=atol
        )
    pairs = [(l, t) for l, t in zip(lo, to) if t.requires_grad]
    assert [l.requires_grad for l in lo] == [t.requires_grad for t in to]
    if not pairs:
        return lo
    rng = np.random.default_rng(1)
    gos = [rng.standard_normal(tuple(t.shape)).astype(_dname(t.dtype)) for _, t in pairs]
    lg = lucid.autograd.grad([l for l, _ in pairs], [ll], [lucid.tensor(g) for g in gos])[0]
    tg = torch.autograd.grad(
        [t for _, t in pairs], [tl], [torch.tensor(g) for g in gos], allow_unused=True
    )[0]
    tg = torch.zeros_like(tl) if tg is None else tg  # PyTorch: no graph for norm(p=0)
    np.testing.assert_allclose(
        lg.numpy().astype(F64), tg.detach().numpy().astype(F64), rtol=rtol, atol=atol
    )
    return lo


DIMS = [None, 0, -1, (0, 2), (-1, 1), ()]

# (id, fn(x, dim, keepdim)) for reductions over a list of dims
MULTI = [
    ("sum", lambda x, d, k: _m(x).sum(x, d, k) if d is not None else x.sum()),
    ("mean", lambda x, d, k: x.mean(d, k) if d is not None else x.mean()),
    ("nansum", lambda x, d, k: _m(x).nansum(x, d, k) if d is not None else x.nansum()),
    ("nanmean", lambda x, d, k: _m(x).nanmean(x, d, k) if d is not None else x.nanmean()),
    ("amax", lambda x, d, k: _m(x).amax(x, () if d is None else d, k)),
    ("amin", lambda x, d, k: _m(x).amin(x, () if d is None else d, k)),
    ("var", lambda x, d, k: _m(x).var(x, d, keepdim=k)),
    ("var_c0", lambda x, d, k: _m(x).var(x, d, keepdim=k, correction=0)),
    ("std", lambda x, d, k: _m(x).std(x, d, keepdim=k)),
    ("std_c2", lambda x, d, k: x.std(d, keepdim=k, correction=2)),
    ("var_mean", lambda x, d, k: _m(x).var_mean(x, d, keepdim=k)),
    ("std_mean", lambda x, d, k: _m(x).std_mean(x, d, keepdim=k, correction=0)),
    ("logsumexp", lambda x, d, k: _m(x).logsumexp(x, tuple(range(x.ndim)) if d is None else d, k)),
    ("norm2", lambda x, d, k: _m(x).norm(x, 2, d, k)),
    ("norm1", lambda x, d, k: _m(x).norm(x, 1, d, k)),
    ("norm_inf", lambda x, d, k: _m(x).norm(x, float("inf"), d, k)),
    ("norm_ninf", lambda x, d, k: _m(x).norm(x, float("-inf"), d, k)),
    ("norm3", lambda x, d, k: _m(x).norm(x, 3, d, k)),
    ("norm0.5", lambda x, d, k: _m(x).norm(x, 0.5, d, k)),
    ("norm0", lambda x, d, k: _m(x).norm(x, 0, d, k)),
    ("all", lambda x, d, k: _m(x).all(x, d, k) if d is not None else x.all()),
    ("any", lambda x, d, k: _m(x).any(x, d, k) if d is not None else x.any()),
    ("count_nonzero", lambda x, d, k: _m(x).count_nonzero(x, d)),
]
# PyTorch: logsumexp(()) raises, all/any(()) reduce nothing, and var/std(()) reduce every
# dim but their backward divides by N - c with N = 1 (inf gradients): skip ()
_SKIP_EMPTY = {"logsumexp", "all", "any", "var", "var_c0", "std", "std_c2", "var_mean", "std_mean"}


@pytest.mark.parametrize("dtype,nc", LAYOUTS, ids=["f32", "f64-nc"])
@pytest.mark.parametrize("keepdim", [False, True], ids=["drop", "keep"])
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("name,fn", MULTI, ids=[c[0] for c in MULTI])
def test_reduction_parity(name, fn, dim, keepdim, dtype, nc):
    if dim == () and name in _SKIP_EMPTY:
        return
    a = _data((2, 3, 4), dtype)
    if name.startswith("nan"):
        a.reshape(-1)[[0, 5, 7, 13]] = np.nan
    parity(lambda x: fn(x, dim, keepdim), a, nc=nc)


# (id, fn(x, dim, keepdim)) for reductions over one dim (or all, with None)
SINGLE = [
    ("prod", lambda x, d, k: x.prod(d, k) if d is not None else x.prod()),
    ("max", lambda x, d, k: _m(x).max(x, d, k) if d is not None else x.max()),
    ("min", lambda x, d, k: x.min(d, k) if d is not None else _m(x).min(x)),
    ("median", lambda x, d, k: _m(x).median(x, d, k) if d is not None else x.median()),
    ("mode", lambda x, d, k: _m(x).mode(x, -1 if d is None else d, k)),
    ("argmax", lambda x, d, k: _m(x).argmax(x, d, k)),
    ("argmin", lambda x, d, k: x.argmin(d, k)),
]


@pytest.mark.parametrize("dtype,nc", LAYOUTS, ids=["f32", "f64-nc"])
@pytest.mark.parametrize("keepdim", [False, True], ids=["drop", "keep"])
@pytest.mark.parametrize("dim", [None, 0, 1, -1], ids=str)
@pytest.mark.parametrize("name,fn", SINGLE, ids=[c[0] for c in SINGLE])
def test_single_dim_parity(name, fn, dim, keepdim, dtype, nc):
    if name == "mode":  # distinct values: every count ties, so the documented rule decides
        check_picks("mode", _data((3, 4, 5), dtype), -1 if dim is None else dim, keepdim)
        return
    parity(lambda x: fn(x, dim, keepdim), _data((3, 4, 5), dtype), nc=nc)


@pytest.mark.parametrize("name,fn", MULTI + SINGLE, ids=[c[0] for c in MULTI + SINGLE])
def test_zero_dim_input(name, fn):
    a = np.array(0.7)
    parity(lambda x: fn(x, None, False), a)
    if name not in _SKIP_EMPTY:
        parity(lambda x: fn(x, 0, True), a)
        parity(lambda x: fn(x, -1, False), a)


EMPTY_OK = [
    "sum",
    "mean",
    "nansum",
    "nanmean",
    "var",
    "std",
    "var_mean",
    "logsumexp",
    "norm2",
    "norm1",
    "norm3",
    "norm0",
    "all",
    "any",
    "count_nonzero",
]


@pytest.mark.parametrize("name", EMPTY_OK)
@pytest.mark.parametrize("dim", [None, 0, 1], ids=str)
def test_empty_input(name, dim):
    fn = dict(MULTI)[name]
    parity(lambda x: fn(x, dim, False), np.zeros((0, 3)))


@pytest.mark.parametrize(
    "name", ["amax", "amin", "max", "min", "argmax", "median", "mode", "prod", "norm_inf"]
)
def test_empty_along_nonempty_dim(name):
    fn = dict(MULTI + SINGLE)[name]
    parity(lambda x: fn(x, 1, False), np.zeros((0, 3)))
    if name != "prod":
        with pytest.raises(DimError, match="non-zero size"):
            fn(lucid.zeros(0, 3), 0, False)


def test_empty_without_dim():
    x = lucid.zeros(0, 3)
    assert float(x.prod()) == 1.0 and float(x.sum()) == 0.0
    assert np.isnan(float(x.mean())) and np.isnan(float(x.median()))
    for fn in (lucid.amax, lucid.max, lucid.min, lucid.argmax, lucid.argmin):
        with pytest.raises(DimError, match="numel\\(\\) == 0"):
            fn(x)
    with pytest.raises(DimError, match="numel"):
        lucid.norm(x, float("inf"))


# -- integer and bool inputs -------------------------------------------------------------

INT_OPS = [
    ("sum", lambda x: x.sum()),
    ("sum_dim", lambda x: _m(x).sum(x, (0, 1), True)),
    ("sum_dtype", lambda x: x.sum(1, dtype=_m(x).int32)),
    ("nansum", lambda x: x.nansum(0)),
    ("prod", lambda x: x.prod(1)),
    ("mean_dtype", lambda x: x.mean(0, dtype=_m(x).float64)),
    ("amax", lambda x: x.amax(0)),
    ("max", lambda x: x.max()),
    ("max_dim", lambda x: x.max(1)),
    ("min_dim", lambda x: x.min(0, True)),
    ("mode", lambda x: x.mode(0)),
    ("cummax", lambda x: x.cummax(1)),
    ("cummin", lambda x: x.cummin(0)),
    ("cumsum", lambda x: x.cumsum(0)),
    ("cumprod", lambda x: x.cumprod(1)),
    ("all", lambda x: x.all(1)),
    ("any", lambda x: x.any()),
    ("count_nonzero", lambda x: x.count_nonzero(0)),
    ("logsumexp", lambda x: x.logsumexp(1)),
    ("trace", lambda x: x.trace()),
    ("diff", lambda x: x.diff()),
]
NON_BOOL = {"median", "argmax", "argmin", "mean_dtype"}


@pytest.mark.parametrize(
    "dtype", [np.int64, np.int32, np.uint8, np.bool_], ids=["i64", "i32", "u8", "bool"]
)
@pytest.mark.parametrize("name,fn", INT_OPS, ids=[c[0] for c in INT_OPS])
def test_integer_and_bool_inputs(name, fn, dtype):
    a = _data((3, 4), dtype)
    if dtype == np.uint8:
        a = np.abs(a.astype(np.int64)).astype(np.uint8)
    if name in ("logsumexp", "trace") and dtype == np.bool_:
        return  # PyTorch: not implemented for bool (Lucid: float / int64 results)
    parity(fn, a)


@pytest.mark.parametrize("dtype", [np.int64, np.int32], ids=["i64", "i32"])
@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.median(),
        lambda x: x.median(1),
        lambda x: x.argmax(),
        lambda x: x.argmin(0, True),
    ],
)
def test_integer_median_and_argmax(fn, dtype):
    parity(fn, _data((3, 5), dtype))


def test_mean_var_norm_of_integers_raise():
    i = lucid.tensor([1, 2, 3])
    with pytest.raises(DTypeError, match="mean\\(\\).*Got: int64"):
        i.mean()
    with pytest.raises(DTypeError, match="mean\\(\\).*bool"):
        lucid.tensor([True]).mean()
    for fn, name in (
        (lucid.var, "var"),
        (lucid.std, "std"),
        (lucid.norm, "norm"),
        (lucid.nanmean, "nanmean"),
    ):
        with pytest.raises(DTypeError, match=f"{name}\\(\\).*int64"):
            fn(i)
    with pytest.raises(DTypeError, match="argmax.*bool"):
        lucid.tensor([True]).argmax()
    with pytest.raises(DTypeError, match="median.*bool"):
        lucid.tensor([True]).median()
    with pytest.raises(DTypeError, match=r"norm\(\).*int64"):  # PyTorch 2.13 refuses too
        lucid.norm(i, dtype=lucid.float64)
    assert lucid.norm(i.float(), dtype=lucid.float64).dtype is lucid.float64
    assert lucid.nanmean(i, dtype=lucid.float32).dtype is lucid.float32


def test_half_inputs_accumulate_in_float32():
    a = np.full(4096, 0.1, np.float32)
    for dt, tdt in ((lucid.float16, torch.float16), (lucid.bfloat16, torch.bfloat16)):
        x, t = lucid.tensor(a, dtype=dt), torch.tensor(a, dtype=tdt)
        for f in (
            lambda v: v.sum(),
            lambda v: v.mean(),
            lambda v: v.var(),
            lambda v: v.norm(),
            lambda v: v.cumsum(0)[-1],
        ):
            r = f(x)
            assert r.dtype is dt
            np.testing.assert_allclose(float(r.float()), float(f(t).float()), rtol=1e-2)


def test_autocast_forces_float32():
    x = lucid.tensor(np.ones(8), dtype=lucid.float16, requires_grad=True)
    with lucid.amp.autocast("cpu", dtype=lucid.float16):
        ys = [x.sum(), x.mean(), x.var(), x.std(), x.logsumexp(0), x.norm(), x.prod(), x.cumsum(0)]
        assert all(y.dtype is lucid.float32 for y in ys)
        assert x.amax().dtype is lucid.float16
    sum(y.sum() for y in ys).backward()
    assert x.grad.dtype is lucid.float16


# -- ties, zeros, nan --------------------------------------------------------------------

TIES = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [5.0, -1.0, 5.0, 5.0]])


# ops whose gradient PyTorch documents as split evenly among ties: plain parity
@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.amax(),
        lambda x: x.amax(1),
        lambda x: x.amin(0, True),
        lambda x: x.max(),
        lambda x: x.min(),
        lambda x: x.median(),
        lambda x: _m(x).norm(x, float("inf"), 1),
        lambda x: _m(x).norm(x - 3, float("-inf")),
    ],
    ids=["amax", "amax1", "amin0", "max", "min", "median", "norm_inf", "norm_ninf"],
)
def test_ties(fn):
    parity(fn, TIES)


def _pick_1d(name, v):
    """``(value, index)`` (arrays for the scans) of one slice by the rule the op's Notes
    document; PyTorch leaves the index among ties unspecified for max/min/median/mode."""
    nan = np.isnan(v) if v.dtype.kind == "f" else np.zeros(v.shape, bool)
    if name in ("max", "argmax", "min", "argmin"):
        i = int(np.argmax(v) if name.endswith("max") else np.argmin(v))  # first; nan wins
        return v[i], i
    if name == "median":  # lower median of the stable order; nan: first nan
        order = np.argsort(v, kind="stable")
        i = int(np.flatnonzero(nan)[0]) if nan.any() else int(order[(v.size - 1) // 2])
        return v[i], i
    if name == "mode":  # smallest of the most frequent; last occurrence
        vals, counts = np.unique(v, return_counts=True)
        best = vals[np.argmax(counts)]
        return best, int(np.flatnonzero(v == best)[-1])
    better = np.greater_equal if name == "cummax" else np.less_equal
    idx = np.zeros(v.size, np.int64)  # an equal or nan element takes over the index
    for j in range(1, v.size):
        run = v[idx[j - 1]]
        takes = nan[j] or (not np.isnan(run) and better(v[j], run))
        idx[j] = j if takes else idx[j - 1]
    return v[idx], idx


def _pick_reference(name, a, dim):
    moved = np.moveaxis(a, dim, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    res = [_pick_1d(name, row) for row in flat]
    tail = moved.shape[:-1] + ((moved.shape[-1],) if name.startswith("cum") else ())
    vals = np.array([r[0] for r in res], a.dtype).reshape(tail)
    idx = np.array([r[1] for r in res], np.int64).reshape(tail)
    if name.startswith("cum"):
        return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)
    return vals, idx


def check_picks(name, a, dim, keepdim=False):
    """Values and indices follow Lucid's documented rule; values agree with torch where
    torch's are specified; the gradient goes to the documented index."""
    x = lucid.tensor(a.copy(), requires_grad=a.dtype.kind == "f")
    args = (dim,) if name.startswith("cum") else (dim, keepdim)
    out = getattr(x, name)(*args)
    want_v, want_i = _pick_reference(name, a, dim)
    li = out if name.startswith("arg") else out[1]
    if keepdim and not name.startswith("cum"):
        want_v, want_i = np.expand_dims(want_v, dim), np.expand_dims(want_i, dim)
    np.testing.assert_array_equal(li.numpy(), want_i)
    assert li.dtype is lucid.int64
    if name.startswith("arg"):  # torch documents the first occurrence for argmax/argmin
        np.testing.assert_array_equal(getattr(torch.tensor(a), name)(*args).numpy(), want_i)
        return
    lv = out[0]
    np.testing.assert_array_equal(lv.detach().numpy(), want_v)
    tv = getattr(torch.tensor(a), name)(*args)[0].numpy()
    if name == "mode":  # torch's value among equal counts is unspecified too
        counts = (
            np.apply_along_axis(lambda r: np.sort(np.unique(r, return_counts=True)[1])[-2:], dim, a)
            if a.shape[dim] > 1
            else None
        )
        if counts is not None and np.any(counts.take(0, dim) == counts.take(-1, dim)):
            return
    np.testing.assert_array_equal(lv.detach().numpy(), tv)
    if not x.requires_grad:
        return
    go = np.random.default_rng(1).standard_normal(lv.shape)
    (g,) = lucid.autograd.grad(lv, x, lucid.tensor(go))
    want_g = np.zeros_like(a)
    gi = want_i if keepdim or name.startswith("cum") else np.expand_dims(want_i, dim)
    gg = go if keepdim or name.startswith("cum") else np.expand_dims(go, dim)
    mesh = list(np.indices(gi.shape, sparse=True))
    mesh[dim % a.ndim] = gi
    np.add.at(want_g, tuple(mesh), gg)
    np.testing.assert_allclose(g.numpy(), want_g, rtol=1e-12, atol=1e-12)


PICKS = [
    ("max", 1),
    ("min", 0),
    ("median", 1),
    ("mode", 1),
    ("cummax", 1),
    ("cummin", 0),
    ("argmax", 1),
    ("argmin", 0),
    ("max", 0),
    ("median", 0),
    ("mode", 0),
    ("cummin", 1),
]


@pytest.mark.parametrize("keepdim", [False, True], ids=["drop", "keep"])
@pytest.mark.parametrize("name,dim", PICKS, ids=[f"{n}{d}" for n, d in PICKS])
def test_tie_picks_follow_the_documented_rule(name, dim, keepdim):
    check_picks(name, TIES, dim, keepdim)


@pytest.mark.parametrize(
    "data",
    [
        [1.0, 1.0, 1.0],
        [2.0, 1.0, 1.0, 2.0, 1.0],
        [2.0, 1.0, 2.0, 2.0, 1.0],
        [3.0, 2.0, 2.0, 1.0],
        [1.0, 1.0, 3.0, 3.0],
        [3, 3, 1, 1],
        [2.0, 1.0, 2.0, 1.0, 1.0, 2.0],
    ],
)
def test_median_and_mode_tie_indices(data):
    a = np.array(data, dtype=np.float64)
    check_picks("median", a, 0)
    check_picks("mode", a, 0)


NAN = np.array([[1.0, np.nan, 3.0, 2.0], [4.0, 0.0, np.nan, np.nan], [1.0, 2.0, 3.0, 0.5]])


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin", "median", "cummax", "cummin"])
def test_nan_picks(name):
    check_picks(name, NAN, 1)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.amax(1),
        lambda x: x.sum(1),
        lambda x: x.nansum(1),
        lambda x: x.nanmean(1),
        lambda x: x.max(),
    ],
    ids=["amax_values", "sum", "nansum", "nanmean", "max_all"],
)
def test_nan(fn):
    lucid_out = _list(fn(lucid.tensor(NAN)))
    torch_out = _list(fn(torch.tensor(NAN)))
    for l, t in zip(lucid_out, torch_out):
        np.testing.assert_array_equal(l.numpy(), t.numpy())


def test_max_of_all_splits_gradient_among_nans():
    parity(lambda x: x.max(), np.array([1.0, np.nan, 3.0, np.nan]))


@pytest.mark.parametrize("zeros", [[], [2], [1, 3], [0, 1, 2, 3, 4]], ids=str)
@pytest.mark.parametrize(
    "fn",
    [lambda x: x.prod(), lambda x: x.prod(1), lambda x: x.cumprod(1), lambda x: x.cumprod(0)],
    ids=["prod", "prod1", "cumprod1", "cumprod0"],
)
def test_zeros_in_products(fn, zeros):
    a = _data((3, 5), F64)
    a[1, zeros] = 0.0
    a[2, zeros[:1]] = 0.0
    parity(fn, a)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.prod(1),
        lambda x: x.cumprod(1),
        lambda x: x.std(1),
        lambda x: x.var(0),
        lambda x: _m(x).norm(x, 3, 1),
        lambda x: x.logsumexp(1),
        lambda x: x.max(1)[0],
        lambda x: x.cummax(1)[0],
        lambda x: x.median(),
    ],
    ids=["prod", "cumprod", "std", "var", "norm3", "logsumexp", "max", "cummax", "median"],
)
def test_second_derivative_parity(fn):
    a = _data((3, 4), F64, seed=4)
    a[1, 1] = a[2, 0] = a[2, 3] = 0.0
    v = np.random.default_rng(2).standard_normal((3, 4))
    res = []
    for mod in (lucid, torch):
        x = mod.tensor(a.copy(), requires_grad=True)
        y = fn(x)
        (g,) = mod.autograd.grad((y * y).sum(), x, create_graph=True)
        (h,) = mod.autograd.grad((g * mod.tensor(v)).sum(), x)
        res.append(h.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-9, atol=1e-10)


def test_logsumexp_is_stable_and_handles_infinities():
    for a in (
        [1000.0, 1000.0],
        [-1000.0, -1001.0],
        [-np.inf, -np.inf],
        [np.inf, 1.0],
        [np.inf, np.inf],
    ):
        a = np.array(a)
        np.testing.assert_allclose(
            lucid.tensor(a).logsumexp(0).item(), torch.tensor(a).logsumexp(0).item()
        )
    parity(lambda x: _m(x).logsumexp(x, 0), np.array([1000.0, 999.0, -np.inf]))


def test_var_correction_edge_cases():
    for a, c in (([1.0], 1), ([1.0, 2.0], 3), ([1.0, 2.0], 2)):
        np.testing.assert_array_equal(
            lucid.tensor(a).var(correction=c).item(), torch.tensor(a).var(correction=c).item()
        )
    parity(lambda x: x.var(1, correction=1.5), _data((2, 5), F64))
    x = np.arange(6.0).reshape(2, 3)
    for args, kw in (
        ((False,), {}),
        ((1, False), {}),
        ((1,), {"unbiased": True}),
        ((None,), {"keepdim": True}),
    ):
        parity(lambda t: t.var(*args, **kw), x)
        parity(lambda t: _m(t).std(t, *args, **kw), x)
    with pytest.raises(DTypeError, match="unbiased or correction"):
        lucid.var(lucid.tensor(x), 1, True, correction=1)


def test_norm_special_values():
    x = np.array([[0.0, 0.0, 3.0, -3.0], [0.0, 0.0, 0.0, 0.0]])
    for p in (2, 1, 3, 0.5, 1.5, float("inf"), 0, -1):
        parity(lambda t: _m(t).norm(t, p, 1), x)
    parity(lambda t: t.norm("fro", (0, 1), True), x)
    parity(lambda t: t.norm(dim=1, dtype=_m(t).float64), x.astype(F32), tol=(1e-6, 1e-6))


# -- scans, median/mode, diff, trace -----------------------------------------------------


@pytest.mark.parametrize("dtype,nc", LAYOUTS, ids=["f32", "f64-nc"])
@pytest.mark.parametrize("dim", [0, 1, -1, 2], ids=str)
@pytest.mark.parametrize(
    "fn",
    [
        lambda x, d: _m(x).cumsum(x, d),
        lambda x, d: x.cumprod(d),
        lambda x, d: _m(x).cummax(x, d),
        lambda x, d: x.cummin(dim=d),
        lambda x, d: x.cumsum(d, dtype=_m(x).float64),
        lambda x, d: _m(x).diff(x, dim=d),
        lambda x, d: x.diff(2, d),
        lambda x, d: x.diff(5, d),
    ],
    ids=["cumsum", "cumprod", "cummax", "cummin", "cumsum_dtype", "diff", "diff2", "diff5"],
)
def test_scan_parity(fn, dim, dtype, nc):
    parity(lambda x: fn(x, dim), _data((2, 3, 4), dtype), nc=nc)


@pytest.mark.parametrize(
    "fn",
    [lambda x: x.cumsum(0), lambda x: x.cumprod(-1), lambda x: x.cummax(0), lambda x: x.cummin(-1)],
)
def test_scans_of_0d_and_empty(fn):
    parity(fn, np.array(1.5))
    parity(fn, np.zeros((0, 3)))


def test_cumsum_inplace():
    a = _data((3, 4), F64)
    x, t = lucid.tensor(a.copy()), torch.tensor(a.copy())
    x.cumsum_(1)
    t.cumsum_(1)
    np.testing.assert_allclose(x.numpy(), t.numpy())
    x.cumprod_(0)
    t.cumprod_(0)
    np.testing.assert_allclose(x.numpy(), t.numpy())


def test_diff_prepend_append_and_bool():
    a = _data((2, 4), F64)
    pre, app = _data((2, 1), F64, seed=3), _data((2, 2), F64, seed=4)
    res = []
    for mod in (lucid, torch):
        x, p, q = (mod.tensor(v.copy(), requires_grad=True) for v in (a, pre, app))
        y = mod.diff(x, 2, -1, prepend=p, append=q)
        y.backward(mod.tensor(np.arange(float(np.prod(y.shape))).reshape(tuple(y.shape))))
        res.append([y.detach().numpy(), x.grad.numpy(), p.grad.numpy(), q.grad.numpy()])
    for l, t in zip(*res):
        np.testing.assert_allclose(l, t, rtol=1e-12)
    parity(lambda x: x.diff(dim=0, prepend=_m(x).zeros(1, 4, dtype=_m(x).float64)), a)
    parity(lambda x: x.diff(n=0), a)
    parity(lambda x: x.diff(), np.array([True, False, False, True]))
    parity(lambda x: x.diff(dim=0), np.arange(6).reshape(3, 2))
    assert lucid.diff(lucid.arange(3), prepend=lucid.zeros(1)).dtype is lucid.float32


def test_trace():
    parity(lambda x: x.trace(), _data((3, 5), F64))
    parity(lambda x: _m(x).trace(x), _data((4, 2), F32), nc=True)
    parity(lambda x: x.trace(), np.zeros((0, 3)))
    parity(lambda x: x.trace(), _data((3, 3), np.int32))


def test_return_types():
    x = lucid.tensor(TIES)
    r = x.max(1)
    v, i = r
    assert isinstance(r, tuple) and r.values is v and r.indices is i and r[0] is v
    assert type(r) is lucid.return_types.max
    assert repr(r).startswith("lucid.return_types.max(\nvalues=tensor(")
    for name in ("min", "median", "mode", "cummax", "cummin"):
        assert type(getattr(x, name)(0)).__name__ == name
    assert i.dtype is lucid.int64 and not i.requires_grad


def test_max_min_binary_form():
    a, b = _data((2, 3), F64), _data((3,), F64, seed=1)
    res = [
        (
            mod.max(mod.tensor(a), mod.tensor(b)),
            mod.min(mod.tensor(a), other=mod.tensor(b)),
            mod.tensor(a).max(mod.tensor(b)),
        )
        for mod in (lucid, torch)
    ]
    for l, t in zip(*res):
        np.testing.assert_array_equal(l.numpy(), t.numpy())


def test_empty_dim_list_means_all_dims():
    a = _data((2, 3), F64)
    for f in (
        lambda x: x.sum(()),
        lambda x: x.mean([]),
        lambda x: x.amax(()),
        lambda x: x.norm(dim=()),
        lambda x: x.count_nonzero(()),
        lambda x: x.nansum(()),
        lambda x: _m(x).all(x, ()),
    ):
        parity(f, a)
    np.testing.assert_allclose(lucid.tensor(a).var(()).item(), torch.tensor(a).var(()).item())


# -- errors ------------------------------------------------------------------------------


def test_dim_errors():
    x = lucid.zeros(2, 3)
    cases = [
        (lambda: x.sum(2), "sum.*range of \\[-2, 1\\].*got 2"),
        (lambda: x.mean(-3), "mean.*got -3"),
        (lambda: x.sum((0, 0)), "sum.*multiple times"),
        (lambda: x.amax((1, -1)), "amax.*multiple times"),
        (lambda: x.max(2), "max.*got 2"),
        (lambda: x.argmax(5), "argmax.*got 5"),
        (lambda: x.cumsum(2), "cumsum.*got 2"),
        (lambda: x.cummax(-3), "cummax.*got -3"),
        (lambda: x.median(4), "median.*got 4"),
        (lambda: x.mode(2), "mode.*got 2"),
        (lambda: x.var(2), "var.*got 2"),
        (lambda: x.logsumexp(3), "logsumexp.*got 3"),
        (lambda: x.norm(dim=3), "norm.*got 3"),
        (lambda: x.diff(dim=2), "diff.*got 2"),
    ]
    for fn, msg in cases:
        with pytest.raises(DimError, match=msg):
            fn()


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: x.prod((0, 1)),
        lambda m, x: x.sum("a"),
        lambda m, x: x.sum(1.0),
        lambda m, x: x.mean(0.5),
        lambda m, x: x.amax([0.0]),
        lambda m, x: x.std(dim=1.0),
        lambda m, x: m.count_nonzero(x, 1.0),
        lambda m, x: x.logsumexp("a"),
    ],
    ids=[
        "prod-tuple",
        "sum-str",
        "sum-float",
        "mean-float",
        "amax-float-list",
        "std-float",
        "count_nonzero-float",
        "logsumexp-str",
    ],
)
def test_dim_of_the_wrong_type_is_a_type_error_naming_dim(call):
    with pytest.raises(TypeError):
        call(torch, torch.zeros(2, 3))
    with pytest.raises(ArgumentTypeError, match=r"argument 'dim' must be"):
        call(lucid, lucid.zeros(2, 3))


ZERO_D = [
    ("sum", lambda x, d: x.sum(d)),
    ("nansum", lambda x, d: x.nansum(d)),
    ("mean", lambda x, d: x.mean(d)),
    ("nanmean", lambda x, d: x.nanmean(d)),
    ("prod", lambda x, d: x.prod(d)),
    ("amax", lambda x, d: x.amax(d)),
    ("amin", lambda x, d: x.amin(d)),
    ("max", lambda x, d: x.max(d)),
    ("min", lambda x, d: x.min(d)),
    ("argmax", lambda x, d: x.argmax(d)),
    ("median", lambda x, d: x.median(d)),
    ("mode", lambda x, d: x.mode(d)),
    ("std", lambda x, d: x.std(d)),
    ("var", lambda x, d: x.var(d)),
    ("std-tuple", lambda x, d: x.std((d,))),
    ("sum-tuple", lambda x, d: x.sum((d,))),
    ("logsumexp", lambda x, d: x.logsumexp(d)),
    ("norm", lambda x, d: x.norm(dim=d)),
    ("any", lambda x, d: x.any(d)),
    ("all", lambda x, d: x.all(d)),
    ("count_nonzero", lambda x, d: x.count_nonzero(d)),
    ("cumsum", lambda x, d: x.cumsum(d)),
    ("cummax", lambda x, d: x.cummax(d)),
]


@pytest.mark.parametrize("name,fn", ZERO_D, ids=[n for n, _ in ZERO_D])
def test_zero_d_input_accepts_only_dims_0_and_minus_1(name, fn):
    """As PyTorch: a 0-d tensor reduces over dim 0 or -1 and rejects any other dim."""
    for d in (0, -1):
        parity(lambda x: fn(x, d), np.array(0.7))
    for d in (7, 1, -2):
        with pytest.raises(IndexError):
            fn(torch.tensor(0.7), d)
        with pytest.raises(DimError, match=rf"{name.split('-')[0]}.*range of \[-1, 0\]"):
            fn(lucid.tensor(0.7), d)


def test_shape_and_argument_errors():
    with pytest.raises(ShapeError, match="trace: expected a matrix.*dim 1"):
        lucid.zeros(3).trace()
    with pytest.raises(ShapeError, match="diff.*at least one-dimensional"):
        lucid.tensor(1.0).diff()
    with pytest.raises(ShapeError, match="diff.*non-negative.*-1"):
        lucid.zeros(3).diff(-1)
    with pytest.raises(ShapeError, match="diff.*same dimension as input \\(2\\), got 1"):
        lucid.zeros(2, 3).diff(prepend=lucid.zeros(3))
    with pytest.raises(ValueError, match="norm.*'abc' not supported"):
        lucid.zeros(2, 3).norm("abc")
    with pytest.raises(RuntimeError, match="norm: dim must be a 2-tuple"):
        lucid.zeros(2, 3, 4).norm("fro", (0, 1, 2))


def test_registered_ops_are_documented():
    for name in (
        "sum",
        "mean",
        "prod",
        "amax",
        "amin",
        "max",
        "min",
        "median",
        "median_all",
        "mode",
        "cummax",
        "cummin",
        "var",
        "std",
        "logsumexp",
        "norm",
        "all",
        "any",
        "count_nonzero",
        "argmax",
        "argmin",
        "cumsum",
        "cumprod",
        "diff",
        "nansum",
        "nanmean",
    ):
        doc = lucid.ops.core.registry.get_op(name).__doc__
        assert "Math" in doc and "Attributes" in doc and "Notes" in doc, name


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: _m(x).sum(x, None, True),
        lambda x: _m(x).mean(x, None, True),
        lambda x: _m(x).amax(x, (), True),
        lambda x: _m(x).var(x, None, keepdim=True),
        lambda x: _m(x).norm(x, dim=None, keepdim=True),
        lambda x: _m(x).all(x, None, True),
        lambda x: _m(x).argmax(x, None, True),
        lambda x: _m(x).nansum(x, None, True),
    ],
    ids=["sum", "mean", "amax", "var", "norm", "all", "argmax", "nansum"],
)
def test_keepdim_without_dim(fn):
    parity(fn, _data((2, 3), F64))
