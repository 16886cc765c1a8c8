"""``lucid.linalg`` on complex tensors against ``torch.linalg``: the composed functions
(norms, condition numbers, least squares, ranks, products, tensor solves) with their
gradients, result dtypes in complex64 and complex128, the ``_ex`` info paths, LAPACK's
complex pivots, the refusal of phase-dependent losses, and mixed-dtype errors. The
registered nodes' complex gradients are checked by the registry suite
(tests/ops/samples/linalg_lib.py)."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import AutogradError, DTypeError

L, T = lucid.linalg, torch.linalg
INF = float("inf")


def crnd(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def both(*arrays, grad=False):
    return ([lucid.tensor(a, requires_grad=grad) for a in arrays],
            [torch.tensor(a, requires_grad=grad) for a in arrays])


def npy(t):
    if isinstance(t, torch.Tensor):
        return t.detach().resolve_conj().numpy()
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def close(a, b, tol=1e-10):
    a, b = npy(a), npy(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def check_fn(fl, ft, *arrays, tol=1e-10):
    """Values (dtype included) and the gradient of a random real projection of the
    outputs (complex weights for complex outputs), against torch."""
    la, ta = both(*arrays, grad=True)
    lo, to = fl(*la), ft(*ta)
    lo = lo if isinstance(lo, tuple) else (lo,)
    to = to if isinstance(to, tuple) else (to,)
    ls = ts = 0
    for i, (l, t) in enumerate(zip(lo, to)):
        close(l, t, tol)
        if t.requires_grad:
            w = crnd(*t.shape, seed=10 + i)
            w = w if t.is_complex() else w.real
            ls = ls + (l * lucid.tensor(w)).sum().real
            ts = ts + (t * torch.tensor(w)).sum().real
    ls.backward()
    ts.backward()
    for l, t in zip(la, ta):
        close(l.grad, t.grad, tol)


A = crnd(2, 4, 4) + 4 * np.eye(4)
W = crnd(2, 5, 3)


@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, -1, INF, -INF])
def test_matrix_norm_orders_are_real(ord):
    check_fn(lambda a: L.matrix_norm(a, ord, dim=(0, 2)),
             lambda a: T.matrix_norm(a, ord, dim=(0, 2)), W)


@pytest.mark.parametrize("ord,dim", [(2, None), (1, -1), (INF, (0, 1)), (3.5, 2), (-1, 0)])
def test_vector_norm_and_norm(ord, dim):
    check_fn(lambda a: L.vector_norm(a, ord, dim), lambda a: T.vector_norm(a, ord, dim), W)
    check_fn(lambda a: L.norm(a), lambda a: T.norm(a), W)


@pytest.mark.parametrize("p", [None, 2, -2])
def test_cond_from_singular_values(p):
    check_fn(lambda a: L.cond(a, p), lambda a: T.cond(a, p), A)


@pytest.mark.parametrize("p", ["fro", "nuc", 1, INF])
def test_cond_other_orders_values(p):       # torch's backward of these orders fails
    close(L.cond(lucid.tensor(A), p), T.cond(torch.tensor(A), p))


@pytest.mark.parametrize("n", [-2, 0, 3])
def test_matrix_power(n):
    check_fn(lambda a: L.matrix_power(a, n), lambda a: T.matrix_power(a, n), A, tol=1e-9)


def test_products_and_tensor_solves():
    check_fn(lambda a, b, c: L.multi_dot([a, b, c]), lambda a, b, c: T.multi_dot([a, b, c]),
             crnd(3), crnd(3, 6, seed=1), crnd(6, 2, seed=2))
    check_fn(L.householder_product, T.householder_product, W, crnd(2, 2, seed=1))
    check_fn(lambda x: L.vander(x, N=4), lambda x: T.vander(x, N=4), crnd(2, 3))
    check_fn(L.vecdot, T.vecdot, crnd(2, 3), crnd(3, seed=1))       # conj(x) . y
    check_fn(lambda x, y: L.vecdot(x, y, dim=0), lambda x, y: T.vecdot(x, y, dim=0),
             crnd(3, 2), crnd(3, 2, seed=1))
    check_fn(L.cross, T.cross, crnd(2, 3), crnd(2, 3, seed=1))
    check_fn(lambda a: L.tensorinv(a, ind=1), lambda a: T.tensorinv(a, ind=1),
             crnd(4, 2, 2) + 3 * np.eye(4).reshape(4, 2, 2))
    check_fn(L.tensorsolve, T.tensorsolve, crnd(2, 3, 6) + 3 * np.eye(6).reshape(2, 3, 6),
             crnd(2, 3, seed=1))
    check_fn(lambda a: a.logdet(), lambda a: a.logdet(), A)


def test_vecdot_conjugates_its_first_argument():
    x = lucid.tensor([1j, 2.0], dtype=lucid.complex128)
    assert complex(L.vecdot(x, x)) == 5.0


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_lstsq(shape):
    a, b = crnd(*shape), crnd(*shape[:-1], 2, seed=1)
    check_fn(lambda x, y: L.lstsq(x, y).solution,
             lambda x, y: T.lstsq(x, y, driver="gelsd").solution, a, b, tol=1e-9)
    r = L.lstsq(lucid.tensor(a), lucid.tensor(b))
    t = T.lstsq(torch.tensor(a), torch.tensor(b), driver="gelsd")
    close(r.residuals, t.residuals)
    close(r.rank, t.rank)
    close(r.singular_values, t.singular_values)


def test_pinv_tolerances_and_rank():
    z = np.diag([3.0, 1e-3j, 0.0])
    for kw in ({}, {"atol": 1e-2}, {"rtol": 1e-2}, {"hermitian": True}):
        zz = z if not kw.get("hermitian") else np.diag([3.0, -1e-3, 0.0]).astype(complex)
        close(L.pinv(lucid.tensor(zz), **kw), T.pinv(torch.tensor(zz), **kw))
        close(L.matrix_rank(lucid.tensor(zz), **kw), T.matrix_rank(torch.tensor(zz), **kw))


def test_factorisations_match_torch_values():
    (la,), (ta,) = both(W)
    for mode in ("reduced", "complete"):
        for x, y in zip(L.qr(la, mode=mode), T.qr(ta, mode=mode)):
            close(x, y)
    close(L.svdvals(la), T.svdvals(ta))
    u, s, vh = L.svd(la)
    close((u[..., :3] * s[..., None, :]) @ vh, la)
    h = la[0].mT @ la[0].conj()                  # Hermitian positive definite, 3 x 3
    close(L.cholesky(h), T.cholesky(ta[0].mT @ ta[0].conj()))
    close(L.cholesky(h, upper=True), T.cholesky(ta[0].mT @ ta[0].conj(), upper=True))
    for uplo in ("L", "U"):
        close(L.eigvalsh(h, UPLO=uplo), T.eigvalsh(ta[0].mT @ ta[0].conj(), UPLO=uplo))
    for x, y in zip(L.slogdet(lucid.tensor(A)), T.slogdet(torch.tensor(A))):
        close(x, y)


def test_lu_pivots_follow_lapack_complex_magnitude():
    # |Re| + |Im| (izamax) picks row 2 here, the modulus would pick row 1
    a = np.array([[3.0, 1.0], [2.0 + 1.2j, 1.0]])
    assert L.lu_factor(lucid.tensor(a)).pivots.tolist() == [2, 2]
    for shape in ((4, 3), (3, 4), (2, 3, 3)):
        (la,), (ta,) = both(crnd(*shape))
        lu, piv = L.lu_factor(la)
        tlu, tpiv = T.lu_factor(ta)
        close(lu, tlu)
        assert (piv.numpy() == tpiv.numpy()).all()
        for x, y in zip(L.lu(la), T.lu(ta)):
            close(x, y)


@pytest.mark.parametrize("kw", [{}, {"adjoint": True}, {"left": False},
                                {"adjoint": True, "left": False}])
def test_lu_solve_adjoint_is_conjugate_transpose(kw):
    check_fn(lambda a, b: L.lu_solve(*L.lu_factor(a), b, **kw),
             lambda a, b: T.lu_solve(*T.lu_factor(a), b, **kw), A, crnd(2, 4, 4, seed=1))


@pytest.mark.parametrize("dt,real", [(lucid.complex64, lucid.float32),
                                     (lucid.complex128, lucid.float64)])
def test_result_dtypes(dt, real):
    a = lucid.tensor(A, dtype=dt)
    h = a @ a.mH
    assert L.inv(a).dtype is dt and L.det(a).dtype is dt
    sign, logabs = L.slogdet(a)
    assert sign.dtype is dt and logabs.dtype is real
    assert L.svdvals(a).dtype is real and L.svd(a).S.dtype is real
    assert L.eigvalsh(h).dtype is real and L.eigh(h).eigenvalues.dtype is real
    assert L.eigh(h).eigenvectors.dtype is dt and L.cholesky(h).dtype is dt
    for r in (L.matrix_norm(a), L.matrix_norm(a, "nuc"), L.vector_norm(a), L.cond(a)):
        assert r.dtype is real
    assert L.matrix_exp(a).dtype is dt and L.pinv(a).dtype is dt
    ta = torch.tensor(A, dtype=torch.complex64 if dt is lucid.complex64 else torch.complex128)
    tol = 1e-4 if dt is lucid.complex64 else 1e-10
    close(L.matrix_exp(a), T.matrix_exp(ta), tol)
    close(L.inv(a), T.inv(ta), tol)


def test_ex_variants_report_info():
    sing = np.stack([np.eye(3), np.diag([1.0, 0.0, 1j])]).astype(complex)
    notpd = np.stack([np.eye(3), np.diag([1.0, 1.0, -1.0])]).astype(complex)
    (ls, ln), (ts, tn) = both(sing, notpd)
    r, t = L.inv_ex(ls), T.inv_ex(ts)
    close(r.info, t.info)
    close(r.inverse[0], t.inverse[0])
    assert np.isnan(r.inverse[1].numpy()).all()
    close(L.cholesky_ex(ln).info, T.cholesky_ex(tn).info)
    close(L.lu_factor_ex(ls).info, T.lu_factor_ex(ts).info)
    b = np.ones((2, 3), complex)
    close(L.solve_ex(ls, lucid.tensor(b)).info, T.solve_ex(ts, torch.tensor(b)).info)
    for x, y in zip(L.slogdet(ls), T.slogdet(ts)):
        close(x, y)


def test_singular_complex_det_has_the_cofactor_gradient():
    z = np.diag([2.0 + 1j, 1j, 0.0])
    g = lucid.tensor(z, requires_grad=True)
    L.det(g).real.backward()
    # d Re det / d z: the conjugate cofactor matrix, whose only non-zero entry is (2, 2)
    close(g.grad, np.diag([0.0, 0.0, np.conj((2.0 + 1j) * 1j)]))


def test_phase_dependent_losses_raise_as_torch():
    h = A[0] + A[0].conj().T
    for fn, msg in ((lambda lib, a: lib.eigh(a)[1].sum().abs(), "linalg_eigh_backward"),
                    (lambda lib, a: lib.svd(a)[0].sum().abs(), "svd_backward"),
                    (lambda lib, a: lib.svd(a)[2].sum().abs(), "svd_backward")):
        (la,), (ta,) = both(h, grad=True)
        with pytest.raises(RuntimeError, match=msg):
            fn(T, ta).backward()
        with pytest.raises(AutogradError, match=msg + ".*e\\^{i phi}"):
            fn(L, la).backward()


def test_empty_and_noncontiguous_complex_inputs():
    empty = lucid.zeros(0, 3, 3, dtype=lucid.complex128)
    assert tuple(L.det(empty).shape) == (0,)
    assert tuple(L.matrix_exp(lucid.zeros(2, 0, 0, dtype=lucid.complex64)).shape) == (2, 0, 0)
    assert tuple(L.lu_factor(empty).pivots.shape) == (0, 3)
    view = lucid.tensor(A).mT            # a transposed (non-contiguous) view
    close(L.inv(view), T.inv(torch.tensor(A).mT))
    close(L.solve_triangular(view, lucid.tensor(A), upper=False),
          T.solve_triangular(torch.tensor(A).mT, torch.tensor(A), upper=False))


def test_mixed_dtypes_are_refused():
    with pytest.raises(DTypeError, match="dtype of A"):
        L.solve(lucid.tensor(A), lucid.ones(2, 4, 1, dtype=lucid.float64))
    with pytest.raises(DTypeError, match="dtype of A"):
        L.solve_triangular(lucid.tensor(A), lucid.tensor(A.real), upper=True)
    with pytest.raises(DTypeError, match="complex64 or complex128"):
        L.det(lucid.ones(2, 2, dtype=lucid.int64))
