"""Registry-suite samples for ``lucid.linalg``: well-conditioned inputs (diagonally
dominant, Hermitian positive definite through a wrapper, distinct singular values), and
sign- and phase-invariant functions of singular and eigen vectors (their signs, or complex
phases, are LAPACK's choice). The holomorphic nodes' samples also run as complex variants;
the others (Cholesky, QR, SVD, eigh, slogdet, pinv) have complex samples of their own."""

import numpy as np
import torch

import lucid

from ._sample import Const, Sample, crnd, rnd

L, T = lucid.linalg, torch.linalg


def _dominant(*shape, seed=0):
    """A batch of matrices with a dominant diagonal: far from singular."""
    return rnd(*shape, seed=seed) + 3 * np.eye(shape[-1])


def _spd(lib, **kw):
    return lambda a: lib.cholesky(a @ a.mH + 3 * _eye_of(a), **kw)


def _eye_of(a):
    n = a.shape[-1]
    if isinstance(a, torch.Tensor):
        return torch.eye(n, dtype=a.dtype)
    return lucid.eye(n, dtype=a.dtype)


def _svd(lib, full=False):
    def f(a):
        u, s, vh = lib.svd(a, full_matrices=full)
        k = s.shape[-1]
        return s, u[..., :k] @ vh[..., :k, :], u[..., :k].abs(), vh[..., :k, :].abs()

    return f


def _svd_values(lib):
    return lambda a: lib.svd(a, full_matrices=False)[1]


def _eigh(lib, uplo="L"):
    def f(a):
        w, v = lib.eigh(a + a.mH, UPLO=uplo)
        return w, v.abs(), v * v.conj()

    return f


def _eigvalsh(lib):
    return lambda a: lib.eigvalsh(a + a.mH)


def _qr(lib, mode="reduced"):
    return lambda a: lib.qr(a, mode=mode)


def _lu(lib):
    return lambda a: lib.lu_factor(a)[0]


def _lu_unpacked(lib):
    return lambda a: lib.lu(a)[1:]


def _lu_solve(lib, **kw):
    return lambda a, b: lib.lu_solve(*lib.lu_factor(a), b, **kw)


def _slogdet(lib):
    return lambda a: lib.slogdet(a)


def _tri(lib, **kw):
    return lambda a, b: lib.solve_triangular(a, b, **kw)


def _solve(lib, **kw):
    return lambda a, b: lib.solve(a, b, **kw)


def _const_a(lib):
    return lambda a, b: lib.solve(a.to(b.dtype), b)  # only B needs a gradient


def _pinv(lib, **kw):
    def f(a):
        return lib.pinv(a + a.mH if kw.get("hermitian") else a, **kw)

    return f


def _power(lib, n):
    return lambda a: lib.matrix_power(a, n)


def _norm(lib, ord):
    return lambda a: lib.matrix_norm(a, ord)


def _s(op, name, fl, ft, *args, **kw):
    return Sample(op, fl, args, torch_fn=ft, name=f"{op}[{name}]", **kw)


