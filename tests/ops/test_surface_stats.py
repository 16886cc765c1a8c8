"""quantile, nanquantile, nanmedian, aminmax, dist, cov, corrcoef, trapezoid,
cumulative_trapezoid, gradient, renorm, histogram and histogramdd against PyTorch."""

import pickle

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import ArgumentError, DimError, DTypeError, ShapeError

from .surface_helpers import assert_same, check

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

RNG = np.random.default_rng(5)
MODES = ["linear", "lower", "higher", "midpoint", "nearest"]


def _distinct(*shape):
    """Values without ties (so the sort behind quantiles has one gradient)."""
    n = int(np.prod(shape))
    return (RNG.permutation(n) + RNG.uniform(0.1, 0.9, n)).reshape(shape) / n


# -- quantile, nanquantile -----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "dim, keepdim", [(None, False), (None, True), (1, False), (0, True), (-1, True), (-2, False)]
)
@pytest.mark.parametrize("q", [0.3, [0.0, 0.125, 0.5, 1.0]])
def test_quantile_parity(mode, dim, keepdim, q):
    x = _distinct(4, 5)

    def run(lib, t):
        qq = lib.tensor(q, dtype=t.dtype) if isinstance(q, list) else q
        return lib.quantile(t, qq, dim, keepdim, interpolation=mode)

    check(lambda t: run(lucid, t), lambda t: run(torch, t), x)
    check(lambda t: run(lucid, t), lambda t: run(torch, t), x.astype(np.float32), noncontig=True)


def test_quantile_0d_q_tensor_and_0d_input():
    x = _distinct(3, 4)
    check(
        lambda t: lucid.quantile(t, lucid.tensor(0.25, dtype=lucid.float64), 1),
        lambda t: torch.quantile(t, torch.tensor(0.25, dtype=torch.float64), 1),
        x,
    )
    check(lambda t: t.quantile(0.7), lambda t: t.quantile(0.7), np.asarray(2.5))
    check(lambda t: lucid.quantile(t, 0.7, 0), lambda t: torch.quantile(t, 0.7, 0), np.asarray(2.5))
    check(
        lambda t: lucid.quantile(t, lucid.tensor([0.2, 0.9], dtype=lucid.float64), 0, True),
        lambda t: torch.quantile(t, torch.tensor([0.2, 0.9], dtype=torch.float64), 0, True),
        _distinct(6),
    )
    with pytest.raises(DTypeError, match="quantile"):
        lucid.quantile(lucid.tensor(_distinct(4)), [0.2, 0.9])


@pytest.mark.parametrize("mode", MODES)
def test_quantile_and_nanquantile_with_nan(mode):
    x = _distinct(4, 6)
    x[1, 2] = np.nan
    x[2, :] = np.nan
    for name in ("quantile", "nanquantile"):
        check(
            lambda t: getattr(lucid, name)(t, 0.4, 1, interpolation=mode),
            lambda t: getattr(torch, name)(t, 0.4, 1, interpolation=mode),
            x,
            grad=False,
        )
        check(
            lambda t: getattr(t, name)(0.4, interpolation=mode),
            lambda t: getattr(t, name)(0.4, interpolation=mode),
            x,
            grad=False,
        )
    ok = x[[0, 1, 3]]
    check(lambda t: lucid.nanquantile(t, 0.6, 1), lambda t: torch.nanquantile(t, 0.6, 1), ok)


