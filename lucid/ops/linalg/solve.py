"""Inverses, determinants and linear solves of ``lucid.linalg``.

Registered nodes: :class:`InvBackward`, :class:`DetBackward`, :class:`SlogdetBackward`,
:class:`SolveBackward`, :class:`SolveTriangularBackward`, :class:`PinvBackward`.
``inv_ex``, ``solve_ex``, ``lu_solve``, ``lstsq``, ``matrix_rank``, ``tensorinv`` and
``tensorsolve`` compose them.

Complex inputs: inv, det, solve and solve_triangular are holomorphic (their real formulas,
with transposes, serve complex data through the base class); slogdet (a real
``logabsdet``) and pinv (built from :math:`A^{\\mathsf H}`) write their complex gradients
with conjugate transposes, as PyTorch's.
"""

from __future__ import annotations

import math

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import ArgumentError, ArgumentTypeError, DeviceMismatchError, DTypeError, ShapeError
from ..core._bind import tensor_method
from ..core._formula import array_of, const
from ..core.base import Op, broadcast_shapes
from .decompositions import _raise_info, eigvalsh, lu_factor_ex, svdvals
from .args import LinalgMultiOp, conj, is_complex, matrix, mH, mT, result_type, same_kind, schema
from ..core.registry import register

__all__ = []

_Slogdet = result_type("linalg_slogdet", ("sign", "logabsdet"))
_InvEx = result_type("linalg_inv_ex", ("inverse", "info"))
_SolveEx = result_type("linalg_solve_ex", ("result", "info"))
_Lstsq = result_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


def _bcast(op, a, b):
    """The check that the batch dims of ``a`` and ``b`` broadcast."""
    try:
        broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    except ValueError:
        raise ShapeError(
            f"linalg.{op}: the batch dims of A {tuple(a.shape)} and B "
            f"{tuple(b.shape)} do not broadcast"
        ) from None


@register
class InvBackward(Op):
    r"""Autograd node for :math:`X = A^{-1}`. Saves the output: the gradient is written in
    it alone.

    Math
    ----
    .. math:: \bar A = -X^{\top}\,\bar X\,X^{\top}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"linalg_inv"``, ``AmpPolicy.FORCE_FP32`` (no half-precision LAPACK),
        ``complex_grad="holomorphic"`` (:math:`\bar A = -X^{\mathsf H}\bar X
        X^{\mathsf H}` on complex data).
    saves_input, saves_output : bool
        False, True (:math:`X`).

    Notes
    -----
    Backends: ``xp.linalg.inv`` (LAPACK getrf/getri on NumPy; cuSOLVER on CuPy). A singular
    matrix raises :class:`~lucid.errors.ArgumentError` naming the zero pivot on NumPy;
    CuPy does not detect it (its result holds inf/NaN), as ``inv_ex`` documents.
    """

    __slots__ = ()
    schema_v1 = schema("linalg_inv", complex_grad="holomorphic")
    saves_output = True

    @staticmethod
    def dispatch(be, a):
        return be.inv(a)

    def grad(self, F, g, a, out):
        xt = mT(out)
        return -(xt @ g @ xt)


@tensor_method("inverse")
def inv(A):
    """:math:`A^{-1}` of square ``A`` (batched); raises for a singular matrix."""
    return InvBackward.apply(matrix("inv", A, square=True))


def inv_ex(A, *, check_errors=False):
    """``(inverse, info)``: ``info`` is 0 or the 1-based index of the zero pivot of a
    singular matrix, whose inverse is then NaN (no error unless ``check_errors``)."""
    A = matrix("inv_ex", A, square=True)
    info = lu_factor_ex(A.detach()).info
    if check_errors:
        _raise_info(
            "inv_ex",
            info,
            "the diagonal element {} is zero, the inversion could "
            "not be completed because the input matrix is singular",
        )
    ok = (info == 0)[..., None, None]
    if bool(ok.all()):
        return _InvEx(inv(A), info)
    eye = Tensor._wrap(
        A._device._backend.eye(A.shape[-1], A.shape[-1], A._dtype.np), A._dtype, A._device
    )
    x = inv(A.where(ok, eye))
    return _InvEx(x.where(ok, float("nan")), info)


