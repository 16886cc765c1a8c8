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
for 256 columns into float partials, which a ``sum`` over the chunks finishes. Other
layouts use the generic kernels, but for batch and instance norm (below).

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

from .kernels import ACCUMULATE, CTYPES, blocks, kernel
from .softmax import ROWS, row_launch

_FAST_CHANNEL = True   # False sends every batch and instance norm call to the generic kernels

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
"""

_SOURCE = ROWS + _NORM
_COLS = 256            # columns per block of the affine-gradient kernel
_TARGET_BLOCKS = 1024  # about how many blocks that kernel launches (over the row chunks)


def _rows(x, axes, *params):
    """``(N, D)`` when ``axes`` are ``x``'s trailing dims and every array of ``params``
    (None allowed) has ``x``'s dtype and the normalised shape (with leading ones), else
    None."""
    k = len(axes)
    if x.dtype not in CTYPES or not x.size or not k or \
            tuple(axes) != tuple(range(x.ndim - k, x.ndim)):
        return None
    tail = x.shape[x.ndim - k:]
    for p in params:
        if p is not None and (p.dtype != x.dtype or p.shape[p.ndim - k:] != tail or
                              p.size != int(np.prod(tail))):
            return None
    d = int(np.prod(tail))
    return x.size // d, d


def _flat(a):
    """``a`` as a flat C-contiguous array, or a null pointer for None (CuPy passes None
    to a raw kernel as an invalid address, not NULL)."""
    return np.uint64(0) if a is None else cupy.ascontiguousarray(a).reshape(-1)


def _acc(dtype):
    """The statistics' dtype: float64 for float64, float32 otherwise."""
    return np.dtype(np.float64 if ACCUMULATE[dtype] == "double" else np.float32)


class CudaNorm:
    """Layer and RMS norm forward and backward as row kernels (the generic kernels for
    every other layout)."""

    def norm_forward(self, x, axes, center, w, b, eps):
        nd = _rows(x, axes, w, b)
        if nd is None:
            return super().norm_forward(x, axes, center, w, b, eps)
        rows, d = nd
        acc = _acc(x.dtype)
        stat = x.shape[:x.ndim - len(axes)] + (1,) * len(axes)
        xc = cupy.ascontiguousarray(x)
        y = cupy.empty(x.shape, x.dtype)
        mean = cupy.empty(stat, acc) if center else None
        rstd = cupy.empty(stat, acc)
        grid, block, lanes = row_launch(rows, d)
        kernel(_SOURCE, "norm_fwd", x.dtype)(
            grid, block, (xc, _flat(w), _flat(b), y, _flat(mean), rstd, np.int64(rows),
                          np.int64(d), np.float64(eps), np.int32(lanes)))
        return y, mean, rstd

    def norm_backward(self, g, x, w, mean, rstd, axes, paxes, eps, stats_grad, need):
        nd = _rows(x, axes, w)
        k = len(axes)
        if nd is None or not stats_grad or tuple(paxes) != tuple(range(x.ndim - k)) or \
                g.shape != x.shape or g.dtype != x.dtype or rstd.dtype != _acc(x.dtype) or \
                (mean is not None and mean.dtype != rstd.dtype):
            return super().norm_backward(g, x, w, mean, rstd, axes, paxes, eps, stats_grad,
                                         need)
        rows, d = nd
        gc, xc = cupy.ascontiguousarray(g), cupy.ascontiguousarray(x)
        mu, r = _flat(mean), _flat(rstd)
        gx = gw = gb = None
        if need[0]:
            gx = cupy.empty(x.shape, x.dtype)
            grid, block, lanes = row_launch(rows, d)
            kernel(_SOURCE, "norm_bwd_x", x.dtype)(
                grid, block, (gc, xc, _flat(w), mu, r, gx, np.int64(rows), np.int64(d),
                              np.int32(lanes)))
        want_w, want_b = w is not None and need[1], need[2]
        if want_w or want_b:
            cols = (d + _COLS - 1) // _COLS
            chunks = max(1, min(rows, _TARGET_BLOCKS // cols))
            chunk = (rows + chunks - 1) // chunks
            chunks = (rows + chunk - 1) // chunk
            pw = cupy.empty((chunks, d), r.dtype) if want_w else None
            pb = cupy.empty((chunks, d), r.dtype) if want_b else None
            kernel(_SOURCE, "norm_bwd_w", x.dtype)(
                (cols, chunks), (_COLS,), (gc, xc, mu, r, _flat(pw), _flat(pb), np.int64(rows),
                                           np.int64(d), np.int64(chunk)))
            pshape = w.shape if w is not None else (1,) * (x.ndim - k) + x.shape[x.ndim - k:]
            if want_w:
                gw = pw.sum(axis=0).astype(x.dtype, copy=False).reshape(pshape)
            if want_b:
                gb = pb.sum(axis=0).astype(x.dtype, copy=False).reshape(pshape)
        return gx, gw, gb
