r"""Multi-tensor optimizer updates: one launch per parameter group (and dtype).

A launch covers every parameter of a group. Its arguments are two ``int64`` device
tables:

* the **tensor table**, one row per parameter, ``[n, param, grad, state...]`` (element
  count, then data pointers; 0 for a state the update does not use), built with NumPy and
  uploaded when it changes (gradients are new arrays every step, though the memory pool
  hands out the same addresses in a steady loop) with one ``cupy.asarray``, or, inside a
  CUDA graph capture, from page-locked memory the graph keeps (:func:`.graphs.to_device`);
* the **block map**, one row per block, ``[tensor, start]``: block ``b`` updates elements
  ``start .. start + CHUNK`` of tensor ``tensor``. It depends only on the sizes, so it is
  built once per distinct list of sizes and cached on the device.

The arithmetic runs in ``A`` (float32; float64 for float64 parameters) with the
parameters and states read and written in their own dtype, in the order of operations of
the generic kernels (:mod:`lucid.backend.array.optim`). The hyperparameters and the bias
corrections are host scalars: steps are counted on the host (0-d host arrays, incremented
in place as the generic kernels do), and parameters whose step counts differ go to
separate launches. A parameter this path does not take (non-contiguous arrays, a
gradient or state of another dtype, a dtype without a C type, a missing state) goes to
the generic kernel (``super()``) with its own lists.
"""

import cupy
import numpy as np

from ..array.optim import count_step
from . import graphs
from .kernels import CTYPES, kernel

CHUNK = 2048  # elements per block
THREADS = 256  # threads per block (CHUNK / THREADS elements each)
_MAX_MAPS = 64  # cached block maps (distinct lists of sizes)
_BLOCK_MAPS: dict = {}  # (device index, sizes) -> the device block map
_TABLES: dict = {}  # (device index, table bytes) -> the table on the device

# The block's tensor row and element range, and the Adam-family prologue (weight decay,
# both moments; the moments stored, their A values returned).
_PROLOGUE = r"""
struct Chunk {
    const long long* row; long long i, end;
    __device__ Chunk(const long long* table, const long long* blocks, long long chunk,
                     int ncol) {
        long long t = blocks[2 * (long long)blockIdx.x];
        long long start = blocks[2 * (long long)blockIdx.x + 1];
        row = table + t * ncol;
        end = min(start + chunk, row[0]);
        i = start + threadIdx.x;
    }
    template <typename P> __device__ P* ptr(int col) const {
        return reinterpret_cast<P*>(row[col]);
    }
};

// g = +-grad (+ wd p, coupled); p *= decay (decoupled: 1 - lr wd, else 1)
__device__ __forceinline__ A eff_grad(A pv, const T* gr, long long i, A wd, int maximize) {
    A g = static_cast<A>(gr[i]);
    if (maximize) g = -g;
    return wd != A(0) ? pv * wd + g : g;
}

// m += (1 - b1)(g - m); v = b2 v + (1 - b2) g^2
__device__ __forceinline__ void moments(T* ms, T* vs, long long i, A g, A one_minus_b1,
                                        A beta2, A one_minus_b2, A& m, A& v) {
    m = static_cast<A>(ms[i]);
    m += (g - m) * one_minus_b1;
    v = static_cast<A>(vs[i]) * beta2 + (g * g) * one_minus_b2;
    ms[i] = T(m);
    vs[i] = T(v);
}

// max that keeps a nan of either side (as np.maximum)
__device__ __forceinline__ A nan_max(A a, A b) { return (a < b || b != b) ? b : a; }
"""

