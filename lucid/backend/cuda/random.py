r"""Counter-based random numbers (Philox4x32-10) on the GPU.

A generator is a :class:`PhiloxState`: a 64-bit key (the seed) and a 64-bit counter
``offset``, as PyTorch's CUDA generator. One Philox call maps the 128-bit counter
:math:`(c_0, c_1, c_2, c_3)` and the key :math:`(k_0, k_1)` to four uint32 words through
ten rounds of

.. math:: (c_0, c_1, c_2, c_3) \leftarrow (h_1 \oplus c_1 \oplus k_0,\ l_1,\
          h_0 \oplus c_3 \oplus k_1,\ l_0), \quad (h_0, l_0) = M_0 c_0,\ (h_1, l_1) = M_1 c_2

(high and low halves of the 64-bit products), bumping the key by the Weyl constants
:math:`(W_0, W_1)` between rounds (Salmon et al., SC'11). A draw of :math:`m` Philox blocks
uses the counters :math:`(o + t, 0)` for :math:`t < m` (:math:`c_0 c_1` the 64-bit
:math:`o + t`, :math:`c_2 = c_3 = 0`) and advances the offset :math:`o` by :math:`m`, so a
saved (seed, offset) replays every later draw exactly. Thread :math:`t` of a kernel makes
block :math:`t`: four values from single words for float32 and the half types, two from
64-bit word pairs :math:`w_{2j} + 2^{32} w_{2j+1}` for float64 and the integer kernels.
Samplers that need a varying number of words per element (Poisson) give element :math:`i`
the counters :math:`(o + i, j)`, :math:`j = 0, 1, \ldots`, and claim one offset each.

Uniforms from a :math:`B`-bit word :math:`w` (32, or 64 for float64):
:math:`u = \lfloor w / 2^{B-b} \rfloor 2^{-b}` on the :math:`b`-bit grid of the output
(24, 53, 11 for float16, 8 for bfloat16; so :math:`u < 1` after rounding), and, where a
logarithm or a tangent needs :math:`(0, 1)`, the open
:math:`u^\circ = (2\lfloor w / 2^{B+1-b}\rfloor + 1)\,2^{-b}` with :math:`b` = 24 or 53
(the other samplers compute in float32 for the half types). Normals by Box-Muller on word
pairs, :math:`z = \sqrt{-2 \ln u^\circ_1}\,(\cos, \sin)(2\pi u_2)`; integers on
:math:`[l, l + r)` as :math:`l + \lfloor x r / 2^{64} \rfloor` (64-bit :math:`x`, bias
below :math:`r / 2^{64}`). The numbers are not the CPU generator's, only their
distributions.

Dropout is counter-based too: :meth:`CudaRandom.dropout_forward` keeps element :math:`i`
when its word :math:`w_i \ge \mathrm{round}(p\, 2^{32})` and returns the
:class:`DropoutKey` (seed, offset, threshold, scale) instead of a mask;
:meth:`CudaRandom.dropout_backward` recomputes the same keep bits from it.
"""

import math

import cupy
import numpy as np

from . import graphs
from .kernels import CTYPES, blocks, kernel

