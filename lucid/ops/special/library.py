r"""The ops of :mod:`lucid.special` that Lucid's core does not have already.

The scaled complementary error function ``erfcx``, the normal distribution's ``ndtr``,
``log_ndtr`` and ``ndtri``, the modified Bessel functions ``i0``, ``i0e``, ``i1``, ``i1e``,
the Airy function ``airy_ai``, the Bessel functions ``bessel_j0``, ``bessel_j1``,
``bessel_y0``, ``bessel_y1``, ``modified_bessel_k0``, ``modified_bessel_k1`` (and their
scaled forms) and ``spherical_bessel_j0``, ``entr``, ``xlog1py``, the Hurwitz ``zeta``, the
regularised incomplete gamma functions ``gammainc`` / ``gammaincc`` and the classical
orthogonal polynomials (one op, ``orthogonal_polynomial``, behind twelve wrappers);
``multigammaln`` is composed of :func:`lucid.lgamma`.

Every kernel computes in float64 from series, interpolants and continued fractions of its
own (no SciPy; see ``lucid/backend/array/special.py``) and rounds once to the input dtype;
integer inputs compute in the default float dtype. Gradients follow PyTorch's
``derivatives.yaml``; where PyTorch has none although the derivative is elementary
(the Bessel functions of the first and second kinds) Lucid gives it, and where PyTorch
raises (``zeta`` in :math:`x`, ``gammainc`` in :math:`a`) Lucid raises too, at backward.
"""

from __future__ import annotations

import math
import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import ArgumentError, AutogradError, DTypeError
from ..core._formula import array_of, const
from ..core.base import BinaryOp, UnaryOp, to_tensor
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from .functions import lgamma