def test_quantile_errors():
    x = lucid.tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(DTypeError, match="quantile"):
        lucid.quantile(lucid.tensor([1, 2]), 0.5)
    with pytest.raises(ArgumentError, match="quantile"):
        lucid.quantile(x, 1.5)
    with pytest.raises(ArgumentError, match="nanquantile"):
        lucid.nanquantile(x, lucid.tensor([0.2, -0.1]))
    with pytest.raises(ArgumentError, match="quantile"):
        lucid.quantile(x, 0.5, interpolation="cubic")
    with pytest.raises(DTypeError, match="quantile"):
        lucid.quantile(x, lucid.tensor([0.5], dtype=lucid.float64))
    with pytest.raises(ShapeError, match="quantile"):
        lucid.quantile(x, lucid.tensor([[0.5]]))
    with pytest.raises(ShapeError, match="quantile"):
        lucid.quantile(lucid.zeros(0), 0.5)
    with pytest.raises(DimError, match="quantile"):
        lucid.quantile(x, 0.5, dim=2)


# -- nanmedian, aminmax --------------------------------------------------------------------


@pytest.mark.parametrize("dim, keepdim", [(0, False), (1, True), (-1, False)])
def test_nanmedian_parity(dim, keepdim):
    x = _distinct(5, 6)
    check(lambda t: lucid.nanmedian(t, dim, keepdim), lambda t: torch.nanmedian(t, dim, keepdim), x)
    x[1, 3] = x[4, 0] = x[2, 2] = np.nan
    lo, to = check(
        lambda t: t.nanmedian(dim, keepdim), lambda t: t.nanmedian(dim, keepdim), x, noncontig=True
    )
    assert type(lo).__name__ == "nanmedian" and lo._fields == ("values", "indices")
    check(lucid.nanmedian, torch.nanmedian, x)
    check(lucid.nanmedian, torch.nanmedian, np.array([3, 1, 4, 1, 5]), grad=False)
    check(lambda t: lucid.nanmedian(t, 0), lambda t: torch.nanmedian(t, 0), np.asarray(1.5))


def test_nanmedian_all_nan_slice_is_nan():
    x = np.array([[np.nan, np.nan], [1.0, np.nan]])
    v, _ = lucid.nanmedian(lucid.tensor(x), 1)
    np.testing.assert_array_equal(np.isnan(v.numpy()), [True, False])
    assert v.numpy()[1] == 1.0
    assert np.isnan(lucid.nanmedian(lucid.tensor([np.nan, np.nan])).item())


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int32, np.int64, np.uint8, np.bool_])
def test_aminmax_parity(dt):
    x = _distinct(3, 4)
    x = (x * 100).astype(dt) if dt is not np.bool_ else x > 0.5
    grad = dt in (np.float64, np.float32)
    for kw in ({}, {"dim": 1}, {"dim": 0, "keepdim": True}, {"dim": -1, "keepdim": False}):
        lo, to = check(
            lambda t: lucid.aminmax(t, **kw), lambda t: torch.aminmax(t, **kw), x, grad=grad
        )
        assert lo._fields == ("min", "max")
    check(lambda t: t.aminmax(), lambda t: t.aminmax(), x, grad=grad, noncontig=True)
    check(lambda t: t.aminmax(dim=0), lambda t: t.aminmax(dim=0), np.asarray(x[0, 0]), grad=grad)


def test_aminmax_errors():
    with pytest.raises(ShapeError, match="aminmax"):
        lucid.aminmax(lucid.zeros(0))
    with pytest.raises(ShapeError, match="aminmax"):
        lucid.aminmax(lucid.zeros(2, 0), dim=1)
    with pytest.raises(DimError, match="aminmax"):
        lucid.aminmax(lucid.zeros(2, 3), dim=2)


# -- dist, cov, corrcoef -------------------------------------------------------------------


@pytest.mark.parametrize("p", [0, 1, 2, 3.5, float("inf"), -float("inf")])
def test_dist_parity(p):
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((4,))
    check(
        lambda x, y: lucid.dist(x, y, p), lambda x, y: torch.dist(x, y, p), a, b, grad=p not in (0,)
    )
    check(
        lambda x, y: x.dist(y, p),
        lambda x, y: x.dist(y, p),
        a.astype(np.float32),
        b.astype(np.float32),
        grad=False,
        noncontig=True,
    )
    check(
        lambda x, y: lucid.dist(x, y, p),
        lambda x, y: torch.dist(x, y, p),
        np.asarray(1.5),
        np.asarray(-0.5),
        grad=p not in (0,),
    )


