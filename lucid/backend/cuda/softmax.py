r"""Fused softmax and log-softmax kernels: one pass per direction over C-contiguous rows.

A row of length :math:`D` is handled by ``lanes`` threads (a power of two from 32 to
1024, about :math:`D/8`): a warp per row for short rows (several rows per block), a block
per row otherwise. Each thread reduces its strided elements in ``A`` (float32 for half
types), reading 16-byte vectors where the rows are 16-byte aligned and their length a
multiple of the vector (``row_apply`` in :data:`ROWS`), then the lanes combine through
warp shuffles and, past a warp, shared memory (:data:`ROWS`, shared with the norm and loss
kernels). Forward, the max and the sum from one read of the row (each lane's running max
and sum of :math:`e^{x - m}`, rescaled when the lanes combine: ``row_lse``):

.. math:: m = \max_j x_j, \quad s = \sum_j e^{x_j - m}, \quad
          y = e^{x - m} / s \ \text{ or } \ y = (x - m') - \ln s'

(log-softmax: :math:`m' = 0` where :math:`m` is infinite, as the generic kernel, so an
all :math:`-\infty` row gives nan in both). Backward: one row sum (:math:`\sum g y` or
:math:`\sum g`) and one element-wise write. Other axes or layouts are moved to a
contiguous last axis first (one copy).
"""

import cupy

from .kernels import CTYPES, empty, kernel

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

// This lane's elements j of a row of c: f(j, a_j, b_j) in A (b_j = 0 unless TWO), written
// to out[j] where OUT. vec: the rows are 16-byte aligned with c % V == 0, read (and written)
// V = 16 / sizeof(T) elements at a time; else one at a time, lanes apart.
template <bool TWO, bool OUT, class F>
__device__ __forceinline__ void row_apply(const T* a, const T* b, T* out, long long c,
                                          int lane, int lanes, int vec, F f) {
    constexpr int V = 16 / sizeof(T);
    struct alignas(16) Vec { T v[V]; };
    if (vec) {
        for (long long i = (long long)lane * V; i < c; i += (long long)lanes * V) {
            const Vec u = *reinterpret_cast<const Vec*>(a + i);
            Vec w, o;
            if (TWO) w = *reinterpret_cast<const Vec*>(b + i);
            #pragma unroll
            for (int k = 0; k < V; ++k)
                o.v[k] = T(f(i + k, static_cast<A>(u.v[k]), TWO ? static_cast<A>(w.v[k]) : A(0)));
            if (OUT) *reinterpret_cast<Vec*>(out + i) = o;
        }
        return;
    }
    for (long long i = lane; i < c; i += lanes) {
        const A r = f(i, static_cast<A>(a[i]), TWO ? static_cast<A>(b[i]) : A(0));
        if (OUT) out[i] = T(r);
    }
}

// The row's max m' and sum of e^{x - m'} over the lanes, from one read: each lane keeps
// its running max m and sum s of e^{x - m}, rescaled to m' when the lanes combine. A max
// that is not finite reads the row again for the sum, about 0 where zero_inf (0 - m' as
// the sum's shift then); NaNs stay in the sum. The values are score(j, x_j).
template <class F>
__device__ __forceinline__ void row_lse(const T* xr, long long c, const RowPos& p, int lanes,
                                        int vec, bool zero_inf, A& mr, A& sr, F score) {
    A m = A(-LUCID_INF), s = A(0);
    if (p.ok) row_apply<false, false>(xr, nullptr, nullptr, c, p.lane, lanes, vec,
                                      [&](long long j, A x, A) {
        const A v = score(j, x);
        if (v > m) {
            s = s * exp(m - v) + A(1);
            m = v;
        } else if (v != A(-LUCID_INF)) {   // (-inf - -inf would be nan)
            s += exp(v - m);
        }
        return A(0);
    });
    mr = row_reduce<true>(m, lanes);
    if (isfinite(mr)) {
        if (m != A(-LUCID_INF)) s *= exp(m - mr);  // (a lane of -infs and nans keeps s)
    } else {
        if (zero_inf) mr = A(0);
        const A shift = mr;
        s = A(0);
        if (p.ok) row_apply<false, false>(xr, nullptr, nullptr, c, p.lane, lanes, vec,
                                          [&](long long j, A x, A) {
            s += exp(score(j, x) - shift);
            return A(0);
        });
    }
    sr = row_reduce<false>(s, lanes);
}

__device__ __forceinline__ void row_lse(const T* xr, long long c, const RowPos& p, int lanes,
                                        int vec, bool zero_inf, A& mr, A& sr) {
    row_lse(xr, c, p, lanes, vec, zero_inf, mr, sr, [](long long, A x) { return x; });
}

