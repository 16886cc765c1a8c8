"""Binary, comparison and logic kernels over an array module (NumPy or CuPy).

Floating kernels that can produce inf/nan run under ``errstate(all="ignore")`` (NumPy would
otherwise warn where PyTorch is silent). Integer division by zero raises
:class:`~lucid.errors.DivisionByZeroError`; the op adds its name.
"""

import contextlib

import numpy as _np

from ...errors import DivisionByZeroError

try:  # errstate's state, set directly: np.errstate rebuilds it on every entry (~1.5 us)
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

    _IGNORE = _make_extobj(all="ignore")
except (ImportError, TypeError):  # a NumPy without them: the public errstate
    _extobj_contextvar = None


def _int_scalar(value, dtype):
    """Python int ``value`` as a scalar of integer ``dtype``, wrapped modulo
    :math:`2^{bits}` as PyTorch's integer kernels wrap (uint8 ``x + (-2) * y`` is
    ``x + 254 * y`` mod 256); any other value or dtype unchanged."""
    if dtype.kind not in "iu" or value.__class__ is not int:
        return value
    bits = dtype.itemsize * 8
    v = value & ((1 << bits) - 1)
    if dtype.kind == "i" and v >= 1 << (bits - 1):
        v -= 1 << bits
    return dtype.type(v)


def _weak(a, b):
    """``(a, b)`` with a Python scalar beside an ml_dtypes array (bfloat16, float8) made a
    scalar of that array's dtype: NEP 50's weak scalar, which the maximum and minimum loops
    of some ml_dtypes versions do not apply (they return float32)."""
    if b.__class__ in (float, int) and getattr(a, "dtype", _np.dtype(bool)).kind == "V":
        return a, a.dtype.type(b)
    if a.__class__ in (float, int) and getattr(b, "dtype", _np.dtype(bool)).kind == "V":
        return b.dtype.type(a), b
    return a, b


class _NumpyQuiet:
    """``np.errstate(all="ignore")`` at the cost of one context-variable set and reset."""

    __slots__ = ("_token",)

    def __enter__(self):
        self._token = _extobj_contextvar.set(_IGNORE)

    def __exit__(self, *exc):
        _extobj_contextvar.reset(self._token)


def _quiet(xp):
    """A context in which NumPy does not warn about inf/nan results (CuPy never does)."""
    if xp is not _np:
        return contextlib.nullcontext()
    return _NumpyQuiet() if _extobj_contextvar is not None else _np.errstate(all="ignore")


def _is_int(a):
    return a.dtype.kind in "iub"


def _is_half(a):
    """float16 or bfloat16: PyTorch computes these in float32 and rounds once (and NumPy
    would round a Python-float scalar to the half type, or promote bfloat16 to float32)."""
    return a.dtype.itemsize == 2 and a.dtype.kind not in "iu"


def _ieee_pow(xp, out, a, b):
    """``out = a ** b`` with C's values where NumPy takes a shortcut: for a constant
    exponent (a 0-d or broadcast ``b``) NumPy's loop computes ``** 0.5`` as ``sqrt``, so
    ``(-inf) ** 0.5`` is nan and ``(-0.) ** 0.5`` is -0. C's ``pow`` (and PyTorch's
    tensor-tensor ``pow``) give ``+inf`` and ``+0`` for a negative-infinite or negative-zero
    base to a positive power that is not an odd integer, whatever the SIMD path."""
    if out.dtype.kind not in "fV":
        return out
    fix = ((a == -xp.inf) | ((a == 0) & xp.signbit(a))) & (b > 0) & (xp.fmod(b, 2) != 1)
    return xp.where(fix, xp.where(a == 0, 0, xp.inf).astype(out.dtype), out)


def _check_divisor(a, b):
    """ZeroDivisionError if the integer divisor ``b`` holds a 0 that divides something: an
    empty result (``a`` or ``b`` of size 0) divides nothing, as in PyTorch."""
    if a.size and bool((b == 0).any()):
        raise DivisionByZeroError("integer division by zero")