# SGD, rows [n, p, g, buf]: g = +-grad + wd p; b = g (first) or mu b + (1 - tau) g;
# d = g + mu b (nesterov) or b (or g without momentum); p -= lr d.
SGD = r"""
extern "C" __global__ void sgd_mt(const long long* table, const long long* blocks,
                                  long long chunk, A lr, A momentum, A one_minus_damp,
                                  A wd, int nesterov, int maximize, int first) {
    Chunk c(table, blocks, chunk, 4);
    T* p = c.ptr<T>(1);
    const T* gr = c.ptr<const T>(2);
    T* buf = c.ptr<T>(3);
    for (long long i = c.i; i < c.end; i += blockDim.x) {
        A pv = static_cast<A>(p[i]);
        A g = eff_grad(pv, gr, i, wd, maximize);
        A d = g;
        if (momentum != A(0)) {
            A b = first ? g : static_cast<A>(buf[i]) * momentum + g * one_minus_damp;
            buf[i] = T(b);
            d = nesterov ? b * momentum + g : b;
        }
        p[i] = T(pv + d * (-lr));
    }
}
"""

# Adam / AdamW, rows [n, p, g, m, v, vmax]: vmax = max(vmax, v) (amsgrad);
# p += neg_step * m / (sqrt(v) + eps_c), the bias corrections in neg_step and eps_c.
# adam_dev_mt: the step counts on the device (capturable), rows [n, p, g, m, v, vmax,
# step]: each thread reads t = step + 1 and makes the bias corrections in double, as the
# host makes them for adam_mt; adam_count then adds one to each row's step.
ADAM = r"""
__device__ __forceinline__ void adam_chunk(const Chunk& c, A one_minus_b1, A beta2,
                                           A one_minus_b2, A eps_c, A neg_step, A wd,
                                           A decay, int amsgrad, int maximize) {
    T* p = c.ptr<T>(1);
    const T* gr = c.ptr<const T>(2);
    T* ms = c.ptr<T>(3);
    T* vs = c.ptr<T>(4);
    T* vmax = c.ptr<T>(5);
    for (long long i = c.i; i < c.end; i += blockDim.x) {
        A pv = static_cast<A>(p[i]) * decay;
        A g = eff_grad(pv, gr, i, wd, maximize);
        A m, v;
        moments(ms, vs, i, g, one_minus_b1, beta2, one_minus_b2, m, v);
        if (amsgrad) {
            v = nan_max(static_cast<A>(vmax[i]), v);
            vmax[i] = T(v);
        }
        p[i] = T(pv + (m / (sqrt(v) + eps_c)) * neg_step);
    }
}

extern "C" __global__ void adam_mt(const long long* table, const long long* blocks,
                                   long long chunk, A one_minus_b1, A beta2,
                                   A one_minus_b2, A eps_c, A neg_step, A wd, A decay,
                                   int amsgrad, int maximize) {
    adam_chunk(Chunk(table, blocks, chunk, 6), one_minus_b1, beta2, one_minus_b2, eps_c,
               neg_step, wd, decay, amsgrad, maximize);
}

extern "C" __global__ void adam_dev_mt(const long long* table, const long long* blocks,
                                       long long chunk, double beta1, double beta2,
                                       double lr, double eps, A wd, A decay, int amsgrad,
                                       int maximize) {
    Chunk c(table, blocks, chunk, 7);
    const double t = (double)*c.ptr<const float>(6) + 1.0;
    const double bc2_sqrt = sqrt(1.0 - pow(beta2, t));
    adam_chunk(c, A(1.0 - beta1), A(beta2), A(1.0 - beta2), A(eps * bc2_sqrt),
               A(-(lr / (1.0 - pow(beta1, t))) * bc2_sqrt), wd, decay, amsgrad, maximize);
}

extern "C" __global__ void adam_count(const long long* table, long long rows) {
    long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (r < rows) *reinterpret_cast<float*>(table[r * 7 + 6]) += 1.0f;
}
"""

# NAdam, rows [n, p, g, m, v]: d = sqrt(v / bc2) + eps; p += c_g g / d + c_m m / d.
NADAM = r"""
extern "C" __global__ void nadam_mt(const long long* table, const long long* blocks,
                                    long long chunk, A one_minus_b1, A beta2,
                                    A one_minus_b2, A bc2, A eps, A c_g, A c_m, A wd,
                                    A decay, int maximize) {
    Chunk c(table, blocks, chunk, 5);
    T* p = c.ptr<T>(1);
    const T* gr = c.ptr<const T>(2);
    T* ms = c.ptr<T>(3);
    T* vs = c.ptr<T>(4);
    for (long long i = c.i; i < c.end; i += blockDim.x) {
        A pv = static_cast<A>(p[i]) * decay;
        A g = eff_grad(pv, gr, i, wd, maximize);
        A m, v;
        moments(ms, vs, i, g, one_minus_b1, beta2, one_minus_b2, m, v);
        A d = sqrt(v / bc2) + eps;
        pv += (g / d) * c_g;
        p[i] = T(pv + (m / d) * c_m);
    }
}
"""

