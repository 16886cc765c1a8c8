r"""Convolution on the GPU: im2col and col2im as single kernels around cuBLAS GEMMs.

The generic kernels (:mod:`lucid.backend.array.conv`) build columns with one strided copy
per kernel element (plus zeroing of the wrapped edges) and add them back one kernel
element at a time; on CuPy each of those is a launch with tens of microseconds of host
time. Here a convolution is at most two kernel launches and one cuBLAS call a direction,
in the generic code's layouts:

- ``im2col``: one thread per column element writes
  :math:`\mathrm{col}_{n,c,k,o} = x_{n,c,\,o s + k d - lo}` (zero outside ``x``), in the
  layout ``(N, C, *K, *O)`` or channels-first ``(C, *K, N, *O)``; the forward is one
  batched GEMM of the weight ``(G, C_out/G, C_g K)`` with the per-sample columns
  ``(N, G, C_g K, P)`` (a 1x1, stride-1, unpadded kernel multiplies ``x`` itself), the
  bias added in place by a second kernel.
- ``col2im``: one thread per image element gathers the column elements that land on it,
  :math:`x_{n,c,i} = \sum_{k:\ (i + lo - k d) / s = o \in [0, O)} \mathrm{col}_{n,c,k,o}`,
  summed in ``A`` (float32 for half types): no atomics, no zeroing. The input gradient is
  the transposed batched GEMM followed by it.
- The weight gradient is one GEMM per group, :math:`g^\top` ``(G, C_out/G, N P)`` times
  the channels-first columns ``(G, C_g K, N P)`` transposed (cuBLAS reads the transposed
  view as it lies); :math:`g^\top`, the swap of ``g``'s first two axes, is the same
  im2col kernel with a unit kernel.

Spatial dims are padded to three (leading dims of extent 1); indices are 32-bit where
every array has fewer than :math:`2^{31}` elements, else 64-bit. Non-contiguous inputs are
copied once; other dtypes, empty arrays and non-contiguous columns (col2im of a broadcast)
go to the generic kernels, as does every call while ``_FAST`` is off.

Where cuDNN is installed and enabled, the three directions of float32, float16 and bfloat16
convolutions go to cuDNN's graphs first (:mod:`.cudnn`); a call it does not take runs the
kernels here (the bias is always added by ``conv_bias``).
"""

import math

import numpy as np

from ..array.conv import _out_size
from . import cudnn
from .kernels import CTYPES, blocks, empty, geometry, kernel as compiled
from .norm import channel_sum

_FAST = True  # False sends every call to the generic array kernels

