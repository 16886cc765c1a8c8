r"""The general eigendecomposition of ``lucid.linalg``: ``eig`` and ``eigvals``.

A square :math:`A` (real or complex) is :math:`A = V\,\mathrm{diag}(\lambda)\,V^{-1}`,
eigenvalues and eigenvectors complex in general (a real input gives complex results, as
PyTorch), each eigenvector of unit norm (LAPACK's ``geev``).
"""

from __future__ import annotations

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...autograd.grad_mode import STATE
from .decompositions import _eye
from .args import LinalgMultiOp, matrix, mH, result_type, schema
from ..core.registry import register

__all__ = []

_Eig = result_type("linalg_eig", ("eigenvalues", "eigenvectors"))


@register
class EigBackward(LinalgMultiOp):
    r"""Autograd node for :math:`A = V\,\mathrm{diag}(\lambda)\,V^{-1}`. Saves the outputs.

    Math
    ----
    With :math:`E_{ij} = \bar\lambda_j - \bar\lambda_i` (:math:`E_{ii} = 1`),
    :math:`M = V^{\mathsf H}\bar V` (the incoming gradients :math:`\bar\lambda`,
    :math:`\bar V`):

    .. math:: \bar A = V^{-\mathsf H}\Big[\big(M - V^{\mathsf H}V\,
        \mathrm{diag}(\mathrm{Re}\,M)\big) / E + \mathrm{diag}(\bar\lambda)\Big]
        V^{\mathsf H}

    (the diagonal of the bracket is :math:`\bar\lambda`; without an eigenvector gradient
    the bracket is :math:`\mathrm{diag}(\bar\lambda)`). A real :math:`A` keeps the real
    part.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"linalg_eig"``, ``AmpPolicy.FORCE_FP32``, ``output_arity=2``,
        ``complex_grad="custom"`` (the outputs are complex for real input too).
    saves_input, saves_output : bool
        False, True (:math:`\lambda, V`).

    Notes
    -----
    Backends: ``xp.linalg.eig`` (LAPACK geev on NumPy; cuSOLVER's geev on CuPy where it
    has one, else the host's LAPACK with the arrays copied, as PyTorch's CUDA eig does on
    the host through MAGMA). Instabilities, as PyTorch documents: the eigenvectors are
    defined up to a complex phase each, so a loss must not depend on it (its gradient
    would be meaningless); repeated eigenvalues divide by zero in :math:`E` and give
    inf/NaN; a gradient through the eigenvalues alone (``eigvals``) stays finite.
    """

    __slots__ = ()
    schema_v1 = schema("linalg_eig", output_arity=2, complex_grad="custom")
    saves_output = True

    @staticmethod
    def dispatch(be, a):
        return be.eig(a)

    def grad(self, F, g, a, out):
        (gl, gv), (lam, v) = g, out
        vh = mH(v)
        eye = _eye(self, lam.shape[-1], lam)
        if gv is None:
            inner = gl[..., :, None] * eye
        else:
            m = vh @ gv
            re_diag = (m + F.conj(m)) * (0.5 * eye)  # diag(Re M) as a matrix
            e = F.conj(lam[..., None, :] - lam[..., :, None]) + eye
            inner = (m - (vh @ v) @ re_diag) / e
            if gl is not None:
                inner = inner * (1 - eye) + gl[..., :, None] * eye
        return F.solve(vh, inner @ vh)


def eig(A):
    """``(eigenvalues, eigenvectors)`` of the square ``A``: complex, each eigenvector (a
    column) of unit norm, in LAPACK's order."""
    return _Eig(*EigBackward.apply(matrix("eig", A, square=True)))


def eigvals(A):
    """The eigenvalues of the square ``A`` (complex), through the eig node under autograd
    (gradient :math:`V^{-\\mathsf H}\\mathrm{diag}(\\bar\\lambda)V^{\\mathsf H}`)."""
    A = matrix("eigvals", A, square=True)
    if A._requires_grad and STATE.grad_enabled:
        return EigBackward.apply(A)[0]
    be = A._device._backend
    lam = be.eig(A._data)[0]
    return Tensor._wrap(lam, _dt.from_numpy_dtype(lam.dtype), A._device)
