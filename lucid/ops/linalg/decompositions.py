"""Matrix factorisations of ``lucid.linalg``: Cholesky, QR, SVD, the symmetric
eigendecomposition and LU, each a registered node with its gradient; ``svdvals``,
``eigvalsh``, ``lu`` and the ``_ex`` variants compose them.

Complex inputs: LU is holomorphic (its real formula, with transposes, serves complex data
through the base class); Cholesky, QR, SVD and eigh are not (Hermitian inputs, real
diagonals, real singular values and eigenvalues) and write their complex gradient with
conjugate transposes (:func:`~lucid.ops.linalg.args.mH`), as PyTorch's.

Registered nodes: :class:`CholeskyBackward`, :class:`QrBackward`, :class:`SvdBackward`,
:class:`EighBackward`, :class:`LuFactorBackward`.
"""

from __future__ import annotations

from ..._tensor import Tensor
from ...autograd.grad_mode import STATE
from ...errors import ArgumentError, AutogradError
from ..core._formula import array_of, const
from .args import LinalgMultiOp, conj, is_complex, mH, matrix, mT, result_type, schema
from ..core.registry import register

__all__ = []

_Cholesky = result_type("linalg_cholesky_ex", ("L", "info"))
_QR = result_type("linalg_qr", ("Q", "R"))
_SVD = result_type("linalg_svd", ("U", "S", "Vh"))
_Eigh = result_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
_LuFactor = result_type("linalg_lu_factor", ("LU", "pivots"))
_LuFactorEx = result_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_LU = result_type("linalg_lu", ("P", "L", "U"))


def _eye(node, n, like):
    """The identity of order ``n`` in ``like``'s dtype, a constant of ``node``'s formula."""
    return const(node.be.eye(n, n, array_of(like).dtype), like)


def _right_tri_solve(F, z, r, upper):
    r""":math:`Z T^{-\top}` for the triangle ``T`` of ``r``: :math:`(T^{-1} Z^\top)^\top`
    (:math:`Z T^{-\mathsf H}` when ``r`` is :math:`\bar T`)."""
    return mT(F.solve_triangular(r, mT(z), upper, False))


def _imag_diag(m, eye):
    r""":math:`i\,\mathrm{diag}(\mathrm{Im}\,M)` as a matrix (``eye`` the identity)."""
    return (m - m.conj()) * (0.5 * eye)


def _check_phase(node, op, im, other=None):
    """PyTorch's check that a loss does not depend on the phases of complex singular or
    eigen vectors: ``im`` (the imaginary diagonal of :math:`V^H\bar V`, or of
    :math:`U^H\bar U`, with ``other`` that of :math:`V^H\bar V`) must vanish (sum to
    zero), to 1e-2 as PyTorch's ``allclose``."""
    be, x = node.be, array_of(im)
    y = 0 if other is None else array_of(other)
    bad = be.abs(x + y) > 1e-2 * (1 + be.abs(y))
    if x.size and bool(bad.any()):
        what = "singular vectors" if other is not None else "eigenvectors"
        raise AutogradError(
            f"{op}_backward: the {what} in the complex case are specified "
            "up to multiplication by e^{i phi}; the loss depends on this "
            "phase, so its gradient is ill-defined"
        )


@register
class CholeskyBackward(LinalgMultiOp):
    r"""Autograd node for the Cholesky factor :math:`A = LL^{\mathsf H}` (lower; ``H`` is
    the transpose for real :math:`A`). Saves the output :math:`L` only: the gradient is two
    triangular solves with it.

    Math
    ----
    Murray's formula (2016), with :math:`\Phi` the lower triangle with its diagonal halved:

    .. math:: S = L^{-\mathsf H}\,\Phi(L^{\mathsf H}\bar L)\,L^{-1}, \qquad
              \bar A = \tfrac12 (S + S^{\mathsf H})

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"linalg_cholesky"``, ``AmpPolicy.FORCE_FP32`` (no half-precision LAPACK),
        ``output_arity=2`` (``L`` and the int32 ``info``, which carries no gradient),
        ``complex_grad="custom"`` (Hermitian input, real diagonal of ``L``).
    saves_input, saves_output : bool
        False, True (:math:`L`).

    Notes
    -----
    Backends: ``xp.linalg.cholesky`` (LAPACK potrf on NumPy, cuSOLVER on CuPy); only the
    lower triangle of :math:`A` is read, so the gradient is the Hermitian one (PyTorch's).
    A matrix that is not positive definite gives NaN in ``L`` and its ``info`` (the order of
    the failing leading minor); ``linalg.cholesky`` raises on it, ``cholesky_ex`` returns
    it. The two triangular solves of the gradient are ``F.solve_triangular``.
    """

    __slots__ = ()
    schema_v1 = schema("linalg_cholesky", output_arity=2, complex_grad="custom")
    saves_output = True

    @staticmethod
    def dispatch(be, a):
        return be.cholesky(a)

    def grad(self, F, g, a, out):
        low, gl = out[0], g[0]
        if gl is None:
            return None
        m = mH(low) @ gl
        phi = 0.5 * (F.tril(m, 0) + F.tril(m, -1))
        # L^-H Phi L^-1: one solve from the left, one from the right (L^-1 = (L^T)^-1^T)
        s = _right_tri_solve(F, F.solve_triangular(mH(low), phi, True, False), mT(low), True)
        return 0.5 * (s + mH(s))


