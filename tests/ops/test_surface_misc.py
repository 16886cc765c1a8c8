"""The rest of the item-8 surface against PyTorch: split_with_sizes, vsplit/hsplit/dsplit,
numel, fill_diagonal_, maximum_/minimum_, the random fills (moments checked
statistically), poisson, lucid.autocast, tensor(range), tensor-by-array arithmetic and
set_printoptions."""

import math

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import ArgumentError, AutogradError, DimError, DTypeError, ShapeError

from .surface_helpers import assert_same, check

RNG = np.random.default_rng(9)


# -- splits --------------------------------------------------------------------------------


@pytest.mark.parametrize("sizes, dim", [([2, 3], 0), ([1, 0, 3], 1), ([4], -1), ([2, 2], -2)])
def test_split_with_sizes_parity(sizes, dim):
    x = RNG.standard_normal((5, 4)) if dim in (0,) else RNG.standard_normal((4, 4))
    check(
        lambda t: lucid.split_with_sizes(t, sizes, dim),
        lambda t: torch.split_with_sizes(t, sizes, dim),
        x,
    )
    check(
        lambda t: t.split_with_sizes(sizes, dim),
        lambda t: t.split_with_sizes(sizes, dim),
        x,
        noncontig=True,
    )


def test_split_with_sizes_gives_views_and_errors():
    x = lucid.arange(5.0)
    a, b = x.split_with_sizes([2, 3])
    b.fill_(7.0)
    np.testing.assert_array_equal(x.numpy(), [0, 1, 7, 7, 7])
    with pytest.raises(ShapeError, match="split"):
        lucid.split_with_sizes(x, [2, 2])
    with pytest.raises(ShapeError, match="split_with_sizes"):
        lucid.split_with_sizes(x, [-1, 6])
    with pytest.raises(DTypeError, match="split_with_sizes"):
        lucid.split_with_sizes(x, 2)
    with pytest.raises(DimError, match="split_with_sizes"):
        lucid.split_with_sizes(lucid.tensor(1.0), [1])


@pytest.mark.parametrize(
    "name, shape, arg",
    [
        ("vsplit", (4, 3), 2),
        ("vsplit", (6, 2, 2), [1, 4]),
        ("vsplit", (4, 3), [2, 2, 10]),
        ("hsplit", (3, 6), 3),
        ("hsplit", (8,), 4),
        ("hsplit", (2, 5, 2), [2]),
        ("dsplit", (2, 2, 4), 2),
        ("dsplit", (1, 2, 5, 3), [1, 3]),
    ],
)
def test_directional_splits_parity(name, shape, arg):
    x = RNG.standard_normal(shape)
    check(lambda t: getattr(lucid, name)(t, arg), lambda t: getattr(torch, name)(t, arg), x)
    check(lambda t: getattr(t, name)(arg), lambda t: getattr(t, name)(arg), x, noncontig=True)


@pytest.mark.parametrize(
    "name, shape, arg",
    [
        ("vsplit", (6,), 2),
        ("vsplit", (5, 2), 2),
        ("hsplit", (), 1),
        ("hsplit", (7,), 2),
        ("dsplit", (2, 4), 2),
        ("dsplit", (2, 2, 3), 2),
    ],
)
def test_directional_split_errors(name, shape, arg):
    with pytest.raises((DimError, ShapeError), match=name):
        getattr(lucid, name)(lucid.zeros(*shape), arg)


def test_numel():
    for shape in [(2, 3), (), (0, 4), (1, 1, 5)]:
        assert lucid.numel(lucid.zeros(shape)) == torch.numel(torch.zeros(shape))
    with pytest.raises(DTypeError, match="numel"):
        lucid.numel([1, 2])


# -- fill_diagonal_, maximum_, minimum_ ----------------------------------------------------


@pytest.mark.parametrize(
    "shape, wrap",
    [
        ((3, 3), False),
        ((5, 3), False),
        ((5, 3), True),
        ((3, 5), True),
        ((7, 2), True),
        ((3, 3, 3), False),
        ((2, 2, 2, 2), True),
        ((0, 0), False),
    ],
)
def test_fill_diagonal_parity(shape, wrap):
    lx, tx = lucid.zeros(*shape), torch.zeros(*shape)
    assert lx.fill_diagonal_(2.5, wrap) is lx
    tx.fill_diagonal_(2.5, wrap)
    assert_same(lx, tx)


