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

The kernels of ``lucid.special`` (a marked section of :class:`XpSpecial`; their tables at
the end of the module) also compute in float64 and round once:

- ``erfcx``, ``ndtr``, ``log_ndtr`` on the erfc interpolants of the unary kernels, with
  :math:`e^{\pm x^2}` formed from an exact split of the square; ``ndtri`` through erfinv in
  the middle and Halley steps on the lower-tail :math:`\Phi` in the tails.
- :math:`I_0, I_1` (and the scaled forms): the positive power series below 25, the
  asymptotic expansion (exact coefficients :math:`a_k(\nu)` from ``fractions``) beyond.
- :math:`J_\nu, Y_\nu, K_\nu` (:math:`\nu = 0, 1`): the power (J) or logarithmic (Y, K)
  series below 2, Chebyshev series (Clenshaw) on :math:`[2, 26)`, Hankel's or the
  asymptotic expansion beyond; Airy :math:`\mathrm{Ai}`: Chebyshev series on
  :math:`[-10, 10)`, the asymptotic expansions beyond. The Chebyshev coefficients are
  fitted on first use to 80-digit ``decimal`` values of the series (cached).
- the orthogonal polynomials by their three-term recurrences.
- Hurwitz :math:`\zeta(x, q)` by Euler-Maclaurin; :math:`P(a, x)`, :math:`Q(a, x)` by
  their series and continued fraction, iterated until every element has converged.