@register
class DetBackward(Op):
    r"""Autograd node for :math:`d = \det A`. Saves the input: the gradient is the cofactor
    matrix, computed from an SVD of :math:`A` so that it also holds for singular
    :math:`A`.

    Math
    ----
    With :math:`A = U\,\mathrm{diag}(s)\,V^{\mathsf H}` and
    :math:`\sigma = \det(U V^{\mathsf H})` (:math:`\pm 1` when real):

    .. math:: \bar A = \bar d\,\mathrm{cof}(A) = \bar d\,\sigma\,\bar U\,
              \mathrm{diag}\Big(\prod_{j \ne i} s_j\Big) V^{\mathsf T}
              \;(= \bar d\,d\,A^{-\top} \text{ for invertible } A)

    (the holomorphic derivative; complex data get :math:`\bar d\,\overline{\mathrm{cof}(A)}`
    through the base class).

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"linalg_det"``, ``AmpPolicy.FORCE_FP32``, ``complex_grad="holomorphic"``.
    saves_input, saves_output : bool
        True (:math:`A`), False.

    Notes
    -----
    Backends: ``xp.linalg.det`` (LU; the product of the pivots). The backward runs one
    SVD (``F.svd``; the real sign :math:`\sigma` is a constant of the formula, the complex
    phase :math:`\det(UV^{\mathsf H})` is differentiated, ``F.det``, and independent of
    the singular vectors' phases) and
    ``F.prod_others`` (exact with a zero singular value), so a singular :math:`A` has the
    finite cofactor gradient (finite differences agree; PyTorch 2.x returns zeros for
    some exactly singular matrices, where its own gradcheck fails); the gradient is
    differentiable again through the SVD node (whose own instability with repeated singular
    values then applies; for a singular complex :math:`A` the SVD's phase term divides by
    the zero singular value, so the second derivative is inf/NaN there).
    """

    __slots__ = ()
    schema_v1 = schema("linalg_det", complex_grad="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, a):
        return be.det(a)

    def grad(self, F, g, a, out):
        u, s, vh = F.svd(a, False)
        if is_complex(u):
            sign = F.det(u @ vh)
            u, vh = conj(u), conj(vh)
        else:
            be = self.be
            sign = const(be.det(array_of(u)) * be.det(array_of(vh)), s)
        cof = (u * F.prod_others(s, s.ndim - 1)[..., None, :]) @ vh
        return (g * sign)[..., None, None] * cof


@tensor_method("det")
def det(A):
    """:math:`\\det A` of square ``A`` (batched)."""
    return DetBackward.apply(matrix("det", A, square=True))


@register
class SlogdetBackward(LinalgMultiOp):
    r"""Autograd node for :math:`(\mathrm{sign}, \log|\det A|)`. Saves the input and the
    outputs; a real sign is piecewise constant (a zero gradient, as PyTorch's), a complex
    one is :math:`e^{i\arg\det A}`.

    Math
    ----
    With :math:`c = \overline{\log|\det A|} - i\,\mathrm{Im}(\overline{\bar\sigma}\,\sigma)`
    (:math:`\bar\sigma` the sign's incoming gradient; :math:`c = \overline{\log|\det A|}`
    for real :math:`A`):

    .. math:: \overline{A} = c\;A^{-\mathsf H}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"linalg_slogdet"``, ``AmpPolicy.FORCE_FP32``, ``output_arity=2``,
        ``complex_grad="custom"`` (``logabsdet`` is real).
    saves_input, saves_output : bool
        True (:math:`A`), True (the sign).

    Notes
    -----
    Backends: ``xp.linalg.slogdet`` (LU). A singular matrix gives sign 0 and
    :math:`-\infty`; its gradient needs :math:`A^{-1}` and raises (NumPy).
    """

    __slots__ = ()
    schema_v1 = schema("linalg_slogdet", output_arity=2, complex_grad="custom")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, a):
        return be.slogdet(a)

    def grad(self, F, g, a, out):
        (gs, gl), sign = g, out[0]
        if is_complex(sign) and gs is not None:
            phase = F.conj(gs) * sign  # c = gl - i Im(conj(gs) sign)
            c = 0.5 * (F.conj(phase) - phase)
            c = c if gl is None else c + gl
        elif gl is None:
            return None
        else:
            c = gl
        return c[..., None, None] * mH(F.inv(a))


