"""Indexing ops against PyTorch (values and gradients): gather / scatter family, index_*,
masked_*, take, put, nonzero; views and in-place semantics of ``[]``; every error path."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import AutogradError, DimError, DTypeError, IndexingError, ShapeError


def _lib(t):
    return torch if isinstance(t, torch.Tensor) else lucid


def _run(lib, fn, args, dtype):
    ts = []
    for a in args:
        if isinstance(a, np.ndarray):
            arr = a.astype(dtype) if a.dtype.kind == "f" else a
            t = lib.tensor(arr)
            if arr.dtype.kind == "f":
                t.requires_grad_()
            ts.append(t)
        else:
            ts.append(a)
    out = fn(*ts)
    outs = out if isinstance(out, tuple) else (out,)
    leaves = [t for t in ts if isinstance(t, (lucid.Tensor, torch.Tensor)) and t.requires_grad]
    grads = [None] * len(leaves)
    diff = [o for o in outs if o.requires_grad]
    if diff and leaves:
        rng = np.random.default_rng(7)
        gos = [lib.tensor(rng.standard_normal(tuple(o.shape)).astype(dtype)) for o in diff]
        grads = lib.autograd.grad(diff, leaves, gos, allow_unused=True)
    return ([o.detach().numpy() for o in outs], [None if g is None else g.numpy() for g in grads])


def check(fn, *args, dtypes=(np.float64, np.float32), tfn=None):
    """``fn`` on Lucid and torch tensors made from ``args`` agree in values and gradients."""
    for dt in dtypes:
        lo, lg = _run(lucid, fn, args, dt)
        to, tg = _run(torch, tfn or fn, args, dt)
        tol = dict(rtol=1e-12, atol=1e-12) if dt == np.float64 else dict(rtol=1e-5, atol=1e-6)
        assert len(lo) == len(to)
        for a, b in zip(lo, to):
            assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
            np.testing.assert_allclose(a, b, **tol)
        for a, b in zip(lg, tg):
            if b is None:
                assert a is None or not a.any()
            else:
                np.testing.assert_allclose(a, b, **tol)


R = np.random.default_rng(0)


def rnd(*shape):
    return R.standard_normal(shape)


def idx(*values):
    return np.array(values, dtype=np.int64)


# -- gather and scatter -----------------------------------------------------------------


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather_duplicates_and_negative_dims(dim):
    index = np.array([[0, 2, 2], [1, 1, 0]]) if dim else np.array([[2, 0, 1], [2, 2, 0]])
    check(lambda x, i: x.gather(dim, i), rnd(3, 3), index)


def test_gather_smaller_index_noncontiguous_and_scalars():
    check(lambda x, i: x.transpose(0, 1).gather(1, i), rnd(4, 3), np.array([[3], [0]]))
    check(lambda x, i: _lib(x).gather(x, 0, i), rnd(4, 3), np.zeros((0, 3), np.int64))
    check(lambda x, i: x.gather(0, i), rnd(), np.array(0))
    check(lambda x, i: x.gather(0, i), rnd(3), np.array(2))
    check(lambda x, i: x.gather(0, i), rnd(), np.array([0, 0]))
    check(lambda x, i: x.gather(1, i.int()), rnd(2, 3), np.array([[2], [0]]))


def test_gather_integer_and_bool_inputs():
    for data in (np.arange(6).reshape(2, 3), np.eye(2, 3, dtype=bool)):
        i = np.array([[2, 0], [1, 1]])
        assert (
            lucid.tensor(data).gather(1, lucid.tensor(i)).numpy()
            == torch.tensor(data).gather(1, torch.tensor(i)).numpy()
        ).all()


def test_scatter_src_value_and_reduce():
    i = np.array([[0, 2], [1, 0]])
    check(lambda x, s, i: x.scatter(1, i, s), rnd(2, 3), rnd(2, 2), i)
    check(lambda x, s, i: x.scatter(-2, i, s), rnd(2, 3), rnd(1, 3), np.array([[1, 0, 1]]))
    check(lambda x, i: x.scatter(1, i, 2.5), rnd(2, 3), i)
    check(lambda x, i: x.scatter(1, i, value=-1.0), rnd(2, 3), i)
    check(
        lambda x, s, i: x.scatter(1, i, s, reduce="add"),
        rnd(2, 3),
        rnd(2, 2),
        np.array([[0, 0], [1, 1]]),
        dtypes=(np.float64,),
        tfn=lambda x, s, i: x.scatter_add(1, i, s),
    )
    lo = lucid.tensor([[1.0, 2, 3]]).scatter(1, lucid.tensor([[0, 0]]), 2.0, reduce="multiply")
    to = torch.tensor([[1.0, 2, 3]]).scatter(1, torch.tensor([[0, 0]]), 2.0, reduce="multiply")
    np.testing.assert_array_equal(lo.numpy(), to.numpy())
    check(
        lambda x: x.scatter(
            0,
            x.new_tensor([0], dtype=int) if isinstance(x, torch.Tensor) else lucid.tensor([0]),
            3.0,
        ),
        rnd(),
    )


def test_scatter_add_duplicates_accumulate():
    i = np.array([[0, 0, 2, 0], [1, 1, 1, 0]])
    check(lambda x, s, i: x.scatter_add(1, i, s), rnd(2, 3), rnd(2, 4), i)
    check(
        lambda x, s, i: _lib(x).scatter_add(x, 0, i, s),
        rnd(3, 4),
        rnd(2, 4),
        np.array([[2, 2, 0, 1], [2, 0, 0, 1]]),
    )


def test_scatter_src_larger_than_index_gets_zero_gradient():
    x = lucid.tensor(rnd(2, 3), requires_grad=True)
    s = lucid.tensor(rnd(3, 4), requires_grad=True)
    i = lucid.tensor([[0, 0], [2, 1]])
    out = x.scatter_add(1, i, s)
    ref = torch.tensor(x.detach().numpy()).scatter_add(
        1, torch.tensor(i.numpy()), torch.tensor(s.detach().numpy())
    )
    np.testing.assert_allclose(out.detach().numpy(), ref.numpy())
    out.sum().backward()
    expect = np.zeros((3, 4))
    expect[:2, :2] = 1
    np.testing.assert_array_equal(s.grad.numpy(), expect)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_matches_torch(reduce, include_self):
    i = np.array([[0, 2, 2, 0], [1, 1, 1, 2]])
    check(
        lambda x, s, i: x.scatter_reduce(1, i, s, reduce, include_self=include_self),
        rnd(2, 4),
        rnd(2, 4),
        i,
    )
    check(
        lambda x, s, i: x.scatter_reduce(0, i, s, reduce, include_self=include_self),
        rnd(3),
        rnd(2),
        np.array([2, 2]),
    )


def test_scatter_reduce_prod_zeros_and_ties():
    i = np.array([0, 0, 0, 1, 1])
    src = np.array([0.0, 2.0, 3.0, 0.0, 0.0])  # one zero in group 0, two in group 1
    for inc in (True, False):
        check(
            lambda x, s, i: x.scatter_reduce(0, i, s, "prod", include_self=inc),
            np.array([1.5, -2.0, 0.5]),
            src,
            i,
        )
    check(
        lambda x, s, i: x.scatter_reduce(0, i, s, "prod"),
        np.array([0.0, 1.0]),
        np.array([2.0, 3.0]),
        np.array([0, 0]),
    )
    check(
        lambda x, s, i: x.scatter_reduce(0, i, s, "amax"),
        np.array([3.0, 1.0]),
        np.array([3.0, 3.0, 0.5]),
        np.array([0, 0, 1]),
    )  # a three-way tie splits
    check(
        lambda x, s, i: x.scatter_reduce(0, i, s, "amin", include_self=False),
        np.array([3.0, 1.0]),
        np.array([-1.0, -1.0, 0.5]),
        np.array([0, 0, 1]),
    )


def test_scatter_reduce_integer_mean_floors_and_nan_propagates():
    x = np.array([-1, 2, 3])
    for inc in (True, False):
        a = lucid.tensor(x).scatter_reduce(
            0, lucid.tensor([0, 0]), lucid.tensor([-2, -4]), "mean", include_self=inc
        )
        b = torch.tensor(x).scatter_reduce(
            0, torch.tensor([0, 0]), torch.tensor([-2, -4]), "mean", include_self=inc
        )
        assert a.dtype is lucid.int64 and a.tolist() == b.tolist()
    a = lucid.tensor([1.0, 2.0]).scatter_reduce(
        0, lucid.tensor([0]), lucid.tensor([float("nan")]), "amax"
    )
    assert np.isnan(a[0].item()) and a[1].item() == 2.0


# -- along one dim ----------------------------------------------------------------------


def test_index_select():
    check(lambda x: x.index_select(0, _lib(x).tensor([2, 0, 2])), rnd(3, 2))
    check(lambda x: x.index_select(-1, _lib(x).tensor([1], dtype=_lib(x).int32)), rnd(2, 3))
    check(lambda x: x.index_select(1, _lib(x).tensor(1)), rnd(2, 3))
    check(lambda x: x.index_select(0, _lib(x).tensor([0])), rnd())
    check(lambda x: x.index_select(1, _lib(x).tensor([], dtype=_lib(x).int64)), rnd(2, 3))
    check(lambda x: x.transpose(0, 1).index_select(0, _lib(x).tensor([1, 1])), rnd(2, 3))


def test_index_add_copy_fill():
    check(lambda x, s: x.index_add(1, _lib(x).tensor([2, 0, 2]), s), rnd(2, 3), rnd(2, 3))
    check(lambda x, s: x.index_add(0, _lib(x).tensor([1, 1]), s, alpha=-1.5), rnd(2, 3), rnd(2, 3))
    check(lambda x, s: x.index_add(0, _lib(x).tensor(0), s), rnd(), rnd())
    check(lambda x, s: x.index_copy(-1, _lib(x).tensor([2, 0]), s), rnd(2, 3), rnd(2, 2))
    check(lambda x, s: x.index_copy(0, _lib(x).tensor([0]), s), rnd(), rnd())
    check(lambda x: x.index_fill(1, _lib(x).tensor([-1, 0]), 2.0), rnd(2, 3))
    check(lambda x, v: x.index_fill(0, _lib(x).tensor([1, 1]), v), rnd(3, 2), rnd())
    check(lambda x: x.index_fill(0, _lib(x).tensor(0), -1.0), rnd())
    a = lucid.tensor([1, 2]).index_fill(0, lucid.tensor([0]), 2.7)
    assert a.dtype is lucid.int64 and a.tolist() == [2, 2]


def test_index_put():
    check(
        lambda x, v: x.index_put((_lib(x).tensor([0, 1, 0]),), v, accumulate=True),
        rnd(2, 3),
        rnd(3, 3),
    )
    check(
        lambda x, v: x.index_put((_lib(x).tensor([0, 1]), _lib(x).tensor([2, 2])), v),
        rnd(2, 3),
        rnd(2),
    )
    check(lambda x, v: x.index_put((_lib(x).tensor([True, False]),), v), rnd(2, 3), rnd(3))
    check(
        lambda x, v: x.index_put(
            (_lib(x).tensor([[0], [1]]), _lib(x).tensor([1, 2])), v, accumulate=True
        ),
        rnd(2, 3),
        rnd(1, 2),
    )


# -- masks ------------------------------------------------------------------------------


def test_masked_fill_broadcasts_and_routes_value_gradient():
    m = np.array([[True, False, True], [False, False, True]])
    check(lambda x, m: x.masked_fill(m, 1.5), rnd(2, 3), m)
    check(lambda x, m, v: x.masked_fill(m, v), rnd(3), m, rnd())
    check(lambda x, m, v: _lib(x).masked_fill(x, m, v), rnd(2, 1), m, rnd())
    check(lambda x, m: x.masked_fill(m, 0.0), rnd(), np.array(True))
    check(lambda x, m: x.masked_fill(m, float("-inf")), rnd(2, 3), m[:1])
    a = lucid.zeros(3, dtype=lucid.int64).masked_fill(lucid.tensor([True, False, True]), 2.5)
    assert a.dtype is lucid.int64 and a.tolist() == [2, 0, 2]
    b = lucid.zeros(2).masked_fill(
        lucid.tensor([True, False]), lucid.tensor(3.0, dtype=lucid.float64)
    )
    assert b.dtype is lucid.float32 and b.tolist() == [3, 0]


def test_masked_select_and_scatter():
    m = np.array([[True, False, True], [False, False, True]])
    check(lambda x, m: x.masked_select(m), rnd(2, 3), m)
    check(lambda x, m: x.masked_select(m), rnd(3), m)
    check(lambda x, m: x.masked_select(m), rnd(2, 1), m[0])
    check(lambda x, m: _lib(x).masked_select(x, m), rnd(), np.array(True))
    check(lambda x, m, s: x.masked_scatter(m, s), rnd(2, 3), m, rnd(5))
    check(lambda x, m, s: x.masked_scatter(m, s), rnd(3), m, rnd(2, 3))
    check(lambda x, m, s: x.masked_scatter(m, s), rnd(2, 3), np.zeros((2, 3), bool), rnd(1))
    check(lambda x, m, s: x.masked_scatter(m, s), rnd(), np.array(True), rnd(2))


# -- flat -------------------------------------------------------------------------------


def test_take_take_along_dim_put():
    check(lambda x: x.take(_lib(x).tensor([[5, -1], [0, 0]])), rnd(2, 3))
    check(lambda x: x.transpose(0, 1).take(_lib(x).tensor([1, 4])), rnd(2, 3))
    check(lambda x: x.take(_lib(x).tensor([0, 0])), rnd())
    check(lambda x, i: x.take_along_dim(i, 1), rnd(2, 3), np.array([[2, 0], [1, 1]]))
    check(lambda x, i: x.take_along_dim(i, -2), rnd(3, 1), np.array([[2, 0, 1]]))
    check(lambda x, i: x.take_along_dim(i), rnd(2, 3), np.array([5, 0, 5]))
    check(lambda x, i: _lib(x).take_along_dim(x, i, dim=0), rnd(1, 4), np.array([[0], [0]]))
    check(lambda x, s: x.put(_lib(x).tensor([4, 0, 4]), s, accumulate=True), rnd(2, 3), rnd(3))
    check(lambda x, s: x.put(_lib(x).tensor([[4], [-1]]), s), rnd(2, 3), rnd(1, 2))


def test_nonzero_and_argwhere():
    for data in (
        np.array([[0.0, 1.5, 0.0], [2.0, 0.0, np.nan]]),
        np.array([0, 3, 0, 1]),
        np.array(2.0),
        np.array(0.0),
        np.zeros((0, 3)),
        np.array([[True], [False]]),
    ):
        lt, tt = lucid.tensor(data), torch.tensor(data)
        for f in (lambda x: x.nonzero(), lambda x: _lib(x).argwhere(x)):
            a, b = f(lt), f(tt)
            assert a.dtype is lucid.int64 and a.shape == b.shape
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        a, b = lt.nonzero(as_tuple=True), tt.nonzero(as_tuple=True)
        assert len(a) == len(b)
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u.numpy(), v.numpy())


# -- in place ---------------------------------------------------------------------------

_INPLACE = [
    ("scatter_", lambda x, s: x.scatter_(1, _lib(x).tensor([[1], [0]]), s[:, :1])),
    ("scatter_value", lambda x, s: x.scatter_(1, _lib(x).tensor([[1], [0]]), 2.0)),
    ("scatter_add_", lambda x, s: x.scatter_add_(1, _lib(x).tensor([[1, 1, 0], [0, 2, 2]]), s)),
    (
        "scatter_reduce_",
        lambda x, s: x.scatter_reduce_(
            1, _lib(x).tensor([[1, 1, 0], [0, 2, 2]]), s, "amax", include_self=False
        ),
    ),
    ("index_add_", lambda x, s: x.index_add_(1, _lib(x).tensor([2, 0, 2]), s, alpha=2)),
    ("index_copy_", lambda x, s: x.index_copy_(1, _lib(x).tensor([2, 0, 1]), s)),
    ("index_fill_", lambda x, s: x.index_fill_(1, _lib(x).tensor([2]), s[0, 0])),
    ("masked_fill_", lambda x, s: x.masked_fill_(_lib(x).tensor([True, False, True]), s[1, 1])),
    ("masked_scatter_", lambda x, s: x.masked_scatter_(_lib(x).tensor([False, True, True]), s)),
    ("index_put_", lambda x, s: x.index_put_((_lib(x).tensor([1, 1]),), s[0, :], accumulate=True)),
    ("put_", lambda x, s: x.put_(_lib(x).tensor([0, 5]), s[0, :2])),
]


@pytest.mark.parametrize("name,fn", _INPLACE, ids=[n for n, _ in _INPLACE])
def test_inplace_variants_match_torch(name, fn):
    def run(x, s):
        y = x * 1
        out = fn(y, s)
        assert out is y
        return y * 2

    check(run, rnd(2, 3), rnd(2, 3))


def test_inplace_variants_bump_version_and_refuse_leaves():
    x = lucid.zeros(2, 3)
    v = x[0]
    x.index_fill_(1, lucid.tensor([0]), 1.0)
    assert x._version == v._version == 1 and v.tolist() == [1, 0, 0]
    leaf = lucid.zeros(3, requires_grad=True)
    with pytest.raises(AutogradError, match="masked_fill_.*leaf"):
        leaf.masked_fill_(lucid.tensor([True, False, False]), 1.0)
    with pytest.raises(ShapeError, match="masked_fill_"):
        lucid.zeros(3).masked_fill_(lucid.ones(2, 3, dtype=lucid.bool), 1.0)


# -- views and __setitem__ semantics ----------------------------------------------------


def test_basic_indexing_is_a_view_sharing_storage_and_version():
    x = lucid.tensor(np.arange(24.0).reshape(2, 3, 4))
    for v in (x[1], x[:, 1:3], x[..., ::2], x[None, 0, ..., 1], x[1, 2, 3], x[...]):
        assert v._base is x and np.shares_memory(v.numpy(), x.numpy())
    v = x[1, :, 1:3]
    v[0] = -1.0  # writes through to the base
    assert x[1, 0, 1].item() == -1.0 and x[1, 0, 2].item() == -1.0
    assert x._version == v._version == 1
    x[0, 0, 0] = 7.0
    assert v._version == 2
    vv = v[1:, None]  # a view of a view has the same base
    assert vv._base is x and vv.shape == (2, 1, 2)
    adv = x[[0, 1]]
    assert adv._base is None and not np.shares_memory(adv.numpy(), x.numpy())


def test_view_params_replay_the_view():
    x = lucid.tensor(np.arange(12.0).reshape(3, 4))
    v = x[1:, None, -1]
    ((cls, params),) = v._meta["view"]
    np.testing.assert_array_equal(cls.apply(x, **params).numpy(), v.numpy())


def test_setitem_on_leaf_requiring_grad_raises_and_no_grad_allows():
    x = lucid.zeros(3, requires_grad=True)
    with pytest.raises(AutogradError, match="leaf"):
        x[0] = 1.0
    with pytest.raises(AutogradError, match="leaf"):
        x[[0, 1]] = 1.0
    with lucid.no_grad():
        x[1] = 2.0
        x[[True, False, True]] = 3.0
    assert x.tolist() == [3, 2, 3] and x.requires_grad and x.grad_fn is None


def test_setitem_gradients_overwritten_part_gets_zero():
    for index in ((0, slice(1, None)), ([1, 0], 2), (Ellipsis, [True, False, True])):
        grads = []
        for lib in (lucid, torch):
            x = lib.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
            v = lib.tensor([10.0], dtype=lib.float64, requires_grad=True)
            y = x * 2
            y[index] = v * 3
            (y * y).sum().backward()
            grads.append((x.grad.numpy(), v.grad.numpy(), y.detach().numpy()))
        for a, b in zip(*grads):
            np.testing.assert_allclose(a, b)


def test_setitem_through_a_view_updates_the_base_graph():
    out = []
    for lib in (lucid, torch):
        x = lib.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        w = lib.tensor(np.array([1.0, -2.0]), requires_grad=True)
        y = x * 2
        row = y[1]
        row[[0, 2]] = w * w
        (y * lib.tensor(np.arange(6.0).reshape(2, 3))).sum().backward()
        out.append((y.detach().numpy(), x.grad.numpy(), w.grad.numpy()))
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_augmented_assignment_through_indexing():
    res = []
    for lib in (lucid, torch):
        x = lib.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        v = lib.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
        y = x * 1
        y[0] += v  # a view: in place, then written back
        y[[1, 1], 0] += 5.0  # a copy: duplicates are not accumulated
        y[:, 1:] *= 2
        (y * y).sum().backward()
        res.append((y.detach().numpy(), x.grad.numpy(), v.grad.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b)


def test_empty_indices():
    check(lambda x: x[[]], rnd(3, 2))
    check(lambda x: x[:, _lib(x).tensor([], dtype=_lib(x).int64)], rnd(3, 2))
    check(lambda x: x[_lib(x).zeros(3, 2, dtype=_lib(x).bool)], rnd(3, 2))
    check(lambda x: x[1:1], rnd(3, 2))
    check(lambda x: x[False], rnd(3, 2))
    check(lambda x: x[:, [1, 0]], rnd(0, 2))
    x = lucid.zeros(3)
    x[[]] = 1.0
    x[lucid.zeros(3, dtype=lucid.bool)] = lucid.ones(0)
    assert not x.any() and x._version == 2


def test_setitem_value_requiring_grad_into_plain_tensor():
    w = lucid.tensor([1.0, 2.0], requires_grad=True)
    x = lucid.zeros(2, 2)
    x[:, 0] = w
    assert x.requires_grad
    (x * 3).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [3, 3])


def test_setitem_casts_and_broadcasts_values():
    x = lucid.zeros(2, 3, dtype=lucid.int64)
    x[0] = 2.7
    x[1, 1:] = lucid.tensor([[-1.9, 5.5]])
    assert x.tolist() == [[2, 2, 2], [0, -1, 5]]
    b = lucid.zeros(3, dtype=lucid.bool)
    b[lucid.tensor([0, 2])] = 1
    assert b.tolist() == [True, False, True]
    h = lucid.zeros(4, dtype=lucid.bfloat16)
    h[1::2] = lucid.tensor([1.5, 2.5], dtype=lucid.float64)
    assert h.tolist() == [0, 1.5, 0, 2.5] and h.dtype is lucid.bfloat16
    u = lucid.zeros(2, dtype=lucid.uint8)
    u[0] = -1
    assert u.tolist() == [255, 0]
    z = lucid.tensor(5.0)
    z[...] = 2.0
    z[None] = 3.0
    assert z.item() == 3.0


def test_indexing_half_precision_and_gradient_dtype():
    x = lucid.tensor(np.arange(6.0).reshape(2, 3), dtype=lucid.float16, requires_grad=True)
    y = x[:, [2, 0, 2]]
    assert y.dtype is lucid.float16
    y.sum().backward()
    assert x.grad.dtype is lucid.float16 and x.grad.tolist() == [[1, 0, 2], [1, 0, 2]]


def test_double_backward_through_indexing():
    hessians = []
    for lib in (lucid, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x[[0, 0, 2]]
        (g,) = lib.autograd.grad((y * y * y).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), x)
        hessians.append(h.numpy())
    np.testing.assert_allclose(hessians[0], hessians[1], rtol=1e-6)


# -- errors -----------------------------------------------------------------------------


def test_getitem_errors():
    x = lucid.zeros(2, 3)
    with pytest.raises(
        IndexingError,
        match=r"__getitem__: index 5 is out of bounds for "
        r"dimension 1 with size 3",
    ):
        x[0, 5]
    with pytest.raises(IndexingError, match="index -3 is out of bounds for dimension 0"):
        x[-3]
    with pytest.raises(IndexingError, match="index 3 is out of bounds for dimension 1 with size 3"):
        x[:, [0, 3]]
    with pytest.raises(IndexingError, match="index -4 is out of bounds for dimension 1"):
        x[0, lucid.tensor([[-4]])]
    with pytest.raises(IndexingError, match="step must be greater than zero"):
        x[::-1]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[:, ::0]
    with pytest.raises(IndexingError, match="too many indices for tensor of dimension 2"):
        x[0, 0, 0]
    with pytest.raises(IndexingError, match="0-dim"):
        lucid.tensor(1.0)[0]
    with pytest.raises(
        IndexingError,
        match=r"shape of the mask \[3\] at index 0 does not "
        r"match the shape of the indexed tensor \[2, 3\]",
    ):
        x[lucid.tensor([True, False, True])]
    with pytest.raises(IndexingError, match="single ellipsis"):
        x[..., ...]
    with pytest.raises(IndexingError, match=r"got float"):
        x[1.0]
    with pytest.raises(IndexingError, match="float32"):
        x[lucid.tensor([0.0])]
    with pytest.raises(
        IndexingError,
        match=r"could not be broadcast together with shapes "
        r"\[2\], \[3\]",
    ):
        x[[0, 1], [0, 1, 2]]


def test_setitem_errors():
    x = lucid.zeros(2, 3)
    with pytest.raises(
        ShapeError,
        match=r"__setitem__: shape mismatch: value tensor of shape "
        r"\[2\] cannot be broadcast to indexing result of "
        r"shape \[3\]",
    ):
        x[0] = lucid.ones(2)
    with pytest.raises(ShapeError, match=r"value tensor of shape \[3, 3\] .* \[2, 3\]"):
        x[[0, 1]] = lucid.ones(3, 3)
    with pytest.raises(IndexingError, match="index 2 is out of bounds for dimension 0"):
        x[[0, 2]] = 1.0
    with pytest.raises(IndexingError, match="index 2 is out of bounds for dimension 0"):
        x[2] = 1.0
    assert not x.any()
    with pytest.raises(
        lucid.errors.MemoryOverlapError, match="__setitem__: .*expanded view.*clone"
    ):
        lucid.zeros(3).expand(2, 3)[[0]] = 1.0  # (PyTorch's index_put_ lets it through)
    with pytest.raises(RuntimeError, match="single memory location"):
        torch.zeros(3).expand(2, 3).add_(1.0)
    with pytest.raises(RuntimeError, match="single memory location"):
        lucid.zeros(3).expand(2, 3).add_(1.0)


def test_op_errors():
    x = lucid.zeros(2, 3)
    i = lucid.tensor([[0, 1]])
    cases = [
        (DimError, "gather: dimension out of range", lambda: x.gather(2, i)),
        (
            ShapeError,
            "gather: index tensor must have the same number of dimensions",
            lambda: x.gather(1, lucid.tensor([0])),
        ),
        (
            ShapeError,
            r"gather: expected index \[1, 4\] to be no larger than self \[2, 3\] "
            r"apart from dimension 0",
            lambda: x.gather(0, lucid.tensor([[0] * 4])),
        ),
        (
            IndexingError,
            "gather: index -1 is out of bounds for dimension 1 with size 3",
            lambda: x.gather(1, lucid.tensor([[-1]])),
        ),
        (
            DTypeError,
            "gather: expected an int64 or int32 index tensor, got lucid.float32",
            lambda: x.gather(1, lucid.tensor([[0.0]])),
        ),
        (
            DTypeError,
            "scatter: expected self and src to have the same dtype",
            lambda: x.scatter(1, i, lucid.ones(1, 2, dtype=lucid.float64)),
        ),
        (
            ShapeError,
            r"scatter_add: expected index \[1, 2\] .* no larger than src \[1, 1\]",
            lambda: x.scatter_add(1, i, lucid.ones(1, 1)),
        ),
        (
            ValueError,
            "scatter: reduce argument must be either 'add' or 'multiply'",
            lambda: x.scatter(1, i, 1.0, reduce="max"),
        ),
        (
            IndexingError,
            "scatter_reduce: reduce argument must be one of",
            lambda: x.scatter_reduce(1, i, lucid.ones(1, 2), "median"),
        ),
        (
            IndexingError,
            "scatter: index 3 is out of bounds for dimension 1 with size 3",
            lambda: x.scatter(1, lucid.tensor([[3]]), 0.0),
        ),
        (
            IndexingError,
            "index_select: index is supposed to be a vector",
            lambda: x.index_select(0, lucid.tensor([[0]])),
        ),
        (
            IndexingError,
            "index_select: index -1 is out of bounds for dimension 1",
            lambda: x.index_select(1, lucid.tensor([-1])),
        ),
        (
            IndexingError,
            "index_select: index to a 0-dim tensor can have only 1 value",
            lambda: lucid.tensor(1.0).index_select(0, lucid.tensor([0, 0])),
        ),
        (
            ShapeError,
            "index_add: source tensor shape must match self tensor shape",
            lambda: x.index_add(1, lucid.tensor([0, 1]), lucid.ones(2, 3)),
        ),
        (
            DTypeError,
            "index_copy: expected self and source to have the same dtype",
            lambda: x.index_copy(1, lucid.tensor([0]), lucid.ones(2, 1, dtype=lucid.float64)),
        ),
        (
            IndexingError,
            "index_copy: index 3 is out of bounds for dimension 1 with size 3",
            lambda: x.index_copy(1, lucid.tensor([3]), lucid.ones(2, 1)),
        ),
        (
            ShapeError,
            "index_fill: only supports a 0-dimensional value tensor",
            lambda: x.index_fill(1, lucid.tensor([0]), lucid.ones(1)),
        ),
        (
            DTypeError,
            "masked_fill: expected a bool mask, got a mask of dtype lucid.int64",
            lambda: x.masked_fill(lucid.tensor([1, 0, 1]), 1.0),
        ),
        (
            ShapeError,
            r"masked_fill: mask of shape \[2\] cannot be broadcast with the input "
            r"of shape \[2, 3\]",
            lambda: x.masked_fill(lucid.tensor([True, False]), 1.0),
        ),
        (
            ShapeError,
            "masked_fill: only supports a 0-dimensional value tensor",
            lambda: x.masked_fill(lucid.tensor([True, False, True]), lucid.ones(1)),
        ),
        (
            DTypeError,
            "masked_fill: value must be a number",
            lambda: x.masked_fill(lucid.tensor([True, False, True]), "a"),
        ),
        (
            ShapeError,
            r"masked_scatter: number of elements of source \(2\) < number of ones "
            r"in mask \(6\)",
            lambda: x.masked_scatter(lucid.ones(2, 3, dtype=lucid.bool), lucid.ones(2)),
        ),
        (
            IndexingError,
            "take: index 6 is out of bounds for dimension 0 with size 6",
            lambda: x.take(lucid.tensor([6])),
        ),
        (
            ShapeError,
            "take_along_dim: input and indices should have the same number of dimensions",
            lambda: x.take_along_dim(lucid.tensor([[[0]]]), 1),
        ),
        (
            ShapeError,
            "put: expected source and index to have the same number of elements",
            lambda: x.put(lucid.tensor([0, 1]), lucid.ones(3)),
        ),
        (
            IndexingError,
            "index_put: indices must be a non-empty tuple of tensors",
            lambda: x.index_put(lucid.tensor([0]), lucid.ones(3)),
        ),
        (
            IndexingError,
            "index_put: index 2 is out of bounds for dimension 0 with size 2",
            lambda: x.index_put((lucid.tensor([2]),), lucid.ones(3)),
        ),
    ]
    for err, msg, fn in cases:
        with pytest.raises(err, match=msg):
            fn()
