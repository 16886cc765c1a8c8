r"""Multi-tensor optimizer updates: one launch per parameter group (and dtype).

A launch covers every parameter of a group. Its arguments are two ``int64`` device
tables:

* the **tensor table**, one row per parameter, ``[n, param, grad, state...]`` (element
  count, then data pointers; 0 for a state the update does not use), built with NumPy and
  uploaded each step (gradients are new arrays every step) with one ``cupy.asarray``,
  which stages it in pinned memory and copies it asynchronously on the current stream;
* the **block map**, one row per block, ``[tensor, start]``: block ``b`` updates elements
  ``start .. start + CHUNK`` of tensor ``tensor``. It depends only on the sizes, so it is
  built once per distinct list of sizes and cached on the device.

The arithmetic runs in ``A`` (float32; float64 for float64 parameters) with the
parameters and states read and written in their own dtype. The hyperparameters and the
bias corrections are host scalars: steps are counted on the host (0-d host arrays,
incremented in place as the generic kernel does), and parameters whose step counts differ
go to separate launches. A parameter this path does not take (non-contiguous arrays, a
gradient or state of another dtype, a dtype without a C type) goes to the generic
kernel (``super()``), with its own state lists.
"""

import cupy
import numpy as np

from .kernels import ACCUMULATE, CTYPES, kernel

CHUNK = 2048            # elements per block
THREADS = 256           # threads per block (CHUNK / THREADS elements each)
_MAX_MAPS = 64          # cached block maps (distinct lists of sizes)
_BLOCK_MAPS = {}        # (device index, sizes) -> the device block map

# The block's tensor row and element range; every kernel starts with it.
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
        A g = static_cast<A>(gr[i]);
        if (maximize) g = -g;
        if (wd != A(0)) g = pv * wd + g;
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

# Adam / AdamW, rows [n, p, g, m, v, vmax]: p *= decay (decoupled); g = +-grad (+ wd p);
# m += (1 - b1)(g - m); v = b2 v + (1 - b2) g^2; vmax = max(vmax, v) (amsgrad);
# p += neg_step * m / (sqrt(v) + eps_c), with the bias corrections in neg_step and eps_c.
ADAM = r"""
extern "C" __global__ void adam_mt(const long long* table, const long long* blocks,
                                   long long chunk, A one_minus_b1, A beta2,
                                   A one_minus_b2, A eps_c, A neg_step, A wd, A decay,
                                   int amsgrad, int maximize) {
    Chunk c(table, blocks, chunk, 6);
    T* p = c.ptr<T>(1);
    const T* gr = c.ptr<const T>(2);
    T* ms = c.ptr<T>(3);
    T* vs = c.ptr<T>(4);
    T* vmax = c.ptr<T>(5);
    for (long long i = c.i; i < c.end; i += blockDim.x) {
        A pv = static_cast<A>(p[i]) * decay;
        A g = static_cast<A>(gr[i]);
        if (maximize) g = -g;
        if (wd != A(0)) g = pv * wd + g;
        A m = static_cast<A>(ms[i]);
        m += (g - m) * one_minus_b1;
        A v = static_cast<A>(vs[i]) * beta2 + (g * g) * one_minus_b2;
        ms[i] = T(m);
        vs[i] = T(v);
        if (amsgrad) {
            A vm = static_cast<A>(vmax[i]);
            if (vm < v || v != v) vm = v;
            vmax[i] = T(vm);
            v = vm;
        }
        p[i] = T(pv + (m / (sqrt(v) + eps_c)) * neg_step);
    }
}
"""

_SOURCES = {"sgd_mt": _PROLOGUE + SGD, "adam_mt": _PROLOGUE + ADAM}


def _fast(arrays, dt):
    """Whether the multi-tensor path takes these arrays of one parameter (``None``
    entries are unused states): C-contiguous, all of the parameter's dtype ``dt``."""
    return all(a is None or (a.dtype == dt and a._c_contiguous) for a in arrays)


