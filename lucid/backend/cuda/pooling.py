r"""Max and average pooling as single kernels, one thread per output (forward) or per
input element (backward), over C-contiguous ``(N, C, *S)`` arrays with 1 to 3 spatial
dims (fewer dims run as 3-d with unit dims in front).

Kernel element :math:`k` of output position :math:`o` reads input position
:math:`p = o\,s + k\,d - lo` per dim. Forward, per output, a scan over the kernel
elements in row-major order skipping the padding:

.. math:: y_o = \max_k x_p \ (\text{replace where } x_p > y \text{ or } x_p \ne x_p),
          \qquad y_o = \tfrac{1}{D_o} \textstyle\sum_k x_p

so the first of equal maxima and the last NaN win, and a window of :math:`-\infty` only
keeps kernel element 0 (as the generic scan, whose padding is :math:`-\infty`).
Backward is a gather without atomics: input position :math:`i` visits each kernel
element :math:`k` whose window :math:`o = (i + lo - k d) / s` exists (divisible, in
range) and adds :math:`g_o` where :math:`\mathrm{argmax}_o = k` (max) or
:math:`g_o / D_o` (average), in ``A`` (float32 for half types) in kernel order. The
average-pool divisors and PyTorch's flat max-pool indices are one kernel each too.
Other dtypes (integers), more dims and empty arrays use the generic kernels.
"""

import math

import cupy
import numpy as np

from ..array.conv import _out_size
from .kernels import CTYPES, blocks, empty, geometry, kernel

_FAST = True  # False sends every call to the generic array kernels