def test_dist_errors():
    with pytest.raises(DTypeError, match="dist"):
        lucid.dist(lucid.tensor([1, 2]), lucid.tensor([1, 2]))
    with pytest.raises(ShapeError):
        lucid.dist(lucid.zeros(2), lucid.zeros(3))


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"correction": 0},
        {"correction": 2},
        {"fw": True},
        {"aw": True},
        {"fw": True, "aw": True},
        {"fw": True, "aw": True, "correction": 0},
    ],
)
def test_cov_parity(kw):
    x = RNG.standard_normal((3, 6))
    fw = np.array([1, 2, 0, 3, 1, 1])
    aw = RNG.uniform(0.1, 1.0, 6)

    def run(lib, t):
        args = {}
        if "correction" in kw:
            args["correction"] = kw["correction"]
        if kw.get("fw"):
            args["fweights"] = lib.tensor(fw)
        if kw.get("aw"):
            args["aweights"] = lib.tensor(aw)
        return lib.cov(t, **args)

    check(lambda t: run(lucid, t), lambda t: run(torch, t), x)
    check(lambda t: run(lucid, t), lambda t: run(torch, t), x, noncontig=True)


def test_cov_and_corrcoef_shapes_and_dtypes():
    check(lucid.cov, torch.cov, RNG.standard_normal(7))
    check(lucid.cov, torch.cov, RNG.standard_normal((1, 5)).astype(np.float32))
    check(lucid.cov, torch.cov, np.array([[1, 2, 4], [3, 1, 0]]), grad=False)
    check(lucid.corrcoef, torch.corrcoef, RNG.standard_normal((4, 9)))
    check(lambda t: t.corrcoef(), lambda t: t.corrcoef(), RNG.standard_normal(5))
    check(lambda t: t.cov(), lambda t: t.cov(), RNG.standard_normal((2, 4)), noncontig=True)