@tensor_method("slogdet")
def slogdet(A):
    """``(sign, logabsdet)`` with :math:`\\det A = \\mathrm{sign}\\,e^{\\mathrm{logabsdet}}`
    (``sign`` of ``A``'s dtype, of modulus 1 or 0; ``logabsdet`` real)."""
    return _Slogdet(*SlogdetBackward.apply(matrix("slogdet", A, square=True)))


@tensor_method("logdet")
def logdet(A):
    """:math:`\\log \\det A` (NaN where a real determinant is negative, as PyTorch; complex
    :math:`A`: the principal complex logarithm)."""
    sign, logabs = slogdet(A)
    if sign.is_complex():
        return sign.log() + logabs
    return logabs.where(sign >= 0, float("nan"))


@register
class SolveBackward(Op):
    r"""Autograd node for :math:`X = A^{-1}B` (``B`` (..., n, k)). Saves :math:`A` and the
    output: both gradients need a solve with :math:`A^{\top}`, that of :math:`A` also
    :math:`X`.

    Math
    ----
    .. math:: \bar B = A^{-\top}\bar X, \qquad \bar A = -\bar B\,X^{\top}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"linalg_solve"``, ``AmpPolicy.FORCE_FP32``, ``input_arity=2``.
    saves_input : tuple
        :math:`A` for either gradient, never :math:`B`.
    saves_output : bool
        True (:math:`X`).

    Notes
    -----
    Backends: ``xp.linalg.solve`` (LAPACK gesv; cuSOLVER getrf/getrs on CuPy) after
    broadcasting the batch dims. A singular :math:`A` raises on NumPy. Vector right-hand
    sides and ``left=False`` are handled by the wrapper (a trailing unit dim; transposes).
    """

    __slots__ = ()
    schema_v1 = schema("linalg_solve", input_arity=2, complex_grad="holomorphic")
    saves_input = ((0,), (0,))
    saves_output = True

    @staticmethod
    def dispatch(be, a, b):
        return be.solve(a, b)

    def grad(self, F, g, a, b, out):
        gb = F.solve(mT(a), g)
        return (-(gb @ mT(out)) if self.needs_input_grad[0] else None), gb


