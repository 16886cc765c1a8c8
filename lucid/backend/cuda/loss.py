r"""Fused cross-entropy and activation (GELU, SiLU) kernels.

Cross-entropy works on rows of logits: ``(N, C, d1, ...)`` is seen with the class axis
last (one copy for more than two dims), a row per warp or block as the softmax kernels.
Forward, per row, with :math:`m' = \max_c x_c` (0 if infinite) and :math:`t` the target:

.. math:: \mathrm{lse} = m' + \ln \textstyle\sum_c e^{x_c - m'}, \quad
          \ell = (1 - \varepsilon)\, w_t (\mathrm{lse} - x_t)
          + \tfrac{\varepsilon}{C} \big((\mathrm{lse} - m') \sum_c w_c
          + \sum_c w_c (m' - x_c)\big)

(the smoothing term as two non-negative sums, no cancellation; 0 where ignored). The
log-sum-exp takes one read of the row (each lane's running max and its sum of
:math:`e^{x - m}`, rescaled to :math:`m'` when the lanes combine), the smoothing sums one
more; rows of 16-byte vectors are read a vector at a time. The
backward rebuilds :math:`p = e^{x - \mathrm{lse}}` once per element of a row:
:math:`p \sum_k q_k - q` with :math:`q_c = h [c = t] + \sigma w_c`,
:math:`\sum_k q_k = h + \sigma \sum_c w_c`, :math:`h = (1 - \varepsilon)\, s\, w_t`,
:math:`\sigma = \varepsilon s / C` (0 where ignored), :math:`s` the output gradient
(over :math:`W = \sum_r w_{t_r}` for a mean). The target weights :math:`w_t` (0 where
ignored) and the targets' bounds check (:mod:`.checks`) happen inside the row kernels; a
reduction is one one-block kernel (``ce_sum`` forward, ``ce_scale`` for the backward's
:math:`s` and :math:`\sum_c w_c`), so a step is two launches each way. The activations
are element-wise grid-stride kernels, each
computing in ``A`` (float32 for half types, ``erff``/``tanhf``/``expf``) and writing the
input's dtype.
"""

import cupy
import numpy as np

from ..array.indexing import index_error
from . import checks
from .kernels import ACCUMULATE, CTYPES, blocks, empty, kernel, ptr_arg
from .softmax import ROWS, aligned, last_axis, row_launch