def test_cov_errors():
    with pytest.raises(ShapeError, match="cov"):
        lucid.cov(lucid.zeros(2, 2, 2))
    with pytest.raises(ShapeError, match="cov"):
        lucid.cov(lucid.zeros(2, 3), fweights=lucid.tensor([1, 2]))
    with pytest.raises(DTypeError, match="cov"):
        lucid.cov(lucid.zeros(2, 3), fweights=lucid.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(ArgumentError, match="cov"):
        lucid.cov(lucid.zeros(2, 3), aweights=lucid.tensor([1.0, -2.0, 3.0]))


# -- trapezoid, cumulative_trapezoid, gradient ---------------------------------------------


@pytest.mark.parametrize("name", ["trapezoid", "cumulative_trapezoid"])
@pytest.mark.parametrize("case", ["plain", "dx", "x1d", "xfull", "dim0", "xbroadcast"])
def test_trapezoid_parity(name, case):
    y = RNG.standard_normal((3, 6))
    arrays, kw = [y], {}
    if case == "dx":
        kw = {"dx": 0.25}
    elif case == "x1d":
        arrays.append(np.sort(RNG.uniform(0, 5, 6)))
    elif case == "xfull":
        arrays.append(np.sort(RNG.uniform(0, 5, (3, 6)), 1))
    elif case == "dim0":
        kw = {"dim": 0}
    elif case == "xbroadcast":
        arrays.append(np.sort(RNG.uniform(0, 5, (1, 6)), 1))
    lf, tf = getattr(lucid, name), getattr(torch, name)
    check(lambda *a: lf(*a, **kw), lambda *a: tf(*a, **kw), *arrays)
    check(lambda *a: lf(*a, **kw), lambda *a: tf(*a, **kw), *arrays, noncontig=True)


@pytest.mark.parametrize("name", ["trapezoid", "cumulative_trapezoid"])
def test_trapezoid_edge_sizes_and_integers(name):
    lf, tf = getattr(lucid, name), getattr(torch, name)
    for y in (np.zeros((2, 0)), np.array([[1.5], [2.0]]), np.array([1, 4, 9, 16])):
        check(lf, tf, y, grad=y.dtype.kind == "f")
    check(lambda t: lf(t, dim=0), lambda t: tf(t, dim=0), RNG.standard_normal((4, 2)))


def test_trapezoid_errors():
    with pytest.raises(ShapeError, match="trapezoid"):
        lucid.trapezoid(lucid.zeros(3, 4), lucid.zeros(5))
    with pytest.raises(DimError, match="trapezoid"):
        lucid.trapezoid(lucid.tensor(1.0))
    with pytest.raises(DimError, match="cumulative_trapezoid"):
        lucid.cumulative_trapezoid(lucid.zeros(3), dim=1)
    assert lucid.trapz is lucid.trapezoid


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"spacing": 2.0},
        {"dim": 1},
        {"dim": -2},
        {"edge_order": 2},
        {"spacing": [2.0, 0.5]},
        {"coords": True},
        {"coords": True, "edge_order": 2},
        {"dim": [1]},
        {"spacing": 0.5, "dim": [0, 1], "edge_order": 2},
    ],
)
def test_gradient_parity(kw):
    f = RNG.standard_normal((4, 6))
    c0, c1 = np.sort(RNG.uniform(0, 5, 4)), np.sort(RNG.uniform(0, 5, 6))

    def run(lib, t):
        args = {k: v for k, v in kw.items() if k != "coords"}
        if kw.get("coords"):
            args["spacing"] = [lib.tensor(c0), lib.tensor(c1)]
        return lib.gradient(t, **args)

    check(lambda t: run(lucid, t), lambda t: run(torch, t), f)
    check(lambda t: run(lucid, t), lambda t: run(torch, t), f, noncontig=True)


def test_gradient_1d_integers_and_float32():
    check(lucid.gradient, torch.gradient, np.array([1, 4, 9, 16, 25]), grad=False)
    check(
        lambda t: lucid.gradient(t, edge_order=2),
        lambda t: torch.gradient(t, edge_order=2),
        RNG.standard_normal(5).astype(np.float32),
    )
    check(
        lambda t: lucid.gradient(t, spacing=(lucid.tensor([0.0, 1.0, 3.0]),)),
        lambda t: torch.gradient(t, spacing=(torch.tensor([0.0, 1.0, 3.0]),)),
        RNG.standard_normal(3).astype(np.float32),
    )


def test_gradient_errors():
    with pytest.raises(ShapeError, match="gradient"):
        lucid.gradient(lucid.zeros(1, 4))
    with pytest.raises(ShapeError, match="gradient"):
        lucid.gradient(lucid.zeros(2, 4), edge_order=2)
    with pytest.raises(ArgumentError, match="gradient"):
        lucid.gradient(lucid.zeros(4), edge_order=3)
    with pytest.raises(ShapeError, match="gradient"):
        lucid.gradient(lucid.zeros(3, 4), spacing=[1.0, 2.0, 3.0])
    with pytest.raises(DimError, match="gradient"):
        lucid.gradient(lucid.tensor(1.0))


# -- renorm --------------------------------------------------------------------------------


@pytest.mark.parametrize("p, dim, maxnorm", [(2, 0, 1.5), (1, 1, 1.0), (3, -1, 0.5), (2, 1, 100.0)])
def test_renorm_parity(p, dim, maxnorm):
    x = RNG.standard_normal((3, 4, 2))
    check(lambda t: lucid.renorm(t, p, dim, maxnorm), lambda t: torch.renorm(t, p, dim, maxnorm), x)
    check(
        lambda t: t.renorm(p, dim, maxnorm),
        lambda t: t.renorm(p, dim, maxnorm),
        x.astype(np.float32),
        noncontig=True,
    )


