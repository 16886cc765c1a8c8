r"""The error function and its kin: ``erf``, ``erfc`` (:math:`1 - \mathrm{erf}`), ``erfinv``
and their in-place forms (``erfcx`` and the normal distribution's functions are
:mod:`lucid.ops.special.gaussian`'s).

All are real-valued (integer and bool inputs compute in the default float dtype) and
compute in float32 under autocast (``AmpPolicy.FORCE_FP32``). Complex input is refused,
as in PyTorch.
"""

from __future__ import annotations

import math

from ..core.base import UnaryOp
from ..core.registry import register
from ._common import _FP32, _inplace, _schema, _unary

__all__ = ["erf", "erfc", "erfinv", "erf_", "erfc_", "erfinv_"]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = math.sqrt(math.pi) / 2.0


@register
class ErfBackward(UnaryOp):
    r"""Autograd node for the error function :math:`y = \mathrm{erf}(x)`.

    Saves the input: the derivative is the Gaussian :math:`\frac{2}{\sqrt\pi} e^{-x^2}`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{2}{\sqrt\pi} e^{-x^2}\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"erf"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: NumPy has no ``erf``; the array backend evaluates it in float64 from the
    Maclaurin series (:math:`|x| < 2`) and Laplace's continued fraction of ``erfc``
    (beyond), to within a few ulp of float64; ``erf(±inf)`` is :math:`\pm 1`.
    """

    __slots__ = ()
    schema_v1 = _schema("erf", _FP32, real=True)
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.erf(x)

    def grad(self, F, g, x, out):
        return g * F.exp(-(x * x)) * _TWO_OVER_SQRT_PI


@register
class ErfcBackward(UnaryOp):
    r"""Autograd node for the complementary error function :math:`y = 1 - \mathrm{erf}(x)`.

    Saves the input: the derivative is :math:`-\frac{2}{\sqrt\pi} e^{-x^2}`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = -\frac{2}{\sqrt\pi} e^{-x^2}\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"erfc"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: the array backend's float64 ``erfc``: Laplace's continued fraction for
    :math:`x \ge 2`, keeping relative accuracy deep in the tail (``erfc(26)`` is about
    5.7e-296, not 0), and :math:`1 - \mathrm{erf}(x)` below.
    """

    __slots__ = ()
    schema_v1 = _schema("erfc", _FP32, real=True)
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.erfc(x)

    def grad(self, F, g, x, out):
        return g * F.exp(-(x * x)) * -_TWO_OVER_SQRT_PI


@register
class ErfinvBackward(UnaryOp):
    r"""Autograd node for the inverse error function :math:`y = \mathrm{erf}^{-1}(x)`.

    Saves the output: by the inverse-function rule the derivative is
    :math:`\frac{\sqrt\pi}{2} e^{y^2}`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{\sqrt\pi}{2} e^{y^2}\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"erfinv"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y = \mathrm{erf}^{-1}(x)`.

    Notes
    -----
    Backends: the array backend refines a closed-form first guess with two Halley steps on
    ``erf`` in float64. :math:`\pm\infty` at :math:`\pm 1`, nan outside
    :math:`[-1, 1]`.
    """

    __slots__ = ()
    schema_v1 = _schema("erfinv", _FP32, real=True)
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.erfinv(x)

    def grad(self, F, g, x, out):
        return g * F.exp(out * out) * _HALF_SQRT_PI


erf = _unary(ErfBackward, "erf", "Element-wise error function.")
erfc = _unary(ErfcBackward, "erfc", "Element-wise complementary error function.")
erfinv = _unary(ErfinvBackward, "erfinv", "Element-wise inverse error function.")


# -- in-place variants -------------------------------------------------------------------

erf_ = _inplace(erf)
erfc_ = _inplace(erfc)
erfinv_ = _inplace(erfinv)
