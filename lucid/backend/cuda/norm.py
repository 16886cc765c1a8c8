r"""Fused layer-norm and RMS-norm kernels on the ``(N, D)`` row view (statistics over the
trailing dims of a C-contiguous input, affine parameters over the leading ones).

Forward, one kernel (a row per warp or block, as the softmax kernels): two passes over
the row in ``A`` (float32 for half types) for

.. math:: \mu = \tfrac1D \textstyle\sum x, \quad \sigma^2 = \tfrac1D \sum (x - \mu)^2
          \ (\text{RMS: } \tfrac1D \sum x^2), \quad r = (\sigma^2 + \epsilon)^{-1/2},
          \quad y = (x - \mu)\, r\, w + b

and the row's :math:`\mu`, :math:`r` stored in ``A``. Backward: one row kernel for

.. math:: g_x = r\big(\hat g - \overline{\hat g} - \hat x\,\overline{\hat g \hat x}\big),
          \quad \hat x = (x - \mu) r, \ \hat g = g w

(no :math:`\overline{\hat g}` for RMS), and one column kernel for
:math:`g_w = \sum_n g \hat x`, :math:`g_b = \sum_n g`: each block sums a chunk of rows
for 256 columns into float partials, which a second column kernel sums over the chunks. Batch and
instance norm have kernels of their own (below); other layouts use the generic kernels.

Batch and instance norm (statistics per channel, or per sample and channel, of a
C-contiguous ``(N, C, *)`` input viewed as ``(N C, S)``): a statistics group is a channel
(``N`` runs of ``S`` elements, ``C S`` apart) or a row. ``chan_stats`` reduces a group per
block, two passes over its elements (a block per chunk of a large group, whose chunk
means :math:`m_p` and :math:`M_p = \sum (x - m_p)^2` over :math:`n_p` elements
``chan_stats_combine`` merges exactly: :math:`\mu = \sum n_p m_p / n`,
:math:`n \sigma^2 = \sum M_p + n_p (m_p - \mu)^2`); ``chan_normalize`` writes
:math:`y` (and :math:`r`) with the batch or the running statistics; ``chan_running``
lerps the running ones. Backward: ``chan_bwd_sums`` takes a group's :math:`\sum g` and
:math:`\sum g \hat x` (the affine gradients), ``chan_bwd_x`` writes
:math:`g_x = r w (g - \bar g - \hat x\, \overline{g \hat x})` (:math:`r w g` with
running statistics).
"""

import math

import cupy
import numpy as np

from .kernels import ACCUMULATE, CTYPES, NULL, blocks, empty, kernel, ptr_arg
from .softmax import ROWS, row_launch

_FAST_CHANNEL = True  # False sends every batch and instance norm call to the generic kernels

_PARTS = r"""
// A thread per item g of n: a[g] = sum over the parts of pa[part n + g], and b from pb
// (a null pair is skipped); the sums are written in O.
template <typename O>
__device__ void sum_parts(const A* pa, const A* pb, O* a, O* b, long long n,
                          long long parts) {
    long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n) return;
    A u = A(0), v = A(0);
    for (long long p = 0; p < parts; ++p) {
        if (pa) u += pa[p * n + g];
        if (pb) v += pb[p * n + g];
    }
    if (a) a[g] = O(u);
    if (b) b[g] = O(v);
}
"""