class XpBinary:
    """Implements :class:`BinaryKernels` with ``self.xp``."""

    # -- arithmetic ------------------------------------------------------------------

    def add(self, a, b, alpha=1):
        if alpha == 1:
            return self.xp.add(a, b)
        return self._scaled(a, b, alpha, self.xp.add)

    def mul(self, a, b):
        return self.xp.multiply(a, b)

    def sub(self, a, b, alpha=1):
        if alpha == 1:
            return self.xp.subtract(a, b)
        return self._scaled(a, b, alpha, self.xp.subtract)

    def _scaled(self, a, b, alpha, combine):
        """``combine(a, alpha * b)`` for a Python scalar ``alpha``, half types in float32."""
        if _is_half(a):
            f32 = self.xp.float32
            return combine(a.astype(f32), alpha * b.astype(f32)).astype(a.dtype)
        return combine(a, _int_scalar(alpha, b.dtype) * b)

    def div(self, a, b):
        with _quiet(self.xp):
            return self.xp.true_divide(a, b)

    def div_floor(self, a, b):
        if _is_int(a):
            _check_divisor(a, b)
            return self.xp.floor_divide(a, b)
        with _quiet(self.xp):
            return self.xp.floor_divide(a, b)

    def div_trunc(self, a, b):
        xp = self.xp
        if _is_int(a):
            _check_divisor(a, b)
            q = xp.floor_divide(a, b)
            inexact = (q < 0) & (q * b != a)  # floor is one below trunc there
            return q + inexact.astype(q.dtype)
        with _quiet(xp):
            return xp.trunc(xp.true_divide(a, b))

    def pow(self, a, b):
        xp = self.xp
        if _is_int(a) and _is_int(b):
            if b.dtype.kind == "i" and bool((b < 0).any()):
                ok = b >= 0
                r = xp.power(a, xp.where(ok, b, 0))
                neg = xp.where(a == 1, 1, xp.where(a == -1, 1 - 2 * (b % 2), 0))
                return xp.where(ok, r, neg.astype(r.dtype))
            return xp.power(a, b)
        with _quiet(xp):
            return _ieee_pow(xp, xp.power(a, b), a, b)

    def pow_scalar(self, a, p):
        if a.dtype.kind == "b":
            return self.xp.logical_or(a, not p)
        if _is_int(a):
            return a**p
        if _is_half(a):  # computed in float32, rounded once (PyTorch)
            return self.pow_scalar(a.astype(self.xp.float32), p).astype(a.dtype)
        with _quiet(self.xp):
            # PyTorch's special exponents: products and roots, not the general pow
            if p == 2:
                return a * a
            if p == 3:
                return a * a * a
            if p == 0.5:
                return self.xp.sqrt(a)
            if p == -1:
                return 1 / a
            if p == -2:
                return 1 / (a * a)
            if p == -0.5:
                return 1 / self.xp.sqrt(a)
            return a**p

    def remainder(self, a, b):
        xp = self.xp
        if _is_int(a):
            _check_divisor(a, b)
            return xp.remainder(a, b)
        with _quiet(xp):
            m = xp.fmod(a, b)
            fix = (m != 0) & ((b < 0) != (m < 0))
            return xp.where(fix, m + b, m)

    def fmod(self, a, b):
        if _is_int(a):
            _check_divisor(a, b)
            return self.xp.fmod(a, b)
        with _quiet(self.xp):
            return self.xp.fmod(a, b)

    def atan2(self, a, b):
        return self.xp.arctan2(a, b)

    def hypot(self, a, b):
        return self.xp.hypot(a, b)

    def maximum(self, a, b):
        return self.xp.maximum(*_weak(a, b))

    def minimum(self, a, b):
        return self.xp.minimum(*_weak(a, b))

    def fmax(self, a, b):
        return self.xp.fmax(*_weak(a, b))

    def fmin(self, a, b):
        return self.xp.fmin(*_weak(a, b))

    def logaddexp(self, a, b):
        with _quiet(self.xp):
            return self.xp.logaddexp(a, b)

    def logaddexp2(self, a, b):
        with _quiet(self.xp):
            return self.xp.logaddexp2(a, b)

    def xlogy(self, a, b):
        xp = self.xp
        with _quiet(xp):
            out = a * xp.log(b)
        return xp.where((a == 0) & (b == b), 0, out)

    def copysign(self, a, b):
        return self.xp.copysign(a, b)

    def lerp(self, a, b, w):
        xp = self.xp
        dt = a.dtype
        if _is_half(a):
            a, b, w = a.astype(xp.float32), b.astype(xp.float32), w.astype(xp.float32)
        d = b - a
        out = xp.where(xp.abs(w) < 0.5, a + w * d, b - d * (1 - w))
        return out.astype(dt, copy=False)

    def addcmul(self, x, t1, t2, value):
        dt = x.dtype
        if _is_half(x):
            f32 = self.xp.float32
            x, t1, t2 = x.astype(f32), t1.astype(f32), t2.astype(f32)
        prod = t1 * t2
        return (x + (prod if value == 1 else _int_scalar(value, prod.dtype) * prod)).astype(
            dt, copy=False
        )

    def addcdiv(self, x, t1, t2, value):
        dt = x.dtype
        if _is_half(x):
            f32 = self.xp.float32
            x, t1, t2 = x.astype(f32), t1.astype(f32), t2.astype(f32)
        with _quiet(self.xp):
            return (x + (t1 / t2 if value == 1 else value * t1 / t2)).astype(dt, copy=False)

    def where(self, cond, a, b):
        return self.xp.where(cond, a, b)

    # -- comparison and logic --------------------------------------------------------

    def eq(self, a, b):
        return self.xp.equal(a, b)

    def ne(self, a, b):
        return self.xp.not_equal(a, b)

    def lt(self, a, b):
        return self.xp.less(a, b)

    def le(self, a, b):
        return self.xp.less_equal(a, b)

    def gt(self, a, b):
        return self.xp.greater(a, b)

    def ge(self, a, b):
        return self.xp.greater_equal(a, b)

    def logical_and(self, a, b):
        return self.xp.logical_and(a, b)

    def logical_or(self, a, b):
        return self.xp.logical_or(a, b)

    def logical_xor(self, a, b):
        return self.xp.logical_xor(a, b)

    def logical_not(self, a):
        return self.xp.logical_not(a)

    def bitwise_and(self, a, b):
        return self.xp.bitwise_and(a, b)

    def bitwise_or(self, a, b):
        return self.xp.bitwise_or(a, b)

    def bitwise_xor(self, a, b):
        return self.xp.bitwise_xor(a, b)

    def bitwise_not(self, a):
        return self.xp.invert(a)

    def isclose(self, a, b, rtol, atol, equal_nan, float_dtype):
        xp = self.xp
        close = a == b
        if equal_nan:
            close |= (a != a) & (b != b)
        if rtol == 0 and atol == 0:
            return close
        if _is_int(a):
            a, b = a.astype(float_dtype), b.astype(float_dtype)
        with _quiet(xp):
            allowed = atol + xp.abs(rtol * b)
            actual = xp.abs(a - b)
            close |= xp.isfinite(actual) & (actual <= allowed)
        return close

    def isin(self, elements, test_elements, invert):
        return self.xp.isin(elements, test_elements, invert=invert)