__all__ = ["erfcx", "ndtr", "log_ndtr", "ndtri", "i0", "i0e", "i1", "i1e", "airy_ai",
           "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0",
           "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "spherical_bessel_j0", "entr", "xlog1py", "zeta", "gammainc", "gammaincc",
           "multigammaln",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p"]

_FP32 = AmpPolicy.FORCE_FP32
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_SQRT1_2 = math.sqrt(0.5)
_LOG_PI = math.log(math.pi)


def _schema(name, arity=1, differentiable=True):
    return OpSchema(name, 1, _FP32, real_valued=True, input_arity=arity,
                    differentiable=differentiable)


def _nonzero(F, x):
    """``(x == 0, x with 1 at those places)``, the mask a constant of the formula: the
    masked branch of a removable singularity then has a finite (unused) value and
    derivative."""
    zero = const(array_of(x) == 0, x)
    return zero, F.where(zero, 1.0, x)


def _not_implemented(op, what):
    raise AutogradError(f"{op}: the derivative with respect to {what} is not implemented "
                        "(as in PyTorch)")


# == the error function and the normal distribution ========================================

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


# == modified Bessel functions ==============================================================

_BESSEL_I_NOTES = r"""
    Backends: ``be.KERNEL`` in float64: the power series in :math:`x^2/4` (all terms
    positive, 60 terms) below :math:`|x| = 25`, the asymptotic expansion
    :math:`\frac{e^{|x|}}{\sqrt{2\pi|x|}} \sum_k (-1)^k a_k(\nu) |x|^{-k}` (30 terms, exact
    coefficients) beyond; relative error about 1e-15."""


@register
class I0Backward(UnaryOp):
    r"""Autograd node for the modified Bessel function :math:`y = I_0(x)`.

    Saves the input: the derivative is :math:`I_1(x)`.

    Math
    ----
    .. math:: I_0(x) = \sum_{k \ge 0} \frac{(x^2/4)^k}{(k!)^2}, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = I_1(x)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"i0"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.i0`` (see ``i0e``); the large-:math:`|x|` branch multiplies by
    :math:`e^{|x|/2}` twice, so it overflows to :math:`+\infty` only where :math:`I_0` does
    (about 713.98). :math:`+\infty` at :math:`\pm\infty` (PyTorch gives nan there).
    """

    __slots__ = ()
    schema_v1 = _schema("i0")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.i0(x)

    def grad(self, F, g, x, out):
        return g * F.i1(x)


@register
class I0eBackward(UnaryOp):
    __doc__ = r"""Autograd node for the exponentially scaled :math:`y = e^{-|x|} I_0(x)`.

    Saves input and output: the derivative is :math:`I_{1e}(x) - \mathrm{sign}(x)\, y`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \big(e^{-|x|} I_1(x) -
              \mathrm{sign}(x)\, y\big)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"i0e"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----""" + _BESSEL_I_NOTES.replace("KERNEL", "i0e") + r"""
    Never overflows; 0 at :math:`\pm\infty`.
    """

    __slots__ = ()
    schema_v1 = _schema("i0e")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.i0e(x)

    def grad(self, F, g, x, out):
        return g * (F.i1e(x) - F.sign(x) * out)


@register
class I1Backward(UnaryOp):
    __doc__ = r"""Autograd node for the modified Bessel function :math:`y = I_1(x)`.

    Saves input and output: the derivative is :math:`I_0(x) - y/x` (1/2 at 0).

    Math
    ----
    .. math:: I_1(x) = \frac x2 \sum_{k \ge 0} \frac{(x^2/4)^k}{k!\,(k+1)!}, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = \Big(I_0(x) - \frac{y}{x}\Big)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"i1"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----""" + _BESSEL_I_NOTES.replace("KERNEL", "i1") + r"""
    Odd; :math:`\pm\infty` at :math:`\pm\infty` (PyTorch: nan). At 0 the gradient is the
    limit 1/2 (the zero mask is a constant, so graph mode stays finite there).
    """

    __slots__ = ()
    schema_v1 = _schema("i1")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.i1(x)

    def grad(self, F, g, x, out):
        zero, xs = _nonzero(F, x)
        return g * F.where(zero, 0.5, F.i0(xs) - out / xs)


@register
class I1eBackward(UnaryOp):
    __doc__ = r"""Autograd node for the exponentially scaled :math:`y = e^{-|x|} I_1(x)`.

    Saves input and output.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \Big(e^{-|x|} I_0(x) - y\,
              \big(\mathrm{sign}(x) + \tfrac1x\big)\Big)\, g \quad (\tfrac12 \text{ at } 0)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"i1e"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----""" + _BESSEL_I_NOTES.replace("KERNEL", "i1e") + r"""
    Odd, never overflows; 0 at :math:`\pm\infty`.
    """

    __slots__ = ()
    schema_v1 = _schema("i1e")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.i1e(x)

    def grad(self, F, g, x, out):
        zero, xs = _nonzero(F, x)
        return g * F.where(zero, 0.5, F.i0e(xs) - out * (F.sign(xs) + 1 / xs))


# == Bessel functions of the first kind ======================================================

_BESSEL_J_NOTES = r"""
    Backends: ``be.KERNEL`` in float64: the power series below 2 (exact at 0), Chebyshev
    series (26 terms, Clenshaw) on the 6 pieces :math:`[4k + 2, 4k + 6)` of
    :math:`[2, 26)`, fitted at import to 60-digit values of the power series; Hankel's
    expansion :math:`\sqrt{2/(\pi x)}(P\cos\chi - Q\sin\chi)`
    (20 terms each) beyond, with :math:`\cos\chi`, :math:`\sin\chi` formed from
    :math:`\cos x`, :math:`\sin x`. Absolute error below 1e-15 (so relative only away from
    the zeros); 0 at :math:`\pm\infty` (PyTorch: nan). PyTorch's own kernel is off by up to
    about 1e-7 between 2 and 8; Lucid's is checked against mpmath. PyTorch defines no
    gradient; Lucid gives the elementary one."""


@register
class BesselJ0Backward(UnaryOp):
    __doc__ = r"""Autograd node for the Bessel function :math:`y = J_0(x)`.

    Saves the input: the derivative is :math:`-J_1(x)`.

    Math
    ----
    .. math:: J_0(x) = \sum_{k \ge 0} \frac{(-x^2/4)^k}{(k!)^2}, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = -J_1(x)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"bessel_j0"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----""" + _BESSEL_J_NOTES.replace("KERNEL", "bessel_j0") + "\n    "

    __slots__ = ()
    schema_v1 = _schema("bessel_j0")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.bessel_j0(x)

    def grad(self, F, g, x, out):
        return -g * F.bessel_j1(x)


@register
class BesselJ1Backward(UnaryOp):
    __doc__ = r"""Autograd node for the Bessel function :math:`y = J_1(x)`.

    Saves input and output: the derivative is :math:`J_0(x) - y/x` (1/2 at 0).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \Big(J_0(x) - \frac{y}{x}\Big)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"bessel_j1"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----""" + _BESSEL_J_NOTES.replace("KERNEL", "bessel_j1") + "\n    "

    __slots__ = ()
    schema_v1 = _schema("bessel_j1")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.bessel_j1(x)

    def grad(self, F, g, x, out):
        zero, xs = _nonzero(F, x)
        return g * F.where(zero, 0.5, F.bessel_j0(xs) - out / xs)


_BESSEL_YK_NOTES = r"""
    Backends: ``be.KERNEL`` in float64: below 2 the logarithmic series (:math:`\ln(x/2)`
    times the regular function plus a series weighted by harmonic numbers); on
    :math:`[2, 26)` Chebyshev series fitted (on first use) to 80-digit values of that
    series; beyond, ASYMPTOTIC. Relative error about 1e-15 (absolute near zeros).
    DOMAIN. PyTorch defines no gradient; Lucid gives the elementary one."""
_Y_NOTES = _BESSEL_YK_NOTES.replace(
    "ASYMPTOTIC", r"Hankel's expansion :math:`\sqrt{2/(\pi x)}(P\sin\chi + Q\cos\chi)`"
).replace("DOMAIN", r":math:`-\infty` at 0, nan for :math:`x < 0`, 0 at :math:`+\infty` "
          "(PyTorch: nan)")
_K_NOTES = _BESSEL_YK_NOTES.replace(
    "ASYMPTOTIC", r":math:`e^{x} K_\nu(x) \sim \sqrt{\pi/(2x)} \sum_k a_k(\nu) x^{-k}` "
    "(30 terms)"
).replace("DOMAIN", r":math:`+\infty` at 0, nan for :math:`x < 0`, 0 at :math:`+\infty`")


def _doc(head, notes, kernel):
    return head + notes.replace("KERNEL", kernel) + "\n    "


@register
class BesselY0Backward(UnaryOp):
    __doc__ = _doc(r"""Autograd node for the Bessel function of the second kind
    :math:`y = Y_0(x)`.

    Saves the input: the derivative is :math:`-Y_1(x)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = -Y_1(x)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"bessel_y0"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, False.

    Notes
    -----""", _Y_NOTES, "bessel_y0")

    __slots__ = ()
    schema_v1 = _schema("bessel_y0")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.bessel_y0(x)

    def grad(self, F, g, x, out):
        return -g * F.bessel_y1(x)


@register
class BesselY1Backward(UnaryOp):
    __doc__ = _doc(r"""Autograd node for the Bessel function of the second kind
    :math:`y = Y_1(x)`.

    Saves input and output: the derivative is :math:`Y_0(x) - y/x`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \Big(Y_0(x) - \frac yx\Big)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"bessel_y1"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----""", _Y_NOTES, "bessel_y1")

    __slots__ = ()
    schema_v1 = _schema("bessel_y1")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.bessel_y1(x)

    def grad(self, F, g, x, out):
        return g * (F.bessel_y0(x) - out / x)


@register
class ModifiedBesselK0Backward(UnaryOp):
    __doc__ = _doc(r"""Autograd node for the modified Bessel function of the second kind
    :math:`y = K_0(x)`.

    Saves the input: the derivative is :math:`-K_1(x)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = -K_1(x)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"modified_bessel_k0"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, False.

    Notes
    -----""", _K_NOTES, "modified_bessel_k0")

    __slots__ = ()
    schema_v1 = _schema("modified_bessel_k0")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.modified_bessel_k0(x)

    def grad(self, F, g, x, out):
        return -g * F.modified_bessel_k1(x)


@register
class ModifiedBesselK1Backward(UnaryOp):
    __doc__ = _doc(r"""Autograd node for the modified Bessel function of the second kind
    :math:`y = K_1(x)`.

    Saves input and output: the derivative is :math:`-K_0(x) - y/x`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = -\Big(K_0(x) + \frac yx\Big)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"modified_bessel_k1"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----""", _K_NOTES, "modified_bessel_k1")

    __slots__ = ()
    schema_v1 = _schema("modified_bessel_k1")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.modified_bessel_k1(x)

    def grad(self, F, g, x, out):
        return -g * (F.modified_bessel_k0(x) + out / x)


@register
class ScaledModifiedBesselK0Backward(UnaryOp):
    __doc__ = _doc(r"""Autograd node for :math:`y = e^x K_0(x)`.

    Saves input and output: the derivative is :math:`y - e^x K_1(x)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \big(y - e^x K_1(x)\big)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"scaled_modified_bessel_k0"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----""", _K_NOTES, "scaled_modified_bessel_k0")

    __slots__ = ()
    schema_v1 = _schema("scaled_modified_bessel_k0")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.scaled_modified_bessel_k0(x)

    def grad(self, F, g, x, out):
        return g * (out - F.scaled_modified_bessel_k1(x))


@register
class ScaledModifiedBesselK1Backward(UnaryOp):
    __doc__ = _doc(r"""Autograd node for :math:`y = e^x K_1(x)`.

    Saves input and output: the derivative is :math:`y (1 - 1/x) - e^x K_0(x)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \Big(y\,\big(1 - \tfrac1x\big) -
              e^x K_0(x)\Big)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"scaled_modified_bessel_k1"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----""", _K_NOTES, "scaled_modified_bessel_k1")

    __slots__ = ()
    schema_v1 = _schema("scaled_modified_bessel_k1")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.scaled_modified_bessel_k1(x)

    def grad(self, F, g, x, out):
        return g * (out * (1 - 1 / x) - F.scaled_modified_bessel_k0(x))


@register
class AiryAiBackward(UnaryOp):
    r"""Node of the Airy function :math:`y = \mathrm{Ai}(x)`; not differentiable (as in
    PyTorch: the derivative :math:`\mathrm{Ai}'` is no op of its own), so it saves nothing.

    Math
    ----
    .. math:: y'' = x\,y, \qquad \mathrm{Ai}(x) \to 0 \ (x \to +\infty), \qquad
              \mathrm{Ai}(x) = c_1 f(x) - c_2 g(x)

    with :math:`f, g` the Maclaurin series :math:`\sum_k 3^k (\tfrac13)_k
    x^{3k}/(3k)!`, :math:`\sum_k 3^k (\tfrac23)_k x^{3k+1}/(3k+1)!`.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"airy_ai"``, ``AmpPolicy.FORCE_FP32``, real-valued, ``differentiable=False``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``be.airy_ai`` in float64: on :math:`[-10, 10)` 16 Chebyshev series (26
    terms, of :math:`e^{\zeta}\mathrm{Ai}` from 5/2 on, :math:`\zeta = \frac23
    |x|^{3/2}`), fitted on first use to 80-digit values of the Maclaurin series; beyond,
    the asymptotic expansions in :math:`1/\zeta` (40 and 2 x 20 terms). Relative error
    about 1e-15 on :math:`[-10, 10]`; beyond, the rounding of :math:`\zeta` itself costs
    about :math:`\epsilon\zeta` (relative for :math:`x > 10`, absolute in the phase for
    :math:`x < -10`). 0 at :math:`\pm\infty` (PyTorch: nan), subnormal rather than 0 from
    about 104. PyTorch's own kernel is off by up to about 3e-5; Lucid's is checked against
    mpmath.
    """

    __slots__ = ()
    schema_v1 = _schema("airy_ai", differentiable=False)

    @staticmethod
    def dispatch(be, x):
        return be.airy_ai(x)


@register
class SphericalBesselJ0Backward(UnaryOp):
    r"""Node of the spherical Bessel function :math:`y = j_0(x) = \sin(x)/x`; not
    differentiable (as in PyTorch), so it saves nothing.

    Math
    ----
    .. math:: j_0(x) = \frac{\sin x}{x}, \qquad j_0(0) = 1

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"spherical_bessel_j0"``, ``AmpPolicy.FORCE_FP32``, real-valued,
        ``differentiable=False`` (PyTorch defines no derivative).
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``be.spherical_bessel_j0``: ``xp.sin(x) / x`` in float64 (relatively accurate
    for every finite :math:`x`), 1 at 0, 0 at :math:`\pm\infty`.
    """

    __slots__ = ()
    schema_v1 = _schema("spherical_bessel_j0", differentiable=False)

    @staticmethod
    def dispatch(be, x):
        return be.spherical_bessel_j0(x)


# == entropy terms ============================================================================

@register
class EntrBackward(UnaryOp):
    r"""Autograd node for the entropy term :math:`y = -x \ln x`.

    Saves the input: the derivative is :math:`-(1 + \ln x)`.

    Math
    ----
    .. math:: y = \begin{cases} -x\ln x & x > 0 \\ 0 & x = 0 \\ -\infty & x < 0
              \end{cases}, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = -(1 + \ln x)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"entr"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.entr`` in float64. The gradient is :math:`+\infty` at 0 and nan for
    :math:`x < 0` (the logarithm's domain), as in PyTorch.
    """

    __slots__ = ()
    schema_v1 = _schema("entr")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.entr(x)

    def grad(self, F, g, x, out):
        return -g * (1 + F.log(x))


@register
class Xlog1pyBackward(BinaryOp):
    r"""Autograd node for :math:`y = a \ln(1 + b)`, 0 where :math:`a = 0`.

    Saves both inputs: each gradient needs the other input (and :math:`a`'s its own
    zeros).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = \operatorname{xlog1py}(g, b)
              \ (0 \text{ where } a = 0,\ b \le -1), \qquad
              \frac{\partial \mathcal{L}}{\partial b} = \frac{g\,a}{1 + b}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"xlog1py"``, ``AmpPolicy.FORCE_FP32``, real-valued, two inputs.
    saves_input : bool
        True: ``a`` and ``b``.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.xlog1py``: ``a * xp.log1p(b)`` in float64, 0 where :math:`a = 0` unless
    :math:`b` is nan; :math:`b = -1` gives :math:`-\infty \cdot a`, :math:`b < -1` nan.
    """

    __slots__ = ()
    schema_v1 = _schema("xlog1py", 2)
    saves_input = True

    @staticmethod
    def dispatch(be, a, b):
        return be.xlog1py(a, b)

    def grad(self, F, g, a, b, out):
        e = self.next_edges
        return (F.where((a == 0) & (b <= -1), 0, F.xlog1py(g, b)) if e[0] is not None
                else None,
                g * a / (1 + b) if e[1] is not None else None)


# == zeta and the incomplete gamma functions =================================================

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
    __doc__ = r"""Autograd node for the regularised lower incomplete gamma function
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
    -----""" + _GAMMAINC_NOTES.replace("KERNEL", "gammainc") + "\n    "

    __slots__ = ()
    schema_v1 = _schema("gammainc", 2)

    @staticmethod
    def dispatch(be, a, x):
        return be.gammainc(a, x)


@register
class GammainccBackward(_IncompleteGammaBackward):
    __doc__ = r"""Autograd node for the regularised upper incomplete gamma function
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
    -----""" + _GAMMAINC_NOTES.replace("KERNEL", "gammaincc") + "\n    "

    __slots__ = ()
    schema_v1 = _schema("gammaincc", 2)
    _sign = -1

    @staticmethod
    def dispatch(be, a, x):
        return be.gammaincc(a, x)


# == orthogonal polynomials ==================================================================

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


chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v, \
    chebyshev_polynomial_w = (_polynomial(f"chebyshev_{k}", f"chebyshev_polynomial_{k}",
                                          f"Chebyshev polynomial :math:`{k.upper()}_n(x)`")
                              for k in "tuvw")
shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_u, \
    shifted_chebyshev_polynomial_v, shifted_chebyshev_polynomial_w = (
        _polynomial(f"shifted_chebyshev_{k}", f"shifted_chebyshev_polynomial_{k}",
                    f"shifted Chebyshev polynomial :math:`{k.upper()}_n(2x - 1)`")
        for k in "tuvw")
hermite_polynomial_h = _polynomial("hermite_h", "hermite_polynomial_h",
                                   "physicists' Hermite polynomial :math:`H_n(x)`")
hermite_polynomial_he = _polynomial("hermite_he", "hermite_polynomial_he",
                                    "probabilists' Hermite polynomial :math:`He_n(x)`")
laguerre_polynomial_l = _polynomial("laguerre_l", "laguerre_polynomial_l",
                                    "Laguerre polynomial :math:`L_n(x)`")
legendre_polynomial_p = _polynomial("legendre_p", "legendre_polynomial_p",
                                    "Legendre polynomial :math:`P_n(x)`")


# == wrappers ================================================================================

def _unary(cls, name, doc):
    call = cls.call

    def op(input):
        return call(input)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


erfcx = _unary(ErfcxBackward, "erfcx", r"Element-wise :math:`e^{x^2}\mathrm{erfc}(x)`.")
ndtr = _unary(NdtrBackward, "ndtr", r"Element-wise standard normal CDF :math:`\Phi(x)`.")
log_ndtr = _unary(LogNdtrBackward, "log_ndtr", r"Element-wise :math:`\ln\Phi(x)`.")
ndtri = _unary(NdtriBackward, "ndtri", r"Element-wise normal quantile :math:`\Phi^{-1}(p)`.")
i0 = _unary(I0Backward, "i0", "Element-wise modified Bessel function :math:`I_0`.")
i0e = _unary(I0eBackward, "i0e", r"Element-wise :math:`e^{-|x|} I_0(x)`.")
i1 = _unary(I1Backward, "i1", "Element-wise modified Bessel function :math:`I_1`.")
i1e = _unary(I1eBackward, "i1e", r"Element-wise :math:`e^{-|x|} I_1(x)`.")
bessel_j0 = _unary(BesselJ0Backward, "bessel_j0", "Element-wise Bessel function :math:`J_0`.")
bessel_j1 = _unary(BesselJ1Backward, "bessel_j1", "Element-wise Bessel function :math:`J_1`.")
bessel_y0 = _unary(BesselY0Backward, "bessel_y0", "Element-wise Bessel function :math:`Y_0`.")
bessel_y1 = _unary(BesselY1Backward, "bessel_y1", "Element-wise Bessel function :math:`Y_1`.")
modified_bessel_k0 = _unary(ModifiedBesselK0Backward, "modified_bessel_k0",
                            "Element-wise modified Bessel function :math:`K_0`.")
modified_bessel_k1 = _unary(ModifiedBesselK1Backward, "modified_bessel_k1",
                            "Element-wise modified Bessel function :math:`K_1`.")
scaled_modified_bessel_k0 = _unary(ScaledModifiedBesselK0Backward, "scaled_modified_bessel_k0",
                                   r"Element-wise :math:`e^x K_0(x)`.")
scaled_modified_bessel_k1 = _unary(ScaledModifiedBesselK1Backward, "scaled_modified_bessel_k1",
                                   r"Element-wise :math:`e^x K_1(x)`.")
airy_ai = _unary(AiryAiBackward, "airy_ai", r"Element-wise Airy function :math:`\mathrm{Ai}`.")
spherical_bessel_j0 = _unary(SphericalBesselJ0Backward, "spherical_bessel_j0",
                             r"Element-wise :math:`\sin(x)/x` (1 at 0).")
entr = _unary(EntrBackward, "entr", r"Element-wise :math:`-x\ln x` (0 at 0, "
              r":math:`-\infty` below).")


def xlog1py(input, other):
    """Element-wise ``input * log1p(other)``, 0 where ``input`` is 0 (unless other is
    nan)."""
    return Xlog1pyBackward.call(input, other)


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
