r"""The scaled complementary error function and the standard normal distribution: ``erfcx``
(:math:`e^{x^2}\mathrm{erfc}(x)`), ``ndtr`` (the CDF :math:`\Phi`), ``log_ndtr``
(:math:`\ln\Phi`, accurate far into the lower tail through ``erfcx``) and ``ndtri`` (the
quantile :math:`\Phi^{-1}`); ``erf``, ``erfc`` and ``erfinv`` are
:mod:`lucid.ops.elementwise.erf`'s.

Every kernel computes in float64 from series, interpolants and continued fractions of its
own (no SciPy; see ``lucid/backend/array/special.py``) and rounds once to the input dtype;
integer inputs compute in the default float dtype, and autocast computes in float32.
Gradients follow PyTorch's ``derivatives.yaml``.
"""

from __future__ import annotations

import math

from ..core.base import UnaryOp
from ..core.registry import register
from ._common import _schema, _unary

__all__ = ["erfcx", "ndtr", "log_ndtr", "ndtri"]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_SQRT1_2 = math.sqrt(0.5)


@register
class ErfcxBackward(UnaryOp):
    r"""Autograd node for the scaled complementary error function
    :math:`y = e^{x^2}\mathrm{erfc}(x)`.

    Saves input and output: the derivative is :math:`2 x y - 2/\sqrt\pi`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \Big(2 x\,y -
              \frac{2}{\sqrt\pi}\Big)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"erfcx"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True: :math:`x` and :math:`y`.

    Notes
    -----
    Backends: ``be.erfcx`` in float64: for :math:`|x| \ge 1` the Chebyshev interpolants of
    erfcx that the ``erfc`` kernel uses (so the tail never forms :math:`e^{x^2}` or
    :math:`\mathrm{erfc}` separately and ``erfcx(1e300)`` is :math:`1/(\sqrt\pi x)`),
    :math:`e^{x^2}(1 - \mathrm{erf}(x))` below; :math:`x < 0` by
    :math:`2 e^{x^2} - \mathrm{erfcx}(-x)` with :math:`x^2` split exactly, so it overflows
    to :math:`+\infty` only below about -26.6. 0 at :math:`+\infty`.
    """

    __slots__ = ()
    schema_v1 = _schema("erfcx")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.erfcx(x)

    def grad(self, F, g, x, out):
        return g * (2 * x * out - _TWO_OVER_SQRT_PI)


@register
class NdtrBackward(UnaryOp):
    r"""Autograd node for the standard normal CDF :math:`y = \Phi(x)`.

    Saves the input: the derivative is the normal density at it.

    Math
    ----
    .. math:: \Phi(x) = \tfrac12\mathrm{erfc}\big(-x/\sqrt2\big), \qquad
              \frac{\partial \mathcal{L}}{\partial x} = \frac{e^{-x^2/2}}{\sqrt{2\pi}}\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"ndtr"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.ndtr`` in float64; below -1 as :math:`\tfrac12\mathrm{erfcx}(-x/\sqrt2)
    \, e^{-x^2/2}` with the square split exactly, so the lower tail is relatively accurate
    down to the underflow near -38.5 (PyTorch's ``ndtr`` loses it from about -20).
    """

    __slots__ = ()
    schema_v1 = _schema("ndtr")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.ndtr(x)

    def grad(self, F, g, x, out):
        return g * F.exp(x * x * -0.5) * _INV_SQRT_2PI


@register
class LogNdtrBackward(UnaryOp):
    r"""Autograd node for :math:`y = \ln\Phi(x)`.

    Saves the input: the derivative :math:`\varphi(x)/\Phi(x)` is formed from erfcx of it,
    which neither underflows nor overflows.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{\varphi(x)}{\Phi(x)}\, g =
              \frac{\sqrt{2/\pi}}{\mathrm{erfcx}(-x/\sqrt2)}\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"log_ndtr"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.log_ndtr``: :math:`\ln(\tfrac12 \mathrm{erfcx}(t)) - t^2`,
    :math:`t = -x/\sqrt2`, below -1 (finite for every finite :math:`x`: about
    :math:`-x^2/2`), :math:`\mathrm{log1p}(-\Phi(-x))` above (:math:`-0` at
    :math:`+\infty`). The gradient tends to :math:`-x` as :math:`x \to -\infty` and to 0
    (erfcx overflows to :math:`+\infty`) as :math:`x \to +\infty`.
    """

    __slots__ = ()
    schema_v1 = _schema("log_ndtr")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.log_ndtr(x)

    def grad(self, F, g, x, out):
        return g * _SQRT_2_OVER_PI / F.erfcx(x * -_SQRT1_2)


@register
class NdtriBackward(UnaryOp):
    r"""Autograd node for the normal quantile :math:`y = \Phi^{-1}(p)`.

    Saves the output: by the inverse-function rule the derivative is
    :math:`1/\varphi(y)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial p} = \sqrt{2\pi}\, e^{y^2/2}\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"ndtri"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y`.

    Notes
    -----
    Backends: ``be.ndtri``: :math:`\sqrt2\,\mathrm{erf}^{-1}(2p - 1)` on :math:`[1/4, 3/4]`;
    in the tails a closed-form first guess (Abramowitz-Stegun 26.2.23) refined by three
    Halley steps on the relatively accurate lower-tail :math:`\Phi`, so ``ndtri(1e-300)``
    keeps float64 precision. :math:`-\infty` at 0, :math:`+\infty` at 1, nan outside
    :math:`[0, 1]`.
    """

    __slots__ = ()
    schema_v1 = _schema("ndtri")
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.ndtri(x)

    def grad(self, F, g, x, out):
        return g * F.exp(out * out * 0.5) * _SQRT_2PI


erfcx = _unary(ErfcxBackward, "erfcx", r"Element-wise :math:`e^{x^2}\mathrm{erfc}(x)`.")
ndtr = _unary(NdtrBackward, "ndtr", r"Element-wise standard normal CDF :math:`\Phi(x)`.")
log_ndtr = _unary(LogNdtrBackward, "log_ndtr", r"Element-wise :math:`\ln\Phi(x)`.")
ndtri = _unary(NdtriBackward, "ndtri", r"Element-wise normal quantile :math:`\Phi^{-1}(p)`.")