_SOURCE = r"""
// The window geometry, three spatial dims: extent s, kernel k, output o, stride t, leading
// padding l, dilation d (a window element reads input position o t + k d - l).
#define LUCID_GEO long long s0, long long s1, long long s2, long long k0, long long k1, \
    long long k2, long long o0, long long o1, long long o2, long long t0, long long t1, \
    long long t2, long long l0, long long l1, long long l2, long long d0, long long d1, \
    long long d2
#define LUCID_GEO_ARGS s0, s1, s2, k0, k1, k2, o0, o1, o2, t0, t1, t2, l0, l1, l2, d0, d1, d2

template <typename I>
struct Geo {
    I s[3], k[3], o[3], t[3], l[3], d[3];
    __device__ Geo(LUCID_GEO)
        : s{(I)s0, (I)s1, (I)s2}, k{(I)k0, (I)k1, (I)k2}, o{(I)o0, (I)o1, (I)o2},
          t{(I)t0, (I)t1, (I)t2}, l{(I)l0, (I)l1, (I)l2}, d{(I)d0, (I)d1, (I)d2} {}
};

// col[i] of layout (N, C, K0, K1, K2, O0, O1, O2), or (C, K0, K1, K2, N, O0, O1, O2)
// where cf, from x (N, C, S0, S1, S2).
template <typename I>
__device__ __forceinline__ void im2col_at(const T* __restrict__ x, T* __restrict__ col,
                                          I i, I nb, I c, const Geo<I>& g, int cf) {
    I r = i, q[3], j[3], n = 0;
#pragma unroll
    for (int a = 2; a >= 0; --a) { q[a] = r % g.o[a]; r /= g.o[a]; }
    if (cf) { n = r % nb; r /= nb; }
#pragma unroll
    for (int a = 2; a >= 0; --a) { j[a] = r % g.k[a]; r /= g.k[a]; }
    I src = cf ? n * c + r : r;            // the (n, c) plane
    bool in = true;
#pragma unroll
    for (int a = 0; a < 3; ++a) {
        I p = q[a] * g.t[a] + j[a] * g.d[a] - g.l[a];
        in = in && p >= 0 && p < g.s[a];
        src = src * g.s[a] + p;
    }
    col[i] = in ? x[src] : T(0.0f);
}

// Whether kernel element j of dim a lands on input position q: 1 with its output
// position in u, 0 if not, -1 if neither it nor any later element does.
template <typename I>
__device__ __forceinline__ int tap(const Geo<I>& g, int a, I q, I j, I& u) {
    I v = q + g.l[a] - j * g.d[a];         // = u t
    if (v < 0) return -1;
    u = v / g.t[a];
    return v == u * g.t[a] && u < g.o[a];
}

// x[i] of (N, C, S0, S1, S2): the sum of the column elements of col (N, C, *K, *O) at it.
template <typename I>
__device__ __forceinline__ void col2im_at(const T* __restrict__ col, T* __restrict__ x,
                                          I i, const Geo<I>& g) {
    I r = i, q[3], u[3];
#pragma unroll
    for (int a = 2; a >= 0; --a) { q[a] = r % g.s[a]; r /= g.s[a]; }
    I on = g.o[0] * g.o[1] * g.o[2];
    const T* src = col + r * (g.k[0] * g.k[1] * g.k[2]) * on;
    A acc = A(0);
    for (I j0 = 0; j0 < g.k[0]; ++j0) {
        int h0 = tap(g, 0, q[0], j0, u[0]);
        if (h0 < 0) break;
        if (!h0) continue;
        for (I j1 = 0; j1 < g.k[1]; ++j1) {
            int h1 = tap(g, 1, q[1], j1, u[1]);
            if (h1 < 0) break;
            if (!h1) continue;
            for (I j2 = 0; j2 < g.k[2]; ++j2) {
                int h2 = tap(g, 2, q[2], j2, u[2]);
                if (h2 < 0) break;
                if (!h2) continue;
                acc += static_cast<A>(src[((j0 * g.k[1] + j1) * g.k[2] + j2) * on +
                                          (u[0] * g.o[1] + u[1]) * g.o[2] + u[2]]);
            }
        }
    }
    x[i] = T(acc);
}

#define LUCID_ENTRY(NAME, I) \
extern "C" __global__ void NAME##_im2col(const T* x, T* col, long long total, long long nb, \
                                         long long c, LUCID_GEO, int cf) { \
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; \
    if (i < total) im2col_at<I>(x, col, (I)i, (I)nb, (I)c, Geo<I>(LUCID_GEO_ARGS), cf); \
} \
extern "C" __global__ void NAME##_col2im(const T* col, T* x, long long total, LUCID_GEO) { \
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; \
    if (i < total) col2im_at<I>(col, x, (I)i, Geo<I>(LUCID_GEO_ARGS)); \
}
LUCID_ENTRY(i32, int)
LUCID_ENTRY(i64, long long)

// y (N, C, P) += b (C), in place.
extern "C" __global__ void conv_bias(T* y, const T* b, long long total, long long c,
                                     long long p) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) y[i] = T(static_cast<A>(y[i]) + static_cast<A>(b[(i / p) % c]));
}
"""

_THREADS = 256


def _geometry(spatial, kernel, out, stride, padding, dilation):
    """The kernels' 18 geometry arguments: extents, kernel, output, stride, leading
    padding, dilation, three each (leading dims of extent 1 for 1-d and 2-d)."""
    return geometry(
        (
            tuple(spatial),
            tuple(kernel),
            tuple(out),
            tuple(stride),
            tuple(lo for lo, _ in padding),
            tuple(dilation),
        ),
        (1, 1, 1, 1, 0, 1),
    )


