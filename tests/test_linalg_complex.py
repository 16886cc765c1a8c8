"""What only complex inputs show in ``lucid.linalg``, against ``torch.linalg``: result
dtypes in complex64 and complex128 (real singular values, eigenvalues, ``logabsdet`` and
norms), conjugations (``vecdot``, ``lu_solve(adjoint=True)``, Hermitian triangles read by
``cholesky``/``eigh``), LAPACK's complex pivots, the complex cofactor gradient, the refusal
of phase-dependent losses, empty and non-contiguous inputs, and mixed-dtype errors. The
functions shared with real inputs run on both in tests/test_linalg_lib.py; the registered
nodes' complex gradients are checked by the registry suite
(tests/ops/samples/linalg_lib.py)."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import AutogradError, DTypeError

from .test_linalg_lib import both, check_fn, close, crnd

L, T = lucid.linalg, torch.linalg

A = crnd(2, 4, 4) + 4 * np.eye(4)


def test_vecdot_conjugates_its_first_argument():
    x = lucid.tensor([1j, 2.0], dtype=lucid.complex128)
    assert complex(L.vecdot(x, x)) == 5.0
    check_fn(
        lambda x, y: L.vecdot(x, y, dim=0),
        lambda x, y: T.vecdot(x, y, dim=0),
        crnd(3, 2),
        crnd(3, 2, seed=1),
    )


def test_hermitian_factorisations_read_one_triangle():
    h = A[0] @ A[0].conj().T
    junk = h + np.triu(crnd(4, 4, seed=3), 1)  # its triangles are not each other's H
    (lh,), (th,) = both(junk)
    for uplo in ("L", "U"):
        close(L.eigvalsh(lh, UPLO=uplo), T.eigvalsh(th, UPLO=uplo))
        close(L.eigh(lh, UPLO=uplo).eigenvalues, T.eigh(th, UPLO=uplo).eigenvalues)
    assert not np.allclose(L.eigvalsh(lh, UPLO="U").numpy(), L.eigvalsh(lh).numpy())
    close(L.cholesky(lh), T.cholesky(th))
    close(L.cholesky(lh, upper=True), T.cholesky(th, upper=True))
    hh = lucid.tensor(h)
    close(L.cholesky(hh, upper=True), L.cholesky(hh).mH)


def test_lu_pivots_follow_lapack_complex_magnitude():
    # |Re| + |Im| (izamax) picks row 2 here; the modulus would pick row 1
    a = np.array([[3.0, 1.0], [2.0 + 1.2j, 1.0]])
    assert L.lu_factor(lucid.tensor(a)).pivots.tolist() == [2, 2]
    assert T.lu_factor(torch.tensor(a)).pivots.tolist() == [2, 2]


@pytest.mark.parametrize(
    "kw", [{}, {"adjoint": True}, {"left": False}, {"adjoint": True, "left": False}]
)
def test_lu_solve_adjoint_is_conjugate_transpose(kw):
    check_fn(
        lambda a, b: L.lu_solve(*L.lu_factor(a), b, **kw),
        lambda a, b: T.lu_solve(*T.lu_factor(a), b, **kw),
        A,
        crnd(2, 4, 4, seed=1),
    )


@pytest.mark.parametrize(
    "dt,real", [(lucid.complex64, lucid.float32), (lucid.complex128, lucid.float64)]
)
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
    assert L.lstsq(a[:, :, :3], a).residuals.dtype is real
    ta = torch.tensor(A, dtype=torch.complex64 if dt is lucid.complex64 else torch.complex128)
    tol = 1e-4 if dt is lucid.complex64 else 1e-10
    close(L.matrix_exp(a), T.matrix_exp(ta), tol)
    close(L.inv(a), T.inv(ta), tol)


def test_singular_slogdet_and_inverse():
    z = np.diag([1.0, 0.0, 1j])
    (lz,), (tz,) = both(z)
    for x, y in zip(L.slogdet(lz), T.slogdet(tz)):
        close(x, y)
    close(L.inv_ex(lz).info, T.inv_ex(tz).info)


def test_singular_complex_det_has_the_cofactor_gradient():
    g = lucid.tensor(np.diag([2.0 + 1j, 1j, 0.0]), requires_grad=True)
    L.det(g).real.backward()
    # d Re det / d z: the conjugate cofactor matrix, whose only non-zero entry is (2, 2)
    close(g.grad, np.diag([0.0, 0.0, np.conj((2.0 + 1j) * 1j)]))


def test_phase_dependent_losses_raise_as_torch():
    h = A[0] + A[0].conj().T
    for fn, msg in (
        (lambda lib, a: lib.eigh(a)[1].sum().abs(), "linalg_eigh_backward"),
        (lambda lib, a: lib.svd(a)[0].sum().abs(), "svd_backward"),
        (lambda lib, a: lib.svd(a)[2].sum().abs(), "svd_backward"),
    ):
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
    assert tuple(L.svdvals(empty).shape) == (0, 3) and L.svdvals(empty).dtype is lucid.float64
    view = lucid.tensor(A).mT  # a transposed (non-contiguous) view
    close(L.inv(view), T.inv(torch.tensor(A).mT))
    close(
        L.solve_triangular(view, lucid.tensor(A), upper=False),
        T.solve_triangular(torch.tensor(A).mT, torch.tensor(A), upper=False),
    )


def test_mixed_dtypes_are_refused():
    with pytest.raises(DTypeError, match="dtype of A"):
        L.solve(lucid.tensor(A), lucid.ones(2, 4, 1, dtype=lucid.float64))
    with pytest.raises(DTypeError, match="dtype of A"):
        L.solve_triangular(lucid.tensor(A), lucid.tensor(A.real), upper=True)
    with pytest.raises(DTypeError, match="complex64 or complex128"):
        L.det(lucid.ones(2, 2, dtype=lucid.int64))
