r"""The classical orthogonal polynomials :math:`p_n(x)`: Chebyshev :math:`T, U, V, W`
(``chebyshev_polynomial_t``, ...) and their shifted forms on :math:`[0, 1]`
(``shifted_chebyshev_polynomial_t``, ...), Hermite :math:`H` and :math:`He`
(``hermite_polynomial_h``, ``hermite_polynomial_he``), Laguerre :math:`L` and Legendre
:math:`P`: one op, ``orthogonal_polynomial`` (the family a param), behind twelve wrappers.

The degree :math:`n` is a number or a tensor, broadcast against :math:`x`. The recurrence
runs in float64 and rounds once to the input dtype; integer inputs compute in the default
float dtype. Not differentiable, as in PyTorch.
"""

from __future__ import annotations

from ..core.base import BinaryOp
from ..core.registry import register
from ._common import _schema

__all__ = [
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
]


@register
class OrthogonalPolynomialBackward(BinaryOp):
    r"""Node of a classical orthogonal polynomial :math:`y = p_n(x)` (``kind`` a param:
    Chebyshev :math:`T, U, V, W` and their shifted forms, Hermite :math:`H` and
    :math:`He`, Laguerre :math:`L`, Legendre :math:`P`); not differentiable, as in
    PyTorch, so it saves nothing.

    Math
    ----
    .. math:: p_0 = 1, \quad p_1 = a x + b, \quad p_{k+1} = (\alpha_k x + \beta_k) p_k -
              \gamma_k p_{k-1}

    (:math:`T`: :math:`p_1 = x`, :math:`p_{k+1} = 2x p_k - p_{k-1}`; :math:`U, V, W`: the
    same recurrence from :math:`2x`, :math:`2x - 1`, :math:`2x + 1`; :math:`H`:
    :math:`2x p_k - 2k p_{k-1}`; :math:`He`: :math:`x p_k - k p_{k-1}`; :math:`L`:
    :math:`((2k + 1 - x) p_k - k p_{k-1})/(k + 1)` from :math:`1 - x`; :math:`P`:
    :math:`((2k + 1) x p_k - k p_{k-1})/(k + 1)`; shifted: at :math:`2x - 1`.)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"orthogonal_polynomial"``, ``AmpPolicy.FORCE_FP32``, real-valued, two inputs
        (:math:`x` and :math:`n`), ``kind`` a keyword param; ``differentiable=False``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``be.orthogonal_polynomial`` in float64: :math:`n` is truncated to an
    integer (0 where negative), and the recurrence runs to the largest :math:`n` of the
    array, one pass per degree, each element keeping its own degree's value (exact at
    :math:`x = \pm 1` for the Chebyshev families). nan :math:`x` gives nan (PyTorch returns
    stale values there for some families).
    """

    __slots__ = ()
    schema_v1 = _schema("orthogonal_polynomial", 2, differentiable=False)

    @staticmethod
    def dispatch(be, x, n, kind):
        return be.orthogonal_polynomial(kind, x, n)


def _polynomial(kind, name, what):
    def op(input, n):
        return OrthogonalPolynomialBackward.call(input, n, kind=kind)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Element-wise {what} of degree ``n`` (a number or a tensor, broadcast)."
    return op


chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v, chebyshev_polynomial_w = (
    _polynomial(
        f"chebyshev_{k}",
        f"chebyshev_polynomial_{k}",
        f"Chebyshev polynomial :math:`{k.upper()}_n(x)`",
    )
    for k in "tuvw"
)
(
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
) = (
    _polynomial(
        f"shifted_chebyshev_{k}",
        f"shifted_chebyshev_polynomial_{k}",
        f"shifted Chebyshev polynomial :math:`{k.upper()}_n(2x - 1)`",
    )
    for k in "tuvw"
)
hermite_polynomial_h = _polynomial(
    "hermite_h", "hermite_polynomial_h", "physicists' Hermite polynomial :math:`H_n(x)`"
)
hermite_polynomial_he = _polynomial(
    "hermite_he", "hermite_polynomial_he", "probabilists' Hermite polynomial :math:`He_n(x)`"
)
laguerre_polynomial_l = _polynomial(
    "laguerre_l", "laguerre_polynomial_l", "Laguerre polynomial :math:`L_n(x)`"
)
legendre_polynomial_p = _polynomial(
    "legendre_p", "legendre_polynomial_p", "Legendre polynomial :math:`P_n(x)`"
)
