r"""Special-function, softmax-family and numeric kernels over an array module.

The gamma family is computed here in float64 from series whose coefficients are derived at
import (exact Bernoulli numbers from ``fractions``; :math:`\zeta(k)` by Euler-Maclaurin):

- :math:`\ln\Gamma`: around its zeros, :math:`\ln\Gamma(1 + z) = -\gamma z + (z -
  \ln(1 + z)) + \sum_{k \ge 2} (-1)^k (\zeta(k) - 1) z^k / k` for :math:`|z| \le 1/2`
  (and :math:`\ln\Gamma(2 + z) = \ln(1 + z) + \ln\Gamma(1 + z)`); on :math:`[2.5, 10)` the
  recurrence down to :math:`[1.5, 2.5)` (a product of positive factors, no cancellation);
  from 10 on Stirling's series with 8 Bernoulli terms; below 1/2 the reflection
  :math:`\ln\Gamma(x) = \ln\pi - \ln|\sin \pi x| - \ln\Gamma(1 - x)` with
  :math:`\sin \pi x` reduced exactly to :math:`[-\pi/2, \pi/2]`.
- :math:`\psi`: the recurrence :math:`\psi(x) = \psi(x + 1) - 1/x` up to 10, then the
  asymptotic series :math:`\ln x - \frac{1}{2x} - \sum_k \frac{B_{2k}}{2k\,x^{2k}}`; below 0
  the reflection :math:`\psi(x) = \psi(1 - x) - \pi\cot\pi x`.
- :math:`\psi^{(n)}`: :math:`(-1)^{n+1} n!\,\zeta(n + 1, x)` with the Hurwitz zeta by
  Euler-Maclaurin after shifting :math:`x` past :math:`20 + n`; for :math:`n = 1` and
  :math:`x < 0` the reflection :math:`\psi_1(x) = \pi^2/\sin^2\pi x - \psi_1(1 - x)`.
"""

import math
from fractions import Fraction

_EULER_GAMMA = 0.57721566490153286061
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_LOG_PI = math.log(math.pi)


def _bernoulli(n):
    """Exact :math:`B_0 .. B_n` (with :math:`B_1 = -1/2`) from the recurrence
    :math:`\\sum_{k=0}^{m} \\binom{m+1}{k} B_k = 0`."""
    b = [Fraction(1)]
    for m in range(1, n + 1):
        s = sum(math.comb(m + 1, k) * b[k] for k in range(m))
        b.append(-s / (m + 1))
    return b


_B = _bernoulli(40)
_B2K = [float(_B[2 * k]) for k in range(0, 21)]        # B_0, B_2, B_4, ...


def _zeta(s):
    r""":math:`\zeta(s)` for real :math:`s > 1` by Euler-Maclaurin at :math:`N = 12`."""
    n = 12
    head = math.fsum(k ** -s for k in range(1, n))
    tail = n ** (1 - s) / (s - 1) + 0.5 * n ** -s
    rising = s
    corr = []
    for j in range(1, 15):
        corr.append(_B2K[j] / math.factorial(2 * j) * rising * n ** (-s - 2 * j + 1))
        rising *= (s + 2 * j - 1) * (s + 2 * j)
    return math.fsum([head, tail] + corr)


# lgamma(1 + z) = -gamma z + (z - log1p z) + sum_k c_k z^k, c_k = (-1)^k (zeta(k) - 1) / k
_LG_COEF = [(-1) ** k * (_zeta(k) - 1) / k for k in range(2, 34)]
# Stirling: sum_k B_2k / (2k (2k - 1) x^(2k - 1)), k = 1..8
_STIRLING = [_B2K[k] / (2 * k * (2 * k - 1)) for k in range(1, 9)]
# digamma: sum_k B_2k / (2k x^(2k)), k = 1..8
_PSI_ASYM = [_B2K[k] / (2 * k) for k in range(1, 9)]


def _horner(xp, z, coefs):
    """:math:`\\sum_i c_i z^i` (coefficients lowest first)."""
    acc = xp.zeros_like(z) + coefs[-1]
    for c in reversed(coefs[:-1]):
        acc = acc * z + c
    return acc


def _axis_of(a, axis):
    return a.reshape(1) if a.ndim == 0 else a, 0 if a.ndim == 0 else axis