_NORM = r"""
extern "C" __global__ void norm_fwd(const T* x, const T* w, const T* b, T* y, A* mean,
                                    A* rstd, long long rows, long long d, double eps,
                                    int lanes) {
    RowPos p(rows, lanes);
    bool center = mean != nullptr;         // layer norm; RMS norm passes no mean
    const T* xr = x + p.r * d;
    A mu = A(0);
    if (center) {
        if (p.ok) for (long long i = p.lane; i < d; i += lanes) mu += static_cast<A>(xr[i]);
        mu = row_reduce<false>(mu, lanes) / A(d);
    }
    A ss = A(0);
    if (p.ok) for (long long i = p.lane; i < d; i += lanes) {
        A c = static_cast<A>(xr[i]) - mu;
        ss += c * c;
    }
    ss = row_reduce<false>(ss, lanes) / A(d);
    if (!p.ok) return;
    A r = A(1) / sqrt(ss + A(eps));
    if (p.lane == 0) {
        if (center) mean[p.r] = mu;
        rstd[p.r] = r;
    }
    T* yr = y + p.r * d;
    for (long long i = p.lane; i < d; i += lanes) {
        A v = (static_cast<A>(xr[i]) - mu) * r;
        if (w) v *= static_cast<A>(w[i]);
        if (b) v += static_cast<A>(b[i]);
        yr[i] = T(v);
    }
}

extern "C" __global__ void norm_bwd_x(const T* g, const T* x, const T* w, const A* mean,
                                      const A* rstd, T* gx, long long rows, long long d,
                                      int lanes) {
    RowPos p(rows, lanes);
    const T* xr = x + p.r * d;
    const T* gr = g + p.r * d;
    A mu = mean ? mean[p.r] : A(0), r = rstd[p.r];
    A sgh = A(0), sghx = A(0);
    if (p.ok) for (long long i = p.lane; i < d; i += lanes) {
        A gh = static_cast<A>(gr[i]);
        if (w) gh *= static_cast<A>(w[i]);
        sgh += gh;
        sghx += gh * ((static_cast<A>(xr[i]) - mu) * r);
    }
    sghx = row_reduce<false>(sghx, lanes) / A(d);
    sgh = mean ? row_reduce<false>(sgh, lanes) / A(d) : A(0);
    if (!p.ok) return;
    T* out = gx + p.r * d;
    for (long long i = p.lane; i < d; i += lanes) {
        A gh = static_cast<A>(gr[i]);
        if (w) gh *= static_cast<A>(w[i]);
        A xh = (static_cast<A>(xr[i]) - mu) * r;
        out[i] = T(r * (gh - xh * sghx - sgh));
    }
}

// Block (blockIdx.x, blockIdx.y): columns 256 blockIdx.x + threadIdx.x, rows
// [chunk blockIdx.y, chunk (blockIdx.y + 1)); partials at [blockIdx.y, column].
extern "C" __global__ void norm_bwd_w(const T* g, const T* x, const A* mean, const A* rstd,
                                      A* pw, A* pb, long long rows, long long d,
                                      long long chunk) {
    long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= d) return;
    long long r0 = (long long)blockIdx.y * chunk;
    long long r1 = r0 + chunk < rows ? r0 + chunk : rows;
    A sw = A(0), sb = A(0);
    for (long long r = r0; r < r1; ++r) {
        A gv = static_cast<A>(g[r * d + j]);
        sb += gv;
        if (pw) sw += gv * ((static_cast<A>(x[r * d + j]) - (mean ? mean[r] : A(0))) * rstd[r]);
    }
    if (pw) pw[blockIdx.y * d + j] = sw;
    if (pb) pb[blockIdx.y * d + j] = sb;
}

// Column j: the chunk partials of norm_bwd_w summed into gw[j], gb[j] (null: not wanted).
extern "C" __global__ void norm_bwd_w_sum(const A* pw, const A* pb, T* gw, T* gb,
                                          long long chunks, long long d) {
    sum_parts(pw, pb, gw, gb, d, chunks);
}
"""

_SOURCE = ROWS + _PARTS + _NORM