def test_fill_diagonal_dtypes_gradient_and_errors():
    li, ti = lucid.zeros(2, 2, dtype=lucid.int64), torch.zeros(2, 2, dtype=torch.int64)
    li.fill_diagonal_(2.7)
    ti.fill_diagonal_(2.7)
    assert_same(li, ti)
    lb, tb = lucid.zeros(3, 3, dtype=lucid.bool), torch.zeros(3, 3, dtype=torch.bool)
    lb.fill_diagonal_(True)
    tb.fill_diagonal_(True)
    assert_same(lb, tb)
    lx = lucid.tensor(RNG.standard_normal((3, 3)), requires_grad=True)
    tx = torch.tensor(lx.detach().numpy(), requires_grad=True)
    ly, ty = lx * 2, tx * 2
    ly.fill_diagonal_(1.0)
    ty.fill_diagonal_(1.0)
    ly.sum().backward()
    ty.sum().backward()
    assert_same(lx.grad, tx.grad)
    with pytest.raises(AutogradError, match="fill_diagonal"):
        lucid.zeros(2, 2, requires_grad=True).fill_diagonal_(1.0)
    with pytest.raises(DimError, match="fill_diagonal_"):
        lucid.zeros(3).fill_diagonal_(1.0)
    with pytest.raises(ShapeError, match="fill_diagonal_"):
        lucid.zeros(3, 4, 3).fill_diagonal_(1.0)


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_in_place(name):
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((4,))
    la = lucid.tensor(a)
    out = getattr(la, name + "_")(lucid.tensor(b))
    assert out is la
    assert_same(la, getattr(torch, name)(torch.tensor(a), torch.tensor(b)))
    # gradients through the in-place form equal torch's out-of-place ones
    lx = lucid.tensor(a, requires_grad=True)
    ly = lucid.tensor(b, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    ty = torch.tensor(b, requires_grad=True)
    lz = lx * 1
    getattr(lz, name + "_")(ly)
    tz = getattr(torch, name)(tx * 1, ty)
    g = RNG.standard_normal((3, 4))
    lg = lucid.autograd.grad(lz, [lx, ly], lucid.tensor(g))
    tg = torch.autograd.grad(tz, [tx, ty], torch.tensor(g))
    for l, t in zip(lg, tg):
        assert_same(l, t)
    li = lucid.tensor([1, 5])
    li.maximum_(lucid.tensor([3, 2]))
    assert li.tolist() == [3, 5]
    with pytest.raises(DTypeError, match=name):
        getattr(lucid.tensor([1, 5]), name + "_")(lucid.tensor([3.5, 2.0]))
    with pytest.raises(AutogradError, match=name):
        getattr(lucid.zeros(2, requires_grad=True), name + "_")(lucid.ones(2))


# -- random fills --------------------------------------------------------------------------

N = 40000


def _gen(seed=0):
    return lucid.Generator().manual_seed(seed)


def test_geometric_moments_and_support():
    x = lucid.empty(N, dtype=lucid.float64)
    assert x.geometric_(0.3, generator=_gen()) is x
    v = x.numpy()
    assert v.min() >= 1 and np.all(v == np.round(v))
    p = 0.3
    mean, var = 1 / p, (1 - p) / p**2
    assert abs(v.mean() - mean) < 5 * math.sqrt(var / N)
    assert abs(v.var() / var - 1) < 0.08
    assert abs((v == 1).mean() - p) < 5 * math.sqrt(p * (1 - p) / N)
    xi = lucid.zeros(N, dtype=lucid.int64).geometric_(0.5, generator=_gen(1))
    assert xi.dtype is lucid.int64 and abs(xi.float().mean().item() - 2.0) < 0.05


def test_cauchy_quantiles():
    x = lucid.empty(N, dtype=lucid.float64).cauchy_(1.5, 2.0, generator=_gen())
    q = np.quantile(x.numpy(), [0.25, 0.5, 0.75])
    # quartiles of Cauchy(m, s) are m - s, m, m + s; their sample sd is ~ 1.6 s / sqrt(N)
    np.testing.assert_allclose(q, [-0.5, 1.5, 3.5], atol=0.05)
    y = lucid.empty(10).cauchy_()
    assert y.dtype is lucid.float32 and np.all(np.isfinite(y.numpy()))


def test_log_normal_moments():
    x = lucid.empty(N, dtype=lucid.float64).log_normal_(0.5, 0.25, generator=_gen())
    v = x.numpy()
    assert v.min() > 0
    lv = np.log(v)
    assert abs(lv.mean() - 0.5) < 5 * 0.25 / math.sqrt(N)
    assert abs(lv.std() / 0.25 - 1) < 0.03
    d = lucid.empty(N).log_normal_(generator=_gen(2))  # defaults mean=1, std=2
    assert abs(np.log(d.numpy().astype(np.float64)).mean() - 1.0) < 5 * 2 / math.sqrt(N)


def test_exponential_moments():
    x = lucid.empty(N, dtype=lucid.float64).exponential_(2.5, generator=_gen(7))
    v = x.numpy()
    assert v.min() >= 0
    assert abs(v.mean() - 0.4) < 5 * 0.4 / math.sqrt(N)
    assert abs(v.std() / 0.4 - 1) < 0.03


def test_random_fills_reproduce_with_a_seed_and_keep_shape():
    for name, args in (
        ("geometric_", (0.4,)),
        ("cauchy_", ()),
        ("log_normal_", ()),
        ("exponential_", ()),
    ):
        a = getattr(lucid.empty(3, 4), name)(*args, generator=_gen(5))
        b = getattr(lucid.empty(3, 4), name)(*args, generator=_gen(5))
        assert a.shape == (3, 4)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    lucid.manual_seed(3)
    a = lucid.empty(5).cauchy_()
    lucid.manual_seed(3)
    np.testing.assert_array_equal(a.numpy(), lucid.empty(5).cauchy_().numpy())


def test_random_fills_errors():
    with pytest.raises(ArgumentError, match="geometric_"):
        lucid.empty(3).geometric_(1.5)
    with pytest.raises(DTypeError, match="geometric_"):
        lucid.empty(3, dtype=lucid.bool).geometric_(0.5)
    with pytest.raises(DTypeError, match="cauchy_"):
        lucid.zeros(3, dtype=lucid.int64).cauchy_()
    with pytest.raises(ArgumentError, match="cauchy_"):
        lucid.empty(3).cauchy_(0.0, -1.0)
    with pytest.raises(DTypeError, match="log_normal_"):
        lucid.zeros(3, dtype=lucid.int64).log_normal_()
    with pytest.raises(ArgumentError, match="log_normal_"):
        lucid.empty(3).log_normal_(0.0, 0.0)
    with pytest.raises(AutogradError, match="cauchy"):
        lucid.zeros(3, requires_grad=True).cauchy_()


def test_random_fill_of_a_non_leaf_has_zero_gradient():
    x = lucid.ones(4, requires_grad=True)
    y = x * 2
    y.log_normal_(generator=_gen())
    (y * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(4))


def test_poisson_moments_dtype_and_gradient():
    rates = lucid.full((N,), 4.0, dtype=lucid.float64)
    s = lucid.poisson(rates, generator=_gen()).numpy()
    assert np.all(s == np.round(s)) and s.min() >= 0
    assert abs(s.mean() - 4.0) < 5 * math.sqrt(4.0 / N)
    assert abs(s.var() / 4.0 - 1) < 0.05
    mixed = lucid.poisson(lucid.tensor([0.0, 0.0, 1e-3, 50.0]), generator=_gen(1))
    assert mixed.dtype is lucid.float32 and mixed.numpy()[:2].tolist() == [0.0, 0.0]
    r = lucid.tensor([1.0, 2.0], requires_grad=True)
    p = lucid.poisson(r, generator=_gen(2))
    tp = torch.poisson(torch.tensor([1.0, 2.0], requires_grad=True))
    assert p.requires_grad == tp.requires_grad
    (g,) = lucid.autograd.grad(p.sum(), r)
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(
        lucid.poisson(rates[:10], _gen(4)).numpy(), lucid.poisson(rates[:10], _gen(4)).numpy()
    )


def test_poisson_errors():
    with pytest.raises(ArgumentError, match="poisson"):
        lucid.poisson(lucid.tensor([-1.0]))
    with pytest.raises(DTypeError, match="poisson"):
        lucid.poisson(lucid.tensor([1, 2]))


# -- aliases and conversions ---------------------------------------------------------------


def test_autocast_alias():
    assert lucid.autocast is lucid.amp.autocast
    x = lucid.randn(2, 3)
    with lucid.autocast(device_type="cpu", dtype=lucid.bfloat16):
        assert lucid.amp.is_autocast_enabled()
        assert (x @ x.t()).dtype is lucid.bfloat16
    assert not lucid.amp.is_autocast_enabled()


@pytest.mark.parametrize(
    "data", [range(3), range(2, 11, 3), range(0), range(-3, 3), [range(2), range(2)], (range(3),)]
)
def test_tensor_of_range(data):
    assert_same(lucid.tensor(data), torch.tensor(data))
    assert_same(lucid.tensor(data, dtype=lucid.float64), torch.tensor(data, dtype=torch.float64))


# torch's own array arithmetic goes through NumPy's deprecated __array_wrap__ protocol
@pytest.mark.filterwarnings("ignore:__array_wrap__:DeprecationWarning")
@pytest.mark.parametrize(
    "op", ["add", "sub", "mul", "truediv", "pow", "mod", "lt", "ge", "eq", "ne", "matmul"]
)
def test_tensor_with_array_operands(op):
    import operator

    fn = getattr(operator, op)
    a = RNG.uniform(0.5, 2, (3, 3))
    t = lucid.tensor(a.astype(np.float32))
    arrays = [RNG.uniform(0.5, 2, (3,)).astype(np.float32)]
    if op != "matmul":  # matmul needs one dtype (PyTorch's rule)
        arrays.append(RNG.uniform(0.5, 2, (3, 3)))
    for arr in arrays:
        r = fn(t, arr)
        assert isinstance(r, lucid.Tensor)
        if op in ("lt", "ge", "eq", "ne"):  # torch has no array comparisons: NumPy's
            np.testing.assert_array_equal(r.numpy(), fn(a.astype(np.float32), arr))
        else:
            assert_same(r, fn(torch.tensor(a.astype(np.float32)), arr))
        rr = fn(arr, t)
        assert isinstance(rr, lucid.Tensor)
        np.testing.assert_allclose(
            rr.numpy().astype(np.float64),
            fn(arr, a.astype(np.float32)).astype(np.float64),
            rtol=1e-5,
        )


def test_array_operands_dtype_rule_and_gradients():
    t = lucid.tensor([1.0, 2.0], requires_grad=True)
    # the array becomes a tensor of its own dtype; PyTorch's promotion follows
    assert (t * np.array([1.0, 2.0])).dtype is lucid.float64
    assert (t * np.array([1.0, 2.0], dtype=np.float32)).dtype is lucid.float32
    assert (lucid.tensor([1, 2]) + np.array([3, 4])).dtype is lucid.int64
    assert (np.array([3, 4]) - lucid.tensor([1, 2])).tolist() == [2, 2]
    y = (np.array([2.0, 3.0]) * t).sum()
    y.backward()
    np.testing.assert_array_equal(t.grad.numpy(), [2.0, 3.0])
    ti = lucid.tensor([4, 8])
    ti += np.array([1, 1])
    assert isinstance(ti, lucid.Tensor) and ti.tolist() == [5, 9]
    with pytest.raises(ShapeError):
        lucid.tensor([1.0, 2.0]) + np.zeros(3)


# -- print options -------------------------------------------------------------------------


@pytest.fixture
def printopts():
    yield
    lucid.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


def _same_repr(t):
    got = repr(lucid.tensor(t.numpy()))
    assert got == repr(t).replace("torch.", "lucid."), (got, repr(t))


@pytest.mark.parametrize(
    "opts",
    [
        {"precision": 2},
        {"precision": 7},
        {"threshold": 5},
        {"threshold": 5, "edgeitems": 1},
        {"edgeitems": 2, "threshold": 10},
        {"linewidth": 30},
        {"linewidth": 200},
        {"sci_mode": True},
        {"sci_mode": False},
        {"profile": "short"},
        {"profile": "full"},
        {"profile": "short", "precision": 6},
        {"threshold": 3, "edgeitems": 0},
    ],
)
def test_set_printoptions_matches_torch(printopts, opts):
    lucid.set_printoptions(**opts)
    torch.set_printoptions(**opts)
    for t in (
        torch.arange(10.0) / 3,
        torch.arange(20).reshape(4, 5),
        torch.tensor([1e-8, 1e5, 3.0]),
        torch.tensor([1.5, -2.25]),
        torch.arange(2000.0).reshape(40, 50) / 7,
        torch.tensor([True, False, True]),
        torch.tensor(3.14159),
        torch.arange(24.0).reshape(2, 3, 4) * 1.5,
        torch.tensor([float("nan"), 1.0, float("inf")]),
    ):
        _same_repr(t)


def test_get_printoptions_and_context_manager(printopts):
    assert lucid.get_printoptions() == {
        "precision": 4,
        "threshold": 1000,
        "edgeitems": 3,
        "linewidth": 80,
        "sci_mode": None,
    }
    with lucid.printoptions(precision=1):
        assert repr(lucid.tensor([1.25])) == "tensor([1.2])"
    assert repr(lucid.tensor([1.25])) == "tensor([1.2500])"
    lucid.set_printoptions(profile="full")
    assert lucid.get_printoptions()["threshold"] == math.inf
    with pytest.raises(ArgumentError, match="set_printoptions"):
        lucid.set_printoptions(profile="tiny")
    with pytest.raises(ArgumentError, match="set_printoptions"):
        lucid.set_printoptions(precision=-1)