def _vector_rhs(A, B):
    """PyTorch's rule: ``B`` is a (batch of) vector(s) when 1-D, or one dim short of ``A``
    with ``A``'s leading shape."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def solve(A, B, *, left=True):
    """:math:`X` with :math:`AX = B` (``left``) or :math:`XA = B`, ``B`` a matrix or a
    vector (:func:`_vector_rhs`), batch dims broadcast."""
    A = matrix("solve", A, square=True)
    B = same_kind("solve", A, B)
    vector = _vector_rhs(A, B)
    if vector:
        B = B.unsqueeze(-1)
    if B.ndim < 2 or B.shape[-2] != A.shape[-1] and left or not left and B.shape[-1] != A.shape[-1]:
        raise ShapeError(
            f"linalg.solve: incompatible shapes of A {tuple(A.shape)} and B {tuple(B.shape)}"
        )
    _bcast("solve", A, B)
    if left:
        x = SolveBackward.apply(A, B)
    else:
        x = mT(SolveBackward.apply(mT(A), mT(B)))
    return x.squeeze(-1) if vector else x


def solve_ex(A, B, *, left=True, check_errors=False):
    """``(result, info)`` of :func:`solve`; ``info`` as :func:`inv_ex` (a singular ``A``
    gives a NaN result)."""
    A = matrix("solve_ex", A, square=True)
    info = lu_factor_ex(A.detach()).info
    if check_errors:
        _raise_info(
            "solve_ex",
            info,
            "the solver failed because the input matrix is singular (U[{0},{0}] is zero)",
        )
    if bool((info == 0).all()):
        return _SolveEx(solve(A, B, left=left), info)
    inv_a, _ = inv_ex(A)
    B = same_kind("solve_ex", A, B)
    vector = _vector_rhs(A, B)
    b = B.unsqueeze(-1) if vector else B
    x = inv_a @ b if left else b @ inv_a
    return _SolveEx(x.squeeze(-1) if vector else x, info)


@register
class SolveTriangularBackward(Op):
    r"""Autograd node for :math:`X = T^{-1}B` with :math:`T` the upper or lower triangle of
    :math:`A` (unit diagonal if ``unitriangular``). Saves :math:`A` and the output.

    Math
    ----
    .. math:: \bar B = T^{-\top}\bar X, \qquad
              \bar A = \mathrm{tri}(-\bar B\,X^{\top})

    where :math:`\mathrm{tri}` keeps :math:`T`'s triangle (without the diagonal when
    ``unitriangular``): the other entries of :math:`A` are never read.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"linalg_solve_triangular"``, ``AmpPolicy.FORCE_FP32``, ``input_arity=2``,
        ``complex_grad="holomorphic"``.
    saves_input : tuple
        :math:`A` for either gradient.
    saves_output : bool
        True (:math:`X`).

    Notes
    -----
    Backends: a substitution over the rows written with ``xp`` (NumPy has no batched
    triangular solve): ``n`` steps, each one batched matrix-vector product. A zero on the
    diagonal gives inf/NaN, as PyTorch (no error). ``left=False`` is the wrapper's
    transpose.
    """

    __slots__ = ()
    schema_v1 = schema("linalg_solve_triangular", input_arity=2, complex_grad="holomorphic")
    saves_input = ((0,), (0,))
    saves_output = True

    @staticmethod
    def dispatch(be, a, b, upper, unitriangular):
        return be.solve_triangular(a, b, upper, unitriangular)

    def grad(self, F, g, a, b, out):
        upper, unit = self.params["upper"], self.params["unitriangular"]
        gb = F.solve_triangular(mT(a), g, not upper, unit)
        ga = None
        if self.needs_input_grad[0]:
            ga = -(gb @ mT(out))
            ga = F.triu(ga, int(unit)) if upper else F.tril(ga, -int(unit))
        return ga, gb


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """:math:`X` with :math:`TX = B` (``left``) or :math:`XT = B`, ``T`` the ``upper`` or
    lower triangle of ``A``."""
    A = matrix("solve_triangular", A, square=True)
    B = matrix("solve_triangular", same_kind("solve_triangular", A, B), "B")
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise ShapeError(
            f"linalg.solve_triangular: incompatible shapes of A "
            f"{tuple(A.shape)} and B {tuple(B.shape)}"
        )
    _bcast("solve_triangular", A, B)
    if left:
        return SolveTriangularBackward.apply(
            A, B, upper=bool(upper), unitriangular=bool(unitriangular)
        )
    return mT(
        SolveTriangularBackward.apply(
            mT(A), mT(B), upper=not upper, unitriangular=bool(unitriangular)
        )
    )


def _check_pivots(LU, pivots):
    """PyTorch's conditions on ``lu_factor``'s pivots: an int32 Tensor of shape
    ``LU.shape[:-1]``, on LU's device."""
    if not isinstance(pivots, Tensor):
        raise ArgumentTypeError(
            f"linalg.lu_solve: pivots must be a Tensor, got {type(pivots).__name__}"
        )
    if pivots._dtype is not _dt.int32:
        raise DTypeError(
            f"linalg.lu_solve: pivots should be a Tensor of dtype int32 (as "
            f"lu_factor returns them), got {pivots._dtype}"
        )
    if tuple(pivots.shape) != tuple(LU.shape[:-1]):
        raise ShapeError(
            f"linalg.lu_solve: expected LU.shape[:-1] {tuple(LU.shape[:-1])} "
            f"and pivots.shape to be the same, got pivots of shape "
            f"{tuple(pivots.shape)}"
        )
    if pivots._device != LU._device:
        raise DeviceMismatchError(
            f"linalg.lu_solve: expected pivots on LU's device {LU._device}, got {pivots._device}"
        )


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """:math:`X` with :math:`AX = B` from ``lu_factor``'s ``(LU, pivots)`` of :math:`A = PLU`
    (``adjoint``: :math:`A^{\\mathsf H}X = B`; ``left=False``: :math:`XA = B`)."""
    LU = matrix("lu_solve", LU, "LU", square=True)
    B = matrix("lu_solve", same_kind("lu_solve", LU, B), "B")
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise ShapeError(
            f"linalg.lu_solve: incompatible shapes of LU {tuple(LU.shape)} and B {tuple(B.shape)}"
        )
    _check_pivots(LU, pivots)
    be = LU._device._backend
    p = Tensor._wrap(be.lu_permutation(pivots._data, n, LU._dtype.np), LU._dtype, LU._device)
    if not left:  # X A = B  <=>  A^H X^H = B^H
        return mH(lu_solve(LU, pivots, mH(B), adjoint=not adjoint))
    if adjoint:  # U^H L^H P^T x = b
        y = solve_triangular(mH(LU), B, upper=False)
        y = solve_triangular(mH(LU), y, upper=True, unitriangular=True)
        return p @ y
    y = solve_triangular(LU, mT(p) @ B, upper=False, unitriangular=True)
    return solve_triangular(LU, y, upper=True)