_CHANNEL = r"""
// x viewed as (N C, S), C-contiguous. A statistics group is a channel c (batch norm:
// N runs of S elements at c S + n C S) or a row (instance norm: its S elements).

// Element i = start, start + step, ... of an (R, S) view with rows of C channels: its
// row, position s and channel row % C, stepped without a division.
struct ChanPos {
    long long i, step, s, row, c, S, C, ds, dr, dc;
    __device__ ChanPos(long long start, long long step_, long long S_, long long C_)
        : i(start), step(step_), S(S_), C(C_) {
        row = i / S; s = i - row * S; c = row % C;
        dr = step / S; ds = step - dr * S; dc = dr % C;
    }
    __device__ void next() {
        i += step;
        s += ds;
        long long carry = s >= S ? 1 : 0;
        s -= carry * S;
        row += dr + carry;
        c += dc + carry;
        if (c >= C) c -= C;
    }
};

// The sum of a group's elements l in [l0, l1) (at xg[(l / S) stride + l % S]) over the
// block's threads, in every thread.
__device__ A chunk_sum(const T* xg, long long l0, long long l1, long long S,
                       long long stride) {
    A s = A(0);
    for (ChanPos p(l0 + threadIdx.x, blockDim.x, S, 1); p.i < l1; p.next())
        s += static_cast<A>(xg[p.row * stride + p.s]);
    return row_reduce<false>(s, (int)blockDim.x);
}

// Block (g, p): group g's elements l in [p chunk, (p + 1) chunk) of its L = M S, at
// x[g S + (l / S) stride + l % S] (blockDim.x a power of two, 32..1024). One part: the
// group's mean and biased variance; several: the chunk's mean and sum of squared
// deviations at [p groups + g], for chan_stats_combine.
extern "C" __global__ void __launch_bounds__(1024)
chan_stats(const T* x, A* mean, A* var, long long groups, long long S, long long stride,
           long long L, long long chunk) {
    long long g = blockIdx.x, l0 = (long long)blockIdx.y * chunk;
    long long l1 = l0 + chunk < L ? l0 + chunk : L;
    int lanes = blockDim.x;
    const T* xg = x + g * S;
    A mu = chunk_sum(xg, l0, l1, S, stride) / A(l1 - l0);
    A s2 = A(0);
    for (ChanPos p(l0 + threadIdx.x, lanes, S, 1); p.i < l1; p.next()) {
        A d = static_cast<A>(xg[p.row * stride + p.s]) - mu;
        s2 += d * d;
    }
    s2 = row_reduce<false>(s2, lanes);
    if (threadIdx.x) return;
    long long k = (long long)blockIdx.y * groups + g;
    mean[k] = mu;
    var[k] = gridDim.y == 1 ? s2 / A(l1 - l0) : s2;
}

// Batch norm's training forward in one launch, for channels of at most _SPREAD
// elements: block c takes its channel's mean and biased variance (two passes, as
// chan_stats), writes mean[c] and rstd[c], updates the running statistics (rmean, rvar
// may be null; the variance unbiased), and normalises the channel, y = (x - mu) r w + b
// (w, b may be null).
extern "C" __global__ void __launch_bounds__(1024)
chan_train_fwd(const T* x, const T* w, const T* b, T* y, A* mean, A* rstd, T* rmean,
               T* rvar, long long C, long long S, long long L, double eps, double keep,
               double m, double unbias) {
    long long c = blockIdx.x, stride = C * S;
    int lanes = blockDim.x;
    const T* xc = x + c * S;
    T* yc = y + c * S;
    A mu = chunk_sum(xc, 0, L, S, stride) / A(L);
    A s2 = A(0);
    for (ChanPos p(threadIdx.x, lanes, S, 1); p.i < L; p.next()) {
        A d = static_cast<A>(xc[p.row * stride + p.s]) - mu;
        s2 += d * d;
    }
    A var = row_reduce<false>(s2, lanes) / A(L);
    A r = A(1) / sqrt(var + A(eps));
    if (threadIdx.x == 0) {
        mean[c] = mu;
        rstd[c] = r;
        if (rmean) rmean[c] = T(A(keep) * static_cast<A>(rmean[c]) + A(m) * mu);
        if (rvar) rvar[c] = T(A(keep) * static_cast<A>(rvar[c]) + A(m) * var * A(unbias));
    }
    A scale = w ? r * static_cast<A>(w[c]) : r, shift = b ? static_cast<A>(b[c]) : A(0);
    for (ChanPos p(threadIdx.x, lanes, S, 1); p.i < L; p.next()) {
        long long o = p.row * stride + p.s;
        yc[o] = T((static_cast<A>(xc[o]) - mu) * scale + shift);
    }
}

// A thread per group: the chunks' (m_p, M_p) of chan_stats merged into the mean and
// the biased variance.
extern "C" __global__ void chan_stats_combine(const A* pm, const A* pv, A* mean, A* var,
                                              long long groups, long long parts,
                                              long long L, long long chunk) {
    long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups) return;
    A mu = A(0);
    for (long long p = 0; p < parts; ++p) {
        long long n = L - p * chunk < chunk ? L - p * chunk : chunk;
        mu += A(n) * pm[p * groups + g];
    }
    mu /= A(L);
    A m2 = A(0);
    for (long long p = 0; p < parts; ++p) {
        long long n = L - p * chunk < chunk ? L - p * chunk : chunk;
        A d = pm[p * groups + g] - mu;
        m2 += pv[p * groups + g] + A(n) * d * d;
    }
    mean[g] = mu;
    var[g] = m2 / A(L);
}

// y = (x - mu) r w + b over n elements, r = (var + eps)^{-1/2} of the element's group
// (its row when per_row, else its channel); mean, w, b may be null. rstd (when given)
// gets the groups' r.
extern "C" __global__ void chan_normalize(const T* x, const A* mean, const A* var,
                                          const T* w, const T* b, T* y, A* rstd,
                                          long long n, long long S, long long C,
                                          int per_row, long long groups, double eps) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long step = (long long)gridDim.x * blockDim.x;
    if (rstd) for (long long k = t; k < groups; k += step) rstd[k] = A(1) / sqrt(var[k] + A(eps));
    for (ChanPos p(t, step, S, C); p.i < n; p.next()) {
        long long k = per_row ? p.row : p.c;
        A v = static_cast<A>(x[p.i]);
        if (mean) v -= mean[k];
        v *= A(1) / sqrt(var[k] + A(eps));
        if (w) v *= static_cast<A>(w[p.c]);
        if (b) v += static_cast<A>(b[p.c]);
        y[p.i] = T(v);
    }
}

// Block (g, p) as chan_stats: the chunk's sum of g and of g xhat, xhat = (x - mu) r
// with the group's mu, r; into sg[k], sgx[k], k = p groups + g.
extern "C" __global__ void __launch_bounds__(1024)
chan_bwd_sums(const T* g, const T* x, const A* mean, const A* rstd, A* sg, A* sgx,
              long long groups, long long S, long long stride, long long L, long long chunk) {
    long long q = blockIdx.x, l0 = (long long)blockIdx.y * chunk;
    long long l1 = l0 + chunk < L ? l0 + chunk : L;
    int lanes = blockDim.x;
    const T* xg = x + q * S;
    const T* gg = g + q * S;
    A mu = mean[q];
    A a = A(0), c = A(0);
    for (ChanPos p(l0 + threadIdx.x, lanes, S, 1); p.i < l1; p.next()) {
        long long o = p.row * stride + p.s;
        A gv = static_cast<A>(gg[o]);
        a += gv;
        c += gv * (static_cast<A>(xg[o]) - mu);
    }
    a = row_reduce<false>(a, lanes);
    c = row_reduce<false>(c, lanes);
    if (threadIdx.x) return;
    long long k = (long long)blockIdx.y * groups + q;
    sg[k] = a;
    sgx[k] = c * rstd[q];
}

// Block (g, p) as chan_stats: the chunk's sum of x into sum[p groups + g] (a
// convolution's bias gradient; the second output is unused).
extern "C" __global__ void __launch_bounds__(1024)
chan_sum(const T* x, A* sum, A* unused, long long groups, long long S, long long stride,
         long long L, long long chunk) {
    long long q = blockIdx.x, l0 = (long long)blockIdx.y * chunk;
    long long l1 = l0 + chunk < L ? l0 + chunk : L;
    A a = chunk_sum(x + q * S, l0, l1, S, stride);
    if (threadIdx.x == 0) sum[(long long)blockIdx.y * groups + q] = a;
}

// A thread per group: the parts of two arrays summed (see sum_parts).
extern "C" __global__ void chan_sum_parts(const A* pa, const A* pb, A* a, A* b,
                                          long long groups, long long parts) {
    sum_parts(pa, pb, a, b, groups, parts);
}

// gx = r w (g - inv (sg + xhat sgx)), xhat = (x - mu) r, with the element's group's
// sums (statistics from x), or gx = r w g (sg null: running statistics); w may be null.
extern "C" __global__ void chan_bwd_x(const T* g, const T* x, const T* w, const A* mean,
                                      const A* rstd, const A* sg, const A* sgx, T* gx,
                                      long long n, long long S, long long C, int per_row,
                                      double inv) {
    long long step = (long long)gridDim.x * blockDim.x;
    for (ChanPos p((long long)blockIdx.x * blockDim.x + threadIdx.x, step, S, C); p.i < n;
         p.next()) {
        long long k = per_row ? p.row : p.c;
        A r = rstd[k];
        A v = static_cast<A>(g[p.i]);
        if (sg) v -= A(inv) * (sg[k] + (static_cast<A>(x[p.i]) - mean[k]) * r * sgx[k]);
        v *= r;
        if (w) v *= static_cast<A>(w[p.c]);
        gx[p.i] = T(v);
    }
}

// A thread per channel c < C: R <- keep R + m s, s the mean over `rows` of the
// statistics at [row C + c] (times unbias for the variance); T is the running arrays'
// type (either may be null).
extern "C" __global__ void chan_running(T* rmean, T* rvar, const A* mean, const A* var,
                                        long long C, long long rows, double keep,
                                        double m, double unbias) {
    long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C) return;
    A sm = A(0), sv = A(0);
    for (long long r = 0; r < rows; ++r) {
        if (rmean) sm += mean[r * C + c];
        if (rvar) sv += var[r * C + c];
    }
    if (rmean) rmean[c] = T(A(keep) * static_cast<A>(rmean[c]) + A(m) * (sm / A(rows)));
    if (rvar)
        rvar[c] = T(A(keep) * static_cast<A>(rvar[c]) + A(m) * (sv / A(rows) * A(unbias)));
}
"""