# Geometry (per dim j < 3, leading unit dims for fewer): input size S, output size O,
# kernel K, stride st, dilation d, leading padding lo.
_SOURCE = r"""
#define GEO long long S0, long long S1, long long S2, long long O0, long long O1, \
    long long O2, long long K0, long long K1, long long K2, long long st0, long long st1, \
    long long st2, long long d0, long long d1, long long d2, long long lo0, long long lo1, \
    long long lo2
#define GEO_ARGS S0, S1, S2, O0, O1, O2, K0, K1, K2, st0, st1, st2, d0, d1, d2, lo0, lo1, lo2

__device__ __forceinline__ long long thread_index() {
    return (long long)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ long long clamp_ll(long long v, long long hi) {
    return v < 0 ? 0 : (v > hi ? hi : v);
}

// Output element t: plane (n, c) and position (o0, o1, o2).
#define OUTPUT_POSITION(t)                                                      \
    long long o2 = (t) % O2, plane = (t) / O2;                                  \
    long long o1 = plane % O1; plane /= O1;                                     \
    long long o0 = plane % O0; plane /= O0;

// Input element t: plane (n, c) and position (i0, i1, i2).
#define INPUT_POSITION(t)                                                       \
    long long i2 = (t) % S2, plane = (t) / S2;                                  \
    long long i1 = plane % S1; plane /= S1;                                     \
    long long i0 = plane % S0; plane /= S0;

// Loops over the kernel elements (k0, k1, k2) of window (o0, o1, o2) that fall in the
// input, at input position (p0, p1, p2).
#define FOR_WINDOW                                                              \
    for (long long k0 = 0; k0 < K0; ++k0) {                                     \
        long long p0 = o0 * st0 + k0 * d0 - lo0;                                \
        if (p0 < 0 || p0 >= S0) continue;                                       \
        for (long long k1 = 0; k1 < K1; ++k1) {                                 \
            long long p1 = o1 * st1 + k1 * d1 - lo1;                            \
            if (p1 < 0 || p1 >= S1) continue;                                   \
            for (long long k2 = 0; k2 < K2; ++k2) {                             \
                long long p2 = o2 * st2 + k2 * d2 - lo2;                        \
                if (p2 < 0 || p2 >= S2) continue;
#define END_WINDOW }}}

// Loops over the kernel elements (k0, k1, k2) whose window (q0 / st0, q1 / st1,
// q2 / st2) reads input position (i0, i1, i2): q = i + lo - k d, divisible by the
// stride, the quotient in [0, O). q falls as k grows, so a negative q ends its loop.
#define FOR_WINDOWS_OF_INPUT                                                    \
    for (long long k0 = 0; k0 < K0; ++k0) {                                     \
        long long q0 = i0 + lo0 - k0 * d0;                                      \
        if (q0 < 0) break;                                                      \
        if (q0 % st0 || q0 / st0 >= O0) continue;                               \
        for (long long k1 = 0; k1 < K1; ++k1) {                                 \
            long long q1 = i1 + lo1 - k1 * d1;                                  \
            if (q1 < 0) break;                                                  \
            if (q1 % st1 || q1 / st1 >= O1) continue;                           \
            for (long long k2 = 0; k2 < K2; ++k2) {                             \
                long long q2 = i2 + lo2 - k2 * d2;                              \
                if (q2 < 0) break;                                              \
                if (q2 % st2 || q2 / st2 >= O2) continue;                       \
                long long o = (q0 / st0 * O1 + q1 / st1) * O2 + q2 / st2;

template <typename I>
__device__ void max_fwd(const T* x, T* y, I* arg, long long n, GEO) {
    long long t = thread_index();
    if (t >= n) return;
    OUTPUT_POSITION(t)
    const T* xp = x + plane * (S0 * S1 * S2);
    A best = A(-__int_as_float(0x7f800000));
    long long bi = 0;
    FOR_WINDOW
        A v = static_cast<A>(xp[(p0 * S1 + p1) * S2 + p2]);
        if (v > best || v != v) {
            best = v;
            bi = (k0 * K1 + k1) * K2 + k2;
        }
    END_WINDOW
    y[t] = T(best);
    arg[t] = (I)bi;
}

template <typename I>
__device__ void max_idx(const I* arg, long long* idx, long long n, GEO) {
    long long t = thread_index();
    if (t >= n) return;
    OUTPUT_POSITION(t)
    long long k = (long long)arg[t];
    long long k2 = k % K2, k1 = (k / K2) % K1, k0 = k / (K2 * K1);
    long long p0 = clamp_ll(o0 * st0 + k0 * d0 - lo0, S0 - 1);
    long long p1 = clamp_ll(o1 * st1 + k1 * d1 - lo1, S1 - 1);
    long long p2 = clamp_ll(o2 * st2 + k2 * d2 - lo2, S2 - 1);
    idx[t] = (p0 * S1 + p1) * S2 + p2;
}

template <typename I>
__device__ void max_bwd(const T* g, const I* arg, T* gx, long long n, GEO) {
    long long t = thread_index();
    if (t >= n) return;
    INPUT_POSITION(t)
    long long base = plane * (O0 * O1 * O2);
    A acc = A(0);
    FOR_WINDOWS_OF_INPUT
        if ((long long)arg[base + o] == (k0 * K1 + k1) * K2 + k2)
            acc += static_cast<A>(g[base + o]);
    END_WINDOW
    gx[t] = T(acc);
}

#define MAX_ENTRIES(SUFFIX, I)                                                              \
extern "C" __global__ void max_pool_fwd##SUFFIX(const T* x, T* y, I* arg, long long n,     \
                                                GEO) {                                      \
    max_fwd<I>(x, y, arg, n, GEO_ARGS);                                                     \
}                                                                                           \
extern "C" __global__ void max_pool_idx##SUFFIX(const I* arg, long long* idx, long long n, \
                                                GEO) {                                      \
    max_idx<I>(arg, idx, n, GEO_ARGS);                                                      \
}                                                                                           \
extern "C" __global__ void max_pool_bwd##SUFFIX(const T* g, const I* arg, T* gx,           \
                                                long long n, GEO) {                         \
    max_bwd<I>(g, arg, gx, n, GEO_ARGS);                                                    \
}
MAX_ENTRIES(_i8, signed char)
MAX_ENTRIES(_i32, int)

// Divisor of output o (flat over O): div[o] when div is given, else dval.
__device__ __forceinline__ A divisor_of(const double* div, double dval, long long o) {
    return div ? A(div[o]) : A(dval);
}

extern "C" __global__ void avg_pool_fwd(const T* x, T* y, const double* div, long long n,
                                        GEO, double dval) {
    long long t = thread_index();
    if (t >= n) return;
    OUTPUT_POSITION(t)
    const T* xp = x + plane * (S0 * S1 * S2);
    A acc = A(0);
    FOR_WINDOW
        acc += static_cast<A>(xp[(p0 * S1 + p1) * S2 + p2]);
    END_WINDOW
    y[t] = T(acc / divisor_of(div, dval, (o0 * O1 + o1) * O2 + o2));
}

extern "C" __global__ void avg_pool_bwd(const T* g, T* gx, const double* div, long long n,
                                        GEO, double dval) {
    long long t = thread_index();
    if (t >= n) return;
    INPUT_POSITION(t)
    long long base = plane * (O0 * O1 * O2);
    A acc = A(0);
    FOR_WINDOWS_OF_INPUT
        acc += static_cast<A>(g[base + o]) / divisor_of(div, dval, o);
    END_WINDOW
    gx[t] = T(acc);
}

// Divisor of output o: per dim the window [o st - lo, o st - lo + K) clipped to
// [-a, S + b), the counts multiplied in dim order (as doubles: exact).
extern "C" __global__ void pool_divisor(double* div, long long n, GEO, long long a0,
                                        long long a1, long long a2, long long b0,
                                        long long b1, long long b2) {
    long long t = thread_index();
    if (t >= n) return;
    OUTPUT_POSITION(t)
    long long o[3] = {o0, o1, o2}, S[3] = {S0, S1, S2}, K[3] = {K0, K1, K2};
    long long st[3] = {st0, st1, st2}, lo[3] = {lo0, lo1, lo2};
    long long a[3] = {a0, a1, a2}, b[3] = {b0, b1, b2};
    double d = 1.0;
    for (int j = 0; j < 3; ++j) {
        long long start = o[j] * st[j] - lo[j];
        long long end = start + K[j] < S[j] + b[j] ? start + K[j] : S[j] + b[j];
        d *= (double)(end - (start > -a[j] ? start : -a[j]));
    }
    div[t] = d;
}
"""