def cholesky_ex(A, *, upper=False, check_errors=False):
    """``(L, info)``: the Cholesky factor of the Hermitian (real: symmetric)
    positive-definite ``A`` and the int32 ``info`` (0, or the order of the first leading
    minor that is not positive definite); ``upper``: :math:`U = L^{\\mathsf H}`, from the
    upper triangle of ``A`` (the lower one otherwise), as PyTorch."""
    A = matrix("cholesky", A, square=True)
    low, info = CholeskyBackward.apply(mH(A) if upper else A)
    if check_errors:
        _raise_info(
            "cholesky",
            info,
            "the factorization could not be completed because the "
            "input is not positive-definite (the leading minor of order {} is not "
            "positive-definite)",
        )
    return _Cholesky(mH(low) if upper else low, info)


def cholesky(A, *, upper=False):
    """The Cholesky factor: lower ``L`` with :math:`A = LL^H` (``upper``: :math:`U = L^H`);
    raises :class:`~lucid.errors.ArgumentError` when ``A`` is not positive definite."""
    return cholesky_ex(A, upper=upper, check_errors=True).L


def _raise_info(op, info, what):
    """Raise for the first non-zero ``info`` (one device-to-host read, as PyTorch)."""
    flat = info.reshape(-1)
    if flat.numel() and bool((flat != 0).any()):
        bad = int(flat.ne(0).int().argmax())
        where = f" (batch element {bad})" if info.ndim else ""
        raise ArgumentError(f"linalg.{op}{where}: " + what.format(int(flat[bad])))


@register
class QrBackward(LinalgMultiOp):
    r"""Autograd node for :math:`A = QR`. Saves the outputs :math:`Q, R`: the gradient is
    written in them and one triangular solve with :math:`R`.

    Math
    ----
    For :math:`m \ge n` (and square blocks of wide inputs), with
    :math:`M = \bar R R^{\mathsf H} - Q^{\mathsf H} \bar Q` and :math:`N` the Hermitian
    matrix with :math:`M`'s strict upper triangle and real diagonal
    (:math:`N = \mathrm{triu}(M, 1) + \mathrm{triu}(M, 1)^{\mathsf H} +
    \mathrm{diag}(\mathrm{Re}\,M)`; ``H`` is the transpose for real data):

    .. math:: \bar A = (\bar Q + Q N)\,R^{-\mathsf H}

    For :math:`m < n`, :math:`A = [X\,|\,Y]`, :math:`R = [U\,|\,V]`: :math:`\bar Y = Q\bar V`
    and :math:`\bar X` is the square formula with :math:`\bar Q + Y \bar V^{\mathsf H}`.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"linalg_qr"``, ``AmpPolicy.FORCE_FP32``, ``output_arity=2``,
        ``complex_grad="custom"`` (LAPACK's complex :math:`R` has a real diagonal).
    saves_input, saves_output : bool
        True (:math:`Y` of a wide input), True (:math:`Q` and :math:`R`).

    Notes
    -----
    Backends: ``xp.linalg.qr`` (Householder QR, LAPACK geqrf/orgqr; cuSOLVER on CuPy), with
    LAPACK's signs (the diagonal of :math:`R` may be negative, as in PyTorch). As in
    PyTorch, ``mode='complete'`` with :math:`m > n` is not differentiable (:math:`Q`'s
    extra columns are not determined by :math:`A`) and raises in the backward; a rank
    deficient :math:`A` (a zero on :math:`R`'s diagonal) gives inf/NaN gradients.
    """

    __slots__ = ()
    schema_v1 = schema("linalg_qr", output_arity=2, complex_grad="custom")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, a, complete):
        return be.qr_decompose(a, complete)

    def grad(self, F, g, a, out):
        (gq, gr), (q, r) = g, out
        m, n = self.in_meta[0][0][-2:]
        if self.params["complete"] and m > n:
            raise AutogradError(
                "linalg_qr: the QR decomposition is not differentiable when "
                "mode='complete' and nrows > ncols"
            )
        if m >= n:
            return _qr_square(F, self, q, r, gq, gr)
        gv = None if gr is None else gr[..., m:]
        if gv is not None:  # A = [X | Y] with Y = Q V
            gyq = a[..., m:] @ mH(gv)
            gq = gyq if gq is None else gq + gyq
        gx = _qr_square(F, self, q, r[..., :m], gq, None if gr is None else gr[..., :m])
        gy = F.zeros_like(a[..., m:]) if gv is None else q @ gv
        return F.concatenate([gx, gy], -1)