_CSOURCE = ROWS + _PARTS + _CHANNEL
_COLS = 256  # columns per block of the affine-gradient kernel
_TARGET_BLOCKS = 1024  # about how many blocks that kernel launches (over the row chunks)


def _rows(x, axes, *params):
    """``(N, D)`` when ``axes`` are ``x``'s trailing dims and every array of ``params``
    (None allowed) has ``x``'s dtype and the normalised shape (with leading ones), else
    None."""
    k = len(axes)
    if (
        x.dtype not in CTYPES
        or not x.size
        or not k
        or tuple(axes) != tuple(range(x.ndim - k, x.ndim))
    ):
        return None
    tail = x.shape[x.ndim - k :]
    d = math.prod(tail)
    for p in params:
        if p is not None and (p.dtype != x.dtype or p.shape[p.ndim - k :] != tail or p.size != d):
            return None
    return x.size // d, d


def _acc(dtype):
    """The statistics' dtype: float64 for float64, float32 otherwise."""
    return np.dtype(np.float64 if ACCUMULATE[dtype] == "double" else np.float32)


_TARGET_PARTS = 1024  # about how many blocks a split group reduction launches
_SPREAD = 65536  # a group's elements one block reduces before the group is split
_CAP = 4096  # most blocks of an element-wise launch (grid-stride loops)
_THREADS = 256