_CE = r"""
// Row r's target t (ignored: class 0) and whether it is ignored. Out-of-range targets
// are clamped into [0, c): the bounds check runs on the device and reports at the next
// host read (lucid/backend/cuda/checks.py), so this kernel must not read past the row.
__device__ __forceinline__ long long ce_target(const long long* target, long long r,
                                               long long ignore, long long c, bool* ign) {
    long long t = target[r];
    *ign = t == ignore;
    return *ign ? 0 : (t < 0 ? 0 : (t >= c ? c - 1 : t));
}

// Row r's loss and lse; wt (if not null) gets the row's weight w_t (0 where ignored), and
// check (lucid/backend/cuda/checks.py) the first target outside [0, c) that is not ignored.
// The log-sum-exp from one read of the row (row_lse; a max that is not finite takes m' =
// 0 and a second read); smoothing's sums over the classes (non-negative terms w_c (m' -
// x_c)) take one more. vec: x is 16-byte aligned.
extern "C" __global__ void ce_fwd(const T* x, const long long* target, const A* weight,
                                  A* loss, A* lse, A* wt, unsigned long long* check,
                                  long long rows, long long c, long long ignore,
                                  double smooth, int lanes, int vec) {
    RowPos p(rows, lanes);
    const T* xr = x + p.r * c;
    vec = vec && vec_rows(c);
    A mr, s;
    row_lse(xr, c, p, lanes, vec, true, mr, s);
    A sw = A(0), swd = A(0);
    if (smooth != 0.0) {
        if (p.ok) row_apply<false, false>(xr, nullptr, nullptr, c, p.lane, lanes, vec,
                                          [&](long long i, A v, A) {
            const A wc = weight ? weight[i] : A(1);
            sw += wc;
            swd += wc * (mr - v);
            return A(0);
        });
        sw = row_reduce<false>(sw, lanes);
        swd = row_reduce<false>(swd, lanes);
    }
    if (!p.ok || p.lane != 0) return;
    A l = mr + log(s);
    bool ign;
    long long t = ce_target(target, p.r, ignore, c, &ign);
    A w = ign ? A(0) : (weight ? weight[t] : A(1));
    A out = (l - static_cast<A>(xr[t])) * w;
    if (smooth != 0.0) {
        A sm = ign ? A(0) : (l - mr) * sw + swd;
        out = (A(1) - A(smooth)) * out + A(smooth / (double)c) * sm;
    }
    loss[p.r] = out;
    lse[p.r] = l;
    if (wt) wt[p.r] = w;
    long long raw = target[p.r];
    if (!ign && (raw < 0 || raw >= c) && atomicCAS(check, 0ull, 1ull) == 0ull)
        check[1] = (unsigned long long)__double_as_longlong((double)raw);
}

// One block: out = sum_r loss_r, over sum_r wt_r for a mean.
extern "C" __global__ void ce_sum(const A* loss, const A* wt, T* out, long long rows,
                                  int mean) {
    A s = A(0), w = A(0);
    for (long long i = threadIdx.x; i < rows; i += blockDim.x) {
        s += loss[i];
        if (mean) w += wt[i];
    }
    s = row_reduce<false>(s, blockDim.x);
    w = row_reduce<false>(w, blockDim.x);
    if (threadIdx.x == 0) out[0] = T(mean ? s / w : s);
}

// One block: out[0] = g / W for a mean (W = sum_r w_t, 0 -> 1: no gradient where every
// row is ignored), else g; out[1] = sum_c w_c (with class weights).
extern "C" __global__ void ce_scale(const long long* target, const A* weight, const T* g,
                                    A* out, long long rows, long long c, long long ignore,
                                    int mean) {
    A w = A(0), ws = A(0);
    if (mean) for (long long r = threadIdx.x; r < rows; r += blockDim.x) {
        bool ign;
        long long t = ce_target(target, r, ignore, c, &ign);
        w += ign ? A(0) : (weight ? weight[t] : A(1));
    }
    if (weight) for (long long i = threadIdx.x; i < c; i += blockDim.x) ws += weight[i];
    w = row_reduce<false>(w, blockDim.x);
    ws = row_reduce<false>(ws, blockDim.x);
    if (threadIdx.x != 0) return;
    A gv = static_cast<A>(g[0]);
    out[0] = mean ? gv / (w + A(w == A(0))) : gv;
    out[1] = ws;
}

// scale: the output gradient per row (per_row) or one value; wsum: sum_c w_c (null: C);
// vec: x is 16-byte aligned (rows of vectors where c allows).
extern "C" __global__ void ce_bwd(const T* x, const A* lse, const long long* target,
                                  const A* weight, const A* scale, const A* wsum, T* gx,
                                  long long rows, long long c, long long ignore,
                                  double smooth, int per_row, int lanes, int vec) {
    RowPos p(rows, lanes);
    if (!p.ok) return;                     // no row reduction here
    bool ign;
    long long t = ce_target(target, p.r, ignore, c, &ign);
    A s = scale[per_row ? p.r : 0];
    A w = ign ? A(0) : (weight ? weight[t] : A(1));
    A hot = A(1.0 - smooth) * s * w;
    A spread = ign ? A(0) : A(smooth / (double)c) * s;
    A q = hot + spread * (wsum ? wsum[0] : A(c));
    A l = lse[p.r];
    row_apply<false, true>(x + p.r * c, nullptr, gx + p.r * c, c, p.lane, lanes,
                           vec && vec_rows(c), [&](long long i, A v, A) {
        A d = exp(v - l) * q - spread * (weight ? weight[i] : A(1));
        return i == t ? d - hot : d;
    });
}
"""