class XpSpecial:
    """Implements :class:`SpecialKernels` with ``self.xp``."""

    # -- helpers ---------------------------------------------------------------------

    def _f64(self, a):
        xp = self.xp
        return a.astype(xp.float64) if a.dtype != xp.float64 else a

    def _f32(self, a):
        """``a`` in the dtype the softmax family computes in: float32 for half types."""
        return a.astype(self.xp.float32) if a.dtype.itemsize == 2 else a

    def _sinpi(self, x):
        r""":math:`\sin \pi x` with the argument reduced exactly (``x - round(x)``)."""
        xp = self.xp
        r = x - xp.round(x)
        s = xp.sin(math.pi * r)
        odd = xp.remainder(xp.round(x), 2.0) != 0
        return xp.where(odd, -s, s)

    def _lgamma_series(self, z):
        r""":math:`\ln\Gamma(1 + z)` for :math:`|z| \le 1/2`."""
        xp = self.xp
        z2 = z * z
        return -_EULER_GAMMA * z + (z - xp.log1p(z)) + z2 * _horner(xp, z, _LG_COEF)

    def _lgamma_mid(self, x):
        r""":math:`\ln\Gamma(x)` for :math:`1/2 \le x < 10`: the series around 1 on
        :math:`[1/2, 3/2)`; above, :math:`k = \lfloor x - 3/2 \rfloor` steps of the
        recurrence down to :math:`y = x - k \in [3/2, 5/2)` (exact) and the series around 2,
        plus :math:`\ln \prod_{j=1}^{k} (x - j)`."""
        xp = self.xp
        k = xp.clip(xp.floor(x - 1.5), 0, 8)
        y = x - k
        kmax = int(k.max()) if k.size else 0
        near1 = y < 1.5
        z = xp.where(near1, y - 1, y - 2)
        out = self._lgamma_series(z) + xp.where(near1, 0.0, xp.log1p(z))
        if kmax:
            prod = xp.where(k >= 1, x - 1, 1.0)
            for j in range(2, kmax + 1):
                prod *= xp.where(k >= j, x - j, 1.0)
            out += xp.log(prod)
        return out

    def _lgamma_big(self, x):
        r"""Stirling's series for :math:`x \ge 10` (:math:`+\infty` past about 2.5e305)."""
        xp = self.xp
        inv = 1.0 / x
        return (x - 0.5) * xp.log(x) - x + _HALF_LOG_2PI + inv * _horner(xp, inv * inv,
                                                                         _STIRLING)

    def _lgamma_pos(self, x):
        r""":math:`\ln\Gamma(x)` for finite :math:`x \ge 1/2`, each branch evaluated only on
        its own elements."""
        xp = self.xp
        big = x >= 10
        if bool(big.all()):
            return self._lgamma_big(x)
        if not bool(big.any()):
            return self._lgamma_mid(x)
        out = xp.empty_like(x)
        out[big] = self._lgamma_big(x[big])
        mid = ~big
        out[mid] = self._lgamma_mid(x[mid])
        return out

    def _digamma_pos(self, x):
        r""":math:`\psi(x)` for :math:`x > 0`."""
        xp = self.xp
        y = x
        acc = xp.zeros_like(x)
        for _ in range(10):
            m = y < 10
            acc = acc + xp.where(m, 1.0 / y, 0.0)
            y = xp.where(m, y + 1, y)
        inv2 = 1.0 / (y * y)
        return xp.log(y) - 0.5 / y - inv2 * _horner(xp, inv2, _PSI_ASYM) - acc

    def _hurwitz(self, s, x):
        r""":math:`\zeta(s, x)` for int :math:`s \ge 2` and :math:`x` not a pole."""
        xp = self.xp
        top = 20.0 + s
        y = x
        acc = xp.zeros_like(x)
        while True:
            m = y < top
            if not bool(m.any()):
                break
            acc = acc + xp.where(m, y ** -float(s), 0.0)
            y = xp.where(m, y + 1, y)
        tail = y ** (1.0 - s) / (s - 1) + 0.5 * y ** -float(s)
        rising = float(s)
        for j in range(1, 11):
            tail = tail + (_B2K[j] / math.factorial(2 * j) * rising) * y ** (-s - 2.0 * j + 1)
            rising *= (s + 2 * j - 1) * (s + 2 * j)
        return acc + tail

    # -- the gamma family ------------------------------------------------------------

    def lgamma(self, a):
        xp = self.xp
        x = self._f64(a)
        out = xp.empty_like(x)
        with _quiet(xp):
            fin = xp.isfinite(x)
            pos = fin & (x >= 0.5)
            refl = fin & (x < 0.5)
            if bool(pos.any()):
                out[pos] = self._lgamma_pos(x[pos])
            if bool(refl.any()):
                xr = x[refl]
                out[refl] = _LOG_PI - xp.log(xp.abs(self._sinpi(xr))) - \
                    self._lgamma_pos(1.0 - xr)
            out[xp.isinf(x)] = xp.inf
            nan = xp.isnan(x)
            out[nan] = x[nan]
        return out.astype(a.dtype, copy=False)

    def digamma(self, a):
        xp = self.xp
        x = self._f64(a)
        out = xp.empty_like(x)
        with _quiet(xp):
            pos = (x > 0) & (x < xp.inf)
            neg = x < 0
            if bool(pos.any()):
                out[pos] = self._digamma_pos(x[pos])
            if bool(neg.any()):
                xn = x[neg]
                r = xn - xp.round(xn)
                v = self._digamma_pos(1.0 - xn) - math.pi * xp.cos(math.pi * r) / \
                    xp.sin(math.pi * r)
                out[neg] = xp.where(r == 0, xp.nan, v)      # poles (and -inf): nan
            zero = x == 0
            out[zero] = xp.copysign(xp.inf, -x[zero])
            out[x == xp.inf] = xp.inf
            nan = xp.isnan(x)
            out[nan] = x[nan]
        return out.astype(a.dtype, copy=False)

    def polygamma(self, n, a):
        xp = self.xp
        x = self._f64(a)
        s = n + 1
        sign = float((-1) ** (n + 1) * math.factorial(n))
        with _quiet(xp):
            pole = (x <= 0) & (x == xp.floor(x))
            bad = pole | ~xp.isfinite(x)
            if n == 1:
                neg = (x < 0) & ~bad
                pos = self._hurwitz(s, xp.where(bad | neg, 1.0, x))
                sp = self._sinpi(xp.where(neg, x, -0.5))
                refl = math.pi ** 2 / (sp * sp) - \
                    self._hurwitz(s, xp.where(neg, 1.0 - x, 1.5))
                out = xp.where(neg, refl, pos)
            else:
                out = sign * self._hurwitz(s, xp.where(bad, 1.0, x))
            out = xp.where(pole, sign * xp.inf, out)
            out = xp.where(x == xp.inf, 0.0, out)
            out = xp.where(x == -xp.inf, xp.nan, out)
            out = xp.where(xp.isnan(x), x, out)
        return out.astype(a.dtype, copy=False)

    # -- the softmax family ----------------------------------------------------------

    def softmax(self, a, axis):
        xp = self.xp
        w, ax = _axis_of(self._f32(a), axis)
        with _quiet(xp):
            if w.shape[ax] == 0:
                out = w.copy()
            else:
                m = xp.amax(w, axis=ax, keepdims=True)
                e = xp.exp(w - m)
                out = e / xp.sum(e, axis=ax, keepdims=True)
        return out.reshape(a.shape).astype(a.dtype, copy=False)

    def softmax_backward(self, out, g, axis):
        xp = self.xp
        y, ax = _axis_of(self._f32(out), axis)
        gg = self._f32(g).reshape(y.shape)
        res = y * (gg - xp.sum(gg * y, axis=ax, keepdims=True))
        return res.reshape(out.shape).astype(g.dtype, copy=False)

    def log_softmax(self, a, axis):
        xp = self.xp
        w, ax = _axis_of(self._f32(a), axis)
        with _quiet(xp):
            if w.shape[ax] == 0:
                out = w.copy()
            else:
                m = xp.amax(w, axis=ax, keepdims=True)
                m = xp.where(xp.isfinite(m), m, 0)
                sh = w - m
                out = sh - xp.log(xp.sum(xp.exp(sh), axis=ax, keepdims=True))
        return out.reshape(a.shape).astype(a.dtype, copy=False)

    def log_softmax_backward(self, out, g, axis):
        xp = self.xp
        y, ax = _axis_of(self._f32(out), axis)
        gg = self._f32(g).reshape(y.shape)
        with _quiet(xp):
            res = gg - xp.exp(y) * xp.sum(gg, axis=ax, keepdims=True)
        return res.reshape(out.shape).astype(g.dtype, copy=False)

    def logcumsumexp(self, a, axis):
        xp = self.xp
        w, ax = _axis_of(self._f32(a), axis)
        with _quiet(xp):
            out = self._accumulate(xp.logaddexp, w, ax) if w.size else w.copy()
        return out.reshape(a.shape).astype(a.dtype, copy=False)

    def _rev_lcse(self, v, ax):
        """Reverse (suffix) log-cum-sum-exp along ``ax``."""
        xp = self.xp
        f = xp.flip(v, axis=ax)
        return xp.flip(self._accumulate(xp.logaddexp, f, ax), axis=ax)

    def logcumsumexp_backward(self, a, out, g, axis):
        xp = self.xp
        x, ax = _axis_of(self._f32(a), axis)
        y = self._f32(out).reshape(x.shape)
        gg = self._f32(g).reshape(x.shape)
        if not x.size:
            return g.copy()
        with _quiet(xp):
            ninf = -xp.inf
            lpos = xp.where(gg > 0, xp.log(xp.where(gg > 0, gg, 1)), ninf) - y
            lneg = xp.where(gg < 0, xp.log(xp.where(gg < 0, -gg, 1)), ninf) - y
            # -inf - (-inf) would be nan where y is -inf and g is 0 there
            lpos = xp.where(gg > 0, lpos, ninf)
            lneg = xp.where(gg < 0, lneg, ninf)
            res = xp.exp(x + self._rev_lcse(lpos, ax)) - xp.exp(x + self._rev_lcse(lneg, ax))
            res = xp.where(x == ninf, 0, res)
        return res.reshape(a.shape).astype(g.dtype, copy=False)