def _launch(what, dtype, total, largest, args):
    """Kernel ``what`` (``im2col``/``col2im``) over ``total`` threads, 64-bit indices where
    an array reaches :math:`2^{31}` elements (``largest``)."""
    name = ("i64_" if largest >= 2**31 else "i32_") + what
    compiled(_SOURCE, name, dtype)(
        blocks(total, _THREADS), (_THREADS,), (*args[:2], np.int64(total), *args[2:])
    )


def _fits(*arrays):
    """Whether the kernels take ``arrays`` (None skipped): non-empty, one float dtype."""
    a = arrays[0]
    return (
        _FAST
        and a.dtype in CTYPES
        and all(t is None or t.dtype == a.dtype and t.size for t in arrays)
    )


def _identity(spatial, kernel, out, stride, padding):
    """Whether the columns are the image itself (a 1x1, stride-1, unpadded kernel)."""
    return tuple(out) == tuple(spatial) and all(
        k == 1 and s == 1 and lo == 0 for k, s, (lo, _) in zip(kernel, stride, padding)
    )


def _by_group(a, lead, groups, tail):
    """``a`` reshaped to ``lead + (groups,) + tail``, without the groups axis where there
    is one group: a matrix beside a stack of them goes to cuBLAS as it is (batch stride 0),
    with no broadcast view to build."""
    return a.reshape(lead + (groups,) + tail if groups > 1 else lead + tail)