_ACT = r"""
#define GELU_C 0.044715
#define SQRT_2_OVER_PI 0.7978845608028654
#define SQRT_HALF 0.7071067811865476
#define INV_SQRT_2PI 0.3989422804014327

// mode: 0 exact GELU, 1 tanh GELU, 2 SiLU.
__device__ __forceinline__ A gelu_u(A v) { return A(SQRT_2_OVER_PI) * (v + A(GELU_C) * v * v * v); }

__device__ __forceinline__ A act_value(A v, int mode) {
    if (mode == 0) return v * (A(0.5) + A(0.5) * erf(v * A(SQRT_HALF)));
    if (mode == 1)      // 0.5 v (1 + tanh u) as v sigmoid(2u): no cancellation for u << 0
        return v / (A(1) + exp(A(-2) * gelu_u(v)));
    return v * (A(1) / (A(1) + exp(-v)));
}

__device__ __forceinline__ A act_slope(A v, int mode) {
    if (mode == 0) return A(0.5) + A(0.5) * erf(v * A(SQRT_HALF))
                          + v * (A(INV_SQRT_2PI) * exp(A(-0.5) * v * v));
    if (mode == 1) {    // with s = sigmoid(2u) = (1 + tanh u) / 2: 1 - tanh^2 u = 4 s (1 - s)
        A s = A(1) / (A(1) + exp(A(-2) * gelu_u(v)));
        return s + A(2) * v * s * (A(1) - s)
               * (A(SQRT_2_OVER_PI) * (A(1) + A(3.0 * GELU_C) * v * v));
    }
    A s = A(1) / (A(1) + exp(-v));
    return s * (A(1) + v * (A(1) - s));
}

// g null: y = act(x); else y = g act'(x). With vec (x, g, y aligned to four elements)
// the first 4 * (n / 4) elements move four at a time, as one vector load and store.
struct __align__(4 * sizeof(T)) V4 { T v[4]; };

extern "C" __global__ void act(const T* x, const T* g, T* y, long long n, int mode, int vec) {
    const long long step = (long long)gridDim.x * blockDim.x;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long start = 0;
    if (vec) {
        const long long q = n / 4;
        for (long long i = tid; i < q; i += step) {
            V4 xv = reinterpret_cast<const V4*>(x)[i], gv = xv, yv;
            if (g) gv = reinterpret_cast<const V4*>(g)[i];
            for (int j = 0; j < 4; ++j) {
                A v = static_cast<A>(xv.v[j]);
                yv.v[j] = T(g ? static_cast<A>(gv.v[j]) * act_slope(v, mode)
                              : act_value(v, mode));
            }
            reinterpret_cast<V4*>(y)[i] = yv;
        }
        start = 4 * q;
    }
    for (long long i = start + tid; i < n; i += step) {
        A v = static_cast<A>(x[i]);
        y[i] = T(g ? static_cast<A>(g[i]) * act_slope(v, mode) : act_value(v, mode));
    }
}
"""

_CE_SOURCE = ROWS + _CE

_THREADS = 256
_MAX_BLOCKS = 65536  # grid-stride kernels: at most this many blocks
_ONE_BLOCK = 1024  # threads of the one-block reductions


def _acc(dtype):
    return np.dtype(np.float64 if ACCUMULATE[dtype] == "double" else np.float32)


def _grid(n):
    return (min(blocks(n, _THREADS)[0], _MAX_BLOCKS),)