def _ncs(x):
    """``(N, C, S)`` of a non-empty C-contiguous float ``x`` of shape ``(N, C, *)`` (the
    batch and instance norm kernels' inputs), else None."""
    if (
        not _FAST_CHANNEL
        or x.dtype not in CTYPES
        or x.ndim < 2
        or not x.size
        or not x.flags.c_contiguous
    ):
        return None
    n, c = x.shape[:2]
    return n, c, x.size // (n * c)


def _per_row(axes, ndim):
    """True for instance norm's statistics axes ``(2, ...)``, False for batch norm's
    ``(0, 2, ...)``, None for others."""
    spatial = tuple(range(2, ndim))
    axes = tuple(axes)
    if axes == (0,) + spatial:
        return False
    return True if spatial and axes == spatial else None


def _stat_rows(x, stat):
    """Whether the statistics ``stat`` are per row ``(N, C, 1, ...)`` (True, N > 1) or per
    channel ``(1, C, 1, ...)`` (False) of ``x``; None for another shape, a non-contiguous
    array or a dtype that does not accumulate as ``x``'s."""
    if stat.dtype not in CTYPES or _acc(stat.dtype) != _acc(x.dtype) or not stat.flags.c_contiguous:
        return None
    tail = (1,) * (x.ndim - 2)
    if stat.shape == (1, x.shape[1]) + tail:
        return False
    return True if stat.shape == x.shape[:2] + tail else None


