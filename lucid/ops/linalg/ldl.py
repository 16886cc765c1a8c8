r"""The symmetric indefinite factorisation of ``lucid.linalg``: ``ldl_factor``,
``ldl_factor_ex`` and ``ldl_solve``.

:math:`P A P^\top = L D L^\top` (:math:`L D L^{\mathsf H}` for ``hermitian`` complex
input) by Bunch-Kaufman diagonal pivoting of the lower triangle, in LAPACK's ``sytrf``
format (the kernel's doc, :mod:`lucid.backend.array.ldl`). As in PyTorch neither op is
differentiable: a backward through them raises.
"""

from __future__ import annotations

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import ArgumentError, AutogradError, DTypeError, ShapeError
from ..core.base import Op, to_tensor
from .args import LinalgMultiOp, matrix, result_type, schema
from ..core.registry import register

__all__ = []

_LDL = result_type("linalg_ldl_factor", ("LD", "pivots"))
_LDLEx = result_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))


@register
class LdlFactorBackward(LinalgMultiOp):
    r"""Autograd node for the Bunch-Kaufman :math:`PAP^\top = LDL^\top` of the lower
    triangle. Not differentiable (PyTorch has no derivative for it): a backward raises.

    Math
    ----
    Column :math:`k` takes a 1 x 1 pivot :math:`d = a_{kk}` when
    :math:`|a_{kk}| \ge \alpha \max_{i > k} |a_{ik}|` (:math:`\alpha = (1 + \sqrt{17})/8`),
    else the row and column of the largest off-diagonal entry are swapped in as a 1 x 1
    or, with :math:`k`, a 2 x 2 pivot :math:`D_k`; the trailing block is updated by
    :math:`A_{22} \mathrel{-}= C D_k^{-1} C^\top` and :math:`L` gets :math:`C D_k^{-1}`.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"linalg_ldl_factor"``, ``AmpPolicy.FORCE_FP32``, ``output_arity=3`` (``LD``,
        int32 ``pivots``, int32 ``info``), ``differentiable_outputs=(0,)``: ``LD`` has a
        node, whose backward raises (PyTorch's does too); params: ``hermitian``.
    saves_input, saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.ldl_factor`` (LAPACK's ``sytf2``/``hetf2`` column loop over the array
    module; pivots are data-dependent, so each matrix of a batch is its own loop).
    Magnitudes compare as LAPACK's (:math:`|\mathrm{Re}| + |\mathrm{Im}|` for complex), so
    pivots and factors match PyTorch's. The strict upper triangle of ``LD`` is 0; only
    the lower triangle of ``A`` is read. A zero pivot is recorded in ``info``.
    """

    __slots__ = ()
    schema_v1 = schema(
        "linalg_ldl_factor", output_arity=3, differentiable_outputs=(0,), complex_grad="custom"
    )

    @staticmethod
    def dispatch(be, a, hermitian):
        return be.ldl_factor(a, hermitian)

    def grad(self, F, g, *args):
        raise _no_derivative("ldl_factor")


@register
class LdlSolveBackward(Op):
    r"""Autograd node for :math:`X = A^{-1}B` from :func:`ldl_factor`'s factor. Not
    differentiable, as in PyTorch.

    Math
    ----
    .. math:: L D\,(L^\top P X) = P B

    solved by forward substitution through :math:`L` and the blocks of :math:`D`, then
    back substitution through :math:`L^\top` (LAPACK's ``sytrs``).

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"linalg_ldl_solve"``, ``AmpPolicy.FORCE_FP32``, ``input_arity=3`` (``LD``,
        ``pivots``, ``B``); its backward raises, as PyTorch's; params: ``hermitian``.
    saves_input, saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.ldl_solve``, batch axes broadcast; the pivots are read on the host
    (they choose the branches).
    """

    __slots__ = ()
    schema_v1 = schema("linalg_ldl_solve", input_arity=3, complex_grad="custom")

    @staticmethod
    def dispatch(be, ld, pivots, b, hermitian):
        return be.ldl_solve(ld, pivots, b, hermitian)

    def grad(self, F, g, *args):
        raise _no_derivative("ldl_solve")


def _no_derivative(op):
    return AutogradError(
        f"linalg.{op} is not differentiable (PyTorch defines no derivative for it either)"
    )


def _factor(op, A, hermitian, check_errors):
    ld, piv, info = LdlFactorBackward.apply(matrix(op, A, square=True), hermitian=bool(hermitian))
    bad = info.reshape(-1)
    bad = bad[bad != 0]
    if check_errors and bad.numel():
        k = int(bad[0])
        raise ArgumentError(
            f"linalg.{op}: the factorization could not be completed "
            f"because the input is singular (D[{k - 1},{k - 1}] is zero)"
        )
    return ld, piv, info


def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    """``(LD, pivots, info)`` of the Bunch-Kaufman factorisation of the lower triangle of
    the symmetric (or, with ``hermitian``, Hermitian) ``A``; ``check_errors`` raises for
    a zero pivot."""
    return _LDLEx(*_factor("ldl_factor_ex", A, hermitian, check_errors))


def ldl_factor(A, *, hermitian=False):
    """``(LD, pivots)`` of :func:`ldl_factor_ex`, raising for a zero pivot."""
    return _LDL(*_factor("ldl_factor", A, hermitian, True)[:2])


def ldl_solve(LD, pivots, B, *, hermitian=False):
    """:math:`X = A^{-1}B` from :func:`ldl_factor`'s ``LD`` and ``pivots``."""
    LD = matrix("ldl_solve", LD, square=True)
    if not isinstance(B, Tensor):
        B = to_tensor(B, LD)
    if not isinstance(pivots, Tensor) or pivots._dtype is not _dt.int32:
        raise DTypeError(
            "linalg.ldl_solve: expected pivots to be an int32 tensor (from ldl_factor)"
        )
    if B._dtype is not LD._dtype:
        raise DTypeError(
            f"linalg.ldl_solve: expected B to have the dtype of LD "
            f"({LD._dtype.name}), got {B._dtype.name}"
        )
    n = LD.shape[-1]
    if B.ndim < 2 or B.shape[-2] != n or tuple(pivots.shape[-1:]) != (n,):
        raise ShapeError(
            f"linalg.ldl_solve: incompatible shapes: each LD matrix is {n} by "
            f"{n}, pivots {tuple(pivots.shape)}, B {tuple(B.shape)}"
        )
    return LdlSolveBackward.apply(LD, pivots, B, hermitian=bool(hermitian))