_THREADS = 256
_ARGMAX = {np.dtype(np.int8): "_i8", np.dtype(np.int32): "_i32"}
_NO_T = np.float32  # the module the kernels without T come from (T unused)


def _dims(kernel, *arrays):
    """Whether the kernels take ``arrays`` (each ``(N, C, *spatial)``, non-empty) for a
    window op of ``len(kernel)`` spatial dims."""
    return (
        _FAST
        and 1 <= len(kernel) <= 3
        and all(a.ndim == 2 + len(kernel) and a.size for a in arrays)
    )


def _geometry(spatial, out, kernel, stride, padding, dilation):
    """The 18 geometry scalars of :data:`_SOURCE`: S, O, K, stride, dilation and leading
    padding, each with unit dims (no padding) in front up to three dims."""
    return geometry(
        (
            tuple(spatial),
            tuple(out),
            tuple(kernel),
            tuple(stride),
            tuple(dilation),
            tuple(p[0] for p in padding),
        ),
        (1, 1, 1, 1, 1, 0),
    )


def _launch(name, dtype, n, arrays, geo, *tail):
    """One launch of kernel ``name`` of ``dtype``'s module over ``n`` threads."""
    kernel(_SOURCE, name, dtype)(
        blocks(n, _THREADS), (_THREADS,), tuple(arrays) + (np.int64(n),) + geo + tail
    )


def _divisor(divisor, out):
    """``(array, number)`` arguments of the average kernels for ``divisor``: a float64
    array of shape ``out`` (and a dummy number), or a number (and a null pointer); None
    for anything else."""
    if not hasattr(divisor, "shape"):
        return np.uint64(0), np.float64(divisor)
    if (
        isinstance(divisor, cupy.ndarray)
        and divisor.dtype == np.float64
        and tuple(divisor.shape) == tuple(out)
    ):
        return cupy.ascontiguousarray(divisor), np.float64(1)
    return None


