r"""The Hurwitz zeta function and the regularised incomplete gamma functions: ``zeta``
(:math:`\zeta(x, q)`), ``gammainc`` (:math:`P(a, x)`), ``gammaincc`` (:math:`Q(a, x) =
1 - P(a, x)`), and ``multigammaln``, composed of :func:`lucid.lgamma` (the gamma family
itself is :mod:`lucid.ops.special.functions`').

Every kernel computes in float64 from series, interpolants and continued fractions of its
own (no SciPy; see ``lucid/backend/array/special.py``) and rounds once to the input dtype;
integer inputs compute in the default float dtype, and autocast computes in float32.
Gradients follow PyTorch's ``derivatives.yaml``; where PyTorch raises (``zeta`` in
:math:`x`, ``gammainc`` and ``gammaincc`` in :math:`a`) Lucid raises too, at backward.
"""

from __future__ import annotations

import math
import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import ArgumentError, AutogradError, DTypeError
from ..core.base import BinaryOp, to_tensor
from ..core.registry import register
from ._common import _schema
from .functions import lgamma

__all__ = ["zeta", "gammainc", "gammaincc", "multigammaln"]

_LOG_PI = math.log(math.pi)


def _not_implemented(op, what):
    raise AutogradError(
        f"{op}: the derivative with respect to {what} is not implemented (as in PyTorch)"
    )


@register
class ZetaBackward(BinaryOp):
    r"""Autograd node for the Hurwitz zeta function :math:`y = \zeta(x, q)`.

    Saves both inputs: the gradient in :math:`q` is :math:`-x\,\zeta(x + 1, q)`; the one in
    :math:`x` is not implemented (as in PyTorch), and asking for it raises at backward.

    Math
    ----
    .. math:: \zeta(x, q) = \sum_{k \ge 0} (q + k)^{-x}, \qquad
              \frac{\partial \mathcal{L}}{\partial q} = -x\,\zeta(x + 1, q)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"zeta"``, ``AmpPolicy.FORCE_FP32``, real-valued, two inputs.
    saves_input : bool
        True: :math:`x` and :math:`q`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.zeta``, Euler-Maclaurin in float64: the direct sum until
    :math:`q + N \ge \min(20 + x/2, 140)`, then the integral, the half term and 12
    Bernoulli corrections; relative error about 1e-15. :math:`+\infty` at :math:`x = 1`
    and at :math:`q \in \{0, -1, \dots\}`; nan for :math:`x < 1` and for negative
    non-integer :math:`q` with non-integer :math:`x` (PyTorch's rules); 0 at
    :math:`q = +\infty` and :math:`\zeta(\infty, q)` its limit (0, 1 or :math:`+\infty`;
    PyTorch gives nan for both).
    """

    __slots__ = ()
    schema_v1 = _schema("zeta", 2)
    saves_input = True

    @staticmethod
    def dispatch(be, x, q):
        return be.zeta(x, q)

    def grad(self, F, g, x, q, out):
        if self.next_edges[0] is not None:
            _not_implemented("zeta", "x (its first argument)")
        return None, g * -x * F.zeta(x + 1, q)


class _IncompleteGammaBackward(BinaryOp):
    """The gradient of :math:`\\pm P(a, x)` in :math:`x`; none in :math:`a` (PyTorch
    raises)."""

    __slots__ = ()
    saves_input = True
    _sign = 1

    def grad(self, F, g, a, x, out):
        if self.next_edges[0] is not None:
            _not_implemented(self.schema_v1.name, "a (its first argument)")
        return None, g * F.exp((a - 1) * F.log(x) - x - F.lgamma(a)) * self._sign


_GAMMAINC_NOTES = r"""
    Backends: ``be.KERNEL`` in float64: the series of :math:`P` for :math:`x < a + 1`, the
    continued fraction of :math:`Q` (modified Lentz) beyond, both iterated until every
    element has converged; the prefactor :math:`e^{a\ln x - x - \ln\Gamma(a)}` limits the
    relative error to about :math:`10^{-16}(1 + |a \ln x|)`. (PyTorch's kernel is off by
    about 1e-9 for :math:`a` near 20; Lucid's is checked against mpmath.) Edge values as
    PyTorch: :math:`P(0, x > 0) = 1`, nan for negative arguments and :math:`P(0, 0)`.
    The gradient in :math:`x` is the Gamma density
    :math:`e^{(a - 1)\ln x - x - \ln\Gamma(a)}` (nan at :math:`x = 0`, like PyTorch's
    formula); the one in :math:`a` raises at backward, as in PyTorch."""