# RAdam, rows [n, p, g, m, v]: u = lr m / bc1, times sqrt(bc2) / (sqrt(v) + eps) and the
# rectification when rectify; p -= u.
RADAM = r"""
extern "C" __global__ void radam_mt(const long long* table, const long long* blocks,
                                    long long chunk, A one_minus_b1, A beta2,
                                    A one_minus_b2, A eps, A bc1, A lr, A bc2_sqrt,
                                    A rect, A wd, A decay, int rectify, int maximize) {
    Chunk c(table, blocks, chunk, 5);
    T* p = c.ptr<T>(1);
    const T* gr = c.ptr<const T>(2);
    T* ms = c.ptr<T>(3);
    T* vs = c.ptr<T>(4);
    for (long long i = c.i; i < c.end; i += blockDim.x) {
        A pv = static_cast<A>(p[i]) * decay;
        A g = eff_grad(pv, gr, i, wd, maximize);
        A m, v;
        moments(ms, vs, i, g, one_minus_b1, beta2, one_minus_b2, m, v);
        A u = m / bc1 * lr;
        if (rectify) u = u * (bc2_sqrt / (sqrt(v) + eps)) * rect;
        p[i] = T(pv - u);
    }
}
"""

# Adamax, rows [n, p, g, m, u]: u = max(b2 u, |g| + eps); p += neg_clr m / u.
ADAMAX = r"""
extern "C" __global__ void adamax_mt(const long long* table, const long long* blocks,
                                     long long chunk, A one_minus_b1, A beta2, A eps,
                                     A neg_clr, A wd, int maximize) {
    Chunk c(table, blocks, chunk, 5);
    T* p = c.ptr<T>(1);
    const T* gr = c.ptr<const T>(2);
    T* ms = c.ptr<T>(3);
    T* us = c.ptr<T>(4);
    for (long long i = c.i; i < c.end; i += blockDim.x) {
        A pv = static_cast<A>(p[i]);
        A g = eff_grad(pv, gr, i, wd, maximize);
        A m = static_cast<A>(ms[i]);
        m += (g - m) * one_minus_b1;
        A u = nan_max(static_cast<A>(us[i]) * beta2, (g < A(0) ? -g : g) + eps);
        ms[i] = T(m);
        us[i] = T(u);
        p[i] = T(pv + (m / u) * neg_clr);
    }
}
"""

# RMSprop, rows [n, p, g, v, gavg, buf]: v = a v + (1 - a) g^2; centered:
# gavg += (1 - a)(g - gavg), d = sqrt(v - gavg^2) + eps, else sqrt(v) + eps;
# momentum: b = mu b + g / d, p -= lr b; else p -= lr g / d.
RMSPROP = r"""
extern "C" __global__ void rmsprop_mt(const long long* table, const long long* blocks,
                                      long long chunk, A alpha, A one_minus_alpha, A eps,
                                      A neg_lr, A momentum, A wd, int centered,
                                      int use_momentum, int maximize) {
    Chunk c(table, blocks, chunk, 6);
    T* p = c.ptr<T>(1);
    const T* gr = c.ptr<const T>(2);
    T* vs = c.ptr<T>(3);
    T* gas = c.ptr<T>(4);
    T* bufs = c.ptr<T>(5);
    for (long long i = c.i; i < c.end; i += blockDim.x) {
        A pv = static_cast<A>(p[i]);
        A g = eff_grad(pv, gr, i, wd, maximize);
        A v = static_cast<A>(vs[i]) * alpha + (g * g) * one_minus_alpha;
        vs[i] = T(v);
        if (centered) {
            A ga = static_cast<A>(gas[i]);
            ga += (g - ga) * one_minus_alpha;
            gas[i] = T(ga);
            v -= ga * ga;
        }
        A d = g / (sqrt(v) + eps);
        if (use_momentum) {
            d = static_cast<A>(bufs[i]) * momentum + d;
            bufs[i] = T(d);
        }
        p[i] = T(pv + d * neg_lr);
    }
}
"""

