r"""Fused softmax and log-softmax kernels: one pass per direction over C-contiguous rows.

A row of length :math:`D` is handled by ``lanes`` threads (a power of two from 32 to
1024, about :math:`D/8`): a warp per row for short rows (several rows per block), a block
per row otherwise. Each thread reduces its strided elements in ``A`` (float32 for half
types), then the lanes combine through warp shuffles and, past a warp, shared memory
(:data:`ROWS`, shared with the norm and loss kernels). Forward:

.. math:: m = \max_j x_j, \quad s = \sum_j e^{x_j - m}, \quad
          y = e^{x - m} / s \ \text{ or } \ y = (x - m') - \ln s'

(log-softmax: :math:`m' = 0` where :math:`m` is infinite, as the generic kernel, so an
all :math:`-\infty` row gives nan in both). Backward: one row sum (:math:`\sum g y` or
:math:`\sum g`) and one element-wise write. Other axes or layouts are moved to a
contiguous last axis first (one copy).
"""

import cupy
import numpy as np

from .kernels import CTYPES, kernel

# Row reductions over ``lanes`` threads (a power of two, 32..1024; blockDim.x == lanes
# when lanes > 32): every thread of the block must call them (rows past the end with the
# identity), and every thread gets the row's result.
ROWS = r"""
#define LUCID_INF __int_as_float(0x7f800000)
template <bool MAX>
__device__ __forceinline__ A rows_op(A a, A b) { return MAX ? (b > a ? b : a) : a + b; }

template <bool MAX>
__device__ A row_reduce(A v, int lanes) {
    for (int o = 16; o > 0; o >>= 1) v = rows_op<MAX>(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (lanes <= 32) return v;
    __shared__ A part[32];
    int w = threadIdx.x >> 5, l = threadIdx.x & 31;
    __syncthreads();                       // an earlier call may still read part
    if (l == 0) part[w] = v;
    __syncthreads();
    v = l < (int)(blockDim.x >> 5) ? part[l] : (MAX ? A(-LUCID_INF) : A(0));
    for (int o = 16; o > 0; o >>= 1) v = rows_op<MAX>(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// This thread's row (ok: it exists) and lane.
struct RowPos {
    long long r; int lane; bool ok;
    __device__ RowPos(long long rows, int lanes) {
        r = (long long)blockIdx.x * (blockDim.x / lanes) + threadIdx.x / lanes;
        lane = threadIdx.x % lanes;
        ok = r < rows;
        if (!ok) r = 0;
    }
};
"""

_SOFTMAX = r"""
extern "C" __global__ void softmax_fwd(const T* x, T* y, long long rows, long long d,
                                       int lanes, int log_mode) {
    RowPos p(rows, lanes);
    const T* xr = x + p.r * d;
    A m = A(-LUCID_INF);
    if (p.ok) for (long long i = p.lane; i < d; i += lanes) {
        A v = static_cast<A>(xr[i]);
        m = v > m ? v : m;
    }
    m = row_reduce<true>(m, lanes);
    if (log_mode && !isfinite(m)) m = A(0);
    A s = A(0);
    if (p.ok) for (long long i = p.lane; i < d; i += lanes) s += exp(static_cast<A>(xr[i]) - m);
    s = row_reduce<false>(s, lanes);
    if (!p.ok) return;
    T* yr = y + p.r * d;
    if (log_mode) {
        A ls = log(s);
        for (long long i = p.lane; i < d; i += lanes)
            yr[i] = T((static_cast<A>(xr[i]) - m) - ls);
    } else {
        for (long long i = p.lane; i < d; i += lanes)
            yr[i] = T(exp(static_cast<A>(xr[i]) - m) / s);
    }
}

extern "C" __global__ void softmax_bwd(const T* y, const T* g, T* gx, long long rows,
                                       long long d, int lanes, int log_mode) {
    RowPos p(rows, lanes);
    const T* yr = y + p.r * d;
    const T* gr = g + p.r * d;
    A s = A(0);
    if (p.ok) for (long long i = p.lane; i < d; i += lanes) {
        A gv = static_cast<A>(gr[i]);
        s += log_mode ? gv : gv * static_cast<A>(yr[i]);
    }
    s = row_reduce<false>(s, lanes);
    if (!p.ok) return;
    T* out = gx + p.r * d;
    for (long long i = p.lane; i < d; i += lanes) {
        A gv = static_cast<A>(gr[i]), yv = static_cast<A>(yr[i]);
        out[i] = T(log_mode ? gv - exp(yv) * s : yv * (gv - s));
    }
}
"""

_SOURCE = ROWS + _SOFTMAX
_ROWS_PER_BLOCK = 8          # warps per block when a warp handles a row


def row_launch(rows, d):
    """``(grid, block, lanes)`` for ``rows`` rows of length ``d`` (see the module doc)."""
    lanes = 32
    while lanes < 1024 and lanes * 8 < d:
        lanes *= 2
    if lanes > 32:
        return (int(rows),), (lanes,), lanes
    per = _ROWS_PER_BLOCK
    return ((int(rows) + per - 1) // per,), (32 * per,), 32


def last_axis(a, axis):
    """``a`` with ``axis`` moved last, C-contiguous (a copy only if it is not already)."""
    return cupy.ascontiguousarray(a if axis in (-1, a.ndim - 1) else cupy.moveaxis(a, axis, -1))


def _restore(out, axis, ndim):
    return out if axis in (-1, ndim - 1) else cupy.moveaxis(out, -1, axis)


def _run(name, arrays, axis, log_mode, dtype):
    """Launch ``name`` on the ``arrays`` seen with ``axis`` last; the result has their
    shape (a view with the axis moved back where it was moved)."""
    ndim = arrays[0].ndim
    rowed = [last_axis(t, axis) for t in arrays]
    d = rowed[0].shape[-1]
    rows = rowed[0].size // d
    out = cupy.empty(rowed[0].shape, dtype)
    grid, block, lanes = row_launch(rows, d)
    kernel(_SOURCE, name, dtype)(grid, block, (*rowed, out, np.int64(rows), np.int64(d),
                                               np.int32(lanes), np.int32(log_mode)))
    return _restore(out, axis, ndim)


def _fits(*arrays):
    """Whether the row kernels take ``arrays``: non-empty, not 0-d, one float dtype and
    shape."""
    a = arrays[0]
    return a.ndim and a.size and a.dtype in CTYPES and all(
        t.dtype == a.dtype and t.shape == a.shape for t in arrays)


class CudaSoftmax:
    """The softmax family's forward and backward as row kernels (0-d and empty arrays go
    to the generic kernels)."""

    def softmax(self, a, axis):
        if not _fits(a):
            return super().softmax(a, axis)
        return _run("softmax_fwd", (a,), axis, 0, a.dtype)

    def log_softmax(self, a, axis):
        if not _fits(a):
            return super().log_softmax(a, axis)
        return _run("softmax_fwd", (a,), axis, 1, a.dtype)

    def softmax_backward(self, out, g, axis):
        if not _fits(out, g):
            return super().softmax_backward(out, g, axis)
        return _run("softmax_bwd", (out, g), axis, 0, g.dtype)

    def log_softmax_backward(self, out, g, axis):
        if not _fits(out, g):
            return super().log_softmax_backward(out, g, axis)
        return _run("softmax_bwd", (out, g), axis, 1, g.dtype)