PHILOX = r"""
#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u
#define LUCID_PI 3.14159265358979323846

// kinds of philox_float (the Python constants mirror them)
#define K_UNIFORM 0
#define K_NORMAL 1
#define K_LOG_NORMAL 2
#define K_EXPONENTIAL 3
#define K_CAUCHY 4
#define K_BERNOULLI 5
// kinds of philox_int
#define K_RANDINT 0
#define K_GEOMETRIC 1

// Philox4x32-10 of the counter (ctr, sub, 0) under the 64-bit key.
__device__ __forceinline__ uint4 philox(unsigned long long ctr, unsigned int sub,
                                        unsigned long long key) {
    unsigned int c0 = (unsigned int)ctr, c1 = (unsigned int)(ctr >> 32), c2 = sub, c3 = 0u;
    unsigned int k0 = (unsigned int)key, k1 = (unsigned int)(key >> 32);
#pragma unroll
    for (int r = 0; r < 10; ++r) {
        unsigned int h0 = __umulhi(PHILOX_M0, c0), l0 = PHILOX_M0 * c0;
        unsigned int h1 = __umulhi(PHILOX_M1, c2), l1 = PHILOX_M1 * c2;
        c0 = h1 ^ c1 ^ k0;
        c1 = l1;
        c2 = h0 ^ c3 ^ k1;
        c3 = l0;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    return make_uint4(c0, c1, c2, c3);
}

__device__ __forceinline__ unsigned long long pack(unsigned int lo, unsigned int hi) {
    return ((unsigned long long)hi << 32) | lo;
}

// u on the bits-bit grid of [0, 1), and the open u in (0, 1): 32-bit words give float,
// 64-bit words double
__device__ __forceinline__ float grid(unsigned int w, int bits) {
    return ldexpf((float)(w >> (32 - bits)), -bits);
}
__device__ __forceinline__ double grid(unsigned long long w, int bits) {
    return ldexp((double)(w >> (64 - bits)), -bits);
}
__device__ __forceinline__ float open01(unsigned int w) {
    return (float)(w >> 9) * 0x1p-23f + 0x1p-24f;
}
__device__ __forceinline__ double open01(unsigned long long w) {
    return (double)(w >> 12) * 0x1p-52 + 0x1p-53;
}
__device__ __forceinline__ void sincos_pi(float x, float* s, float* c) { sincospif(x, s, c); }
__device__ __forceinline__ void sincos_pi(double x, double* s, double* c) { sincospi(x, s, c); }

// one sample of a single-uniform kind from raw word w (F: float or double)
template <typename W, typename F>
__device__ __forceinline__ F single(int kind, W w, int bits, F a, F b) {
    const int full = 8 * (int)sizeof(W) == 32 ? 24 : 53;
    switch (kind) {
    case K_UNIFORM: return a + grid(w, bits) * b;
    case K_EXPONENTIAL: return -log(open01(w)) / a;
    case K_CAUCHY: {
        F s, c;
        sincos_pi(open01(w) - (F)0.5, &s, &c);
        return a + b * (s / c);
    }
    default: return grid(w, full) < a ? (F)1 : (F)0;          // K_BERNOULLI
    }
}

// the samples of one Philox block: m values from words w (m = 4 of 32 bits, or 2 of 64)
template <typename W, typename F, int M>
__device__ __forceinline__ void block_values(const W* w, int kind, int bits, F a, F b, F* v) {
    if (kind == K_NORMAL || kind == K_LOG_NORMAL) {
#pragma unroll
        for (int j = 0; j < M; j += 2) {
            F rad = sqrt((F)-2 * log(open01(w[j])));
            F s, c;
            sincos_pi((F)2 * grid(w[j + 1], 8 * (int)sizeof(W) == 32 ? 24 : 53), &s, &c);
            v[j] = a + b * rad * c;
            v[j + 1] = a + b * rad * s;
            if (kind == K_LOG_NORMAL) {
                v[j] = exp(v[j]);
                v[j + 1] = exp(v[j + 1]);
            }
        }
        return;
    }
#pragma unroll
    for (int j = 0; j < M; ++j) v[j] = single(kind, w[j], bits, a, b);
}

// out[i] for i < n: float samples of `kind` (a, b: see CudaRandom._floats)
extern "C" __global__ void philox_float(T* out, long long n, unsigned long long key,
                                        unsigned long long offset, int kind, int bits,
                                        A a, A b) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    constexpr int M = sizeof(A) == 8 ? 2 : 4;
    long long i0 = t * M;
    if (i0 >= n) return;
    uint4 q = philox(offset + (unsigned long long)t, 0u, key);
    A v[M];
    if constexpr (M == 2) {
        unsigned long long w[2] = {pack(q.x, q.y), pack(q.z, q.w)};
        block_values<unsigned long long, A, 2>(w, kind, bits, a, b, v);
    } else {
        unsigned int w[4] = {q.x, q.y, q.z, q.w};
        block_values<unsigned int, A, 4>(w, kind, bits, a, b, v);
    }
#pragma unroll
    for (int j = 0; j < M; ++j)
        if (i0 + j < n) out[i0 + j] = T(v[j]);
}

// out[i] for i < n from 64-bit words x: low + floor(x range / 2**64) (range 0: 2**64), or
// the geometric ceil(ln u / ln(1 - p)) >= 1 with logq = ln(1 - p)
extern "C" __global__ void philox_int(long long* out, long long n, unsigned long long key,
                                      unsigned long long offset, int kind, long long low,
                                      unsigned long long range, double logq) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long i0 = 2 * t;
    if (i0 >= n) return;
    uint4 q = philox(offset + (unsigned long long)t, 0u, key);
    unsigned long long w[2] = {pack(q.x, q.y), pack(q.z, q.w)};
#pragma unroll
    for (int j = 0; j < 2; ++j) {
        if (i0 + j >= n) break;
        if (kind == K_RANDINT) {
            unsigned long long r = range ? __umul64hi(w[j], range) : w[j];
            out[i0 + j] = (long long)((unsigned long long)low + r);
        } else {
            double k = ceil(log(open01(w[j])) / logq);
            out[i0 + j] = (long long)fmin(fmax(k, 1.0), 9.2e18);
        }
    }
}

// y = x * (w_i >= threshold ? scale : 0): dropout's forward and (on g) its backward;
// a thread's four elements move as one aligned vector where they can
struct alignas(4 * sizeof(T)) Quad { T v[4]; };
extern "C" __global__ void philox_dropout(const T* x, T* y, long long n,
                                          unsigned long long key, unsigned long long offset,
                                          unsigned int threshold, A scale) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long i0 = 4 * t;
    if (i0 >= n) return;
    uint4 q = philox(offset + (unsigned long long)t, 0u, key);
    unsigned int w[4] = {q.x, q.y, q.z, q.w};
    if (i0 + 4 <= n && !(((unsigned long long)x | (unsigned long long)y) % sizeof(Quad))) {
        Quad v = reinterpret_cast<const Quad*>(x)[t];     // one 4-element load and store
#pragma unroll
        for (int j = 0; j < 4; ++j)
            v.v[j] = T(static_cast<A>(v.v[j]) * (w[j] >= threshold ? scale : (A)0));
        reinterpret_cast<Quad*>(y)[t] = v;
        return;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j)
        if (i0 + j < n)
            y[i0 + j] = T(static_cast<A>(x[i0 + j]) * (w[j] >= threshold ? scale : (A)0));
}

// the 53-bit uniforms of one element's own counters (ctr, 0), (ctr, 1), ...
struct Substream {
    unsigned long long ctr, key;
    unsigned int sub, used;
    uint4 q;
    __device__ double next() {
        if (used == 2) {
            q = philox(ctr, sub++, key);
            used = 0;
        }
        unsigned long long w = used++ ? pack(q.z, q.w) : pack(q.x, q.y);
        return grid(w, 53);
    }
};

// Poisson(lam): multiplication of uniforms below 10, else Hormann's transformed
// rejection (PTRS, 1993)
__device__ double poisson_one(double lam, Substream& s) {
    if (lam < 10.0) {
        double limit = exp(-lam), prod = s.next();
        double k = 0.0;
        while (prod > limit) {
            prod *= s.next();
            k += 1.0;
        }
        return k;
    }
    double slam = sqrt(lam), loglam = log(lam);
    double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    double alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
    for (;;) {
        double u = s.next() - 0.5, v = s.next();
        double us = 0.5 - fabs(u);
        double k = floor((2.0 * a / us + b) * u + lam + 0.43);
        if (us >= 0.07 && v <= vr) return k;
        if (k < 0.0 || (us < 0.013 && v > us)) continue;
        if (log(v) + log(alpha) - log(a / (us * us) + b) <= -lam + k * loglam - lgamma(k + 1.0))
            return k;
    }
}

extern "C" __global__ void philox_poisson(const T* rates, T* out, long long n,
                                          unsigned long long key, unsigned long long offset) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Substream s{offset + (unsigned long long)i, key, 0u, 2u, make_uint4(0u, 0u, 0u, 0u)};
    out[i] = T((A)poisson_one((double)static_cast<A>(rates[i]), s));
}

// out[r, j]: the first category c of row r with cdf[r, c] > u (u uniform, cdf rows
// non-decreasing and ending in 1), k samples per row
extern "C" __global__ void philox_categorical(const double* cdf, long long* out,
                                              long long rows, long long n, long long k,
                                              unsigned long long key,
                                              unsigned long long offset) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long i0 = 2 * t, total = rows * k;
    if (i0 >= total) return;
    uint4 q = philox(offset + (unsigned long long)t, 0u, key);
    unsigned long long w[2] = {pack(q.x, q.y), pack(q.z, q.w)};
#pragma unroll
    for (int j = 0; j < 2; ++j) {
        long long i = i0 + j;
        if (i >= total) break;
        const double* c = cdf + (i / k) * n;
        double u = grid(w[j], 53);
        long long lo = 0, hi = n - 1;
        while (lo < hi) {
            long long mid = lo + (hi - lo) / 2;
            if (c[mid] > u) hi = mid; else lo = mid + 1;
        }
        out[i] = lo;
    }
}
"""