# Adagrad, rows [n, p, g, sum]: s += g^2; p += neg_clr g / (sqrt(s) + eps).
ADAGRAD = r"""
extern "C" __global__ void adagrad_mt(const long long* table, const long long* blocks,
                                      long long chunk, A eps, A neg_clr, A wd,
                                      int maximize) {
    Chunk c(table, blocks, chunk, 4);
    T* p = c.ptr<T>(1);
    const T* gr = c.ptr<const T>(2);
    T* ss = c.ptr<T>(3);
    for (long long i = c.i; i < c.end; i += blockDim.x) {
        A pv = static_cast<A>(p[i]);
        A g = eff_grad(pv, gr, i, wd, maximize);
        A s = static_cast<A>(ss[i]) + g * g;
        ss[i] = T(s);
        p[i] = T(pv + (g / (sqrt(s) + eps)) * neg_clr);
    }
}
"""

_SOURCES = {
    name: _PROLOGUE + src
    for name, src in (
        ("sgd_mt", SGD),
        ("adam_mt", ADAM),
        ("adam_dev_mt", ADAM),
        ("adam_count", ADAM),
        ("nadam_mt", NADAM),
        ("radam_mt", RADAM),
        ("adamax_mt", ADAMAX),
        ("rmsprop_mt", RMSPROP),
        ("adagrad_mt", ADAGRAD),
    )
}

UNUSED = object()  # a table column the update does not touch (a null pointer)
_NDARRAY = cupy.ndarray
_F32 = np.dtype(np.float32)


def _fast(row):
    """Whether the multi-tensor path takes this parameter's arrays (``row``: its table
    columns, the parameter first; ``None`` is a missing state, :data:`UNUSED` one the
    update does not read): all present, C-contiguous and of the parameter's dtype, which
    has a C type."""
    dt = row[0].dtype
    return dt in CTYPES and all(
        a is UNUSED or (a is not None and a.dtype == dt and a._c_contiguous) for a in row
    )


def _pick(idx, *lists):
    """The entries ``idx`` of each list (``None`` lists stay ``None``)."""
    return [None if lst is None else [lst[i] for i in idx] for lst in lists]


