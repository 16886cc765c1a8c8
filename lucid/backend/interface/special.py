"""Special-function and fused normalisation kernels of the Backend interface.

The gamma family (``lgamma``, ``digamma``, ``polygamma``) is evaluated by each backend from
series it owns (no SciPy): floating inputs compute in float64 and round once to their own
dtype. The softmax family (``softmax``, ``log_softmax`` and their backwards,
``logcumsumexp``) is fused: one kernel per direction, stable against overflow; half inputs
compute in float32 and round back.
"""

from abc import ABC, abstractmethod


class SpecialKernels(ABC):
    """Special-function primitive kernels (arrays of one backend in and out)."""

    # -- the gamma family --------------------------------------------------------------

    @abstractmethod
    def lgamma(self, a):
        r"""Element-wise :math:`\ln|\Gamma(a)|`.

        :math:`+\infty` at the poles (0 and the negative integers) and at :math:`\pm\infty`;
        nan stays nan. Floating ``a`` only; float64 results to about 1e-14 relative, except
        next to the zeros of :math:`\ln|\Gamma|` (1, 2 and one in each negative unit
        interval), where the error is absolute, about 1e-16."""

    @abstractmethod
    def digamma(self, a):
        r"""Element-wise :math:`\psi(a) = \frac{d}{da}\ln\Gamma(a)`.

        :math:`-\infty` at :math:`+0` and :math:`+\infty` at :math:`-0` (PyTorch's choice),
        nan at the negative integers and at :math:`-\infty`, :math:`+\infty` at
        :math:`+\infty`."""

    @abstractmethod
    def polygamma(self, n, a):
        r"""Element-wise :math:`\psi^{(n)}(a)` for an int :math:`n \ge 1`:
        :math:`(-1)^{n+1} n!\,\zeta(n + 1, a)` (Hurwitz zeta); :math:`\pm\infty` at the
        poles."""

    # -- the softmax family ------------------------------------------------------------

    @abstractmethod
    def softmax(self, a, axis):
        r""":math:`y_i = e^{a_i - m} / \sum_j e^{a_j - m}` along ``axis`` (an int; a 0-d
        ``a`` is seen as 1-d), with :math:`m` the max along the axis, so large inputs do not
        overflow. A slice of all :math:`-\infty` gives nan, like PyTorch."""

    @abstractmethod
    def softmax_backward(self, out, g, axis):
        r""":math:`y \odot (g - \sum_j g_j y_j)` along ``axis``: the gradient through the
        softmax with output ``out`` = :math:`y`."""

    @abstractmethod
    def log_softmax(self, a, axis):
        r""":math:`y_i = a_i - m - \ln \sum_j e^{a_j - m}` along ``axis``."""

    @abstractmethod
    def log_softmax_backward(self, out, g, axis):
        r""":math:`g - e^{y} \sum_j g_j` along ``axis``: the gradient through the log-softmax
        with output ``out`` = :math:`y`."""

    @abstractmethod
    def logcumsumexp(self, a, axis):
        r""":math:`y_k = \ln \sum_{j \le k} e^{a_j}` along ``axis``, by a running
        log-add-exp (each step :math:`\max + \ln(1 + e^{-|d|})`), so neither large nor very
        spread inputs lose the result."""

    @abstractmethod
    def logcumsumexp_backward(self, a, out, g, axis):
        r""":math:`\partial_k = \sum_{j \ge k} g_j e^{a_k - y_j}`, computed in log space
        separately for the positive and the negative parts of ``g``
        (:math:`e^{a_k + \mathrm{LRCSE}(\ln g^\pm - y)_k}`) so no intermediate overflows."""


class NumericKernels(ABC):
    """Floating-point representation, number theory, shifts and histograms."""

    @abstractmethod
    def frexp(self, a):
        r"""``(mantissa, exponent)`` with :math:`a = m \cdot 2^e`, :math:`|m| \in [0.5, 1)`
        (0 for 0); the mantissa keeps ``a``'s dtype, the exponent is int32. inf and nan give
        themselves as mantissa and exponent 0."""

    @abstractmethod
    def ldexp(self, a, e):
        r""":math:`a \cdot 2^{e}` element-wise (floating ``a`` and ``e`` of one dtype)."""

    @abstractmethod
    def nextafter(self, a, b):
        r"""The next floating value after ``a`` towards ``b`` (``b`` if they are equal)."""

    @abstractmethod
    def heaviside(self, a, values):
        r""":math:`0` where :math:`a < 0`, ``values`` where :math:`a = 0`, 1 where
        :math:`a > 0`; 0 where ``a`` is nan (PyTorch's rule)."""

    @abstractmethod
    def gcd(self, a, b):
        r"""Element-wise non-negative greatest common divisor of integers
        (:math:`\gcd(0, 0) = 0`)."""

    @abstractmethod
    def lcm(self, a, b):
        r"""Element-wise non-negative least common multiple of integers (0 if either is
        0)."""

    @abstractmethod
    def left_shift(self, a, b):
        r""":math:`a \cdot 2^b` in ``a``'s integer dtype (wrapping); 0 when :math:`b` is at
        least the bit width or negative, like PyTorch."""

    @abstractmethod
    def right_shift(self, a, b):
        r""":math:`\lfloor a / 2^b \rfloor` (arithmetic shift); for :math:`b` at least the
        bit width or negative, 0 for non-negative ``a`` and -1 for negative ``a``."""

    @abstractmethod
    def histogramdd(self, sample, edges, weights):
        r"""float counts of the ``(n, d)`` points ``sample`` in the bins of ``d`` sorted
        edge arrays (bin :math:`i` of dim :math:`k` is
        :math:`[e_i, e_{i+1})`, the last bin closed), optionally weighted by the ``(n,)``
        array ``weights``; points outside every range are dropped. Shape: one entry per
        bin of each dim; dtype: ``sample``'s."""