def _qr_square(F, node, q, r, gq, gr):
    """The QR gradient for :math:`m \\ge n` (see :class:`QrBackward`)."""
    m = 0
    if gr is not None:
        m = gr @ mH(r)
    if gq is not None:
        m = m - mH(q) @ gq
    n = F.triu(m, 0) + mH(F.triu(m, 1))
    if is_complex(m):  # the real part of the diagonal only
        n = n - _imag_diag(m, _eye(node, m.shape[-1], r))
    z = q @ n if gq is None else gq + q @ n
    return _right_tri_solve(F, z, conj(r), True)


def qr(A, mode="reduced"):
    """``(Q, R)`` with :math:`A = QR`: ``mode`` ``'reduced'`` (Q (m, k)), ``'complete'``
    (Q (m, m)) or ``'r'`` (R only; Q is empty; unlike PyTorch, R is then differentiable
    too, through the reduced factorisation)."""
    A = matrix("qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise ArgumentError(f"linalg.qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    q, r = QrBackward.apply(A, complete=mode == "complete")
    if mode == "r":
        q = Tensor._wrap(A._device._backend.full((0,), 0, A._dtype.np), A._dtype, A._device)
    return _QR(q, r)


@register
class SvdBackward(LinalgMultiOp):
    r"""Autograd node for :math:`A = U\,\mathrm{diag}(S)\,V^{\mathsf H}` (``H``: the
    transpose for real :math:`A`; :math:`S` real). Saves the outputs only.

    Math
    ----
    Townsend's formula (2016), with :math:`F_{ij} = 1/(s_j^2 - s_i^2)` off the diagonal
    and 0 on it, :math:`M = U^{\mathsf H}\bar U`, :math:`N = V^{\mathsf H}\bar V`,
    :math:`J = F \circ (M - M^{\mathsf H})`, :math:`K = F \circ (N - N^{\mathsf H})` and,
    for complex :math:`A`, :math:`D = \tfrac{i}{2}\,\mathrm{Im}\,\mathrm{diag}(M - N)
    S^{-1}` (else 0):

    .. math:: \bar A = U\,[\mathrm{diag}(\bar S) + J S + S K + D]\,V^{\mathsf H}
              + (I - UU^{\mathsf H})\bar U S^{-1} V^{\mathsf H}
              + U S^{-1} \bar V^{\mathsf H}(I - VV^{\mathsf H})

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"linalg_svd"``, ``AmpPolicy.FORCE_FP32``, ``output_arity=3``,
        ``complex_grad="custom"`` (real :math:`S`, phase-defined vectors).
    saves_input, saves_output : bool
        False, True (:math:`U, S, V^{\mathsf H}`).

    Notes
    -----
    Backends: ``xp.linalg.svd`` (LAPACK gesdd on NumPy, cuSOLVER gesvd on CuPy). With
    ``full_matrices`` the gradient uses the first :math:`k = \min(m, n)` columns of
    :math:`U` and rows of :math:`V^{\top}` (the others are not determined by :math:`A`), as
    PyTorch. Instability, as documented by PyTorch: the terms of :math:`\bar U, \bar V`
    divide by :math:`s_j^2 - s_i^2` and by :math:`s_i`, so with repeated (or zero) singular
    values a gradient through :math:`U` or :math:`V^{\mathsf H}` is inf/NaN, exactly as
    PyTorch's; a gradient through :math:`S` alone (``svdvals``, the nuclear norm) is
    :math:`U\,\mathrm{diag}(\bar S) V^{\mathsf H}` and stays finite. Complex singular
    vectors are defined up to a phase each (:math:`u_i e^{i\phi}`, :math:`v_i e^{i\phi}`):
    as PyTorch, the backward raises :class:`~lucid.errors.AutogradError` when the loss
    depends on it (:math:`\mathrm{Im}\,\mathrm{diag}(M + N) \ne 0`).
    """

    __slots__ = ()
    schema_v1 = schema("linalg_svd", output_arity=3, complex_grad="custom")
    saves_output = True

    @staticmethod
    def dispatch(be, a, full_matrices):
        return be.svd(a, full_matrices)

    def grad(self, F, g, a, out):
        (gu, gs, gvh), (u, s, vh) = g, out
        k = s.shape[-1]
        m, n = self.in_meta[0][0][-2:]
        if self.params["full_matrices"]:
            u, vh = u[..., :k], vh[..., :k, :]
            gu = None if gu is None else gu[..., :k]
            gvh = None if gvh is None else gvh[..., :k, :]
        eye = _eye(self, k, s)
        inner = 0 if gs is None else gs[..., :, None] * eye
        if gu is None and gvh is None:
            return (u * gs[..., None, :]) @ vh
        s2 = s * s
        f = (1 - eye) / (s2[..., None, :] - s2[..., :, None] + eye)
        extra = 0
        utgu = vtgv = None
        if gu is not None:
            utgu = mH(u) @ gu
            inner = inner + f * (utgu - mH(utgu)) * s[..., None, :]
            if m > k:
                extra = ((gu - u @ utgu) / s[..., None, :]) @ vh
        if gvh is not None:
            vtgv = vh @ mH(gvh)
            inner = inner + s[..., :, None] * (f * (vtgv - mH(vtgv)))
            if n > k:
                extra = extra + u @ ((gvh - (gvh @ mH(vh)) @ vh) / s[..., :, None])
        if is_complex(u):  # the phase terms D: i Im diag(M - N) / (2 s)
            mu, nv = (None if x is None else _imag_diag(x, eye) for x in (utgu, vtgv))
            _check_phase(self, "svd", 0 * eye if mu is None else mu, nv)
            im = mu if nv is None else -nv if mu is None else mu - nv
            inner = inner + im / (2 * s[..., None, :])
        return u @ inner @ vh + extra


def svd(A, full_matrices=True, *, driver=None):
    """``(U, S, Vh)`` with :math:`A = U\\,\\mathrm{diag}(S)\\,V^H`, ``S`` real, descending
    (``driver`` is accepted for PyTorch compatibility; it selects cuSOLVER routines there)."""
    A = matrix("svd", A)
    return _SVD(*SvdBackward.apply(A, full_matrices=bool(full_matrices)))


def svdvals(A, *, driver=None):
    """The singular values of ``A``, descending. Under autograd they come from the SVD node
    (gradient :math:`U\\,\\mathrm{diag}(\\bar S)V^H`); otherwise from the values-only kernel."""
    A = matrix("svdvals", A)
    if A._requires_grad and STATE.grad_enabled:
        return SvdBackward.apply(A, full_matrices=False)[1]
    return Tensor._wrap(A._device._backend.svdvals(A._data), A._dtype.to_real(), A._device)


@register
class EighBackward(LinalgMultiOp):
    r"""Autograd node for the Hermitian (real: symmetric) eigendecomposition
    :math:`A = V\,\mathrm{diag}(w)\,V^{\mathsf H}`, :math:`w` real. Saves the outputs only.

    Math
    ----
    With :math:`E_{ij} = w_j - w_i` (:math:`E_{ii} = 1`) and
    :math:`\Omega = \tfrac12 (V^{\mathsf H}\bar V - \bar V^{\mathsf H} V)`:

    .. math:: \bar A = V\,[\Omega / E + \mathrm{diag}(\bar w)]\,V^{\mathsf H}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"linalg_eigh"``, ``AmpPolicy.FORCE_FP32``, ``output_arity=2``,
        ``complex_grad="custom"`` (Hermitian input, real eigenvalues).
    saves_input, saves_output : bool
        False, True (:math:`w, V`).

    Notes
    -----
    Backends: ``xp.linalg.eigh`` (LAPACK syevd; cuSOLVER syevj on CuPy), lower triangle
    read (``UPLO='L'``; ``'U'`` takes the conjugate transpose first), eigenvalues
    ascending. The gradient is Hermitian (symmetric). Complex eigenvectors are defined up
    to a phase each: as PyTorch, the backward raises :class:`~lucid.errors.AutogradError`
    when the loss depends on it (:math:`\mathrm{Im}\,\mathrm{diag}(V^{\mathsf H}\bar V)
    \ne 0`). Instability, as PyTorch documents: a gradient through the eigenvectors
    divides by :math:`w_j - w_i`, so repeated eigenvalues give inf/NaN, as in PyTorch; a
    gradient through the eigenvalues alone (``eigvalsh``) is :math:`V\,\mathrm{diag}(\bar w)
    V^{\mathsf H}` and stays finite.
    """

    __slots__ = ()
    schema_v1 = schema("linalg_eigh", output_arity=2, complex_grad="custom")
    saves_output = True

    @staticmethod
    def dispatch(be, a):
        return be.eigh(a)

    def grad(self, F, g, a, out):
        (gw, gv), (w, v) = g, out
        if gv is None:
            return (v * gw[..., None, :]) @ mH(v)
        eye = _eye(self, w.shape[-1], w)
        vtgv = mH(v) @ gv
        if is_complex(v):
            _check_phase(self, "linalg_eigh", _imag_diag(vtgv, eye))
        inner = 0.5 * (vtgv - mH(vtgv)) / (w[..., None, :] - w[..., :, None] + eye)
        if gw is not None:
            inner = inner + gw[..., :, None] * eye
        return v @ inner @ mH(v)


def _lower(op, A, UPLO):
    A = matrix(op, A, square=True)
    if UPLO not in ("L", "U"):
        raise ArgumentError(f"linalg.{op}: UPLO must be 'L' or 'U', got {UPLO!r}")
    return A if UPLO == "L" else mH(A)


def eigh(A, UPLO="L"):
    """``(eigenvalues, eigenvectors)`` of the Hermitian (real: symmetric) ``A`` (triangle
    ``UPLO`` read), eigenvalues real and ascending."""
    return _Eigh(*EighBackward.apply(_lower("eigh", A, UPLO)))


def eigvalsh(A, UPLO="L"):
    """The eigenvalues of the Hermitian ``A``, real and ascending (through the eigh node
    under autograd, gradient :math:`V\\,\\mathrm{diag}(\\bar w)V^H`)."""
    A = _lower("eigvalsh", A, UPLO)
    if A._requires_grad and STATE.grad_enabled:
        return EighBackward.apply(A)[0]
    return Tensor._wrap(A._device._backend.eigvalsh(A._data), A._dtype.to_real(), A._device)


@register
class LuFactorBackward(LinalgMultiOp):
    r"""Autograd node for the partial-pivoting LU factorisation :math:`A = PLU` in LAPACK's
    packed form (``LU``, ``pivots``, ``info``). Saves the outputs (the factors and pivots).

    Math
    ----
    With :math:`\bar L = \mathrm{tril}(\overline{LU}, -1)`,
    :math:`\bar U = \mathrm{triu}(\overline{LU})`:

    .. math:: \bar A = P\,L^{-\top}\,[\mathrm{tril}(L^{\top}\bar L, -1) +
              \mathrm{triu}(\bar U U^{\top})]\,U^{-\top}

    for square :math:`A`. Wide :math:`A = P L [U_1 | U_2]`: :math:`\bar A_2 = P L^{-\top}
    \bar U_2` and the square formula with :math:`\bar L - L^{-\top}\bar U_2 U_2^{\top}`.
    Tall :math:`P^{\top}A = [L_1; L_2] U`: :math:`\bar A_2 = P (\bar L_2 U^{-\top})` and the
    square formula with :math:`\bar U - L_2^{\top}\bar L_2 U^{-\top}`.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"linalg_lu_factor"``, ``AmpPolicy.FORCE_FP32``, ``output_arity=3`` (the int32
        ``pivots`` and ``info`` carry no gradient), ``complex_grad="holomorphic"`` (the
        factors are rational in :math:`A` at fixed pivots).
    saves_input, saves_output : bool
        False, True.

    Notes
    -----
    Backends: a batched right-looking partial-pivoting LU written over ``xp`` (NumPy has
    no LU; the pivot is the first largest magnitude, :math:`|\mathrm{Re}| + |\mathrm{Im}|`
    for complex data, as LAPACK's getrf, so ``pivots`` match PyTorch's):
    :math:`\min(m, n)` vectorised rank-1 updates. A zero pivot is recorded in ``info``
    and the factorisation goes on. The gradient is inf/NaN where :math:`U` is singular.
    """

    __slots__ = ()
    schema_v1 = schema("linalg_lu_factor", output_arity=3, complex_grad="holomorphic")
    saves_output = True

    @staticmethod
    def dispatch(be, a):
        return be.lu_factor(a)

    def grad(self, F, g, a, out):
        glu, (lu, piv, _) = g[0], out
        m, n = self.in_meta[0][0][-2:]
        p = const(self.be.lu_permutation(array_of(piv), m, array_of(lu).dtype), lu)
        if m <= n:  # A = P L [U1 | U2]: U2 = L^-1 P^T A2 also moves with L
            sq, gsq = lu[..., :m], glu[..., :m]
            gl, gu = F.tril(gsq, -1), F.triu(gsq, 0)
            if m == n:
                return p @ _lu_square(F, self, sq, gl, gu)
            g2 = F.solve_triangular(mT(sq), glu[..., m:], True, True)  # L^-T gU2
            gl = gl - g2 @ mT(lu[..., m:])
            return p @ F.concatenate([_lu_square(F, self, sq, gl, gu), g2], -1)
        sq, gsq = lu[..., :n, :], glu[..., :n, :]  # P^T A = [L1; L2] U: L2 = A2 U^-1
        g2 = _right_tri_solve(F, glu[..., n:, :], sq, True)  # gL2 U^-T
        gu = F.triu(gsq, 0) - mT(lu[..., n:, :]) @ g2
        return p @ F.concatenate([_lu_square(F, self, sq, F.tril(gsq, -1), gu), g2], -2)


def _lu_square(F, node, lu, gl, gu):
    r""":math:`L^{-\top}[\mathrm{tril}(L^{\top}\bar L, -1) + \mathrm{triu}(\bar U
    U^{\top})]U^{-\top}` for the square packed factors ``lu``."""
    low = F.tril(lu, -1) + _eye(node, lu.shape[-1], lu)
    mid = F.tril(mT(low) @ gl, -1) + F.triu(gu @ mT(F.triu(lu, 0)), 0)
    y = F.solve_triangular(mT(lu), mid, True, True)  # L^-T: unit upper L^T
    return _right_tri_solve(F, y, lu, True)


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """``(LU, pivots, info)``: the packed partial-pivoting LU of ``A`` (see
    :class:`LuFactorBackward`); ``info`` > 0 marks an exactly singular ``U``."""
    A = matrix("lu_factor", A)
    if not pivot:
        raise ArgumentError(
            "linalg.lu_factor: LU without pivoting is not implemented on "
            "the CPU (as PyTorch); use pivot=True"
        )
    lu, piv, info = LuFactorBackward.apply(A)
    if check_errors:
        _raise_info("lu_factor", info, "U[{0},{0}] is zero, the matrix is singular")
    return _LuFactorEx(lu, piv, info)


def lu_factor(A, *, pivot=True):
    """``(LU, pivots)``: the packed LU factorisation of ``A`` (LAPACK's getrf form)."""
    lu, piv, _ = lu_factor_ex(A, pivot=pivot)
    return _LuFactor(lu, piv)


def lu(A, *, pivot=True):
    """``(P, L, U)`` with :math:`A = PLU`: unit-lower ``L`` (m, k), upper ``U`` (k, n)."""
    lu_, piv = lu_factor(A, pivot=pivot)
    return _unpack(lu_, piv)


def _unpack(lu_, piv):
    """``(P, L, U)`` from the packed factors (differentiable in ``LU``)."""
    m, n = lu_.shape[-2:]
    k = min(m, n)
    be = lu_._device._backend
    eye = Tensor._wrap(be.eye(m, k, lu_._dtype.np), lu_._dtype, lu_._device)
    low = lu_[..., :, :k].tril(-1) + eye
    up = lu_[..., :k, :].triu()
    p = Tensor._wrap(be.lu_permutation(piv._data, m, lu_._dtype.np), lu_._dtype, lu_._device)
    return _LU(p, low, up)