class XpNumeric:
    """Implements :class:`NumericKernels` with ``self.xp``."""

    def frexp(self, a):
        xp = self.xp
        w = a.astype(xp.float32) if a.dtype.itemsize == 2 and a.dtype != xp.float16 else a
        m, e = xp.frexp(w)
        return m.astype(a.dtype, copy=False), e.astype(xp.int32, copy=False)

    def ldexp(self, a, e):
        xp = self.xp
        w = a.astype(xp.float32) if a.dtype.itemsize == 2 else a
        with _quiet(xp):
            out = w * xp.exp2(e.astype(w.dtype, copy=False))
        return out.astype(a.dtype, copy=False)

    def nextafter(self, a, b):
        xp = self.xp
        if a.dtype.itemsize == 2 and a.dtype != xp.float16:
            raise TypeError("nextafter: bfloat16 is not supported by this backend")
        return xp.nextafter(a, b)

    def heaviside(self, a, values):
        xp = self.xp
        one = a.dtype.type(1) if a.dtype.kind != "b" else True
        zero = a.dtype.type(0) if a.dtype.kind != "b" else False
        out = xp.where(a > 0, one, xp.where(a == 0, values, zero))
        return xp.asarray(out).astype(a.dtype, copy=False)

    def gcd(self, a, b):
        return self.xp.gcd(a, b)

    def lcm(self, a, b):
        return self.xp.lcm(a, b)

    def _shift_ok(self, a, b):
        bits = 8 * a.dtype.itemsize
        return (b >= 0) & (b < bits)

    def left_shift(self, a, b):
        xp = self.xp
        ok = self._shift_ok(a, b)
        if a.dtype.kind == "b":
            a = a.astype(b.dtype)
        s = xp.left_shift(a, xp.where(ok, b, 0).astype(a.dtype, copy=False))
        return xp.where(ok, s, a.dtype.type(0))

    def right_shift(self, a, b):
        xp = self.xp
        ok = self._shift_ok(a, b)
        if a.dtype.kind == "b":
            a = a.astype(b.dtype)
        s = xp.right_shift(a, xp.where(ok, b, 0).astype(a.dtype, copy=False))
        fill = xp.where(a < 0, a.dtype.type(-1) if a.dtype.kind == "i" else 0,
                        a.dtype.type(0))
        return xp.where(ok, s, fill).astype(a.dtype, copy=False)

    def histogramdd(self, sample, edges, weights):
        xp = self.xp
        n, d = sample.shape
        keep = xp.ones(n, dtype=bool)
        flat = xp.zeros(n, dtype=xp.int64)
        shape = []
        for k in range(d):
            e = edges[k].astype(sample.dtype, copy=False)
            nb = e.shape[0] - 1
            shape.append(nb)
            v = sample[:, k]
            idx = xp.searchsorted(e, v, side="right") - 1
            idx = xp.where(v == e[-1], nb - 1, idx)     # the last bin is closed
            keep &= (idx >= 0) & (idx < nb) & (v == v)
            flat = flat * nb + xp.clip(idx, 0, max(nb - 1, 0))
        w = xp.ones(n, dtype=sample.dtype) if weights is None else \
            weights.astype(sample.dtype, copy=False)
        total = math.prod(shape)
        counts = xp.bincount(flat[keep], weights=w[keep].astype(xp.float64),
                             minlength=total)[:total]
        return counts.reshape(shape).astype(sample.dtype, copy=False)


def _quiet(xp):
    es = getattr(xp, "errstate", None)
    if es is None:
        import contextlib
        return contextlib.nullcontext()
    return es(all="ignore")
