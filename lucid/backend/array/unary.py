"""Unary kernels over an array module (NumPy or CuPy).

Single-ufunc kernels call ``xp`` directly; those that can overflow or leave their domain run
under ``errstate(all="ignore")`` (NumPy would warn where PyTorch is silent). Composite
kernels (sigmoid, logit, sinc, round with decimals) compute half inputs in float32 and
round back once, like PyTorch's CPU kernels; the error-function family computes in float64.

NumPy has no ``erf``: it is evaluated here from its Maclaurin series for :math:`|x| < 2`
and from the Laplace continued fraction of ``erfc`` beyond, both to float64 precision;
``erfinv`` refines a closed-form first guess with Halley steps on ``erf``.
"""

import math

from .binary import _quiet

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI = math.sqrt(math.pi)
_WINITZKI_A = 0.147          # shape constant of the closed-form erfinv first guess
_ERFC_ZERO = 30.0            # erfc underflows to 0 in float64 from about 27.3 on


def _is_int(a):
    return a.dtype.kind in "iub"


def _series_terms(m):
    """Terms of the erf Maclaurin series needed for float64 precision up to ``|x| = m``."""
    n, t = 1, m
    while t > 1e-18:
        t *= m * m / n
        n += 1
    return n + 1


class XpUnary:
    """Implements :class:`UnaryKernels` with ``self.xp``."""

    def _opmath(self, a):
        """``a`` in the dtype composite kernels compute in: float32 for half types."""
        return a.astype(self.xp.float32) if a.dtype.itemsize == 2 else a

    # -- sign and magnitude ------------------------------------------------------------

    def neg(self, a):
        return self.xp.negative(a)

    def abs(self, a):
        return self.xp.absolute(a)

    def sign(self, a):
        return a.copy() if a.dtype.kind == "b" else self.xp.sign(a)

    def signbit(self, a):
        if a.dtype.kind == "b":
            return self.xp.zeros(a.shape, dtype=bool)
        return self.xp.signbit(a) if not _is_int(a) else a < 0

    def square(self, a):
        with _quiet(self.xp):
            return self.xp.square(a)

    def relu(self, a):
        return self.xp.maximum(a, a.dtype.type(0))

    def clamp(self, a, lo, hi):
        xp = self.xp
        if lo is not None and lo.__class__ is not xp.ndarray:
            lo = xp.asarray(lo, dtype=a.dtype)
        if hi is not None and hi.__class__ is not xp.ndarray:
            hi = xp.asarray(hi, dtype=a.dtype)
        if lo is None:
            return xp.minimum(a, hi)
        if hi is None:
            return xp.maximum(a, lo)
        return xp.minimum(xp.maximum(a, lo), hi)

    # -- exponentials and logarithms ---------------------------------------------------

    def exp(self, a):
        with _quiet(self.xp):
            return self.xp.exp(a)

    def exp2(self, a):
        with _quiet(self.xp):
            return self.xp.exp2(a)

    def expm1(self, a):
        with _quiet(self.xp):
            return self.xp.expm1(a)

    def log(self, a):
        with _quiet(self.xp):
            return self.xp.log(a)

    def log2(self, a):
        with _quiet(self.xp):
            return self.xp.log2(a)

    def log10(self, a):
        with _quiet(self.xp):
            return self.xp.log10(a)

    def log1p(self, a):
        with _quiet(self.xp):
            return self.xp.log1p(a)

    def sqrt(self, a):
        with _quiet(self.xp):
            return self.xp.sqrt(a)

    def rsqrt(self, a):
        x = self._opmath(a)
        with _quiet(self.xp):
            return (1 / self.xp.sqrt(x)).astype(a.dtype, copy=False)

    def reciprocal(self, a):
        with _quiet(self.xp):
            return self.xp.reciprocal(a)

    def sigmoid(self, a):
        xp = self.xp
        x = self._opmath(a)
        with _quiet(xp):
            return (1 / (1 + xp.exp(-x))).astype(a.dtype, copy=False)

    def logit(self, a, eps):
        xp = self.xp
        z = self._opmath(a)
        if eps is not None:
            z = xp.clip(z, eps, 1 - eps)
        with _quiet(xp):
            return xp.log(z / (1 - z)).astype(a.dtype, copy=False)

    def logit_derivative(self, a, eps):
        xp = self.xp
        x = self._opmath(a)
        lo, hi, fill = (0, 1, math.nan) if eps is None else (eps, 1 - eps, 0)
        with _quiet(xp):
            d = 1 / (x * (1 - x))
        return xp.where((x < lo) | (x > hi), x.dtype.type(fill), d).astype(a.dtype, copy=False)

    # -- trigonometric and hyperbolic --------------------------------------------------

    def sin(self, a):
        with _quiet(self.xp):
            return self.xp.sin(a)

    def cos(self, a):
        with _quiet(self.xp):
            return self.xp.cos(a)

    def tan(self, a):
        with _quiet(self.xp):
            return self.xp.tan(a)

    def asin(self, a):
        with _quiet(self.xp):
            return self.xp.arcsin(a)

    def acos(self, a):
        with _quiet(self.xp):
            return self.xp.arccos(a)

    def atan(self, a):
        return self.xp.arctan(a)

    def sinh(self, a):
        with _quiet(self.xp):
            return self.xp.sinh(a)

    def cosh(self, a):
        with _quiet(self.xp):
            return self.xp.cosh(a)

    def tanh(self, a):
        return self.xp.tanh(a)

    def asinh(self, a):
        return self.xp.arcsinh(a)

    def acosh(self, a):
        with _quiet(self.xp):
            return self.xp.arccosh(a)

    def atanh(self, a):
        with _quiet(self.xp):
            return self.xp.arctanh(a)

    def sinc(self, a):
        xp = self.xp
        x = self._opmath(a)
        y = x * math.pi
        with _quiet(xp):
            out = xp.sin(y) / y
        return xp.where(x == 0, x.dtype.type(1), out).astype(a.dtype, copy=False)

    def sinc_derivative(self, a):
        xp = self.xp
        x = self._opmath(a)
        y = x * math.pi
        with _quiet(xp):
            out = (y * xp.cos(y) - xp.sin(y)) / (y * x)
        return xp.where(x == 0, x.dtype.type(0), out).astype(a.dtype, copy=False)

    # -- error function ----------------------------------------------------------------

    def _exp_neg_square(self, x):
        """:math:`e^{-x^2}` without the rounding error of ``x * x``: with :math:`h` the
        nearest multiple of 1/256, :math:`x^2 = h^2 + (x - h)(x + h)` and :math:`h^2` is
        exact."""
        xp = self.xp
        h = xp.rint(x * 256) / 256
        return xp.exp(-h * h) * xp.exp((h - x) * (h + x))

    def _erf_series(self, x):
        r""":math:`\frac{2}{\sqrt\pi}\sum_k \frac{(-1)^k x^{2k+1}}{k!\,(2k+1)}` (float64,
        :math:`|x| < 2`, where the alternating terms stay below 3)."""
        if x.size == 0:
            return x
        n = _series_terms(float(self.xp.abs(x).max()))
        mx2 = -x * x
        term = x
        total = x
        for k in range(1, n):
            term = term * mx2 / k
            total = total + term / (2 * k + 1)
        return total * _TWO_OVER_SQRT_PI

    def _erfc_cf(self, x, depth):
        r""":math:`\mathrm{erfc}(x)` for :math:`x \ge 2` from Laplace's continued fraction
        :math:`\frac{e^{-x^2}}{\sqrt\pi}\,\cfrac{1}{x + \cfrac{1/2}{x + \cfrac{1}{x + \cdots}}}`
        evaluated bottom-up at a fixed ``depth`` (50 gives float64 precision from 2 on)."""
        t = x
        for k in range(depth, 0, -1):
            t = x + (k / 2) / t
        return self._exp_neg_square(x) / (_SQRT_PI * t)

    def _erf64(self, x):
        xp = self.xp
        out = xp.empty_like(x)
        small = xp.abs(x) < 2
        out[small] = self._erf_series(x[small])
        big = ~small
        xb = x[big]
        with _quiet(xp):
            out[big] = xp.sign(xb) * (1 - self._erfc_cf(xp.minimum(xp.abs(xb), _ERFC_ZERO), 50))
        return out

    def _erfc64(self, x):
        xp = self.xp
        out = xp.empty_like(x)
        tail = x >= 2
        with _quiet(xp):
            out[tail] = self._erfc_cf(xp.minimum(x[tail], _ERFC_ZERO), 50)
        head = ~tail
        out[head] = 1 - self._erf64(x[head])
        return out

    def _in_float64(self, fn, a):
        x = a.astype(self.xp.float64, copy=False)
        return fn(x).astype(a.dtype, copy=False)

    def erf(self, a):
        return self._in_float64(self._erf64, a)

    def erfc(self, a):
        return self._in_float64(self._erfc64, a)

    def _erfinv64(self, x):
        r"""Winitzki's closed form (relative error below 4e-3) as the first guess, then two
        Halley steps on :math:`f(y) = \mathrm{erf}(y) - |x|`:
        :math:`y \leftarrow y - u / (1 + y u)` with :math:`u = f / f'`. For
        :math:`|x| > 1/2` the residual is :math:`(1 - |x|) - \mathrm{erfc}(y)`, exact in
        :math:`1 - |x|`, so the tail keeps its accuracy up to :math:`|x| \to 1`."""
        xp = self.xp
        a = xp.abs(x)
        with _quiet(xp):
            ln = xp.log1p(-a * a)
            c = 2 / (math.pi * _WINITZKI_A) + ln / 2
            y = xp.sqrt(xp.sqrt(c * c - ln / _WINITZKI_A) - c)
            far = a > 0.5
            for _ in range(2):
                f = xp.where(far, (1 - a) - self._erfc64(y), self._erf64(y) - a)
                u = f / (_TWO_OVER_SQRT_PI * self._exp_neg_square(y))
                y = y - u / (1 + y * u)
        y = xp.where(a == 1, math.inf, y)
        return xp.copysign(y, x)

    def erfinv(self, a):
        return self._in_float64(self._erfinv64, a)

    # -- rounding ----------------------------------------------------------------------

    def floor(self, a):
        return a.copy() if _is_int(a) else self.xp.floor(a)

    def ceil(self, a):
        return a.copy() if _is_int(a) else self.xp.ceil(a)

    def trunc(self, a):
        return a.copy() if _is_int(a) else self.xp.trunc(a)

    def round(self, a, decimals=0):
        xp = self.xp
        if _is_int(a):
            return a.copy()
        if decimals == 0:
            return xp.rint(a)
        x = self._opmath(a)
        scale = 10.0 ** abs(decimals)
        with _quiet(xp):
            out = xp.rint(x * scale) / scale if decimals > 0 else xp.rint(x / scale) * scale
        return out.astype(a.dtype, copy=False)

    def frac(self, a):
        with _quiet(self.xp):
            return a - self.xp.trunc(a)

    # -- floating-point classification -------------------------------------------------

    def isnan(self, a):
        return self.xp.isnan(a)

    def isinf(self, a):
        return self.xp.isinf(a)

    def isposinf(self, a):
        return self.xp.isinf(a) & (a > 0)

    def isneginf(self, a):
        return self.xp.isinf(a) & (a < 0)

    def isfinite(self, a):
        return self.xp.isfinite(a)

    def nan_to_num(self, a, nan, posinf, neginf):
        xp = self.xp
        if _is_int(a):
            return a.copy()
        dt = a.dtype.type
        with _quiet(xp):
            out = xp.where(xp.isnan(a), dt(nan), a)
            out = xp.where(out == math.inf, dt(posinf), out)
            return xp.where(out == -math.inf, dt(neginf), out)