class CudaOptim:
    """Multi-tensor ``sgd_step`` and ``adam_step``; the other updates stay generic."""

    def _block_map(self, sizes):
        """The cached device block map for tensors of ``sizes`` (all nonzero)."""
        key = (self.index, sizes)
        got = _BLOCK_MAPS.get(key)
        if got is None:
            n = np.asarray(sizes, np.int64)
            chunks = (n + CHUNK - 1) // CHUNK
            first = np.cumsum(chunks) - chunks
            owner = np.repeat(np.arange(len(n), dtype=np.int64), chunks)
            start = (np.arange(int(chunks.sum()), dtype=np.int64) - first[owner]) * CHUNK
            if len(_BLOCK_MAPS) >= _MAX_MAPS:
                _BLOCK_MAPS.clear()
            got = _BLOCK_MAPS[key] = cupy.asarray(np.stack([owner, start], axis=1))
        return got

    def _launch(self, name, rows, scalars, flags):
        """Run kernel ``name`` over ``rows`` (per tensor: its arrays, the
        parameter first, ``None`` for unused states) of one dtype; ``scalars`` are cast
        to the accumulation type, ``flags`` to int."""
        rows = [r for r in rows if r[0].size]
        if not rows:
            return
        dt = rows[0][0].dtype
        acc = np.float64 if ACCUMULATE[dt] == "double" else np.float32
        table = np.array([(r[0].size, *(0 if a is None else a.data.ptr for a in r))
                          for r in rows], dtype=np.int64)
        with self._device:
            blocks = self._block_map(tuple(r[0].size for r in rows))
            fn = kernel(_SOURCES[name], name, dt)
            fn((blocks.shape[0],), (THREADS,),
               (cupy.asarray(table), blocks, np.int64(CHUNK), *(acc(s) for s in scalars),
                *(np.int32(bool(f)) for f in flags)))

    def sgd_step(self, params, grads, bufs, lr, momentum, dampening, weight_decay,
                 nesterov, maximize):
        bufs = list(bufs)
        groups, rest = {}, []
        for i, p in enumerate(params):
            b = bufs[i] if momentum else None
            if p.dtype in CTYPES and _fast((p, grads[i], b), p.dtype):
                if momentum and b is None:
                    with self._device:
                        b = bufs[i] = self.xp.empty_like(p)
                    groups.setdefault((p.dtype, True), []).append((p, grads[i], b))
                else:
                    groups.setdefault((p.dtype, False), []).append((p, grads[i], b))
            else:
                rest.append(i)
        for (_, first), rows in groups.items():
            self._launch("sgd_mt", rows,
                         (lr, momentum, 1.0 - dampening, weight_decay),
                         (nesterov, maximize, first))
        if rest:
            out = super().sgd_step([params[i] for i in rest], [grads[i] for i in rest],
                                   [bufs[i] for i in rest], lr, momentum, dampening,
                                   weight_decay, nesterov, maximize)
            for i, b in zip(rest, out):
                bufs[i] = b
        return bufs

    def adam_step(self, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr,
                  beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled):
        groups, rest = {}, []
        for i, p in enumerate(params):
            row = (p, grads[i], exp_avgs[i], exp_avg_sqs[i],
                   max_exp_avg_sqs[i] if amsgrad else None)
            if p.dtype in CTYPES and _fast(row, p.dtype) and (row[4] is not None
                                                               or not amsgrad):
                s = steps[i]
                s += 1
                groups.setdefault((p.dtype, float(s)), []).append(row)
            else:
                rest.append(i)
        decay = 1.0 - lr * weight_decay if decoupled else 1.0
        wd = 0.0 if decoupled else weight_decay
        for (_, step), rows in groups.items():
            bc2_sqrt = (1.0 - beta2 ** step) ** 0.5
            step_size = lr / (1.0 - beta1 ** step)
            self._launch("adam_mt", rows,
                         (1.0 - beta1, beta2, 1.0 - beta2, eps * bc2_sqrt,
                          -step_size * bc2_sqrt, wd, decay),
                         (amsgrad, maximize))
        if rest:
            def pick(lst):
                return None if lst is None else [lst[i] for i in rest]
            super().adam_step(pick(params), pick(grads), pick(exp_avgs), pick(exp_avg_sqs),
                              pick(max_exp_avg_sqs), pick(steps), lr, beta1, beta2, eps,
                              weight_decay, amsgrad, maximize, decoupled)