class CudaConv:
    """Convolution, im2col and col2im through the kernels of this module."""

    def _im2col_kernel(self, x, kernel, out, stride, padding, dilation, channels_first):
        """The columns of C-contiguous ``x``: ``(N, C, *K, *O)``, or ``(C, *K, N, *O)``
        where ``channels_first``."""
        nb, c = x.shape[:2]
        kernel, out = tuple(kernel), tuple(out)
        shape = (c,) + kernel + (nb,) + out if channels_first else (nb, c) + kernel + out
        col = empty(shape, x.dtype)
        _launch(
            "im2col",
            x.dtype,
            col.size,
            max(col.size, x.size),
            (
                x,
                col,
                np.int64(nb),
                np.int64(c),
                *_geometry(x.shape[2:], kernel, out, stride, padding, dilation),
                np.int32(channels_first),
            ),
        )
        return col

    def _col2im_kernel(self, col, in_spatial, stride, padding, dilation):
        n = len(in_spatial)
        kernel, out = col.shape[2 : 2 + n], col.shape[2 + n :]
        x = empty(col.shape[:2] + tuple(in_spatial), col.dtype)
        _launch(
            "col2im",
            col.dtype,
            x.size,
            max(col.size, x.size),
            (col, x, *_geometry(in_spatial, kernel, out, stride, padding, dilation)),
        )
        return x

    def _swap01(self, a):
        """``a`` with its first two axes swapped, C-contiguous (im2col of a unit kernel)."""
        n = a.ndim - 2
        return self._im2col_kernel(
            a, (1,) * n, a.shape[2:], (1,) * n, ((0, 0),) * n, (1,) * n, True
        ).reshape((a.shape[1], a.shape[0]) + a.shape[2:])

    def im2col(self, x, kernel, stride, padding, dilation):
        out = _out_size(x.shape[2:], kernel, stride, padding, dilation)
        if not _fits(x) or min(out) <= 0:
            return super().im2col(x, kernel, stride, padding, dilation)
        return self._im2col_kernel(
            self.xp.ascontiguousarray(x), kernel, out, stride, padding, dilation, False
        )

    def col2im(self, col, in_spatial, stride, padding, dilation):
        if not _fits(col) or not col.flags.c_contiguous or not math.prod(in_spatial):
            return super().col2im(col, in_spatial, stride, padding, dilation)
        return self._col2im_kernel(col, in_spatial, stride, padding, dilation)

    def channel_sum(self, g):
        """One reduction kernel (:func:`.norm.channel_sum`) instead of CuPy's two."""
        if not _fits(g) or g.ndim < 2:
            return super().channel_sum(g)
        return channel_sum(self.xp.ascontiguousarray(g))

    def conv_forward(self, x, w, b, stride, padding, dilation, groups):
        kernel = w.shape[2:]
        out = _out_size(x.shape[2:], kernel, stride, padding, dilation)
        if not _fits(x, w, b) or min(out) <= 0:
            return super().conv_forward(x, w, b, stride, padding, dilation, groups)
        y = cudnn.conv_forward(x, w, out, stride, padding, dilation)
        if y is None:
            y = self._conv_forward_gemm(x, w, kernel, out, stride, padding, dilation, groups)
        if b is not None:
            compiled(_SOURCE, "conv_bias", y.dtype)(
                blocks(y.size, _THREADS),
                (_THREADS,),
                (
                    y,
                    self.xp.ascontiguousarray(b),
                    np.int64(y.size),
                    np.int64(y.shape[1]),
                    np.int64(math.prod(out)),
                ),
            )
        return y

    def _conv_forward_gemm(self, x, w, kernel, out, stride, padding, dilation, groups):
        """im2col and one batched GEMM (module doc), ``(N, C_out, *O)`` without the bias."""
        x = self.xp.ascontiguousarray(x)
        n = x.shape[0]
        co, cg = w.shape[:2]
        ck, p = cg * math.prod(kernel), math.prod(out)
        col = (
            x
            if _identity(x.shape[2:], kernel, out, stride, padding)
            else self._im2col_kernel(x, kernel, out, stride, padding, dilation, False)
        )
        y = self.matmul(
            _by_group(w, (), groups, (co // groups, ck)), _by_group(col, (n,), groups, (ck, p))
        )
        return y.reshape((n, co) + tuple(out))

    def conv_backward_input(self, g, w, in_spatial, stride, padding, dilation, groups):
        if not _fits(g, w) or not math.prod(in_spatial):
            return super().conv_backward_input(g, w, in_spatial, stride, padding, dilation, groups)
        got = cudnn.conv_backward_input(g, w, in_spatial, stride, padding, dilation, groups)
        if got is not None:
            return got
        n, co = g.shape[:2]
        out = g.shape[2:]
        cg = w.shape[1]
        kernel = w.shape[2:]
        ck = cg * math.prod(kernel)
        wt = self.xp.swapaxes(_by_group(w, (), groups, (co // groups, ck)), -1, -2)
        col = self.matmul(wt, _by_group(g, (n,), groups, (co // groups, math.prod(out))))
        col = col.reshape((n, cg * groups) + tuple(kernel) + tuple(out))
        if _identity(in_spatial, kernel, out, stride, padding):
            return col.reshape((n, cg * groups) + tuple(in_spatial))
        return self._col2im_kernel(col, in_spatial, stride, padding, dilation)

    def conv_backward_weight(self, g, x, kernel, stride, padding, dilation, groups):
        if not _fits(g, x):
            return super().conv_backward_weight(g, x, kernel, stride, padding, dilation, groups)
        got = cudnn.conv_backward_weight(g, x, kernel, stride, padding, dilation, groups)
        if got is not None:
            return got
        co = g.shape[1]
        cg = x.shape[1] // groups
        ck, m = cg * math.prod(kernel), g.shape[0] * math.prod(g.shape[2:])
        col = self._im2col_kernel(
            self.xp.ascontiguousarray(x), kernel, g.shape[2:], stride, padding, dilation, True
        )
        g = self.xp.ascontiguousarray(g)
        gt = g if g.shape[0] == 1 else self._swap01(g)  # (C_out, N, *O)
        gw = self.matmul(
            _by_group(gt, (), groups, (co // groups, m)),
            self.xp.swapaxes(_by_group(col, (), groups, (ck, m)), -1, -2),
        )
        return gw.reshape((co, cg) + tuple(kernel))