// Whether rows of c elements of T, from 16-byte aligned arrays, are 16-byte vectors.
__device__ __forceinline__ int vec_rows(long long c) { return c % (16 / sizeof(T)) == 0; }
"""

_SOFTMAX = r"""
extern "C" __global__ void softmax_fwd(const T* x, T* y, long long rows, long long d,
                                       int lanes, int log_mode, int aligned) {
    RowPos p(rows, lanes);
    const T* xr = x + p.r * d;
    const int vec = aligned && vec_rows(d);
    A m, s;
    row_lse(xr, d, p, lanes, vec, log_mode, m, s);
    if (!p.ok) return;
    const A ls = log(s);
    row_apply<false, true>(xr, nullptr, y + p.r * d, d, p.lane, lanes, vec,
                           [&](long long, A v, A) {
        return log_mode ? (v - m) - ls : exp(v - m) / s;
    });
}

extern "C" __global__ void softmax_bwd(const T* y, const T* g, T* gx, long long rows,
                                       long long d, int lanes, int log_mode, int aligned) {
    RowPos p(rows, lanes);
    const T* yr = y + p.r * d;
    const T* gr = g + p.r * d;
    const int vec = aligned && vec_rows(d);
    A s = A(0);
    if (p.ok) row_apply<true, false>(yr, gr, nullptr, d, p.lane, lanes, vec,
                                     [&](long long, A yv, A gv) {
        s += log_mode ? gv : gv * yv;
        return A(0);
    });
    s = row_reduce<false>(s, lanes);
    if (!p.ok) return;
    row_apply<true, true>(yr, gr, gx + p.r * d, d, p.lane, lanes, vec,
                          [&](long long, A yv, A gv) {
        return log_mode ? gv - exp(yv) * s : yv * (gv - s);
    });
}

// Attention probabilities in place: each row i (of L per matrix) of the scores x becomes
// softmax(scale x) over its keys j < c (c = i + 1 where causal, else d), 0 elsewhere and
// on a row without a finite score. The reads stop at c (rounded up to a vector).
extern "C" __global__ void attn_softmax(T* x, long long rows, long long d, long long L,
                                        A scale, int causal, int lanes, int aligned) {
    constexpr int V = 16 / sizeof(T);
    RowPos p(rows, lanes);
    T* xr = x + p.r * d;
    const int vec = aligned && vec_rows(d);
    const long long c = causal ? min(d, p.r % L + 1) : d;
    const long long span = vec ? min(d, (c + V - 1) / V * V) : c;
    auto score = [=](long long j, A v) { return j < c ? v * scale : A(-LUCID_INF); };
    A m, s;
    row_lse(xr, span, p, lanes, vec, true, m, s, score);
    if (!p.ok) return;
    row_apply<false, true>(xr, nullptr, xr, d, p.lane, lanes, vec, [&](long long j, A v, A) {
        return j < c && s > A(0) ? exp(v * scale - m) / s : A(0);
    });
}
"""

_SOURCE = ROWS + _SOFTMAX
_ROWS_PER_BLOCK = 8  # warps per block when a warp handles a row


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
    out = empty(rowed[0].shape, dtype)
    grid, block, lanes = row_launch(rows, d)
    kernel(_SOURCE, name, dtype)(
        grid, block, (*rowed, out, rows, d, lanes, log_mode, aligned(*rowed))
    )
    return _restore(out, axis, ndim)


def attention_softmax(s, scale, causal):
    r"""``s`` (C-contiguous float32/float64 scores ``(..., L, S)``) replaced in place by
    :math:`\mathrm{softmax}(\text{scale}\cdot s)` along its rows, over the keys
    :math:`j \le i` only where ``causal`` (top-left; the others 0); a row with no finite
    score becomes zeros. One read of each row's keys for the max and the sum, one pass
    writing."""
    d = s.shape[-1]
    rows = s.size // d
    grid, block, lanes = row_launch(rows, d)
    kernel(_SOURCE, "attn_softmax", s.dtype)(
        grid, block, (s, rows, d, s.shape[-2], s.dtype.type(scale), causal, lanes, aligned(s))
    )
    return s


def aligned(*arrays):
    """Whether the row kernels may read ``arrays`` (and write their results) in 16-byte
    vectors: every one 16-byte aligned (the kernels check the row length)."""
    return all(a.data.ptr % 16 == 0 for a in arrays)


def _fits(*arrays):
    """Whether the row kernels take ``arrays``: non-empty, not 0-d, one float dtype and
    shape."""
    a = arrays[0]
    return (
        a.ndim
        and a.size
        and a.dtype in CTYPES
        and all(t.dtype == a.dtype and t.shape == a.shape for t in arrays)
    )


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