def test_renorm_in_place_and_errors():
    lx, tx = lucid.tensor([[3.0, 4.0], [0.3, 0.4]]), torch.tensor([[3.0, 4.0], [0.3, 0.4]])
    lx.renorm_(2, 0, 1.0)
    tx.renorm_(2, 0, 1.0)
    assert_same(lx, tx)
    with pytest.raises(ArgumentError, match="renorm"):
        lucid.renorm(lucid.zeros(2, 2), -1, 0, 1.0)
    with pytest.raises(ArgumentError, match="renorm"):
        lucid.renorm(lucid.zeros(2, 2), 2, 0, -1.0)
    with pytest.raises(DimError, match="renorm"):
        lucid.renorm(lucid.zeros(3), 2, 0, 1.0)
    with pytest.raises(DTypeError, match="renorm"):
        lucid.renorm(lucid.tensor([[1, 2]]), 2, 0, 1.0)


# -- histogram, histogramdd ----------------------------------------------------------------


@pytest.mark.parametrize("dt", [np.float64, np.float32])
@pytest.mark.parametrize(
    "kw",
    [
        {"bins": 5},
        {"bins": 4, "range": (-1.0, 1.0)},
        {"bins": 7, "density": True},
        {"edges": True},
        {"bins": 3, "weight": True},
        {"bins": 3, "weight": True, "density": True},
    ],
)
def test_histogram_parity(dt, kw):
    x = RNG.standard_normal((3, 7)).astype(dt)
    w = RNG.uniform(0, 2, (3, 7)).astype(dt)

    def run(lib, t):
        args = {k: v for k, v in kw.items() if k not in ("edges", "weight")}
        if kw.get("edges"):
            args["bins"] = lib.tensor(np.array([-2.0, -0.5, 0.0, 0.3, 2.0], dt))
        if kw.get("weight"):
            args["weight"] = lib.tensor(w)
        return lib.histogram(t, **args)

    lo, to = check(lambda t: run(lucid, t), lambda t: run(torch, t), x, grad=False)
    assert lo._fields == ("hist", "bin_edges")
    check(lambda t: run(lucid, t), lambda t: run(torch, t), x, grad=False, noncontig=True)


def test_histogram_edge_cases():
    check(
        lambda t: lucid.histogram(t, 3),
        lambda t: torch.histogram(t, 3),
        np.array([1.0, 1.0, 1.0]),
        grad=False,
    )
    check(
        lambda t: t.histogram(4),
        lambda t: t.histogram(4),
        np.array([0.0, 1.0, 2.0, 4.0]),
        grad=False,
    )
    check(
        lambda t: lucid.histogram(t, 2, range=(0.0, 1.0)),
        lambda t: torch.histogram(t, 2, range=(0.0, 1.0)),
        np.array([-1.0, 0.0, 0.5, 1.0, 2.0]),
        grad=False,
    )
    check(
        lambda t: lucid.histogram(t, 3, range=(0.0, 1.0)),
        lambda t: torch.histogram(t, 3, range=(0.0, 1.0)),
        np.zeros(0),
        grad=False,
    )


def test_histogram_errors():
    with pytest.raises(DTypeError, match="histogram"):
        lucid.histogram(lucid.tensor([1, 2]), 3)
    with pytest.raises(ArgumentError, match="histogram"):
        lucid.histogram(lucid.tensor([1.0, 2.0]), 0)
    with pytest.raises(ArgumentError, match="histogram"):
        lucid.histogram(lucid.tensor([1.0, 2.0]), 2, range=(3.0, 1.0))
    with pytest.raises(ArgumentError, match="histogram"):
        lucid.histogram(lucid.tensor([1.0, 2.0]), lucid.tensor([2.0, 1.0]))
    with pytest.raises(ShapeError, match="histogram"):
        lucid.histogram(lucid.tensor([1.0, 2.0]), 2, weight=lucid.tensor([1.0]))


