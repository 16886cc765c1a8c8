"""Unary kernels of the Backend interface: element-wise ``y = f(a)``.

Each takes one array and returns a new array of the same shape. Floating kernels keep the
input's dtype (half inputs compute in float32 and round back, like PyTorch's CPU kernels)
and follow IEEE 754 silently: overflow gives ``inf``, a domain error gives ``nan``.
Integer inputs reach only the kernels that are defined on integers (``neg``, ``abs``,
``sign``, ``square``, ``relu``, the rounding kernels, ``clamp``, the predicates).
"""

from abc import ABC, abstractmethod


class UnaryKernels(ABC):
    """Unary primitive kernels (arrays of one backend in and out)."""

    # -- sign and magnitude ------------------------------------------------------------

    @abstractmethod
    def neg(self, a):
        r"""Element-wise :math:`-a` (integers wrap: ``-(-128)`` is -128 in int8)."""

    @abstractmethod
    def abs(self, a):
        r"""Element-wise :math:`|a|`."""

    @abstractmethod
    def sign(self, a):
        r"""Element-wise :math:`\mathrm{sgn}(a) \in \{-1, 0, 1\}` (0 for nan, like PyTorch;
        bool is returned as is)."""

    @abstractmethod
    def signbit(self, a):
        r"""Element-wise bool: the sign bit of :math:`a` is set (true for ``-0.0``)."""

    @abstractmethod
    def square(self, a):
        r"""Element-wise :math:`a^2`."""

    @abstractmethod
    def relu(self, a):
        r"""Element-wise :math:`\max(a, 0)` (nan stays nan)."""

    @abstractmethod
    def relu_backward(self, y, g):
        r"""ReLU's gradient from its output ``y``: 0 where :math:`y \le 0`, else ``g`` (a
        selection: nan in ``y`` passes ``g``, an infinite ``g`` at :math:`y \le 0` gives 0)."""

    @abstractmethod
    def hardtanh_backward(self, g, x, lo, hi):
        r"""Hardtanh's gradient from its input: 0 where :math:`x \le lo` or :math:`x \ge hi`,
        else ``g`` (a selection, as ``relu_backward``: nan in ``x`` passes ``g``)."""

    @abstractmethod
    def leaky_relu_backward(self, g, x, slope):
        r"""Leaky ReLU's gradient: ``g`` where :math:`x > 0`, else :math:`g \cdot slope`
        (nan in ``x`` takes the slope)."""

    @abstractmethod
    def hardsigmoid_backward(self, g, x):
        r"""Hardsigmoid's gradient: :math:`g / 6` where :math:`-3 < x < 3`, else 0 (a
        selection; nan in ``x`` gives 0)."""

    @abstractmethod
    def clamp(self, a, lo, hi):
        r"""Element-wise :math:`\min(\max(a, lo), hi)`; ``lo``/``hi`` are arrays of ``a``'s
        dtype (broadcasting), Python numbers, or None (no bound). When :math:`lo > hi` the
        result is :math:`hi`; nan in any operand gives nan."""

    # -- exponentials and logarithms ---------------------------------------------------

    @abstractmethod
    def exp(self, a):
        r"""Element-wise :math:`e^a`."""

    @abstractmethod
    def exp2(self, a):
        r"""Element-wise :math:`2^a`."""

    @abstractmethod
    def expm1(self, a):
        r"""Element-wise :math:`e^a - 1`, accurate for small :math:`|a|`."""

    @abstractmethod
    def log(self, a):
        r"""Element-wise :math:`\ln a` (``-inf`` at 0, nan below)."""

    @abstractmethod
    def log2(self, a):
        r"""Element-wise :math:`\log_2 a`."""

    @abstractmethod
    def log10(self, a):
        r"""Element-wise :math:`\log_{10} a`."""

    @abstractmethod
    def log1p(self, a):
        r"""Element-wise :math:`\ln(1 + a)`, accurate for small :math:`|a|`."""

    @abstractmethod
    def sqrt(self, a):
        r"""Element-wise :math:`\sqrt{a}` (nan for :math:`a < 0`)."""

    @abstractmethod
    def rsqrt(self, a):
        r"""Element-wise :math:`1 / \sqrt{a}` (``inf`` at 0)."""

    @abstractmethod
    def reciprocal(self, a):
        r"""Element-wise :math:`1 / a`."""

    @abstractmethod
    def sigmoid(self, a):
        r"""Element-wise :math:`\sigma(a) = 1 / (1 + e^{-a})` (no overflow for large
        :math:`|a|`)."""

    @abstractmethod
    def logit(self, a, eps):
        r"""Element-wise :math:`\ln(z / (1 - z))` with :math:`z = a` when ``eps`` is None,
        else :math:`z = \mathrm{clamp}(a, \epsilon, 1 - \epsilon)`."""

    @abstractmethod
    def logit_derivative(self, a, eps):
        r"""Element-wise :math:`1 / (a (1 - a))` inside :math:`[\epsilon, 1 - \epsilon]`;
        outside, 0 (``eps`` given) or nan outside :math:`[0, 1]` (``eps`` None)."""

    # -- trigonometric and hyperbolic --------------------------------------------------

    @abstractmethod
    def sin(self, a):
        r"""Element-wise :math:`\sin a`."""

    @abstractmethod
    def cos(self, a):
        r"""Element-wise :math:`\cos a`."""

    @abstractmethod
    def tan(self, a):
        r"""Element-wise :math:`\tan a`."""

    @abstractmethod
    def asin(self, a):
        r"""Element-wise :math:`\arcsin a` (nan outside :math:`[-1, 1]`)."""

    @abstractmethod
    def acos(self, a):
        r"""Element-wise :math:`\arccos a` (nan outside :math:`[-1, 1]`)."""

    @abstractmethod
    def atan(self, a):
        r"""Element-wise :math:`\arctan a`."""

    @abstractmethod
    def sinh(self, a):
        r"""Element-wise :math:`\sinh a`."""

    @abstractmethod
    def cosh(self, a):
        r"""Element-wise :math:`\cosh a`."""

    @abstractmethod
    def tanh(self, a):
        r"""Element-wise :math:`\tanh a`."""

    @abstractmethod
    def asinh(self, a):
        r"""Element-wise :math:`\operatorname{arsinh} a`."""

    @abstractmethod
    def acosh(self, a):
        r"""Element-wise :math:`\operatorname{arcosh} a` (nan below 1)."""

    @abstractmethod
    def atanh(self, a):
        r"""Element-wise :math:`\operatorname{artanh} a` (:math:`\pm\infty` at
        :math:`\pm 1`, nan outside)."""

    @abstractmethod
    def sinc(self, a):
        r"""Element-wise normalised sinc :math:`\sin(\pi a) / (\pi a)`, 1 at :math:`a = 0`."""

    @abstractmethod
    def tanh_backward(self, g, y):
        r""":math:`g\,(1 - y^2)`: the gradient of :math:`y = \tanh x` (as ``g * (1 - y * y)``)."""

    @abstractmethod
    def pow_scalar_backward(self, g, x, p):
        r""":math:`g\,(p\,x^{p-1})` for a Python number :math:`p` (zeros for :math:`p = 0`):
        the gradient of :math:`y = x^p`."""

    @abstractmethod
    def sigmoid_backward(self, g, y):
        r""":math:`g\,(1 - y)\,y`: the gradient of :math:`y = \sigma(x)` (as
        ``g * (1 - y) * y``)."""

    @abstractmethod
    def sinc_derivative(self, a):
        r"""Element-wise :math:`\frac{d}{da}\mathrm{sinc}(a) =
        \frac{\pi a \cos(\pi a) - \sin(\pi a)}{\pi a^2}`, 0 where the denominator is 0
        (at :math:`a = 0`, or where :math:`\pi a^2` underflows)."""

    # -- error function ----------------------------------------------------------------

    @abstractmethod
    def erf(self, a):
        r"""Element-wise :math:`\mathrm{erf}(a) = \frac{2}{\sqrt\pi}\int_0^a e^{-t^2}dt`,
        accurate to the dtype's precision."""

    @abstractmethod
    def erfc(self, a):
        r"""Element-wise :math:`1 - \mathrm{erf}(a)`, relatively accurate in the tail."""

    @abstractmethod
    def erfinv(self, a):
        r"""Element-wise inverse of :math:`\mathrm{erf}` on :math:`[-1, 1]` (:math:`\pm\infty`
        at :math:`\pm 1`, nan outside)."""

    # -- rounding ----------------------------------------------------------------------

    @abstractmethod
    def floor(self, a):
        r"""Element-wise :math:`\lfloor a \rfloor` (integers copied)."""

    @abstractmethod
    def ceil(self, a):
        r"""Element-wise :math:`\lceil a \rceil` (integers copied)."""

    @abstractmethod
    def round(self, a, decimals=0):
        r"""Element-wise rounding half to even at ``decimals`` decimal places:
        :math:`\mathrm{rint}(a \cdot 10^d) / 10^d` (:math:`d \ge 0`) or
        :math:`\mathrm{rint}(a / 10^{-d}) \cdot 10^{-d}` (:math:`d < 0`). Integers copied."""

    @abstractmethod
    def trunc(self, a):
        r"""Element-wise rounding toward zero (integers copied)."""

    @abstractmethod
    def frac(self, a):
        r"""Element-wise :math:`a - \mathrm{trunc}(a)` (sign of :math:`a`; nan at
        :math:`\pm\infty`)."""

    # -- floating-point classification -------------------------------------------------

    @abstractmethod
    def isnan(self, a):
        """Element-wise bool: ``a`` is nan (false for integers)."""

    @abstractmethod
    def isinf(self, a):
        r"""Element-wise bool: ``a`` is :math:`\pm\infty`."""

    @abstractmethod
    def isposinf(self, a):
        r"""Element-wise bool: ``a`` is :math:`+\infty`."""

    @abstractmethod
    def isneginf(self, a):
        r"""Element-wise bool: ``a`` is :math:`-\infty`."""

    @abstractmethod
    def isfinite(self, a):
        """Element-wise bool: ``a`` is neither nan nor infinite (true for integers)."""

    @abstractmethod
    def nan_to_num(self, a, nan, posinf, neginf):
        r"""``a`` with nan, :math:`+\infty`, :math:`-\infty` replaced by the given numbers
        (integers copied)."""