@register
class PinvBackward(Op):
    r"""Autograd node for the pseudo-inverse :math:`P = A^{+}`. Saves the input and the
    output: the gradient is written in both.

    Math
    ----
    Golub and Pereyra's derivative of :math:`A^{+}` at constant rank:

    .. math:: \bar A = -P^{\mathsf H}\bar P P^{\mathsf H}
              + (I - AP)\,\bar P^{\mathsf H} P P^{\mathsf H}
              + P^{\mathsf H}P\,\bar P^{\mathsf H} (I - PA)

    (``H`` the transpose for real :math:`A`).

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"linalg_pinv"``, ``AmpPolicy.FORCE_FP32``, ``complex_grad="custom"`` (the
        pseudo-inverse is built from :math:`A^{\mathsf H}`, not holomorphic).
    saves_input, saves_output : bool
        True, True.

    Notes
    -----
    Backends: ``xp.linalg.svd`` (``eigh`` with ``hermitian``), singular values at most
    :math:`\max(\mathrm{atol}, \mathrm{rtol}\cdot s_{\max})` dropped (PyTorch's default
    ``rtol`` is :math:`\varepsilon \max(m, n)` when neither is given). The gradient holds
    where the rank does not change under perturbation (as PyTorch's).
    """

    __slots__ = ()
    schema_v1 = schema("linalg_pinv", complex_grad="custom")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, a, atol, rtol, hermitian):
        if hermitian:
            w, v = be.eigh(a)
            s, u, vt = be.abs(w), v * be.sign(w)[..., None, :], mH(v)
        else:
            u, s, vt = be.svd(a, False)
        top = s.max(-1, keepdims=True) if s.shape[-1] else s[..., :1]
        keep = s > be.maximum(top * rtol, atol)
        inv_s = be.where(keep, 1 / be.where(keep, s, 1), 0)
        return (mH(vt) * inv_s[..., None, :]) @ mH(u)

    def grad(self, F, g, a, out):
        p, pt, gt = out, mH(out), mH(g)
        gpp = gt @ p @ pt
        ppg = pt @ p @ gt
        return -(pt @ g @ pt) + gpp - a @ (p @ gpp) + ppg - (ppg @ p) @ a


def _eps(dtype):
    return _dt.finfo(dtype).eps