@pytest.mark.parametrize(
    "bins, kw",
    [
        (b, k)
        for b in ("int", "list", "edges")
        for k in ({}, {"density": True}, {"range": True}, {"weight": True})
        if not (b == "edges" and "range" in k)
    ],
)
def test_histogramdd_parity(bins, kw):
    p = RNG.standard_normal((4, 5, 2))
    w = RNG.uniform(0, 1, (4, 5))

    def run(lib, t):
        b = (
            3
            if bins == "int"
            else [2, 4]
            if bins == "list"
            else [
                lib.tensor([-2.0, 0.0, 2.0], dtype=t.dtype),
                lib.tensor([-1.0, 0.0, 1.0, 3.0], dtype=t.dtype),
            ]
        )
        args = {}
        if kw.get("density"):
            args["density"] = True
        if kw.get("range"):
            args["range"] = [-1.0, 1.0, -2.0, 2.0]
        if kw.get("weight"):
            args["weight"] = lib.tensor(w)
        return lib.histogramdd(t, b, **args)

    lo, to = check(lambda t: run(lucid, t), lambda t: run(torch, t), p, grad=False)
    assert isinstance(lo.bin_edges, tuple) and len(lo.bin_edges) == 2


def test_histogramdd_errors():
    with pytest.raises(DimError, match="histogramdd"):
        lucid.histogramdd(lucid.zeros(5), 3)
    with pytest.raises(ShapeError, match="histogramdd"):
        lucid.histogramdd(lucid.zeros(5, 2), [3, 4, 5])
    with pytest.raises(ShapeError, match="histogramdd"):
        lucid.histogramdd(lucid.zeros(5, 2), 3, range=[0.0, 1.0])


def test_result_types_pickle_by_name():
    x = lucid.tensor([[3.0, 1.0], [2.0, 5.0]])
    for r, name in (
        (lucid.aminmax(x), "aminmax"),
        (lucid.nanmedian(x, 1), "nanmedian"),
        (lucid.histogram(x, 2), "histogram"),
        (lucid.histogramdd(x, 2), "histogramdd"),
    ):
        back = pickle.loads(pickle.dumps(r))
        assert type(back) is getattr(lucid.return_types, name)
        assert repr(back).startswith(f"lucid.return_types.{name}(")


def test_dtype_rules_of_pytorch():
    for name in ("quantile", "nanquantile"):
        for dt in (lucid.float16, lucid.bfloat16):
            with pytest.raises(DTypeError, match=name):
                getattr(lucid, name)(lucid.ones(3, dtype=dt), 0.5)
    for dt in (lucid.float16, lucid.bfloat16):
        with pytest.raises(DTypeError, match="histogram"):
            lucid.histogram(lucid.ones(3, dtype=dt), 2)
    check(lucid.dist, torch.dist, np.array([1, 2], dtype=np.int32), np.array([1.0, 3.0]))
    with pytest.raises(DTypeError, match="dist"):
        lucid.dist(lucid.tensor([1, 2]), lucid.tensor([1, 3]))
    for dt in (lucid.bool, lucid.uint8):
        with pytest.raises(DTypeError, match="gradient"):
            lucid.gradient(lucid.ones(3, dtype=dt))
    with pytest.raises(DTypeError, match="cov"):
        lucid.cov(lucid.tensor([[True, False, True]]))
    with pytest.raises(DTypeError, match="nanmedian"):
        lucid.nanmedian(lucid.tensor([True, False]))
    for name in ("trapezoid", "cumulative_trapezoid"):
        with pytest.raises(DTypeError, match=name):
            getattr(lucid, name)(lucid.tensor([True, False]))
        check(
            lambda t: getattr(lucid, name)(t, dim=0),
            lambda t: getattr(torch, name)(t, dim=0),
            np.zeros((0, 3), np.int64),
            grad=False,
        )
