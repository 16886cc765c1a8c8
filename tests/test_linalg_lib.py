"""``lucid.linalg`` against ``torch.linalg``: values over batches and options, the
functions composed of registered ops (their gradients too), the ``_ex`` info paths, the
documented gradient instabilities, and every error path; the tests marked with ``data``
run on real (float64) and complex (complex128) inputs. Gradients of the registered nodes
are checked by the registry suite (tests/ops/samples/linalg_lib.py); complex-only
behaviour is in tests/test_linalg_complex.py."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import ArgumentError, AutogradError, DTypeError, ShapeError

L, T = lucid.linalg, torch.linalg
INF = float("inf")


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def crnd(*shape, seed=0):
    return rnd(*shape, seed=seed) + 1j * rnd(*shape, seed=seed + 100)


DATA = pytest.mark.parametrize("data", [rnd, crnd], ids=["real", "complex"])


def both(*arrays, grad=False):
    return (
        [lucid.tensor(a, requires_grad=grad) for a in arrays],
        [torch.tensor(a, requires_grad=grad) for a in arrays],
    )


def npy(t):
    """A Lucid or torch tensor (or array) as a NumPy array."""
    if isinstance(t, torch.Tensor):
        return t.detach().resolve_conj().numpy()
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def close(a, b, tol=1e-10):
    a, b = npy(a), npy(b)
    assert a.shape == b.shape and a.dtype.kind == b.dtype.kind, (a.shape, b.shape, a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _weight(t, seed):
    """Random projection weights for output ``t`` (complex for a complex output)."""
    w = rnd(*t.shape, seed=seed)
    return w + 1j * rnd(*t.shape, seed=seed + 100) if t.is_complex() else w


def check_fn(fl, ft, *arrays, tol=1e-10):
    """Values and the gradient of a random real projection of the outputs (the real part
    of a complex one), against torch."""
    (la, ta) = both(*arrays, grad=True)
    lo, to = fl(*la), ft(*ta)
    lo = lo if isinstance(lo, tuple) else (lo,)
    to = to if isinstance(to, tuple) else (to,)
    ls = ts = 0
    for i, (l, t) in enumerate(zip(lo, to)):
        close(l, t, tol)
        if t.requires_grad:
            w = _weight(t, 10 + i)
            ls, ts = ls + (l * lucid.tensor(w)).sum().real, ts + (t * torch.tensor(w)).sum().real
    if not isinstance(ts, int):
        ls.backward()
        ts.backward()
        for l, t in zip(la, ta):
            if t.grad is None:  # ord=0: torch records no graph, lucid zeros
                assert l.grad is None or not npy(l.grad).any()
            else:
                close(l.grad, t.grad, tol)


A = rnd(2, 4, 4) + 4 * np.eye(4)
W = rnd(2, 5, 3)


def square(data):
    return data(2, 4, 4) + 4 * np.eye(4)


@DATA
@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, -1, INF, -INF])
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm_orders(ord, keepdim, data):
    check_fn(
        lambda a: L.matrix_norm(a, ord, dim=(0, 2), keepdim=keepdim),
        lambda a: T.matrix_norm(a, ord, dim=(0, 2), keepdim=keepdim),
        data(2, 5, 3),
    )


@DATA
@pytest.mark.parametrize(
    "ord,dim", [(2, None), (1, -1), (INF, (0, 1)), (-INF, 1), (0, -1), (3.5, 2), (-1, 0)]
)
def test_vector_norm(ord, dim, data):
    check_fn(
        lambda a: L.vector_norm(a, ord, dim, keepdim=True),
        lambda a: T.vector_norm(a, ord, dim, keepdim=True),
        data(2, 5, 3) + 2,
    )


@pytest.mark.parametrize(
    "ord,dim,shape",
    [
        (None, None, (2, 5, 3)),
        (None, 1, (2, 5, 3)),
        ("fro", None, (5, 3)),
        (2, None, (5, 3)),
        (3, None, (5,)),
        ("nuc", (1, 2), (2, 5, 3)),
    ],
)
def test_norm_dispatches_like_torch(ord, dim, shape):
    x = rnd(*shape)
    check_fn(lambda a: L.norm(a, ord, dim), lambda a: T.norm(a, ord, dim), x)


def test_lucid_norm_nuclear():
    check_fn(lambda a: lucid.norm(a, p="nuc"), lambda a: torch.norm(a, p="nuc"), W[0])


@DATA
@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, INF, -INF])
def test_cond(p, data):
    fl, ft = (lambda a: L.cond(a, p)), (lambda a: T.cond(a, p))
    a = square(data)
    if p in (None, 2, -2):
        check_fn(fl, ft, a)
    else:  # torch's own backward of these orders fails; compare values only
        close(fl(lucid.tensor(a)), ft(torch.tensor(a)))


@DATA
@pytest.mark.parametrize("n", [-3, -1, 0, 1, 2, 5])
def test_matrix_power(n, data):
    check_fn(lambda a: L.matrix_power(a, n), lambda a: T.matrix_power(a, n), square(data), tol=1e-9)


@DATA
def test_composed_products_and_solves(data):
    check_fn(
        lambda a, b, c: L.multi_dot([a, b, c]),
        lambda a, b, c: T.multi_dot([a, b, c]),
        data(3),
        data(3, 6, seed=1),
        data(6, 2, seed=2),
    )
    check_fn(L.householder_product, T.householder_product, data(2, 5, 3), data(2, 2, seed=1))
    check_fn(lambda x: L.vander(x, N=4), lambda x: T.vander(x, N=4), data(2, 3))
    check_fn(L.vecdot, T.vecdot, data(2, 3), data(3, seed=1))
    check_fn(L.cross, T.cross, data(2, 3), data(2, 3, seed=1))
    check_fn(lambda a: L.diagonal(a, offset=1), lambda a: T.diagonal(a, offset=1), data(2, 5, 3))
    check_fn(
        lambda a: L.tensorinv(a, ind=1),
        lambda a: T.tensorinv(a, ind=1),
        data(4, 2, 2) + 3 * np.eye(4).reshape(4, 2, 2),
    )
    check_fn(
        L.tensorsolve,
        T.tensorsolve,
        data(2, 3, 6) + 3 * np.eye(6).reshape(2, 3, 6),
        data(2, 3, seed=1),
    )
    check_fn(
        lambda a, b: L.solve(a, b, left=False),
        lambda a, b: T.solve(a, b, left=False),
        square(data),
        data(3, 4, seed=1),
    )
    check_fn(lambda a: a.logdet(), lambda a: a.logdet(), square(data))


@DATA
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_lstsq(shape, data):
    a, b = data(*shape), data(*shape[:-1], 2, seed=1)
    check_fn(
        lambda x, y: L.lstsq(x, y).solution,
        lambda x, y: T.lstsq(x, y, driver="gelsd").solution,
        a,
        b,
        tol=1e-9,
    )
    r = L.lstsq(lucid.tensor(a), lucid.tensor(b))
    t = T.lstsq(torch.tensor(a), torch.tensor(b), driver="gelsd")
    close(r.residuals, t.residuals)
    close(r.rank, t.rank)
    close(r.singular_values, t.singular_values)


@DATA
def test_pinv_tolerances_and_rank(data):
    q = np.linalg.qr(data(3, 3))[0]  # orthogonal or unitary
    z = q @ np.diag([3.0, -1e-3, 0.0]) @ q.conj().T
    for kw in ({}, {"atol": 1e-2}, {"rtol": 1e-2}, {"hermitian": True}):
        close(L.pinv(lucid.tensor(z), **kw), T.pinv(torch.tensor(z), **kw))
        close(L.matrix_rank(lucid.tensor(z), **kw), T.matrix_rank(torch.tensor(z), **kw))


@DATA
def test_lu_rectangular_and_pivots_match_torch(data):
    for shape in ((4, 3), (3, 4), (2, 3, 3)):
        a = data(*shape)
        (la,), (ta,) = both(a)
        lu, piv = L.lu_factor(la)
        tlu, tpiv = T.lu_factor(ta)
        close(lu, tlu)
        assert (piv.numpy() == tpiv.numpy()).all()
        for x, y in zip(L.lu(la), T.lu(ta)):
            close(x, y)


@DATA
def test_qr_modes_and_svd_full_shapes(data):
    (la,), (ta,) = both(data(2, 5, 3))
    for mode in ("reduced", "complete"):
        for x, y in zip(L.qr(la, mode=mode), T.qr(ta, mode=mode)):
            close(x, y)
    close(L.qr(la, mode="r").R, T.qr(ta, mode="r").R)
    assert L.qr(la, mode="r").Q.numel() == 0
    u, s, vh = L.svd(la)
    assert tuple(u.shape) == (2, 5, 5) and tuple(vh.shape) == (2, 3, 3)
    close(u[..., :3] * s[..., None, :] @ vh, la)


@DATA
def test_ex_variants_report_info(data):
    dt = data(1).dtype
    sing = np.stack([np.eye(3), np.diag([1.0, 0.0, 1.0])]).astype(dt)
    notpd = np.stack([np.eye(3), np.diag([1.0, 1.0, -1.0])]).astype(dt)
    (ls, ln), (ts, tn) = both(sing, notpd)
    r, t = L.inv_ex(ls), T.inv_ex(ts)
    close(r.info, t.info)
    close(r.inverse[0], t.inverse[0])
    assert np.isnan(r.inverse[1].numpy()).all()
    close(L.cholesky_ex(ln).info, T.cholesky_ex(tn).info)
    close(L.lu_factor_ex(ls).info, T.lu_factor_ex(ts).info)
    ones = np.ones((2, 3), dt)
    res = L.solve_ex(ls, lucid.tensor(ones))
    close(res.info, T.solve_ex(ts, torch.tensor(ones)).info)
    close(res.result[0], ones[0])
    with pytest.raises(ArgumentError, match=r"linalg.inv: the diagonal element 2 is zero"):
        L.inv(ls)
    with pytest.raises(ArgumentError, match=r"cholesky .*leading minor of order 3"):
        L.cholesky(ln)
    with pytest.raises(ArgumentError, match="inv_ex"):
        L.inv_ex(ls, check_errors=True)
    with pytest.raises(ArgumentError, match="singular"):
        L.solve(ls, lucid.tensor(ones))


def test_singular_determinants_and_triangular_inf():
    z = np.diag([2.0, 0.0, -1.0])
    (lz,), (tz,) = both(z)
    close(L.det(lz), T.det(tz))
    for x, y in zip(L.slogdet(lz), T.slogdet(tz)):
        close(x, y)
    close(lz.logdet(), tz.logdet())
    g = lucid.tensor(z, requires_grad=True)
    L.det(g).backward()  # the cofactor matrix, finite
    close(g.grad, np.diag([0.0, -2.0, 0.0]))
    b = np.ones((3, 1))
    close(
        L.solve_triangular(lz, lucid.tensor(b), upper=True),
        T.solve_triangular(tz, torch.tensor(b), upper=True),
    )


def test_repeated_values_gradients_follow_torch():
    """PyTorch's documented instability: through U/Vh or eigenvectors, repeated values
    give NaN gradients; through the values alone they stay finite."""
    eye = np.eye(3)
    for fn in (
        lambda lib, a: sum(o.sum() for o in lib.svd(a)),
        lambda lib, a: lib.eigh(a)[1].sum(),
        lambda lib, a: lib.svdvals(a).sum(),
        lambda lib, a: lib.eigvalsh(a).sum(),
    ):
        (la,), (ta,) = both(eye, grad=True)
        fn(L, la).backward()
        fn(T, ta).backward()
        np.testing.assert_array_equal(np.isnan(la.grad.numpy()), np.isnan(ta.grad.numpy()))
        close(np.nan_to_num(la.grad.numpy()), np.nan_to_num(ta.grad.numpy()))


def test_qr_complete_tall_is_not_differentiable():
    a = lucid.tensor(W[0], requires_grad=True)
    q, r = L.qr(a, mode="complete")
    with pytest.raises(AutogradError, match="mode='complete' and nrows > ncols"):
        q.sum().backward()


def test_float32_batches_and_empty_batch():
    a32 = (A + 0).astype(np.float32)
    close(L.inv(lucid.tensor(a32)), T.inv(torch.tensor(a32)), tol=1e-5)
    assert L.inv(lucid.tensor(a32)).dtype is lucid.float32
    empty = lucid.zeros(0, 3, 3, dtype=lucid.float64)
    assert tuple(L.det(empty).shape) == (0,)
    assert tuple(L.cholesky(empty).shape) == (0, 3, 3)
    assert tuple(L.lu_factor(empty).pivots.shape) == (0, 3)


def test_tensor_methods():
    (la,), (ta,) = both(A[0])
    for name in ("det", "inverse", "logdet", "matrix_exp", "pinverse"):
        close(getattr(la, name)(), getattr(ta, name)())
    close(la.matrix_power(3), ta.matrix_power(3), tol=1e-9)


def test_errors_name_the_function():
    with pytest.raises(
        DTypeError,
        match=r"linalg.inv: expected A to be a float32, float64, "
        r"complex64 or complex128",
    ):
        L.inv(lucid.ones(2, 2, dtype=lucid.int64))
    with pytest.raises(ShapeError, match="batches of square matrices"):
        L.det(lucid.ones(2, 3))
    with pytest.raises(ShapeError, match="at least 2 dimensions"):
        L.svd(lucid.ones(3))
    with pytest.raises(ShapeError, match="incompatible shapes"):
        L.solve(lucid.ones(3, 3), lucid.ones(4, 2))
    with pytest.raises(ShapeError, match="do not broadcast"):
        L.solve(lucid.ones(2, 3, 3), lucid.ones(4, 3, 2))
    with pytest.raises(DTypeError, match="dtype of A"):
        L.solve(lucid.ones(3, 3), lucid.ones(3, dtype=lucid.float64))
    with pytest.raises(ArgumentError, match="mode must be"):
        L.qr(lucid.ones(3, 3), mode="full")
    with pytest.raises(ArgumentError, match="UPLO"):
        L.eigh(lucid.ones(3, 3), UPLO="X")
    with pytest.raises(ArgumentError, match="order 'foo' not supported"):
        L.matrix_norm(lucid.ones(3, 3), "foo")
    with pytest.raises(ArgumentError, match="n must be an int"):
        L.matrix_power(lucid.ones(3, 3), 1.5)
    with pytest.raises(ShapeError, match="m >= n >= k"):
        L.householder_product(lucid.ones(2, 3), lucid.ones(1))
    with pytest.raises(ArgumentError, match="at least 2 tensors"):
        L.multi_dot([lucid.ones(3)])
    with pytest.raises(ShapeError, match="must equal"):
        L.tensorinv(lucid.ones(2, 3), ind=1)
    with pytest.raises(ArgumentError, match="pivot=True"):
        L.lu_factor(lucid.ones(3, 3), pivot=False)