@tensor_method("pinverse")
def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse (SVD; ``hermitian``: eigh), singular values below
    :math:`\\max(\\mathrm{atol}, \\mathrm{rtol}\\,s_{\\max})` treated as zero."""
    A = matrix("pinv", A)
    atol, rtol = _tolerances(A, atol, rtol)
    return PinvBackward.apply(A, atol=atol, rtol=rtol, hermitian=bool(hermitian))


def _tolerances(A, atol, rtol):
    if isinstance(atol, Tensor) or isinstance(rtol, Tensor):
        raise ArgumentError("linalg: tensor atol/rtol are not supported; pass floats")
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else _eps(A._dtype) * max(A.shape[-2:])
    return float(0.0 if atol is None else atol), float(rtol)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    """The number of singular values above :math:`\\max(\\mathrm{atol},
    \\mathrm{rtol}\\,s_{\\max})` (int64; eigenvalue magnitudes with ``hermitian``)."""
    A = matrix("matrix_rank", A)
    atol, rtol = _tolerances(A, atol, rtol)
    s = eigvalsh(A.detach()).abs() if hermitian else svdvals(A.detach())
    if s.shape[-1] == 0:
        return (s.sum(-1) * 0).long()
    top = s.amax(-1, keepdim=True)
    return (s > (top * rtol).clamp_min(atol)).sum(-1)


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of :math:`AX \\approx B` (minimum norm; through the
    pseudo-inverse, as LAPACK's gelsd): ``(solution, residuals, rank, singular_values)``.
    ``residuals`` (real squared column norms of :math:`AX - B`) is filled when :math:`m > n`
    and ``A`` has full rank, else empty; ``rank`` and ``singular_values`` as gelsd."""
    A = matrix("lstsq", A)
    B = same_kind("lstsq", A, B)
    vector = B.ndim == A.ndim - 1
    b = B.unsqueeze(-1) if vector else B
    if b.shape[-2] != A.shape[-2]:
        raise ShapeError(
            f"linalg.lstsq: A {tuple(A.shape)} and B {tuple(B.shape)} need the same number of rows"
        )
    if driver not in (None, "gelsd", "gelsy", "gelss", "gels"):
        raise ArgumentError(f"linalg.lstsq: unknown driver {driver!r}")
    m, n = A.shape[-2:]
    rtol = _eps(A._dtype) * max(m, n) if rcond is None or rcond < 0 else float(rcond)
    x = pinv(A, rtol=rtol) @ b
    rank = matrix_rank(A, rtol=rtol)
    real = A._dtype.to_real()
    empty = Tensor._wrap(A._device._backend.full((0,), 0, real.np), real, A._device)
    res = empty
    if m > n and A.numel() and bool((rank == n).all()):
        res = ((A @ x - b).abs() ** 2 if A.is_complex() else (A @ x - b) ** 2).sum(-2)
        res = res.squeeze(-1) if vector else res
    return _Lstsq(x.squeeze(-1) if vector else x, res, rank, svdvals(A.detach()))


def tensorinv(A, ind=2):
    """The inverse of ``A`` seen as a map from its last dims to its first ``ind`` dims:
    ``tensordot(tensorinv(A), A, ind)`` is the identity of shape ``A.shape[ind:]``."""
    if ind <= 0:
        raise ArgumentError(f"linalg.tensorinv: expected ind to be positive, got {ind}")
    out_shape, in_shape = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    if math.prod(out_shape) != math.prod(in_shape):
        raise ShapeError(
            f"linalg.tensorinv: the product of the first {ind} dims "
            f"{out_shape} must equal that of the others {in_shape}"
        )
    n = math.prod(out_shape)
    return inv(A.reshape(n, n)).reshape(in_shape + out_shape)


def tensorsolve(A, B, dims=None):
    """:math:`X` with ``tensordot(A, X, X.ndim) == B`` (``dims``: axes of ``A`` moved to
    the end first)."""
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        A = A.permute([d for d in range(A.ndim) if d not in dims] + dims)
    x_shape = tuple(A.shape[B.ndim :])
    n = math.prod(x_shape)
    if math.prod(A.shape[: B.ndim]) != n or tuple(A.shape[: B.ndim]) != tuple(B.shape):
        raise ShapeError(
            f"linalg.tensorsolve: A {tuple(A.shape)} and B {tuple(B.shape)} "
            "do not describe a square system"
        )
    return solve(A.reshape(n, n), B.reshape(n)).reshape(x_shape)