SAMPLES = [
    _s("linalg_inv", "batch", L.inv, T.inv, _dominant(2, 3, 3)),
    _s("linalg_det", "batch", L.det, T.det, _dominant(2, 3, 3)),
    _s("linalg_det", "0-d batch", L.det, T.det, rnd(3, 3) + 2 * np.eye(3)),
    # the cofactor gradient; torch returns zeros here (its own gradcheck fails): no parity
    _s(
        "linalg_det",
        "singular",
        L.det,
        None,
        np.diag([2.0, 1.0, 0.0]) + np.outer([1.0, -1.0, 0.0], [0.5, 0.25, 0.0]),
    ),
    _s("linalg_slogdet", "batch", _slogdet(L), _slogdet(T), rnd(2, 3, 3) - 3 * np.eye(3)),
    _s(
        "linalg_solve",
        "matrix rhs broadcast",
        _solve(L),
        _solve(T),
        _dominant(2, 3, 3),
        rnd(1, 3, 2, seed=1),
    ),
    _s("linalg_solve", "vector rhs", _solve(L), _solve(T), _dominant(2, 3, 3), rnd(2, 3, seed=1)),
    _s(
        "linalg_solve",
        "left=False",
        _solve(L, left=False),
        _solve(T, left=False),
        _dominant(3, 3),
        rnd(2, 3, seed=1),
    ),
    # (no complex variant: a constant real A with a complex B mixes dtypes, which solve
    # refuses as PyTorch's does)
    _s(
        "linalg_solve",
        "const A",
        _const_a(L),
        _const_a(T),
        Const(_dominant(3, 3)),
        rnd(3, 2, seed=1),
        complex=False,
    ),
    _s(
        "linalg_solve_triangular",
        "upper",
        _tri(L, upper=True),
        _tri(T, upper=True),
        _dominant(2, 3, 3),
        rnd(2, 3, 2, seed=1),
    ),
    _s(
        "linalg_solve_triangular",
        "lower unit right",
        _tri(L, upper=False, left=False, unitriangular=True),
        _tri(T, upper=False, left=False, unitriangular=True),
        rnd(3, 3),
        rnd(2, 3, seed=1),
    ),
    _s("linalg_cholesky", "spd batch", _spd(L), _spd(T), rnd(2, 3, 3)),
    _s("linalg_qr", "tall", _qr(L), _qr(T), rnd(4, 3) + np.eye(4, 3)),
    _s("linalg_qr", "wide batch", _qr(L), _qr(T), rnd(2, 2, 4) + np.eye(2, 4)),
    _s("linalg_qr", "complete square", _qr(L, "complete"), _qr(T, "complete"), _dominant(3, 3)),
    _s("linalg_svd", "tall", _svd(L), _svd(T), rnd(4, 3) + np.diag([3.0, 2.0, 1.0], -1)[:, :3]),
    _s(
        "linalg_svd",
        "wide full",
        _svd(L, True),
        _svd(T, True),
        rnd(2, 3, 4) + np.diag([3.0, 2.0, 1.0, 0.0])[:3],
    ),
    _s("linalg_svd", "values only", _svd_values(L), _svd_values(T), rnd(3, 3)),
    _s("linalg_svd", "svdvals", L.svdvals, T.svdvals, rnd(2, 3, 4)),
    _s("linalg_eigh", "batch", _eigh(L), _eigh(T), rnd(2, 3, 3) + np.diag([1.0, 2.0, 3.0])),
    _s("linalg_eigh", "upper", _eigh(L, "U"), _eigh(T, "U"), rnd(3, 3) + np.diag([1.0, 2, 3])),
    _s("linalg_eigh", "eigvalsh", _eigvalsh(L), _eigvalsh(T), rnd(2, 3, 3)),
    _s("linalg_lu_factor", "packed", _lu(L), _lu(T), rnd(2, 3, 3) + np.eye(3)),
    _s("linalg_lu_factor", "tall", _lu(L), _lu(T), rnd(2, 4, 3) + np.eye(4, 3)),
    _s(
        "linalg_lu_factor",
        "wide unpacked",
        _lu_unpacked(L),
        _lu_unpacked(T),
        rnd(3, 5) + np.eye(3, 5),
    ),
    _s("linalg_lu_factor", "unpacked", _lu_unpacked(L), _lu_unpacked(T), rnd(3, 3)),
    _s(
        "linalg_lu_factor",
        "lu_solve",
        _lu_solve(L),
        _lu_solve(T),
        _dominant(2, 3, 3),
        rnd(2, 3, 2, seed=1),
    ),
    _s(
        "linalg_lu_factor",
        "lu_solve adjoint right",
        _lu_solve(L, adjoint=True, left=False),
        _lu_solve(T, adjoint=True, left=False),
        _dominant(3, 3),
        rnd(2, 3, seed=1),
    ),
    _s("linalg_pinv", "tall", _pinv(L), _pinv(T), rnd(4, 3) + np.eye(4, 3)),
    _s(
        "linalg_pinv",
        "hermitian",
        _pinv(L, hermitian=True),
        _pinv(T, hermitian=True),
        rnd(3, 3) + np.diag([1.0, 2.0, 3.0]),
    ),
    _s("linalg_matrix_exp", "batch", L.matrix_exp, T.matrix_exp, rnd(2, 3, 3)),
    _s("linalg_matrix_exp", "squarings", L.matrix_exp, T.matrix_exp, 2 * rnd(3, 3, seed=2)),
    _s("linalg_inv", "matrix_power -2", _power(L, -2), _power(T, -2), _dominant(3, 3)),
    _s("linalg_svd", "nuclear norm", _norm(L, "nuc"), _norm(T, "nuc"), rnd(2, 3, 4)),
    # the complex cofactor gradient of a singular matrix (through the SVD and the phase
    # det(U Vh)); the real singular sample's complex variant is not singular. Not twice
    # differentiable this way: the SVD's phase term divides by the zero singular value
    _s(
        "linalg_det",
        "complex singular",
        L.det,
        None,
        np.diag([2.0 + 1j, 1j, 0.0]) + np.outer([1.0, -1j, 0.0], [0.5, 0.25j, 0.0]),
        gradgrad=False,
        complex=False,
    ),
    # complex samples of the nodes that are not holomorphic
    _s("linalg_slogdet", "complex", _slogdet(L), _slogdet(T), crnd(2, 3, 3) - 3 * np.eye(3)),
    _s("linalg_cholesky", "hermitian", _spd(L), _spd(T), crnd(2, 3, 3)),
    _s(
        "linalg_cholesky",
        "hermitian upper",
        _spd(L, upper=True),
        _spd(T, upper=True),
        crnd(3, 3, seed=1),
    ),
    _s("linalg_qr", "complex tall", _qr(L), _qr(T), crnd(4, 3) + np.eye(4, 3)),
    _s("linalg_qr", "complex wide batch", _qr(L), _qr(T), crnd(2, 2, 4) + np.eye(2, 4)),
    _s(
        "linalg_svd",
        "complex tall",
        _svd(L),
        _svd(T),
        crnd(4, 3) + np.diag([3.0, 2.0, 1.0], -1)[:, :3],
    ),
    _s(
        "linalg_svd",
        "complex wide full",
        _svd(L, True),
        _svd(T, True),
        crnd(2, 3, 4) + np.diag([3.0, 2.0, 1.0, 0.0])[:3],
    ),
    _s("linalg_svd", "complex svdvals", L.svdvals, T.svdvals, crnd(2, 3, 4)),
    _s("linalg_svd", "complex nuclear norm", _norm(L, "nuc"), _norm(T, "nuc"), crnd(3, 4)),
    _s(
        "linalg_eigh",
        "hermitian batch",
        _eigh(L),
        _eigh(T),
        crnd(2, 3, 3) + np.diag([1.0, 2.0, 3.0]),
    ),
    _s(
        "linalg_eigh",
        "hermitian upper",
        _eigh(L, "U"),
        _eigh(T, "U"),
        crnd(3, 3, seed=1) + np.diag([1.0, 2, 3]),
    ),
    _s("linalg_eigh", "complex eigvalsh", _eigvalsh(L), _eigvalsh(T), crnd(2, 3, 3)),
    _s("linalg_pinv", "complex wide", _pinv(L), _pinv(T), crnd(3, 4) + np.eye(3, 4)),
    _s(
        "linalg_pinv",
        "complex hermitian",
        _pinv(L, hermitian=True),
        _pinv(T, hermitian=True),
        crnd(3, 3) + np.diag([1.0, 2.0, 3.0]),
    ),
]