def _act(a, g, mode):
    """The activation (``g`` None) or its backward, in ``a``'s dtype and shape."""
    out = empty(a.shape, a.dtype)
    n = a.size
    if n:
        x, gg = ptr_arg(a), ptr_arg(g)
        vec = all(
            v.data.ptr % (4 * a.itemsize) == 0 for v in (x, out) + (() if g is None else (gg,))
        )
        kernel(_ACT, "act", a.dtype)(
            _grid(n // 4 if vec else n), (_THREADS,), (x, gg, out, n, mode, vec)
        )
    return out


def _act_fits(a, g=None):
    return a.dtype in CTYPES and (g is None or (g.dtype == a.dtype and g.shape == a.shape))


def _gelu_mode(approximate):
    return 1 if approximate == "tanh" else 0


class CudaLoss:
    """Cross-entropy against class indices and the GELU/SiLU activations as fused kernels
    (the generic kernels for other dtypes and for empty inputs)."""

    # -- activations -----------------------------------------------------------------

    def gelu(self, a, approximate):
        if not _act_fits(a):
            return super().gelu(a, approximate)
        return _act(a, None, _gelu_mode(approximate))

    def gelu_backward(self, a, g, approximate):
        if not _act_fits(a, g):
            return super().gelu_backward(a, g, approximate)
        return _act(a, g, _gelu_mode(approximate))

    def silu(self, a):
        if not _act_fits(a):
            return super().silu(a)
        return _act(a, None, 2)

    def silu_backward(self, a, g):
        if not _act_fits(a, g):
            return super().silu_backward(a, g)
        return _act(a, g, 2)

    # -- cross-entropy ---------------------------------------------------------------

    def _ce_rows(self, a, target, weight):
        """``(x, t, w, rows, C)``: the logits as C-contiguous ``(rows, C)``, the flat int64
        targets and the class weights in the compute dtype; None where the kernels do not
        apply. Target weights and the bounds check happen inside the kernels."""
        if a.dtype not in CTYPES or a.ndim < 2 or not a.size or target.size * a.shape[1] != a.size:
            return None
        x = last_axis(a, 1)
        t = cupy.ascontiguousarray(target.astype(np.int64, copy=False))  # read linearly
        w = None if weight is None else ptr_arg(weight.astype(_acc(a.dtype), copy=False))
        return x, t, w, target.size, a.shape[1]

    def cross_entropy(self, a, target, weight, ignore_index, reduction, label_smoothing):
        got = self._ce_rows(a, target, weight)
        if got is None:
            return super().cross_entropy(
                a, target, weight, ignore_index, reduction, label_smoothing
            )
        x, t, w, rows, c = got
        acc = _acc(a.dtype)
        loss = empty(rows, acc)
        lse = empty(rows, acc)
        mean = reduction == "mean"
        wt = empty(rows, acc) if mean else None
        grid, block, lanes = row_launch(rows, c)
        kernel(_CE_SOURCE, "ce_fwd", a.dtype)(
            grid,
            block,
            (
                x,
                t,
                ptr_arg(w),
                loss,
                lse,
                ptr_arg(wt),
                checks.slot(index_error),
                rows,
                c,
                ignore_index,
                label_smoothing,
                lanes,
                aligned(x),
            ),
        )
        if reduction == "none":
            out = loss.reshape(target.shape).astype(a.dtype, copy=False)
        else:
            out = empty((), a.dtype)
            kernel(_CE_SOURCE, "ce_sum", a.dtype)(
                (1,), (_ONE_BLOCK,), (loss, ptr_arg(wt), out, rows, mean)
            )
        return out, lse.reshape(target.shape)

    def cross_entropy_backward(
        self, a, lse, g, target, weight, ignore_index, reduction, label_smoothing
    ):
        got = self._ce_rows(a, target, weight)
        if got is None or lse.size != target.size or g.dtype != a.dtype:
            return super().cross_entropy_backward(
                a, lse, g, target, weight, ignore_index, reduction, label_smoothing
            )
        x, t, w, rows, c = got
        acc = _acc(a.dtype)
        mean = reduction == "mean"
        per_row = reduction == "none"
        g = ptr_arg(g)
        sums = None  # [scale, sum_c w_c]
        if mean or (w is not None and label_smoothing):
            sums = empty(2, acc)
            kernel(_CE_SOURCE, "ce_scale", a.dtype)(
                (1,), (_ONE_BLOCK,), (t, ptr_arg(w), g, sums, rows, c, ignore_index, mean)
            )
        scale = sums if mean else g.astype(acc, copy=False)
        wsum = None if w is None or sums is None else sums[1:]
        gx = empty(x.shape, a.dtype)
        grid, block, lanes = row_launch(rows, c)
        kernel(_CE_SOURCE, "ce_bwd", a.dtype)(
            grid,
            block,
            (
                x,
                ptr_arg(lse.astype(acc, copy=False)),
                t,
                ptr_arg(w),
                scale,
                ptr_arg(wsum),
                gx,
                rows,
                c,
                ignore_index,
                label_smoothing,
                per_row,
                lanes,
                aligned(x),
            ),
        )
        return gx if a.ndim == 2 else cupy.moveaxis(gx, -1, 1)