"""

import functools
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
_B2K = [float(_B[2 * k]) for k in range(0, 21)]  # B_0, B_2, B_4, ...


def _zeta(s):
    r""":math:`\zeta(s)` for real :math:`s > 1` by Euler-Maclaurin at :math:`N = 12`."""
    n = 12
    head = math.fsum(k**-s for k in range(1, n))
    tail = n ** (1 - s) / (s - 1) + 0.5 * n**-s
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
        return (x - 0.5) * xp.log(x) - x + _HALF_LOG_2PI + inv * _horner(xp, inv * inv, _STIRLING)

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
                out[refl] = _LOG_PI - xp.log(xp.abs(self._sinpi(xr))) - self._lgamma_pos(1.0 - xr)
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
                v = self._digamma_pos(1.0 - xn) - math.pi * xp.cos(math.pi * r) / xp.sin(
                    math.pi * r
                )
                out[neg] = xp.where(r == 0, xp.nan, v)  # poles (and -inf): nan
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
                refl = math.pi**2 / (sp * sp) - self._hurwitz(s, xp.where(neg, 1.0 - x, 1.5))
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

    # -- lucid.special: error-function, Bessel and zeta kernels ----------------------
    # (module-level tables and references: the "lucid.special" section at the end). The
    # erf-family kernels build on the unary mixin's float64 erf helpers (``_erfcx``,
    # ``_erf_small``, ``_erfc64``, ``_erfinv64``): both mixins make one backend class.

    def _special64(self, fn, *arrays):
        """``fn`` on float64 copies of ``arrays`` (0-d ones as 1-d, so the kernels may
        assign through masks), warnings quiet, rounded back once."""
        xp = self.xp
        with _quiet(xp):
            out = fn(*(xp.atleast_1d(self._f64(a)) for a in arrays))
        if not any(a.ndim for a in arrays):
            out = out.reshape(())
        return out.astype(arrays[0].dtype, copy=False)

    def _exp_square(self, x, c=1.0):
        r""":math:`e^{c x^2}` (``c`` a power of 2) without the rounding of ``x * x``
        (:math:`x^2 = h^2 + (x - h)(x + h)`, :math:`h` the nearest multiple of 1/256,
        :math:`h^2` exact)."""
        xp = self.xp
        h = xp.rint(x * 256) / 256
        d = xp.where(xp.isinf(x), 0.0, (x - h) * (x + h))
        return xp.exp(c * (h * h)) * xp.exp(c * d)

    def _erfcx64(self, x):
        xp = self.xp
        out = xp.full_like(x, xp.nan)
        ax = xp.abs(x)
        big = ax >= 1
        if bool(big.any()):
            out[big] = self._erfcx(ax[big])  # the unary kernels' interpolants
        small = ax < 1
        if bool(small.any()):
            xs = ax[small]
            out[small] = self._exp_square(xs) * (1 - self._erf_small(xs))
        neg = x < 0  # erfcx(-t) = 2 e^{t^2} - erfcx(t)
        out[neg] = 2 * self._exp_square(x[neg]) - out[neg]
        return out

    def erfcx(self, a):
        return self._special64(self._erfcx64, a)

    def _ndtr64(self, x):
        r""":math:`\tfrac12\mathrm{erfc}(-x/\sqrt2)`; below -1
        :math:`\tfrac12\mathrm{erfcx}(-x/\sqrt2)\,e^{-x^2/2}` with the square split
        exactly (:func:`_exp_square`), so the rounding of :math:`x/\sqrt2` is not
        amplified by :math:`x^2` in the tail."""
        out = 0.5 * self._erfc64(x * -_SQRT1_2)
        low = x < -1
        xl = x[low]
        out[low] = 0.5 * self._erfcx64(xl * -_SQRT1_2) * self._exp_square(xl, -0.5)
        return out

    def ndtr(self, a):
        return self._special64(self._ndtr64, a)

    def _log_ndtr64(self, x):
        xp = self.xp
        out = xp.log1p(-self._ndtr64(-x))
        low = x < -1
        t = x[low] * -_SQRT1_2
        out[low] = xp.log(0.5 * self._erfcx64(t)) - t * t
        return out

    def log_ndtr(self, a):
        return self._special64(self._log_ndtr64, a)

    def _ndtri64(self, p):
        r""":math:`\sqrt2\,\mathrm{erf}^{-1}(2p - 1)` on :math:`[1/4, 3/4]` (:math:`2p - 1`
        is exact there, the erfinv kernel is relatively accurate near 0); in the tails
        Abramowitz-Stegun 26.2.23 (error below 4.5e-4) for :math:`q = \min(p, 1 - p)`,
        then three Halley steps on :math:`\Phi(y) - q`: :math:`y \leftarrow y - u/(1 +
        y u/2)`, :math:`u = (\Phi(y) - q)/\varphi(y)` (cubic convergence; :math:`\Phi(y)`
        for :math:`y \le 0` is relatively accurate, so the tail keeps its precision)."""
        xp = self.xp
        upper = p > 0.5
        q = xp.where(upper, 1 - p, p)
        inside = (q > 0) & (q <= 0.5)
        qs = xp.where(inside, q, 0.25)
        t = xp.sqrt(-2 * xp.log(qs))
        y = _horner(xp, t, _AS_NUM) / _horner(xp, t, _AS_DEN) - t
        for _ in range(3):
            u = (self._ndtr64(y) - qs) * _SQRT_2PI * self._exp_square(y * _SQRT1_2)
            y = y - u / (1 + 0.5 * y * u)
        y = xp.where(q == 0, -xp.inf, y)
        y = xp.where(upper, -y, y)
        mid = (p >= 0.25) & (p <= 0.75)
        y[mid] = math.sqrt(2) * self._erfinv64(2 * p[mid] - 1)
        return xp.where((p < 0) | (p > 1) | (p != p), xp.nan, y)

    def ndtri(self, a):
        return self._special64(self._ndtri64, a)

    def _bessel_i(self, x, order, scaled):
        r""":math:`I_\nu` (``order`` 0 or 1), times :math:`e^{-|x|}` if ``scaled``: the
        power series in :math:`t = x^2/4` (all terms positive) below :math:`|x| = 25`,
        the asymptotic series :math:`\frac{e^{|x|}}{\sqrt{2\pi |x|}} \sum_k (-1)^k
        a_k(\nu) |x|^{-k}` beyond."""
        xp = self.xp
        ax = xp.abs(x)
        out = xp.full_like(x, xp.nan)
        small = ax < _I_SERIES_MAX
        if bool(small.any()):
            xs = ax[small]
            v = _horner(xp, xs * xs * 0.25, _I_SERIES[order])
            if order:
                v = v * (0.5 * xs)
            out[small] = v * xp.exp(-xs) if scaled else v
        big = ~small & (ax == ax)
        if bool(big.any()):
            xb = ax[big]
            v = _horner(xp, 1 / xb, _I_ASYM[order])
            lead = -0.5 * xp.log(2 * math.pi * xb)
            if scaled:
                out[big] = v * xp.exp(lead)
            else:  # e^{x/2} twice: finite up to I's overflow
                half = xp.exp(0.5 * xb)
                out[big] = (v * xp.exp(lead) * half) * half
        out[xp.isinf(ax)] = 0.0 if scaled else xp.inf
        return xp.where(x < 0, -out, out) if order else out

    def i0(self, a):
        return self._special64(lambda x: self._bessel_i(x, 0, False), a)

    def i0e(self, a):
        return self._special64(lambda x: self._bessel_i(x, 0, True), a)

    def i1(self, a):
        return self._special64(lambda x: self._bessel_i(x, 1, False), a)

    def i1e(self, a):
        return self._special64(lambda x: self._bessel_i(x, 1, True), a)

    def _bessel_piecewise(self, ax, kind, order, small_fn, big_fn):
        r"""One of :math:`J, Y, K_e` (``kind`` ``"J"``, ``"Y"``, ``"Ke"``; ``order`` 0 or 1)
        at ``ax >= 0``: ``small_fn`` below 2, the Chebyshev series of ``_bessel_cheb`` on
        the pieces :math:`[4k + 2, 4k + 6)` of :math:`[2, 26)` (Clenshaw), ``big_fn``
        from 26 on; 0 at :math:`+\infty`, nan stays nan."""
        xp = self.xp
        out = xp.where(ax != ax, ax, 0.0)
        small = ax < _CHEB_LO
        if bool(small.any()):
            out[small] = small_fn(ax[small])
        idx = xp.floor((ax - _CHEB_LO) * (1 / _CHEB_WIDTH))
        for k, coef in enumerate(_bessel_cheb(kind, order)):
            m = idx == k
            if bool(m.any()):
                mid = _CHEB_LO + _CHEB_WIDTH * (k + 0.5)
                out[m] = _clenshaw(xp, (ax[m] - mid) * (2 / _CHEB_WIDTH), coef)
        big = (ax >= _CHEB_HI) & (ax < xp.inf)
        if bool(big.any()):
            out[big] = big_fn(ax[big])
        return out

    def _hankel(self, x, order, kind):
        r"""Hankel's expansion for :math:`x \ge 26`: :math:`\sqrt{2/(\pi x)}\,(P\cos\chi -
        Q\sin\chi)` for :math:`J_\nu`, :math:`(P\sin\chi + Q\cos\chi)` for :math:`Y_\nu`,
        :math:`\chi = x - (2\nu + 1)\pi/4`; :math:`\cos\chi` and :math:`\sin\chi` come from
        :math:`\cos x`, :math:`\sin x`, so :math:`x - \pi/4` is never rounded."""
        xp = self.xp
        inv2 = 1 / (x * x)
        p = _horner(xp, inv2, _HANKEL_P[order])
        q = _horner(xp, inv2, _HANKEL_Q[order]) / x
        c, s = xp.cos(x), xp.sin(x)
        cc, sc = (c + s, s - c) if order == 0 else (s - c, -(s + c))  # sqrt2 cos, sin chi
        mix = p * cc - q * sc if kind == "J" else p * sc + q * cc
        return xp.sqrt(1 / (math.pi * x)) * mix

    def _bessel_j(self, x, order):
        r""":math:`J_\nu` (``order`` 0 or 1): the power series in :math:`x^2/4` below 2
        (exact at 0), Chebyshev series to 26, Hankel's expansion beyond; odd for
        :math:`\nu = 1`."""
        xp = self.xp

        def small(v):
            s = _horner(xp, v * v * 0.25, _J_SERIES[order])
            return s * (0.5 * v) if order else s

        out = self._bessel_piecewise(
            xp.abs(x), "J", order, small, lambda v: self._hankel(v, order, "J")
        )
        return xp.where(x < 0, -out, out) if order else out

    def _bessel_log_series(self, x, kind, order):
        r""":math:`Y_\nu` or :math:`K_\nu` for :math:`0 < x < 2` from the logarithmic
        series: with :math:`t = x^2/4`, :math:`L = \ln(x/2)`, :math:`R` the regular
        function (:math:`J_\nu` or :math:`I_\nu`) and :math:`S = \sum_k (\mp t)^k w_k /
        (k!\,(k+\nu)!)`, :math:`w_k = H_k` (:math:`\nu = 0`) or :math:`H_k + H_{k+1} -
        2\gamma`: :math:`Y_0 = \frac2\pi((L + \gamma) J_0 - S)`, :math:`Y_1 = \frac2\pi L J_1
        - \frac{2}{\pi x} - \frac{x}{2\pi} S`, :math:`K_0 = S - (L + \gamma) I_0`,
        :math:`K_1 = \frac1x + L I_1 - \frac x4 S`."""
        xp = self.xp
        t = x * x * 0.25
        log = xp.log(0.5 * x)
        reg = _horner(xp, t, (_J_SERIES if kind == "Y" else _I_SERIES)[order])
        ser = _horner(xp, t, _LOG_SERIES[kind, order])
        if order:
            reg = reg * (0.5 * x)
        if kind == "Y":
            return (
                (2 / math.pi) * ((log + _EULER_GAMMA) * reg - ser)
                if order == 0
                else (2 / math.pi) * log * reg - 2 / (math.pi * x) - x * (0.5 / math.pi) * ser
            )
        return (
            ser - (log + _EULER_GAMMA) * reg if order == 0 else 1 / x + log * reg - 0.25 * x * ser
        )

    def _bessel_y(self, x, order):
        r""":math:`Y_\nu`: the logarithmic series below 2, Chebyshev series to 26, Hankel's
        expansion beyond; :math:`-\infty` at 0, nan below."""
        xp = self.xp
        out = self._bessel_piecewise(
            x,
            "Y",
            order,
            lambda v: self._bessel_log_series(v, "Y", order),
            lambda v: self._hankel(v, order, "Y"),
        )
        out = xp.where(x == 0, -xp.inf, out)
        return xp.where(x < 0, xp.nan, out)

    def _bessel_k(self, x, order, scaled):
        r""":math:`K_\nu` (times :math:`e^x` if ``scaled``): the logarithmic series below 2;
        the Chebyshev series of :math:`e^x K_\nu` to 26; beyond the asymptotic expansion
        :math:`\sqrt{\pi/(2x)}\,\sum_k a_k(\nu) x^{-k}` of :math:`e^x K_\nu`;
        :math:`+\infty` at 0, nan below."""
        xp = self.xp

        def small(v):
            k = self._bessel_log_series(v, "K", order)
            return k * xp.exp(v) if scaled else k

        def big(v):
            return xp.sqrt(0.5 * math.pi / v) * _horner(xp, 1 / v, _K_ASYM[order])

        out = self._bessel_piecewise(x, "Ke", order, small, big)
        if not scaled:
            mid = x >= _CHEB_LO
            out[mid] = out[mid] * xp.exp(-x[mid])
        out = xp.where(x == 0, xp.inf, out)
        return xp.where(x < 0, xp.nan, out)

    def bessel_j0(self, a):
        return self._special64(lambda x: self._bessel_j(x, 0), a)

    def bessel_j1(self, a):
        return self._special64(lambda x: self._bessel_j(x, 1), a)

    def bessel_y0(self, a):
        return self._special64(lambda x: self._bessel_y(x, 0), a)

    def bessel_y1(self, a):
        return self._special64(lambda x: self._bessel_y(x, 1), a)

    def modified_bessel_k0(self, a):
        return self._special64(lambda x: self._bessel_k(x, 0, False), a)

    def modified_bessel_k1(self, a):
        return self._special64(lambda x: self._bessel_k(x, 1, False), a)

    def scaled_modified_bessel_k0(self, a):
        return self._special64(lambda x: self._bessel_k(x, 0, True), a)

    def scaled_modified_bessel_k1(self, a):
        return self._special64(lambda x: self._bessel_k(x, 1, True), a)

    def _airy_ai64(self, x):
        r""":math:`\mathrm{Ai}`: Chebyshev series on the 16 pieces of width 5/4 of
        :math:`[-10, 10)` (of :math:`e^{\zeta}\mathrm{Ai}` from 5/2 on, :math:`\zeta =
        \frac23 |x|^{3/2}`); beyond, the asymptotic expansions
        :math:`\frac{e^{-\zeta}}{2\sqrt\pi x^{1/4}} \sum_k (-1)^k u_k \zeta^{-k}` and, for
        :math:`x \le -10`, :math:`\frac{1}{\sqrt\pi |x|^{1/4}} (\sin(\zeta + \frac\pi4)
        P - \cos(\zeta + \frac\pi4) Q)`."""
        xp = self.xp
        out = xp.where(x != x, x, 0.0)  # +-inf: the limit 0
        z = xp.abs(x)
        zeta = (2 / 3) * z * xp.sqrt(z)
        idx = xp.floor((x + _AIRY_HI) * (1 / _AIRY_WIDTH))
        for k, coef in enumerate(_airy_cheb()):
            m = idx == k
            if bool(m.any()):
                mid = -_AIRY_HI + _AIRY_WIDTH * (k + 0.5)
                v = _clenshaw(xp, (x[m] - mid) * (2 / _AIRY_WIDTH), coef)
                out[m] = v * xp.exp(-zeta[m]) if mid > _AIRY_SCALED else v
        pos = (x >= _AIRY_HI) & (x < xp.inf)
        if bool(pos.any()):
            zp, zt = z[pos], zeta[pos]
            s = _horner(xp, 1 / zt, _AIRY_U_ALT)
            out[pos] = s * xp.exp(-zt) / (2 * math.sqrt(math.pi) * xp.sqrt(xp.sqrt(zp)))
        neg = (x <= -_AIRY_HI) & (x > -xp.inf)
        if bool(neg.any()):
            zn, zt = z[neg], zeta[neg]
            inv2 = 1 / (zt * zt)
            p = _horner(xp, inv2, _AIRY_P)
            q = _horner(xp, inv2, _AIRY_Q) / zt
            c, s = xp.cos(zt), xp.sin(zt)
            # sqrt2 sin(zeta + pi/4) = s + c, sqrt2 cos(zeta + pi/4) = c - s
            out[neg] = ((s + c) * p - (c - s) * q) / (math.sqrt(2 * math.pi) * xp.sqrt(xp.sqrt(zn)))
        return out

    def airy_ai(self, a):
        return self._special64(self._airy_ai64, a)

    def _spherical_j0_64(self, x):
        xp = self.xp
        out = xp.sin(x) / x
        out = xp.where(x == 0, 1.0, out)
        return xp.where(xp.isinf(x), 0.0, out)

    def spherical_bessel_j0(self, a):
        return self._special64(self._spherical_j0_64, a)

    def _xlog1py64(self, a, b):
        xp = self.xp
        return xp.where((a == 0) & (b == b), 0.0, a * xp.log1p(b))

    def xlog1py(self, a, b):
        return self._special64(self._xlog1py64, a, b)

    def _entr64(self, x):
        xp = self.xp
        out = xp.where(x > 0, -x * xp.log(xp.where(x > 0, x, 1.0)), 0.0)
        out = xp.where(x < 0, -xp.inf, out)
        return xp.where(x != x, x, out)

    def entr(self, a):
        return self._special64(self._entr64, a)

    def _zeta64(self, x, q):
        r"""Euler-Maclaurin: :math:`\sum_{k < N} (q + k)^{-x}` up to :math:`w = q + N \ge
        \min(20 + x/2, 140)`, then :math:`\frac{w^{1-x}}{x - 1} + \frac{w^{-x}}{2} + \sum_{j=1}^{12}
        \frac{B_{2j}}{(2j)!} x^{\overline{2j-1}} w^{-x-2j+1}`."""
        xp = self.xp
        x, q = xp.broadcast_arrays(x, q)
        ok = (x > 1) & (q == q) & xp.isfinite(x)
        xs = xp.where(ok, x, 2.0)
        pole = (q <= 0) & (q == xp.floor(q))
        w = xp.where(ok & ~pole, q, 1.0)
        w = xp.where(xp.isinf(w), 1.0, w)
        top = xp.minimum(20 + 0.5 * xs, 140.0)  # past x = 240 the tail underflows
        acc = xp.zeros_like(w)
        while True:
            m = w < top
            if not bool(m.any()):
                break
            acc = acc + xp.where(m, xp.power(w, -xs), 0.0)
            w = xp.where(m, w + 1, w)
        wx = xp.power(w, -xs)
        tail = w * wx / (xs - 1) + 0.5 * wx
        rising = xs
        winv2 = 1 / (w * w)
        wpow = wx / w  # w^{-x-1}
        for j in range(1, 13):
            tail = tail + (_B2K[j] / math.factorial(2 * j)) * rising * wpow
            rising = rising * (xs + 2 * j - 1) * (xs + 2 * j)
            wpow = wpow * winv2
        out = acc + tail
        out = xp.where(pole & (x >= 1), xp.inf, out)
        out = xp.where(q == xp.inf, 0.0, out)
        out = xp.where(x == 1, xp.inf, out)
        out = xp.where(x == xp.inf, xp.where(q == 1, 1.0, xp.where(q > 1, 0.0, xp.inf)), out)
        return xp.where((x < 1) | (x != x) | (q != q), xp.nan, out)

    def zeta(self, x, q):
        return self._special64(self._zeta64, x, q)

    def _orthogonal_polynomial64(self, kind, x, n):
        xp = self.xp
        x, n = xp.broadcast_arrays(x, xp.trunc(n))
        if kind.startswith("shifted_"):
            kind, x = kind[len("shifted_") :], 2 * x - 1
        a, first = _POLY_FIRST[kind]
        p0, p1 = xp.ones_like(x), a * x + first
        out = xp.where(n == 0, 1.0, xp.where(n == 1, p1, 0.0))
        top = int(n.max()) if n.size else 0
        for k in range(1, top):
            p0, p1 = p1, self._poly_step(kind, x, k, p0, p1)
            out = xp.where(n == k + 1, p1, out)
        return xp.where(x != x, x, out)

    @staticmethod
    def _poly_step(kind, x, k, p0, p1):
        """:math:`p_{k+1}` from :math:`p_{k-1}`, :math:`p_k` (the three-term recurrences)."""
        if kind.startswith("chebyshev"):
            return 2 * x * p1 - p0
        if kind == "hermite_h":
            return 2 * x * p1 - 2 * k * p0
        if kind == "hermite_he":
            return x * p1 - k * p0
        if kind == "laguerre_l":
            return ((2 * k + 1 - x) * p1 - k * p0) / (k + 1)
        return ((2 * k + 1) * x * p1 - k * p0) / (k + 1)  # legendre_p

    def orthogonal_polynomial(self, kind, x, n):
        return self._special64(lambda s, t: self._orthogonal_polynomial64(kind, s, t), x, n)

    def _gammainc64(self, a, x, upper):
        r"""The series :math:`P = \frac{x^a e^{-x}}{\Gamma(a + 1)} \sum_n \frac{x^n}
        {(a+1)\cdots(a+n)}` for :math:`x < a + 1`, the continued fraction of :math:`Q`
        (modified Lentz) beyond; each iterated until every element converged."""
        xp = self.xp
        a, x = xp.broadcast_arrays(a, x)
        ok = (a > 0) & (x > 0) & xp.isfinite(a) & xp.isfinite(x)
        aa = xp.where(ok, a, 1.0)
        xx = xp.where(ok, x, 1.0)
        logpre = aa * xp.log(xx) - xx - self.lgamma(aa)
        ser = xx < aa + 1
        # series (on every element; only the ser ones are used)
        term = xp.ones_like(aa)
        total = xp.ones_like(aa)
        n = 0
        while n < _GAMMAINC_MAX_ITER:
            n += 1
            term = term * xx / (aa + n)
            total = total + term
            if not bool((ser & (xp.abs(term) > _EPS * xp.abs(total))).any()):
                break
        p_ser = xp.exp(logpre - xp.log(aa)) * total
        # continued fraction of Q (Lentz)
        tiny = 1e-300
        b = xx + 1 - aa
        c = xp.full_like(aa, 1 / tiny)
        d = 1 / xp.where(b == 0, tiny, b)
        h = d
        n = 0
        while n < _GAMMAINC_MAX_ITER:
            n += 1
            an = -n * (n - aa)
            b = b + 2
            d = an * d + b
            d = 1 / xp.where(xp.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = xp.where(xp.abs(c) < tiny, tiny, c)
            delta = d * c
            h = h * delta
            if not bool((~ser & (xp.abs(delta - 1) > _EPS)).any()):
                break
        q_cf = xp.exp(logpre) * h
        out = xp.where(ser, 1 - p_ser if upper else p_ser, q_cf if upper else 1 - q_cf)
        zero, one = (1.0, 0.0) if upper else (0.0, 1.0)
        out = xp.where((x == 0) & (a > 0), zero, out)
        out = xp.where((x > 0) & ((a == 0) | (x == xp.inf)), one, out)
        out = xp.where((a == xp.inf) & (x < xp.inf), zero, out)
        bad = (a < 0) | (x < 0) | ((a == 0) & (x == 0)) | ((a == xp.inf) & (x == xp.inf))
        return xp.where(bad | (a != a) | (x != x), xp.nan, out)

    def gammainc(self, a, x):
        return self._special64(lambda s, t: self._gammainc64(s, t, False), a, x)

    def gammaincc(self, a, x):
        return self._special64(lambda s, t: self._gammainc64(s, t, True), a, x)


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
        if a.dtype.itemsize != 2 or a.dtype == xp.float16:
            return xp.nextafter(a, b)
        # bfloat16 (CuPy has no kernel): one step of the sign-magnitude bit pattern, away
        # from zero when moving away from it; from +-0 the smallest subnormal of b's side
        a, b = (t.copy() for t in xp.broadcast_arrays(a, b))  # contiguous, for view
        af, bf = a.astype(xp.float32), b.astype(xp.float32)
        up = bf > af
        bits = a.view(xp.uint16).astype(xp.int32) + xp.where(up == (af > 0), 1, -1)
        bits = xp.where(af == 0, xp.where(up, 0x0001, 0x8001), bits)
        bits = xp.where(af == bf, b.view(xp.uint16).astype(xp.int32), bits)
        bits = xp.where(xp.isnan(af) | xp.isnan(bf), 0x7FC0, bits)
        return bits.astype(xp.uint16).view(a.dtype)

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
        fill = xp.where(a < 0, a.dtype.type(-1) if a.dtype.kind == "i" else 0, a.dtype.type(0))
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
            idx = xp.where(v == e[-1], nb - 1, idx)  # the last bin is closed
            keep &= (idx >= 0) & (idx < nb) & (v == v)
            flat = flat * nb + xp.clip(idx, 0, max(nb - 1, 0))
        w = (
            xp.ones(n, dtype=sample.dtype)
            if weights is None
            else weights.astype(sample.dtype, copy=False)
        )
        total = math.prod(shape)
        counts = xp.bincount(flat[keep], weights=w[keep].astype(xp.float64), minlength=total)[
            :total
        ]
        return counts.reshape(shape).astype(sample.dtype, copy=False)


def _quiet(xp):
    es = getattr(xp, "errstate", None)
    if es is None:
        import contextlib

        return contextlib.nullcontext()
    return es(all="ignore")


# == lucid.special: tables and references ====================================================

_SQRT1_2 = math.sqrt(0.5)
_SQRT_2PI = math.sqrt(2 * math.pi)
_EPS = 2.0**-53
_GAMMAINC_MAX_ITER = 5000
# Abramowitz-Stegun 26.2.23: y ~ (c0 + c1 t + c2 t^2)/(1 + d1 t + d2 t^2 + d3 t^3) - t
_AS_NUM = (2.515517, 0.802853, 0.010328)
_AS_DEN = (1.0, 1.432788, 0.189269, 0.001308)


def _hankel_a(nu, k):
    r""":math:`a_k(\nu) = \prod_{j=1}^{k} (4\nu^2 - (2j - 1)^2) / (k!\,8^k)`, exact."""
    v = Fraction(1)
    for j in range(1, k + 1):
        v *= Fraction(4 * nu * nu - (2 * j - 1) ** 2, 8 * j)
    return v


_I_SERIES_MAX = 25.0
# I_nu(x) = (x/2)^nu sum_k t^k / (k! (k + nu)!),  t = x^2/4; 60 terms reach 1e-30 at t = 156
_I_SERIES = tuple(
    tuple(1 / (math.factorial(k) * math.factorial(k + nu)) for k in range(60)) for nu in (0, 1)
)
# e^{-x} I_nu(x) sqrt(2 pi x) ~ sum_k (-1)^k a_k(nu) x^{-k}; 30 terms: below 1e-18 at x = 25
_I_ASYM = tuple(tuple(float((-1) ** k * _hankel_a(nu, k)) for k in range(30)) for nu in (0, 1))
# Hankel: P = sum_k (-1)^k a_{2k} x^{-2k}, Q = sum_k (-1)^k a_{2k+1} x^{-2k}/x; from x = 26
_HANKEL_P = tuple(
    tuple(float((-1) ** k * _hankel_a(nu, 2 * k)) for k in range(20)) for nu in (0, 1)
)
_HANKEL_Q = tuple(
    tuple(float((-1) ** k * _hankel_a(nu, 2 * k + 1)) for k in range(20)) for nu in (0, 1)
)
# e^x K_nu(x) ~ sqrt(pi/(2x)) sum_k a_k(nu) x^{-k}; 30 terms: below 1e-18 at x = 26
_K_ASYM = tuple(tuple(float(_hankel_a(nu, k)) for k in range(30)) for nu in (0, 1))

# p_1 = a x + first for each family (p_0 = 1); the shifted forms are these at 2x - 1
_POLY_FIRST = {
    "chebyshev_t": (1, 0),
    "chebyshev_u": (2, 0),
    "chebyshev_v": (2, -1),
    "chebyshev_w": (2, 1),
    "hermite_h": (2, 0),
    "hermite_he": (1, 0),
    "laguerre_l": (-1, 1),
    "legendre_p": (1, 0),
}

# 50 digits of pi and of Euler's gamma, for the 80-digit references
_PI_50 = "3.14159265358979323846264338327950288419716939937511"
_GAMMA_50 = "0.57721566490153286060651209008240243104215933593992"


def _bessel_ref(kind, nu, x):
    r""":math:`J_\nu`, :math:`Y_\nu` or :math:`e^x K_\nu` (``kind`` ``"J"``, ``"Y"``,
    ``"Ke"``; :math:`\nu` 0 or 1) at :math:`x > 0` in 80-digit decimal arithmetic: the
    power series, and for Y and K the logarithmic series of ``_bessel_log_series`` (their
    cancellation, up to about 1e22 at :math:`x = 26`, stays far below 80 digits)."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 80
        xd, pi, gamma = Decimal(x), Decimal(_PI_50), Decimal(_GAMMA_50)
        t, half = xd * xd / 4, xd / 2
        sign = 1 if kind == "Ke" else -1
        term = Decimal(1) / math.factorial(nu)  # (sign t)^k / (k! (k + nu)!)
        reg = ser = h = Decimal(0)  # h: the harmonic number H_k
        k = 0
        while k < 10 or abs(term) > Decimal(10) ** -70:
            h_next = h + Decimal(1) / (k + 1)
            reg += term
            ser += term * (h if nu == 0 else h + h_next - 2 * gamma)
            k += 1
            term = term * sign * t / (k * (k + nu))
            h = h_next
        reg *= half**nu
        if kind == "J":
            return float(reg)
        log = half.ln()
        if kind == "Y":
            v = (
                2 / pi * ((log + gamma) * reg - ser)
                if nu == 0
                else 2 / pi * log * reg - 2 / (pi * xd) - half / pi * ser
            )
            return float(v)
        v = ser - (log + gamma) * reg if nu == 0 else 1 / xd + log * reg - xd / 4 * ser
        return float(v * xd.exp())


def _cheb_coefs(f, lo, hi, n):
    r"""The :math:`n` Chebyshev coefficients (first kind) of the interpolant of ``f`` on
    ``[lo, hi]`` at the Chebyshev nodes. The angles :math:`\pi j (2k + 1) / (2n)` are
    reduced exactly (an integer modulo :math:`4n`) before the cosine: rounding them as
    floats would cost about :math:`10 j` ulp in :math:`c_j`."""
    cos = [math.cos(math.pi * m / (2 * n)) for m in range(4 * n)]
    vals = [f(lo + (hi - lo) * (cos[2 * k + 1] + 1) / 2) for k in range(n)]
    c = [
        2 / n * math.fsum(v * cos[j * (2 * k + 1) % (4 * n)] for k, v in enumerate(vals))
        for j in range(n)
    ]
    c[0] /= 2
    return tuple(c)


def _clenshaw(xp, s, c):
    r""":math:`\sum_j c_j T_j(s)` by Clenshaw's recurrence (error about
    :math:`\epsilon \sum_j |c_j|`, which for these pieces is the size of the value)."""
    b1 = xp.zeros_like(s)
    b2 = xp.zeros_like(s)
    s2 = 2 * s
    for a in c[:0:-1]:
        b1, b2 = s2 * b1 - b2 + a, b1
    return s * b1 - b2 + c[0]


def _harmonic(k):
    return math.fsum(1 / j for j in range(1, k + 1))


# Below x = 2 (t = x^2/4 <= 1, 20 terms): the power series of J_nu, and the weights
# (sign^k w_k / (k! (k + nu)!)) of the logarithmic series of Y_nu (sign -1) and K_nu (+1)
_J_SERIES = tuple(
    tuple((-1) ** k / (math.factorial(k) * math.factorial(k + nu)) for k in range(20))
    for nu in (0, 1)
)
_LOG_SERIES = {
    (kind, nu): tuple(
        sign**k
        * (_harmonic(k) if nu == 0 else _harmonic(k) + _harmonic(k + 1) - 2 * _EULER_GAMMA)
        / (math.factorial(k) * math.factorial(k + nu))
        for k in range(20)
    )
    for kind, sign in (("Y", -1), ("K", 1))
    for nu in (0, 1)
}
# [2, 26): 6 Chebyshev pieces of width 4, 26 coefficients each (the last below 1e-20)
_CHEB_LO, _CHEB_WIDTH, _CHEB_HI = 2.0, 4.0, 26.0


@functools.cache
def _bessel_cheb(kind, nu):
    """The Chebyshev pieces of one function, fitted on its first use (about 20 ms, so
    importing Lucid does not pay for all six)."""
    return tuple(
        _cheb_coefs(lambda v: _bessel_ref(kind, nu, v), lo, lo + _CHEB_WIDTH, 26)
        for lo in (2.0, 6.0, 10.0, 14.0, 18.0, 22.0)
    )


# Airy Ai: the Maclaurin series Ai = c1 f - c2 g (c1 = Ai(0), c2 = -Ai'(0), 50 digits) as the
# 80-digit reference of 16 Chebyshev pieces of width 5/4 on [-10, 10) (e^zeta Ai from 5/2 on);
# u_k = (2k + 1)(2k + 3)...(6k - 1) / (216^k k!) for the asymptotic expansions beyond
_AIRY_C1 = "0.35502805388781723926006318600418317639797917419918"
_AIRY_C2 = "0.25881940379280679840518356018920396347909113835493"
_AIRY_HI, _AIRY_WIDTH, _AIRY_SCALED = 10.0, 1.25, 2.5


def _airy_u(k):
    v = Fraction(1, 216**k * math.factorial(k))
    for j in range(2 * k + 1, 6 * k, 2):
        v *= j
    return v


_AIRY_U_ALT = tuple(float((-1) ** k * _airy_u(k)) for k in range(40))
_AIRY_P = tuple(float((-1) ** k * _airy_u(2 * k)) for k in range(20))  # x <= -10
_AIRY_Q = tuple(float((-1) ** k * _airy_u(2 * k + 1)) for k in range(20))


def _airy_ref(x):
    r""":math:`\mathrm{Ai}(x)` (times :math:`e^{\zeta}` past 5/2) in 80-digit decimal
    arithmetic; the series' cancellation (about 1e20 at :math:`x = 10`) stays far below."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 80
        xd = Decimal(x)
        x3 = xd**3
        a, b = Decimal(1), xd
        f, g = a, b
        k = 0
        while k < 10 or abs(a) + abs(b) > Decimal(10) ** -75:
            k += 1
            a = a * x3 / ((3 * k - 1) * (3 * k))
            b = b * x3 / ((3 * k) * (3 * k + 1))
            f += a
            g += b
        v = Decimal(_AIRY_C1) * f - Decimal(_AIRY_C2) * g
        if x > _AIRY_SCALED:
            v *= (2 * xd * xd.sqrt() / 3).exp()
        return float(v)


@functools.cache
def _airy_cheb():
    """The 16 Chebyshev pieces of Ai, fitted on first use."""
    return tuple(
        _cheb_coefs(_airy_ref, lo, lo + _AIRY_WIDTH, 26)
        for lo in (-_AIRY_HI + _AIRY_WIDTH * k for k in range(16))
    )