_U64 = (1 << 64) - 1
_THREADS = 256
_FLOAT, _INT = "philox_float", "philox_int"
_UNIFORM, _NORMAL, _LOG_NORMAL, _EXPONENTIAL, _CAUCHY, _BERNOULLI = range(6)
_RANDINT, _GEOMETRIC = range(2)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_BITS = {_F64: 53, _F32: 24, np.dtype(np.float16): 11}  # bfloat16: 8 (the default)


class PhiloxState:
    """The CUDA generator object: the key ``seed`` and the next unused counter ``offset``
    (both in [0, 2**64))."""

    __slots__ = ("seed", "offset")

    def __init__(self, seed, offset=0):
        self.seed = seed & _U64
        self.offset = offset & _U64

    def claim(self, count):
        """``(key, first counter)`` as NumPy uint64 for ``count`` Philox blocks; the
        offset moves past them (not inside a CUDA graph capture: a replay would draw the
        same numbers again)."""
        graphs.refuse(
            "a random op",
            "the generator's counter moves on the host, so every "
            "replay would draw the captured numbers again",
        )
        off = self.offset
        self.offset = (off + count) & _U64
        return np.uint64(self.seed), np.uint64(off)


class DropoutKey:
    """What regenerates a counter-based dropout mask: the Philox key and first counter of
    the forward's draw, the keep threshold on the 32-bit words and the scale
    :math:`1 / (1 - p)` (0 for :math:`p = 1`)."""

    __slots__ = ("seed", "offset", "threshold", "scale")

    def __init__(self, rng, n, p):
        self.seed, self.offset = rng.claim(-(-n // 4))
        self.threshold = np.uint32(0 if p >= 1 else min(round(p * 2.0**32), _U64 >> 32))
        self.scale = 0.0 if p >= 1 else 1.0 / (1.0 - p)


def _kernel_dtype(npdtype):
    """``(output dtype, dtype the float kernel writes)``: the output's own float dtype,
    float32 for any other."""
    dt = np.dtype(npdtype)
    return dt, (dt if dt in CTYPES else _F32)


def _scalar(dt):
    """The NumPy type of the kernels' ``A`` parameters for arrays of ``dt``."""
    return np.float64 if dt == _F64 else np.float32


class CudaRandom:
    """The random kernels over :class:`PhiloxState` generators (CuPy has no PCG64), and
    dropout that keeps its key instead of a mask."""

    # -- generator objects ------------------------------------------------------------

    def rng_create(self, seed):
        return PhiloxState(seed)

    def rng_get_state(self, rng):
        """16 bytes: the seed and the offset, little-endian uint64."""
        return rng.seed.to_bytes(8, "little") + rng.offset.to_bytes(8, "little")

    def rng_set_state(self, rng, state):
        if len(state) != 16:
            raise ValueError(
                f"expected a Philox state of 16 bytes (seed, offset), got {len(state)}"
            )
        rng.seed = int.from_bytes(state[:8], "little")
        rng.offset = int.from_bytes(state[8:], "little")

    # -- launchers --------------------------------------------------------------------

    def _floats(self, rng, shape, kind, dt, a=0.0, b=1.0):
        """Samples of ``kind`` in float dtype ``dt``: uniform ``a + b u``, normal
        ``a + b z``, log-normal ``exp(a + b z)``, exponential with rate ``a``, Cauchy
        ``a + b tan(pi (u - 1/2))``, Bernoulli(``a``) as 0/1."""
        with self._device:
            out = cupy.empty(shape, dt)
            n = out.size
            if n:
                per = 2 if dt == _F64 else 4
                count = -(-n // per)
                key, off = rng.claim(count)
                acc = _scalar(dt)
                kernel(PHILOX, _FLOAT, dt)(
                    blocks(count, _THREADS),
                    (_THREADS,),
                    (
                        out,
                        np.int64(n),
                        key,
                        off,
                        np.int32(kind),
                        np.int32(_BITS.get(dt, 8)),
                        acc(a),
                        acc(b),
                    ),
                )
        return out

    def _ints(self, rng, shape, kind, low=0, span=0, logq=0.0):
        """int64 samples from 64-bit words: ``low + floor(x span / 2**64)`` (``span`` 0:
        the whole word), or geometric with ``logq`` = ln(1 - p)."""
        with self._device:
            out = cupy.empty(shape, np.int64)
            n = out.size
            if n:
                count = -(-n // 2)
                key, off = rng.claim(count)
                kernel(PHILOX, _INT, _F32)(
                    blocks(count, _THREADS),
                    (_THREADS,),
                    (
                        out,
                        np.int64(n),
                        key,
                        off,
                        np.int32(kind),
                        np.int64(low),
                        np.uint64(span),
                        np.float64(logq),
                    ),
                )
        return out

    # -- samplers ---------------------------------------------------------------------

    def uniform(self, rng, shape, low, high, npdtype):
        dt, kdt = _kernel_dtype(npdtype)
        return self._floats(rng, shape, _UNIFORM, kdt, low, high - low).astype(dt, copy=False)

    def normal(self, rng, shape, mean, std, npdtype):
        dt, kdt = _kernel_dtype(npdtype)
        nd = cupy.ndarray
        if not isinstance(mean, nd) and not isinstance(std, nd):
            return self._floats(rng, shape, _NORMAL, kdt, mean, std).astype(dt, copy=False)
        cdt = _F64 if dt == _F64 else _F32
        z = self._floats(rng, shape, _NORMAL, cdt)
        if isinstance(std, nd):
            std = std.astype(cdt, copy=False)
        if isinstance(mean, nd):
            mean = mean.astype(cdt, copy=False)
        return (z * std + mean).astype(dt, copy=False)

    def log_normal(self, rng, shape, mean, std, npdtype):
        dt, kdt = _kernel_dtype(npdtype)
        return self._floats(rng, shape, _LOG_NORMAL, kdt, mean, std).astype(dt, copy=False)

    def exponential(self, rng, shape, lambd, npdtype):
        dt, kdt = _kernel_dtype(npdtype)
        return self._floats(rng, shape, _EXPONENTIAL, kdt, lambd).astype(dt, copy=False)

    def cauchy(self, rng, shape, median, sigma, npdtype):
        dt, kdt = _kernel_dtype(npdtype)
        return self._floats(rng, shape, _CAUCHY, kdt, median, sigma).astype(dt, copy=False)

    def bernoulli(self, rng, shape, p, npdtype):
        dt, kdt = _kernel_dtype(npdtype)
        if isinstance(p, cupy.ndarray):
            u = self._floats(rng, shape, _UNIFORM, _F64)
            return (u < p.astype(_F64, copy=False)).astype(dt, copy=False)
        return self._floats(rng, shape, _BERNOULLI, kdt, p).astype(dt, copy=False)

    def randint(self, rng, shape, low, high, npdtype):
        return self._ints(rng, shape, _RANDINT, low, (high - low) & _U64).astype(
            npdtype, copy=False
        )

    def geometric(self, rng, shape, p, npdtype):
        logq = math.log1p(-p) if p < 1 else -math.inf
        return self._ints(rng, shape, _GEOMETRIC, logq=logq).astype(npdtype, copy=False)

    def permutation(self, rng, n, npdtype):
        """The order of ``n`` random 64-bit keys (ties, of probability about
        :math:`n^2 / 2^{65}`, keep index order)."""
        keys = self._ints(rng, (n,), _RANDINT)
        with self._device:
            order = cupy.argsort(keys) if n else cupy.empty(0, np.int64)
        return order.astype(npdtype, copy=False)

    def poisson(self, rng, rates, npdtype):
        dt = rates.dtype if rates.dtype in CTYPES else _F64
        with self._device:
            lam = cupy.ascontiguousarray(rates.astype(dt, copy=False))
            out = cupy.empty(rates.shape, dt)
            n = out.size
            if n:
                key, off = rng.claim(n)
                kernel(PHILOX, "philox_poisson", dt)(
                    blocks(n, _THREADS), (_THREADS,), (lam, out, np.int64(n), key, off)
                )
        return out.astype(npdtype, copy=False)

    def multinomial(self, rng, probs, num_samples, replacement):
        p = probs.astype(_F64)
        rows, n = p.shape
        if not replacement:
            e = self._floats(rng, (rows, n), _EXPONENTIAL, _F64, 1.0)
            with self._device:
                pos = p > 0
                keys = cupy.where(pos, e / cupy.where(pos, p, 1.0), cupy.inf)
                return cupy.argsort(keys, axis=1)[:, :num_samples].astype(np.int64)
        with self._device:
            cdf = cupy.ascontiguousarray(cupy.cumsum(p, axis=1))
            cdf /= cdf[:, -1:]  # exactly 1 from the last positive weight on
            out = cupy.empty((rows, num_samples), np.int64)
            count = -(-out.size // 2)
            if count:
                key, off = rng.claim(count)
                kernel(PHILOX, "philox_categorical", _F32)(
                    blocks(count, _THREADS),
                    (_THREADS,),
                    (cdf, out, np.int64(rows), np.int64(n), np.int64(num_samples), key, off),
                )
        return out

    # -- dropout ----------------------------------------------------------------------

    def _dropout_keep(self, rng, shape, p, cdt):
        return self._floats(rng, shape, _BERNOULLI, cdt, 1.0 - p)

    def _dropout_apply(self, a, key):
        """``a * keep * scale`` with the keep bits of ``key`` (``a`` C-ordered)."""
        with self._device:
            src = cupy.ascontiguousarray(a)
            out = cupy.empty(a.shape, a.dtype)
            n = out.size
            if n:
                count = -(-n // 4)
                kernel(PHILOX, "philox_dropout", a.dtype)(
                    blocks(count, _THREADS),
                    (_THREADS,),
                    (
                        src,
                        out,
                        np.int64(n),
                        key.seed,
                        key.offset,
                        key.threshold,
                        _scalar(a.dtype)(key.scale),
                    ),
                )
        return out

    def dropout_forward(self, rng, x, p, noise_shape):
        """Element-wise dropout of a float array in one kernel, returning its
        :class:`DropoutKey`; channel-wise noise (a small mask) the generic way."""
        if tuple(noise_shape) != x.shape or x.dtype not in CTYPES:
            return super().dropout_forward(rng, x, p, noise_shape)
        key = DropoutKey(rng, x.size, p)
        return self._dropout_apply(x, key), key

    def dropout_backward(self, g, key):
        if not isinstance(key, DropoutKey):
            return super().dropout_backward(g, key)
        return self._dropout_apply(g, key)