def _per_channel(x, *params):
    """Whether every array of ``params`` (None allowed) is a C-contiguous ``(1, C, 1, ...)``
    array of ``x``'s dtype."""
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    return all(
        p is None or (p.dtype == x.dtype and p.shape == shape and p.flags.c_contiguous)
        for p in params
    )


def _ptr(a):
    """``a``, or a null pointer for None."""
    return NULL if a is None else a


def _grid(n):
    """The grid of an element-wise (grid-stride) launch over ``n`` elements."""
    return (min(-(-n // _THREADS), _CAP),)


def _lanes(n):
    """The threads of a block reducing ``n`` elements: a power of two from 32 to 1024,
    about 16 elements each."""
    lanes = 32
    while lanes < 1024 and lanes * 16 < n:
        lanes *= 2
    return lanes


def _reduce(name, combine, dtype, ins, groups, s, stride, size, pair=True):
    """The two sums (float arrays of ``groups``; the second None unless ``pair``) of the
    group reduction ``name`` over the arrays ``ins``, each group ``size`` elements in runs
    of ``s`` ``stride`` apart: a block per group, or per chunk of a group past
    :data:`_SPREAD` elements (aiming at about :data:`_TARGET_PARTS` blocks), whose partials
    ``combine`` merges."""
    acc = _acc(dtype)
    parts = max(1, min(-(-_TARGET_PARTS // groups), -(-size // _SPREAD)))
    chunk = -(-size // parts)
    parts = -(-size // chunk)
    lanes = _lanes(chunk)

    def two(n):
        return empty(n, acc), empty(n, acc) if pair else None

    a, b = two(groups)
    dims = (groups, s, stride, size, chunk)
    if parts == 1:
        kernel(_CSOURCE, name, dtype)((groups, 1), (lanes,), ins + (a, _ptr(b)) + dims)
        return a, b
    pa, pb = two(parts * groups)
    kernel(_CSOURCE, name, dtype)((groups, parts), (lanes,), ins + (pa, _ptr(pb)) + dims)
    args = (pa, _ptr(pb), a, _ptr(b), groups, parts)
    if combine == "chan_stats_combine":
        args += (size, chunk)
    kernel(_CSOURCE, combine, dtype)(blocks(groups), (_THREADS,), args)
    return a, b


def channel_sum(g):
    """The per-channel sum of C-contiguous ``g`` (N, C, *S) of a kernel dtype, in its
    dtype: one block per channel (split past :data:`_SPREAD` elements)."""
    n, c = g.shape[:2]
    s = g.size // (n * c)
    return _reduce("chan_sum", "chan_sum_parts", g.dtype, (g,), c, s, c * s, n * s, pair=False)[
        0
    ].astype(g.dtype, copy=False)


class CudaNorm:
    """Layer and RMS norm forward and backward as row kernels, batch and instance norm as
    channel kernels (the generic kernels for every other layout)."""

    def norm_forward(self, x, axes, center, w, b, eps):
        nd = _rows(x, axes, w, b)
        if nd is None:
            return super().norm_forward(x, axes, center, w, b, eps)
        rows, d = nd
        acc = _acc(x.dtype)
        stat = x.shape[: x.ndim - len(axes)] + (1,) * len(axes)
        xc = cupy.ascontiguousarray(x)
        y = empty(x.shape, x.dtype)
        mean = empty(stat, acc) if center else None
        rstd = empty(stat, acc)
        grid, block, lanes = row_launch(rows, d)
        kernel(_SOURCE, "norm_fwd", x.dtype)(
            grid, block, (xc, ptr_arg(w), ptr_arg(b), y, ptr_arg(mean), rstd, rows, d, eps, lanes)
        )
        return y, mean, rstd

    def norm_backward(self, g, x, w, mean, rstd, axes, paxes, eps, stats_grad, need):
        nd = _rows(x, axes, w)
        k = len(axes)
        if (
            nd is None
            or not stats_grad
            or tuple(paxes) != tuple(range(x.ndim - k))
            or g.shape != x.shape
            or g.dtype != x.dtype
            or rstd.dtype != _acc(x.dtype)
            or (mean is not None and mean.dtype != rstd.dtype)
        ):
            return self._channel_backward(g, x, w, mean, rstd, axes, paxes, eps, stats_grad, need)
        rows, d = nd
        gc, xc = cupy.ascontiguousarray(g), cupy.ascontiguousarray(x)
        mu, r = ptr_arg(mean), ptr_arg(rstd)
        gx = gw = gb = None
        if need[0]:
            gx = empty(x.shape, x.dtype)
            grid, block, lanes = row_launch(rows, d)
            kernel(_SOURCE, "norm_bwd_x", x.dtype)(
                grid, block, (gc, xc, ptr_arg(w), mu, r, gx, rows, d, lanes)
            )
        want_w, want_b = w is not None and need[1], need[2]
        if want_w or want_b:
            cols = (d + _COLS - 1) // _COLS
            chunks = max(1, min(rows, _TARGET_BLOCKS // cols))
            chunk = (rows + chunks - 1) // chunks
            chunks = (rows + chunk - 1) // chunk
            pw = empty((chunks, d), r.dtype) if want_w else None
            pb = empty((chunks, d), r.dtype) if want_b else None
            kernel(_SOURCE, "norm_bwd_w", x.dtype)(
                (cols, chunks), (_COLS,), (gc, xc, mu, r, ptr_arg(pw), ptr_arg(pb), rows, d, chunk)
            )
            pshape = w.shape if w is not None else (1,) * (x.ndim - k) + x.shape[x.ndim - k :]
            gw = empty(pshape, x.dtype) if want_w else None
            gb = empty(pshape, x.dtype) if want_b else None
            kernel(_SOURCE, "norm_bwd_w_sum", x.dtype)(
                (cols,), (_COLS,), (ptr_arg(pw), ptr_arg(pb), ptr_arg(gw), ptr_arg(gb), chunks, d)
            )
        return gx, gw, gb

    def norm_moments(self, x, axes, center):
        ncs = _ncs(x)
        per_row = None if ncs is None or not center else _per_row(axes, x.ndim)
        if per_row is None:
            return super().norm_moments(x, axes, center)
        n, c, s = ncs
        groups, runs = (n * c, 1) if per_row else (c, n)
        mean, var = _reduce(
            "chan_stats", "chan_stats_combine", x.dtype, (x,), groups, s, c * s, runs * s
        )
        shape = (n if per_row else 1, c) + (1,) * (x.ndim - 2)
        return mean.reshape(shape), var.reshape(shape)

    def norm_train(self, x, axes, w, b, eps, running_mean, running_var, momentum):
        """Batch norm with channels of up to :data:`_SPREAD` elements: one kernel
        (statistics, running update, normalisation); else the three steps."""
        ncs = _ncs(x)
        if ncs is None or _per_row(axes, x.ndim) is not False or not _per_channel(x, w, b):
            return super().norm_train(x, axes, w, b, eps, running_mean, running_var, momentum)
        n, c, s = ncs
        run = (running_mean, running_var)
        if not 2 <= n * s <= _SPREAD or any(
            r is not None and (r.dtype != x.dtype or r.shape != (c,) or not r.flags.c_contiguous)
            for r in run
        ):
            return super().norm_train(x, axes, w, b, eps, running_mean, running_var, momentum)
        acc = _acc(x.dtype)
        shape = (1, c) + (1,) * (x.ndim - 2)
        y = empty(x.shape, x.dtype)
        mean, rstd = empty(shape, acc), empty(shape, acc)
        size = n * s
        kernel(_CSOURCE, "chan_train_fwd", x.dtype)(
            (c,),
            (_lanes(size),),
            (
                x,
                _ptr(w),
                _ptr(b),
                y,
                mean,
                rstd,
                _ptr(running_mean),
                _ptr(running_var),
                c,
                s,
                size,
                eps,
                1 - momentum,
                momentum,
                size / (size - 1),
            ),
        )
        return y, mean, rstd

    def norm_normalize(self, x, mean, var, w, b, eps):
        ncs = _ncs(x)
        per_row = None if ncs is None or var is None else _stat_rows(x, var)
        if (
            per_row is None
            or not _per_channel(x, w, b)
            or mean is not None
            and (mean.shape != var.shape or _stat_rows(x, mean) is None)
        ):
            return super().norm_normalize(x, mean, var, w, b, eps)
        n, c, s = ncs
        acc = _acc(x.dtype)
        mean = None if mean is None else mean.astype(acc, copy=False)
        var = var.astype(acc, copy=False)
        y = empty(x.shape, x.dtype)
        rstd = empty(var.shape, acc)
        kernel(_CSOURCE, "chan_normalize", x.dtype)(
            _grid(x.size),
            (_THREADS,),
            (x, _ptr(mean), var, _ptr(w), _ptr(b), y, rstd, x.size, s, c, per_row, var.size, eps),
        )
        return y, rstd

    def _channel_backward(self, g, x, w, mean, rstd, axes, paxes, eps, stats_grad, need):
        """Batch and instance norm's ``norm_backward`` (the generic kernel for others)."""
        ncs = _ncs(x)
        kind = None if ncs is None or mean is None else _per_row(axes, x.ndim)
        per_row = None if kind is None else _stat_rows(x, rstd)
        tail = (1,) * (x.ndim - 2)
        if (
            per_row is None
            or rstd.dtype != _acc(x.dtype)
            or mean.shape != rstd.shape
            or _stat_rows(x, mean) is None
            or tuple(paxes) != (0,) + tuple(range(2, x.ndim))
            or stats_grad
            and rstd.shape != (x.shape[0] if kind else 1, x.shape[1]) + tail
            or g.shape != x.shape
            or g.dtype != x.dtype
            or not _per_channel(x, w)
        ):
            return super().norm_backward(g, x, w, mean, rstd, axes, paxes, eps, stats_grad, need)
        n, c, s = ncs
        mean = mean.astype(rstd.dtype, copy=False)
        g = cupy.ascontiguousarray(g)
        groups, runs = (n * c, 1) if per_row else (c, n)
        sg = sgx = None
        if need[1] or need[2] or need[0] and stats_grad:
            sg, sgx = _reduce(
                "chan_bwd_sums",
                "chan_sum_parts",
                x.dtype,
                (g, x, mean, rstd),
                groups,
                s,
                c * s,
                runs * s,
            )
        gx = None
        if need[0]:
            gx = empty(x.shape, x.dtype)
            sums = (sg, sgx) if stats_grad else (None, None)
            kernel(_CSOURCE, "chan_bwd_x", x.dtype)(
                _grid(x.size),
                (_THREADS,),
                (
                    g,
                    x,
                    _ptr(w),
                    mean,
                    rstd,
                    _ptr(sums[0]),
                    _ptr(sums[1]),
                    gx,
                    x.size,
                    s,
                    c,
                    per_row,
                    1 / (runs * s),
                ),
            )
        out = [gx]
        for want, total in ((need[1], sgx), (need[2], sg)):
            if want and per_row:
                total = total.reshape(n, c).sum(axis=0)
            out.append(total.astype(x.dtype, copy=False).reshape((1, c) + tail) if want else None)
        return tuple(out)

    def running_stats_update(self, running_mean, running_var, mean, var, momentum, n):
        run = [a for a in (running_mean, running_var) if a is not None]
        dt = run[0].dtype if run else None
        c = run[0].shape[0] if run and run[0].ndim == 1 else 0
        if (
            not _FAST_CHANNEL
            or n < 2
            or not c
            or dt not in CTYPES
            or mean is None
            or var is None
            or any(a.dtype != dt or a.shape != (c,) or not a.flags.c_contiguous for a in run)
            or any(
                t.dtype != _acc(dt) or t.size != mean.size or not t.flags.c_contiguous
                for t in (mean, var)
            )
            or mean.size % c
        ):
            return super().running_stats_update(running_mean, running_var, mean, var, momentum, n)
        kernel(_CSOURCE, "chan_running", dt)(
            blocks(c),
            (_THREADS,),
            (
                _ptr(running_mean),
                _ptr(running_var),
                mean,
                var,
                c,
                mean.size // c,
                1 - momentum,
                momentum,
                n / (n - 1),
            ),
        )
