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

    # -- lucid.special: error-function, Bessel and zeta kernels ------------------------
    # Floating inputs compute in float64 (no SciPy) and round once to their own dtype.

    @abstractmethod
    def erfcx(self, a):
        r"""Element-wise scaled complementary error function
        :math:`e^{a^2}\mathrm{erfc}(a)`: 0 at :math:`+\infty`, :math:`+\infty` from about
        :math:`-26.6` down (overflow)."""

    @abstractmethod
    def ndtr(self, a):
        r"""Element-wise standard normal CDF :math:`\Phi(a) = \tfrac12
        \mathrm{erfc}(-a/\sqrt2)`, relatively accurate in the lower tail."""

    @abstractmethod
    def log_ndtr(self, a):
        r"""Element-wise :math:`\ln\Phi(a)`: :math:`\ln(\tfrac12\mathrm{erfcx}(t)) - t^2`
        with :math:`t = -a/\sqrt2` for :math:`a < -1` (no underflow), else
        :math:`\mathrm{log1p}(-\Phi(-a))`."""

    @abstractmethod
    def ndtri(self, a):
        r"""Element-wise inverse of :math:`\Phi` on :math:`[0, 1]`: :math:`\mp\infty` at 0
        and 1, nan outside."""

    @abstractmethod
    def i0(self, a):
        r"""Element-wise modified Bessel function :math:`I_0(a) = \sum_k (a^2/4)^k/k!^2`
        (even; overflows to :math:`+\infty` past about 713)."""

    @abstractmethod
    def i0e(self, a):
        r"""Element-wise exponentially scaled :math:`e^{-|a|} I_0(a)`."""

    @abstractmethod
    def i1(self, a):
        r"""Element-wise modified Bessel function :math:`I_1(a) = \frac a2 \sum_k
        (a^2/4)^k / (k!\,(k+1)!)` (odd)."""

    @abstractmethod
    def i1e(self, a):
        r"""Element-wise exponentially scaled :math:`e^{-|a|} I_1(a)`."""

    @abstractmethod
    def bessel_j0(self, a):
        r"""Element-wise Bessel function of the first kind :math:`J_0(a)` (even; 0 at
        :math:`\pm\infty`). Absolute error below 1e-15 (not relative near the zeros)."""

    @abstractmethod
    def bessel_j1(self, a):
        r"""Element-wise Bessel function of the first kind :math:`J_1(a)` (odd)."""

    @abstractmethod
    def bessel_y0(self, a):
        r"""Element-wise Bessel function of the second kind :math:`Y_0(a)`:
        :math:`-\infty` at 0, nan for :math:`a < 0`, 0 at :math:`+\infty`."""

    @abstractmethod
    def bessel_y1(self, a):
        r"""Element-wise :math:`Y_1(a)` (same domain rules as :meth:`bessel_y0`)."""

    @abstractmethod
    def modified_bessel_k0(self, a):
        r"""Element-wise modified Bessel function of the second kind :math:`K_0(a)`:
        :math:`+\infty` at 0, nan for :math:`a < 0`, 0 at :math:`+\infty`."""

    @abstractmethod
    def modified_bessel_k1(self, a):
        r"""Element-wise :math:`K_1(a)` (same domain rules as :meth:`modified_bessel_k0`)."""

    @abstractmethod
    def scaled_modified_bessel_k0(self, a):
        r"""Element-wise :math:`e^{a} K_0(a)` (no underflow for large :math:`a`)."""

    @abstractmethod
    def scaled_modified_bessel_k1(self, a):
        r"""Element-wise :math:`e^{a} K_1(a)`."""

    @abstractmethod
    def airy_ai(self, a):
        r"""Element-wise Airy function :math:`\mathrm{Ai}(a)`, the solution of
        :math:`y'' = a y` that decays as :math:`a \to +\infty`; 0 at :math:`\pm\infty`."""

    @abstractmethod
    def spherical_bessel_j0(self, a):
        r"""Element-wise :math:`j_0(a) = \sin(a)/a`, 1 at 0, 0 at :math:`\pm\infty`."""

    @abstractmethod
    def xlog1py(self, a, b):
        r""":math:`a\,\ln(1 + b)`, 0 where :math:`a = 0` unless :math:`b` is nan."""

    @abstractmethod
    def entr(self, a):
        r""":math:`-a \ln a` for :math:`a > 0`, 0 at 0, :math:`-\infty` for :math:`a < 0`;
        nan stays nan."""

    @abstractmethod
    def zeta(self, x, q):
        r"""Hurwitz zeta :math:`\zeta(x, q) = \sum_{k \ge 0} (q + k)^{-x}` (arrays of one
        floating dtype): :math:`+\infty` at :math:`x = 1` and at the poles :math:`q \in
        \{0, -1, \dots\}`, nan for :math:`x < 1` and for :math:`q < 0` with non-integer
        :math:`x` (PyTorch's rules)."""

    @abstractmethod
    def orthogonal_polynomial(self, kind, x, n):
        r"""The classical orthogonal polynomial ``kind`` of degree ``n`` (an array of the
        dtype of ``x``, truncated to integers; 0 where negative) at ``x``, by its three-term
        recurrence :math:`p_{k+1} = (a_k x + b_k) p_k - c_k p_{k-1}`. ``kind``:
        ``"chebyshev_t"``, ``"chebyshev_u"``, ``"chebyshev_v"``, ``"chebyshev_w"`` (their
        ``"shifted_"`` forms at :math:`2x - 1`), ``"hermite_h"``, ``"hermite_he"``,
        ``"laguerre_l"``, ``"legendre_p"``."""

    @abstractmethod
    def gammainc(self, a, x):
        r"""Regularised lower incomplete gamma :math:`P(a, x) = \gamma(a, x)/\Gamma(a)` for
        :math:`a > 0, x \ge 0` (nan otherwise)."""

    @abstractmethod
    def gammaincc(self, a, x):
        r"""Regularised upper incomplete gamma :math:`Q(a, x) = 1 - P(a, x)`, relatively
        accurate where it is small."""


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