class CudaOptim:
    """Multi-tensor ``sgd_step``, ``adam_step``, ``nadam_step``, ``radam_step``,
    ``adamax_step``, ``rmsprop_step`` and ``adagrad_step``; Adadelta, ASGD and Rprop stay
    generic."""

    def _block_map(self, sizes):
        """The cached device block map for tensors of ``sizes`` (all nonzero)."""
        key = (self.ordinal, sizes)
        got = _BLOCK_MAPS.get(key)
        if got is None:
            n = np.asarray(sizes, np.int64)
            chunks = (n + CHUNK - 1) // CHUNK
            first = np.cumsum(chunks) - chunks
            owner = np.repeat(np.arange(len(n), dtype=np.int64), chunks)
            start = (np.arange(int(chunks.sum()), dtype=np.int64) - first[owner]) * CHUNK
            if len(_BLOCK_MAPS) >= _MAX_MAPS:
                _BLOCK_MAPS.clear()
            got = _BLOCK_MAPS[key] = graphs.to_device(np.stack([owner, start], axis=1))
        return got

    def _device_table(self, table):
        """``table`` on the device, cached by content: in a steady loop the memory pool
        hands out the same addresses every step, so the copy is made once."""
        key = (self.ordinal, table.tobytes())
        got = _TABLES.get(key)
        if got is None:
            if len(_TABLES) >= _MAX_MAPS:
                _TABLES.clear()
            got = _TABLES[key] = graphs.to_device(table)
        return got

    def _launch(self, name, rows, scalars, flags=(), doubles=()):
        """Run kernel ``name`` over ``rows`` (per tensor: its table columns, the parameter
        first) of one dtype; the kernel's parameters after the table and block map are
        ``doubles``, ``scalars`` and ``flags``, converted to their declared C types
        (:func:`.kernels.signature`). Returns the device table (None where no row has
        elements)."""
        rows = [r for r in rows if r[0].size]
        if not rows:
            return None
        dt = rows[0][0].dtype
        table = np.array(
            [(r[0].size, *(0 if a is UNUSED else a.data.ptr for a in r)) for r in rows],
            dtype=np.int64,
        )
        with self._device:
            blocks = self._block_map(tuple(r[0].size for r in rows))
            table = self._device_table(table)
            kernel(_SOURCES[name], name, dt)(
                (blocks.shape[0],),
                (THREADS,),
                (table, blocks, CHUNK, *doubles, *scalars, *(bool(f) for f in flags)),
            )
        return table

    @staticmethod
    def _split(rows, key):
        """``({(dtype, key(i)): [rows]}, rest)``: the rows the multi-tensor path takes,
        grouped (``key(i)`` is called once per such row, in order), and the indices of
        the others."""
        groups, rest = {}, []
        for i, row in enumerate(rows):
            if _fast(row):
                groups.setdefault((row[0].dtype, key(i)), []).append(row)
            else:
                rest.append(i)
        return groups, rest

    @staticmethod
    def _counter(steps):
        """``key(i)``: increments step ``i`` in place (as the generic kernels) and returns
        its new value (not inside a CUDA graph capture: a replay would not count)."""
        graphs.refuse(
            "an optimizer step that counts steps on the host (Adam, AdamW, "
            "NAdam, RAdam, Adamax, Adagrad, RMSprop)",
            "a replay would reuse the captured step count",
        )

        def key(i):
            return count_step(steps[i])

        return key

    def sgd_step(
        self, params, grads, bufs, lr, momentum, dampening, weight_decay, nesterov, maximize
    ):
        bufs = list(bufs)
        new = set()  # buffers made here: b_1 = g_1
        if momentum:
            with self._device:
                for i, (p, g) in enumerate(zip(params, grads)):
                    if bufs[i] is None and _fast((p, g)):
                        bufs[i] = self.xp.empty_like(p)
                        new.add(i)
        rows = [(p, g, b if momentum else UNUSED) for p, g, b in zip(params, grads, bufs)]
        groups, rest = self._split(rows, new.__contains__)
        for (_, first), group in groups.items():
            self._launch(
                "sgd_mt",
                group,
                (lr, momentum, 1.0 - dampening, weight_decay),
                (nesterov, maximize, first),
            )
        if rest:
            out = super().sgd_step(
                *_pick(rest, params, grads, bufs),
                lr,
                momentum,
                dampening,
                weight_decay,
                nesterov,
                maximize,
            )
            for i, b in zip(rest, out):
                bufs[i] = b
        return bufs

    @staticmethod
    def _decays(lr, weight_decay, decoupled):
        """``(wd, decay)``: the coupled decay (a gradient term) and the decoupled one (a
        factor of the parameter), one of them inactive."""
        if decoupled:
            return 0.0, 1.0 - lr * weight_decay
        return weight_decay, 1.0

    def adam_step(
        self,
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        max_exp_avg_sqs,
        steps,
        lr,
        beta1,
        beta2,
        eps,
        weight_decay,
        amsgrad,
        maximize,
        decoupled,
    ):
        """Step counts on the host: one launch per distinct count, its bias corrections
        computed here; float32 counts on the device (``capturable=True``): one launch
        reading them, then one adding one to each (:data:`ADAM`)."""
        vmax = max_exp_avg_sqs if amsgrad else [UNUSED] * len(params)
        if steps and isinstance(steps[0], _NDARRAY):
            return self._adam_device_steps(
                params,
                grads,
                exp_avgs,
                exp_avg_sqs,
                max_exp_avg_sqs,
                vmax,
                steps,
                lr,
                beta1,
                beta2,
                eps,
                weight_decay,
                amsgrad,
                maximize,
                decoupled,
            )
        groups, rest = self._split(
            list(zip(params, grads, exp_avgs, exp_avg_sqs, vmax)), self._counter(steps)
        )
        wd, decay = self._decays(lr, weight_decay, decoupled)
        for (_, step), rows in groups.items():
            bc2_sqrt = (1.0 - beta2**step) ** 0.5
            step_size = lr / (1.0 - beta1**step)
            self._launch(
                "adam_mt",
                rows,
                (1.0 - beta1, beta2, 1.0 - beta2, eps * bc2_sqrt, -step_size * bc2_sqrt, wd, decay),
                (amsgrad, maximize),
            )
        if rest:
            super().adam_step(
                *_pick(rest, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps),
                lr,
                beta1,
                beta2,
                eps,
                weight_decay,
                amsgrad,
                maximize,
                decoupled,
            )

    def _adam_device_steps(
        self,
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        max_exp_avg_sqs,
        vmax,
        steps,
        lr,
        beta1,
        beta2,
        eps,
        weight_decay,
        amsgrad,
        maximize,
        decoupled,
    ):
        by_dtype, rest = {}, []
        for i, row in enumerate(zip(params, grads, exp_avgs, exp_avg_sqs, vmax, steps)):
            s = row[5]
            if (
                _fast(row[:5])
                and isinstance(s, _NDARRAY)
                and s.dtype == _F32
                and s.size == 1
                and s.device.id == row[0].device.id
            ):
                by_dtype.setdefault(row[0].dtype, []).append(row)
            else:
                rest.append(i)
        wd, decay = self._decays(lr, weight_decay, decoupled)
        for rows in by_dtype.values():
            table = self._launch(
                "adam_dev_mt", rows, (wd, decay), (amsgrad, maximize), (beta1, beta2, lr, eps)
            )
            n = 0 if table is None else table.shape[0]
            if n:
                with self._device:
                    kernel(_SOURCES["adam_count"], "adam_count", rows[0][0].dtype)(
                        (-(-n // THREADS),), (THREADS,), (table, n)
                    )
            for row in rows:
                if not row[0].size:  # (no block counts an empty parameter's step)
                    row[5] += 1
        if rest:  # the generic kernel, reading the counts back
            graphs.refuse(
                "Adam(capturable=True) with a parameter the multi-tensor kernel "
                "does not take (non-contiguous, or state of another dtype)",
                "its step count is read on the host",
            )
            super().adam_step(
                *_pick(rest, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps),
                lr,
                beta1,
                beta2,
                eps,
                weight_decay,
                amsgrad,
                maximize,
                decoupled,
            )

    def nadam_step(
        self,
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        mu_products,
        steps,
        lr,
        beta1,
        beta2,
        eps,
        weight_decay,
        momentum_decay,
        maximize,
        decoupled,
    ):
        count = self._counter(steps)

        def mu(step):
            return beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))

        def key(i):  # (step, the product of the mu up to it)
            step = count(i)
            mp = mu_products[i]
            mp *= mu(step)
            return step, float(mp)

        groups, rest = self._split(list(zip(params, grads, exp_avgs, exp_avg_sqs)), key)
        wd, decay = self._decays(lr, weight_decay, decoupled)
        for (_, (step, mu_prod)), rows in groups.items():
            mu_t, mu_next = mu(step), mu(step + 1.0)
            self._launch(
                "nadam_mt",
                rows,
                (
                    1.0 - beta1,
                    beta2,
                    1.0 - beta2,
                    1.0 - beta2**step,
                    eps,
                    -lr * (1.0 - mu_t) / (1.0 - mu_prod),
                    -lr * mu_next / (1.0 - mu_prod * mu_next),
                    wd,
                    decay,
                ),
                (maximize,),
            )
        if rest:
            super().nadam_step(
                *_pick(rest, params, grads, exp_avgs, exp_avg_sqs, mu_products, steps),
                lr,
                beta1,
                beta2,
                eps,
                weight_decay,
                momentum_decay,
                maximize,
                decoupled,
            )

    def radam_step(
        self,
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        steps,
        lr,
        beta1,
        beta2,
        eps,
        weight_decay,
        maximize,
        decoupled,
    ):
        groups, rest = self._split(
            list(zip(params, grads, exp_avgs, exp_avg_sqs)), self._counter(steps)
        )
        wd, decay = self._decays(lr, weight_decay, decoupled)
        rho_inf = 2.0 / (1.0 - beta2) - 1.0
        for (_, step), rows in groups.items():
            bc2 = 1.0 - beta2**step
            rho_t = rho_inf - 2.0 * step * (beta2**step) / bc2
            rectify = rho_t > 5.0
            rect = 1.0
            if rectify:
                rect = (
                    (rho_t - 4.0)
                    * (rho_t - 2.0)
                    * rho_inf
                    / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t)
                ) ** 0.5
            self._launch(
                "radam_mt",
                rows,
                (
                    1.0 - beta1,
                    beta2,
                    1.0 - beta2,
                    eps,
                    1.0 - beta1**step,
                    lr,
                    bc2**0.5,
                    rect,
                    wd,
                    decay,
                ),
                (rectify, maximize),
            )
        if rest:
            super().radam_step(
                *_pick(rest, params, grads, exp_avgs, exp_avg_sqs, steps),
                lr,
                beta1,
                beta2,
                eps,
                weight_decay,
                maximize,
                decoupled,
            )

    def adamax_step(
        self,
        params,
        grads,
        exp_avgs,
        exp_infs,
        steps,
        lr,
        beta1,
        beta2,
        eps,
        weight_decay,
        maximize,
    ):
        groups, rest = self._split(
            list(zip(params, grads, exp_avgs, exp_infs)), self._counter(steps)
        )
        for (_, step), rows in groups.items():
            self._launch(
                "adamax_mt",
                rows,
                (1.0 - beta1, beta2, eps, -lr / (1.0 - beta1**step), weight_decay),
                (maximize,),
            )
        if rest:
            super().adamax_step(
                *_pick(rest, params, grads, exp_avgs, exp_infs, steps),
                lr,
                beta1,
                beta2,
                eps,
                weight_decay,
                maximize,
            )

    def rmsprop_step(
        self,
        params,
        grads,
        square_avgs,
        grad_avgs,
        bufs,
        steps,
        lr,
        alpha,
        eps,
        weight_decay,
        momentum,
        centered,
        maximize,
    ):
        count = self._counter(steps)
        used = momentum > 0
        unused = [UNUSED] * len(params)
        rows = list(
            zip(
                params,
                grads,
                square_avgs,
                grad_avgs if centered else unused,
                bufs if used else unused,
            )
        )

        def key(i):  # the update does not read the step
            count(i)

        groups, rest = self._split(rows, key)
        for rows in groups.values():
            self._launch(
                "rmsprop_mt",
                rows,
                (alpha, 1.0 - alpha, eps, -lr, momentum, weight_decay),
                (centered, used, maximize),
            )
        if rest:
            super().rmsprop_step(
                *_pick(rest, params, grads, square_avgs, grad_avgs, bufs, steps),
                lr,
                alpha,
                eps,
                weight_decay,
                momentum,
                centered,
                maximize,
            )

    def asgd_step(self, *args, **kwargs):
        """The generic kernel, refused inside a CUDA graph capture (its averaging
        schedule counts steps on the host)."""
        graphs.refuse("ASGD.step", "a replay would reuse the captured step count")
        return super().asgd_step(*args, **kwargs)

    def adagrad_step(
        self, params, grads, state_sums, steps, lr, lr_decay, eps, weight_decay, maximize
    ):
        groups, rest = self._split(list(zip(params, grads, state_sums)), self._counter(steps))
        for (_, step), rows in groups.items():
            self._launch(
                "adagrad_mt",
                rows,
                (eps, -lr / (1.0 + (step - 1.0) * lr_decay), weight_decay),
                (maximize,),
            )
        if rest:
            super().adagrad_step(
                *_pick(rest, params, grads, state_sums, steps),
                lr,
                lr_decay,
                eps,
                weight_decay,
                maximize,
            )