@register
class GammaincBackward(_IncompleteGammaBackward):
    __doc__ = (
        r"""Autograd node for the regularised lower incomplete gamma function
    :math:`y = P(a, x)`.

    Saves both inputs: the gradient in :math:`x` is the Gamma(:math:`a`) density.

    Math
    ----
    .. math:: P(a, x) = \frac{1}{\Gamma(a)} \int_0^x t^{a-1} e^{-t}\,dt, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = \frac{x^{a-1} e^{-x}}{\Gamma(a)}\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"gammainc"``, ``AmpPolicy.FORCE_FP32``, real-valued, two inputs.
    saves_input : bool
        True: :math:`a` and :math:`x`.
    saves_output : bool
        False.

    Notes
    -----"""
        + _GAMMAINC_NOTES.replace("KERNEL", "gammainc")
        + "\n    "
    )

    __slots__ = ()
    schema_v1 = _schema("gammainc", 2)

    @staticmethod
    def dispatch(be, a, x):
        return be.gammainc(a, x)


@register
class GammainccBackward(_IncompleteGammaBackward):
    __doc__ = (
        r"""Autograd node for the regularised upper incomplete gamma function
    :math:`y = Q(a, x) = 1 - P(a, x)`.

    Saves both inputs: the gradient in :math:`x` is minus the Gamma(:math:`a`) density.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = -\frac{x^{a-1} e^{-x}}{\Gamma(a)}\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"gammaincc"``, ``AmpPolicy.FORCE_FP32``, real-valued, two inputs.
    saves_input : bool
        True: :math:`a` and :math:`x`.
    saves_output : bool
        False.

    Notes
    -----"""
        + _GAMMAINC_NOTES.replace("KERNEL", "gammaincc")
        + "\n    "
    )

    __slots__ = ()
    schema_v1 = _schema("gammaincc", 2)
    _sign = -1

    @staticmethod
    def dispatch(be, a, x):
        return be.gammaincc(a, x)


def zeta(input, other):
    r"""Element-wise Hurwitz zeta :math:`\zeta(x, q) = \sum_{k \ge 0} (q + k)^{-x}`
    (``input`` is :math:`x`, ``other`` is :math:`q`)."""
    return ZetaBackward.call(input, other)


def gammainc(input, other):
    """Element-wise regularised lower incomplete gamma :math:`P(a, x)` (``input`` is
    :math:`a`, ``other`` is :math:`x`)."""
    return GammaincBackward.call(input, other)


def gammaincc(input, other):
    """Element-wise regularised upper incomplete gamma :math:`Q(a, x) = 1 - P(a, x)`."""
    return GammainccBackward.call(input, other)


def multigammaln(input, p):
    r"""Element-wise multivariate log-gamma of dimension ``p``:
    :math:`\frac{p(p-1)}{4}\ln\pi + \sum_{j=0}^{p-1} \ln\Gamma(x - j/2)`, composed of
    :func:`lucid.lgamma` (so differentiable through it). The function is defined for
    :math:`x > (p - 1)/2`; as PyTorch 2.13, elements outside are not refused but give
    the sum's value (``inf`` at the poles). Bool input is refused, as PyTorch."""
    if isinstance(p, bool) or not isinstance(p, numbers.Integral):
        raise ArgumentError(f"multigammaln: p must be an int, got {type(p).__name__}")
    if p < 1:
        raise ArgumentError(f"multigammaln: p has to be greater than or equal to 1, got {p}")
    x = input if isinstance(input, Tensor) else to_tensor(input)
    if x._dtype is _dt.bool:
        raise DTypeError("multigammaln: the input may not be a bool tensor (as PyTorch)")
    out = lgamma(x)
    for j in range(1, p):
        out = out + lgamma(x - 0.5 * j)
    return out + p * (p - 1) / 4 * _LOG_PI