class CudaPooling:
    """Max pooling (values and argmax, flat indices, gradient), average pooling (forward,
    gradient, divisors) as one kernel each; the generic kernels for everything else."""

    def max_pool(self, x, kernel, stride, padding, dilation):
        out = _out_size(x.shape[2:], kernel, stride, padding, dilation)
        if not (_dims(kernel, x) and x.dtype in CTYPES and min(out) > 0):
            return super().max_pool(x, kernel, stride, padding, dilation)
        adt = np.dtype(np.int8 if math.prod(kernel) < 128 else np.int32)
        y = empty(x.shape[:2] + out, x.dtype)
        arg = empty(y.shape, adt)
        _launch(
            "max_pool_fwd" + _ARGMAX[adt],
            x.dtype,
            y.size,
            (cupy.ascontiguousarray(x), y, arg),
            _geometry(x.shape[2:], out, kernel, stride, padding, dilation),
        )
        return y, arg

    def max_pool_indices(self, argmax, in_spatial, kernel, stride, padding, dilation):
        if not (_dims(kernel, argmax) and argmax.dtype in _ARGMAX and math.prod(in_spatial) > 0):
            return super().max_pool_indices(argmax, in_spatial, kernel, stride, padding, dilation)
        idx = empty(argmax.shape, np.int64)
        _launch(
            "max_pool_idx" + _ARGMAX[argmax.dtype],
            _NO_T,
            idx.size,
            (cupy.ascontiguousarray(argmax), idx),
            _geometry(in_spatial, argmax.shape[2:], kernel, stride, padding, dilation),
        )
        return idx

    def max_pool_backward(self, g, argmax, in_spatial, kernel, stride, padding, dilation):
        if not (
            _dims(kernel, g)
            and g.dtype in CTYPES
            and argmax.dtype in _ARGMAX
            and argmax.shape == g.shape
            and math.prod(in_spatial) > 0
        ):
            return super().max_pool_backward(
                g, argmax, in_spatial, kernel, stride, padding, dilation
            )
        gx = empty(g.shape[:2] + tuple(in_spatial), g.dtype)
        _launch(
            "max_pool_bwd" + _ARGMAX[argmax.dtype],
            g.dtype,
            gx.size,
            (cupy.ascontiguousarray(g), cupy.ascontiguousarray(argmax), gx),
            _geometry(in_spatial, g.shape[2:], kernel, stride, padding, dilation),
        )
        return gx

    def avg_pool(self, x, kernel, stride, padding, divisor):
        ones = (1,) * len(kernel)
        out = _out_size(x.shape[2:], kernel, stride, padding, ones)
        div = _divisor(divisor, out)
        if not (_dims(kernel, x) and x.dtype in CTYPES and min(out) > 0 and div):
            return super().avg_pool(x, kernel, stride, padding, divisor)
        y = empty(x.shape[:2] + out, x.dtype)
        _launch(
            "avg_pool_fwd",
            x.dtype,
            y.size,
            (cupy.ascontiguousarray(x), y, div[0]),
            _geometry(x.shape[2:], out, kernel, stride, padding, ones),
            div[1],
        )
        return y

    def avg_pool_backward(self, g, in_spatial, kernel, stride, padding, divisor):
        ones = (1,) * len(kernel)
        div = _divisor(divisor, g.shape[2:])
        if not (_dims(kernel, g) and g.dtype in CTYPES and math.prod(in_spatial) > 0 and div):
            return super().avg_pool_backward(g, in_spatial, kernel, stride, padding, divisor)
        gx = empty(g.shape[:2] + tuple(in_spatial), g.dtype)
        _launch(
            "avg_pool_bwd",
            g.dtype,
            gx.size,
            (cupy.ascontiguousarray(g), gx, div[0]),
            _geometry(in_spatial, g.shape[2:], kernel, stride, padding, ones),
            div[1],
        )
        return gx

    def pool_divisor(self, in_spatial, out_spatial, kernel, stride, padding, limit):
        n = len(kernel)
        if not (_FAST and 1 <= n <= 3 and math.prod(out_spatial) > 0):
            return super().pool_divisor(in_spatial, out_spatial, kernel, stride, padding, limit)
        div = empty(tuple(out_spatial), np.float64)
        lead = [0] * (3 - n)
        _launch(
            "pool_divisor",
            _NO_T,
            div.size,
            (div,),
            _geometry(in_spatial, out_spatial, kernel, stride, padding, (1,) * n),
            *(np.int64(v) for v in lead + [a for a, _ in limit] + lead + [b for _, b in limit]),
        )
        return div
