"""Norm, dropout and embedding kernels over an array module (NumPy or CuPy).

Half-precision inputs compute in float32 (statistics stay float32, outputs are cast back),
as PyTorch does on the CPU.
"""

from typing import Any
from ..threads import split

_SELU_ALPHA_PRIME = 1.7580993408473766  # -scale * alpha of SELU


def _work(xp, a):
    """``a`` in its compute dtype: float32 for half types, itself otherwise."""
    return a.astype(xp.float32) if a.dtype.itemsize == 2 else a


def _count(shape, axes):
    n = 1
    for d in axes:
        n *= shape[d]
    return n


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _rsum(xp, axes, *ops):
    """The sum over ``axes`` (kept as size 1) of the product of the equally shaped ``ops``:
    one ``einsum``, which reads its operands once and never makes the product (several
    times faster than ``sum`` over non-trailing axes)."""
    shape = ops[0].shape
    sub = _LETTERS[: len(shape)]
    out = "".join(c for i, c in enumerate(sub) if i not in axes)
    r = xp.einsum(",".join((sub,) * len(ops)) + "->" + out, *ops)
    return r.reshape(tuple(1 if i in axes else n for i, n in enumerate(shape)))


def _trailing(axes, ndim):
    """Whether ``axes`` are the last ``len(axes)`` dims, in order (layer and RMS norm)."""
    return tuple(axes) == tuple(range(ndim - len(axes), ndim))


def _total(parts):
    """The sum of the per-run partial results ``parts`` (added into the first)."""
    acc = parts[0]
    for p in parts[1:]:
        acc += p
    return acc


def _size(*shapes):
    """The number of elements of the shapes broadcast together."""
    n = 1
    for dims in zip(*shapes):
        n *= max(dims)
    return n


class XpNorm:
    """Implements :class:`NormKernels` with ``self.xp``."""

    #: Bytes of ``x`` per block of the batch-blocked passes (:meth:`_sample_blocks`);
    #: None: no blocking (the GPU, where each block would be more kernel launches).
    norm_block_bytes: Any = None

    # -- batch-blocked passes ----------------------------------------------------------

    def _sample_blocks(self, x, *per_channel):
        """Slices of ``x``'s batch axis, about :attr:`norm_block_bytes` of it each, when
        every ``per_channel`` operand has size 1 there (it broadcasts over the batch); None
        otherwise. A pass that runs block by block keeps its temporaries in cache (a
        block's difference from the mean is made, squared and summed before the next
        block is read), so each full-size operand crosses memory once per pass."""
        if (
            self.norm_block_bytes is None
            or x.ndim < 3
            or not x.size
            or any(a.ndim != x.ndim or a.shape[0] != 1 for a in per_channel)
        ):
            return None
        rows = max(1, self.norm_block_bytes // x[0].nbytes)
        return [slice(i, min(i + rows, x.shape[0])) for i in range(0, x.shape[0], rows)]

    def _per_sample(self, a, x):
        """The per-channel ``a`` (size 1 on the batch axis) expanded to one sample of
        ``x``, contiguous: a binary op with it runs its inner loop over equal strides,
        not over a broadcast (stride 0) operand, which NumPy does 2-3x slower."""
        xp = self.xp
        return xp.ascontiguousarray(xp.broadcast_to(a, (1,) + x.shape[1:]))

    def _block_runs(self, blocks):
        """``blocks`` cut into one run of consecutive blocks per intra-op thread (the
        runs of a pass go to :meth:`parallel` together)."""
        return [blocks[a:b] for a, b in split(len(blocks), self.parallel_pieces())]

    def _blocked_centered_sq(self, xw, mean, axes, blocks):
        r""":math:`\sum (x - \bar x)^2` over ``axes`` (kept), block by block."""
        xp = self.xp
        m = self._per_sample(mean, xw)

        def run(bl):
            buf = xp.empty(xw[bl[0]].shape, dtype=xw.dtype)
            acc = None
            for s in bl:
                d = xp.subtract(xw[s], m, out=buf[: s.stop - s.start])
                part = _rsum(xp, axes, d, d)
                acc = part if acc is None else xp.add(acc, part, out=acc)
            return acc

        return _total(self.parallel(run, self._block_runs(blocks)))

    # -- normalisation ---------------------------------------------------------------

    def norm_moments(self, x, axes, center):
        xp = self.xp
        xw = _work(xp, x)
        inv = 1.0 / (_count(x.shape, axes) or 1)  # an empty slice: mean 0, var 0
        if not center:
            return None, _rsum(xp, axes, xw, xw) * inv
        blocks = self._sample_blocks(xw) if 0 in axes else None
        if blocks is not None:
            runs = self._block_runs(blocks)
            mean = (
                _total(
                    self.parallel(lambda bl: _rsum(xp, axes, xw[bl[0].start : bl[-1].stop]), runs)
                )
                * inv
            )
            return mean, self._blocked_centered_sq(xw, mean, axes, blocks) * inv
        mean = _rsum(xp, axes, xw) * inv
        d = xw - mean
        return mean, _rsum(xp, axes, d, d) * inv

    def norm_normalize(self, x, mean, var, w, b, eps):
        xp = self.xp
        xw = _work(xp, x)
        var = _work(xp, var)  # half running statistics: r in float32
        rstd = (1.0 / xp.sqrt(var + eps)).astype(var.dtype, copy=False)
        if w is not None and 4 * _size(rstd.shape, w.shape) <= xw.size:
            # batch and instance norm: a per-channel scale and shift, two passes (as
            # PyTorch's CPU kernel)
            scale = rstd * w
            shift = None if mean is None else -mean * scale
            if b is not None:
                shift = b if shift is None else shift + b
            blocks = (
                self._sample_blocks(xw, scale)
                if shift is None or shift.ndim == xw.ndim and shift.shape[0] == 1
                else None
            )
            if blocks is not None:
                y = xp.empty(xw.shape, dtype=xp.result_type(xw, scale))
                sc = self._per_sample(scale, xw)
                sh = None if shift is None else self._per_sample(shift, xw)

                def run(bl):
                    for s in bl:
                        ys = xp.multiply(xw[s], sc, out=y[s])
                        if sh is not None:
                            ys += sh

                self.parallel(run, self._block_runs(blocks))
                return y.astype(x.dtype, copy=False), rstd
            y = xw * scale
            if shift is not None:
                y += shift
        else:
            y = xw - mean if mean is not None else xw * 1
            y *= rstd
            if w is not None:
                y *= w
            if b is not None:
                y += b
        return y.astype(x.dtype, copy=False), rstd

    def norm_forward(self, x, axes, center, w, b, eps):
        mean, var = self.norm_moments(x, axes, center)
        y, rstd = self.norm_normalize(x, mean, var, w, b, eps)
        return y, mean, rstd

    def norm_backward(self, g, x, w, mean, rstd, axes, paxes, eps, stats_grad, need):
        xp = self.xp
        gw32, xw = _work(xp, g), _work(xp, x)
        inv = 1.0 / (_count(x.shape, axes) or 1)
        blocks = (
            self._sample_blocks(xw, mean, rstd, *(() if w is None else (w,)))
            if axes == paxes and mean is not None and 0 in axes
            else None
        )
        if blocks is not None:
            return self._batch_norm_backward(
                gw32, xw, w, mean, rstd, axes, inv, stats_grad, need, blocks, x.dtype
            )
        xc = xw - mean if mean is not None else xw  # xc is ours only with a mean
        gx = gw_ = gb = None
        if axes == paxes and mean is not None:
            # batch norm: rstd is constant over the weight's sums, which are the means
            sg = _rsum(xp, axes, gw32)
            sgxc = _rsum(xp, axes, gw32, xc)
            gw_ = sgxc * rstd if need[1] else None
            gb = sg if need[2] else None
            if need[0]:
                scale = rstd if w is None else rstd * w
                gx = gw32 * scale
                if stats_grad:
                    xc *= sgxc * (rstd * rstd * inv) * scale
                    gx -= xc
                    gx -= sg * (inv * scale)
        elif (
            mean is not None
            and w is not None
            and stats_grad
            and need[0]
            and _trailing(axes, x.ndim)
            and paxes == tuple(range(x.ndim - len(axes)))
        ):
            return self._layer_norm_backward(gw32, xc, w, rstd, inv, need, x.dtype)
        else:
            xhat = xc * rstd
            if need[1]:
                gw_ = _rsum(xp, paxes, gw32, xhat)
            if need[2]:
                gb = _rsum(xp, paxes, gw32)
            if need[0]:
                gh = gw32 if w is None else gw32 * w
                if stats_grad:
                    xhat *= -(_rsum(xp, axes, gh, xhat) * inv)
                    gx = gh + xhat
                    if mean is not None:
                        gx -= _rsum(xp, axes, gh) * inv
                    gx *= rstd
                else:
                    gx = gh * rstd
        return tuple(None if a is None else a.astype(x.dtype, copy=False) for a in (gx, gw_, gb))

    def _batch_norm_backward(self, g, x, w, mean, rstd, axes, inv, stats_grad, need, blocks, dtype):
        r"""Batch norm's backward, block by block of the batch (:meth:`_sample_blocks`):
        one pass for the sums :math:`\sum g` and :math:`\sum g (x - \bar x)` (the
        centred block made in cache), one for :math:`g_x = g\,s - x\,k + c` with the
        per-channel :math:`s = r w`, :math:`k = s\,r^2 \overline{g (x - \bar x)}`,
        :math:`c = \bar x k - s\,\bar g` (the last two only with ``stats_grad``)."""
        xp = self.xp
        m = self._per_sample(mean, x)
        runs = self._block_runs(blocks)

        def sums(bl):
            buf = xp.empty(x[bl[0]].shape, dtype=x.dtype)
            sg = sgxc = None
            for s in bl:
                gs = g[s]
                d = xp.subtract(x[s], m, out=buf[: s.stop - s.start])
                a, c = _rsum(xp, axes, gs), _rsum(xp, axes, gs, d)
                sg = a if sg is None else xp.add(sg, a, out=sg)
                sgxc = c if sgxc is None else xp.add(sgxc, c, out=sgxc)
            return sg, sgxc

        parts = self.parallel(sums, runs)
        sg, sgxc = _total([p[0] for p in parts]), _total([p[1] for p in parts])
        gx = None
        if need[0]:
            scale = rstd if w is None else rstd * w
            sc = self._per_sample(scale, x)
            gx = xp.empty(x.shape, dtype=xp.result_type(g, sc))
            if stats_grad:
                k = sgxc * (rstd * rstd * inv) * scale
                kp = self._per_sample(k, x)
                cp = self._per_sample(mean * k - sg * (inv * scale), x)

            def grad(bl):
                buf = xp.empty(x[bl[0]].shape, dtype=x.dtype)
                for s in bl:
                    gxs = xp.multiply(g[s], sc, out=gx[s])
                    if stats_grad:
                        gxs -= xp.multiply(x[s], kp, out=buf[: s.stop - s.start])
                        gxs += cp

            self.parallel(grad, runs)
        return tuple(
            None if t is None else t.astype(dtype, copy=False)
            for t in (gx, sgxc * rstd if need[1] else None, sg if need[2] else None)
        )

    def _layer_norm_backward(self, g, xc, w, rstd, inv, need, dtype):
        r"""Layer norm's backward on the ``(N, D)`` view (statistics over the trailing
        dims, affine over the leading ones): :math:`\hat g = g w`, :math:`g_x = r(\hat g -
        \overline{\hat g} - \hat x\,\overline{\hat g \hat x})` with the row means as
        products with a ones vector (BLAS gemv) and einsum, two full-size arrays (``xc``,
        the kernel's own, becomes :math:`\hat x`)."""
        xp = self.xp
        shape = xc.shape
        n_d = w.size
        g2, xhat = g.reshape(-1, n_d), xc.reshape(-1, n_d)
        r = rstd.reshape(-1, 1)
        xhat *= r
        gw_ = xp.einsum("nd,nd->d", g2, xhat).reshape(w.shape) if need[1] else None
        gb = (xp.ones(g2.shape[0], g2.dtype) @ g2).reshape(w.shape) if need[2] else None
        gh = g2 * w.reshape(1, n_d)
        a = xp.einsum("nd,nd->n", gh, xhat).reshape(-1, 1)
        c = (gh @ xp.ones(n_d, gh.dtype)).reshape(-1, 1)
        a *= inv
        c *= inv
        xhat *= a
        gh -= xhat
        gh -= c
        gh *= r
        return tuple(
            None if t is None else t.astype(dtype, copy=False) for t in (gh.reshape(shape), gw_, gb)
        )

    def norm_train(self, x, axes, w, b, eps, running_mean, running_var, momentum):
        mean, var = self.norm_moments(x, axes, True)
        n = 1
        for d in axes:
            n *= x.shape[d]
        self.running_stats_update(running_mean, running_var, mean, var, momentum, n)
        y, rstd = self.norm_normalize(x, mean, var, w, b, eps)
        return y, mean, rstd

    def running_stats_update(self, running_mean, running_var, mean, var, momentum, n):
        if running_mean is not None:
            c = running_mean.shape[0]
            m = mean.reshape(-1, c).mean(axis=0).astype(running_mean.dtype, copy=False)
            running_mean *= 1 - momentum
            running_mean += momentum * m
        if running_var is not None:
            c = running_var.shape[0]
            unbiased = var.reshape(-1, c).mean(axis=0) * (n / (n - 1))
            running_var *= 1 - momentum
            running_var += (momentum * unbiased).astype(running_var.dtype, copy=False)

    # -- dropout ---------------------------------------------------------------------

    def dropout_noise(self, rng, shape, p, alpha, npdtype):
        xp = self.xp
        if p >= 1:
            return xp.zeros(shape, dtype=npdtype), None
        cdt = xp.float64 if xp.dtype(npdtype) == xp.float64 else xp.float32
        keep = self._dropout_keep(rng, shape, p, cdt)
        if not alpha:
            return (keep * cdt(1.0 / (1.0 - p))).astype(npdtype, copy=False), None
        k = keep.astype(cdt)
        a = ((_SELU_ALPHA_PRIME**2 * p + 1) * (1 - p)) ** -0.5
        shift = (k - (1 - p)) * cdt(a * _SELU_ALPHA_PRIME)
        return (k * cdt(a)).astype(npdtype, copy=False), shift.astype(npdtype, copy=False)

    def _dropout_keep(self, rng, shape, p, cdt):
        """The keep indicator :math:`k = [u \\ge p]`, :math:`u \\sim U[0, 1)` in ``cdt``
        (bool, or 0/1 in ``cdt``)."""
        return self.xp.asarray(rng.random(shape, dtype=cdt) >= p)

    def dropout_forward(self, rng, x, p, noise_shape):
        mask, _ = self.dropout_noise(rng, noise_shape, p, False, x.dtype)
        return x * mask, mask

    def dropout_backward(self, g, key):
        return g * key

    # -- embeddings ------------------------------------------------------------------

    def embedding(self, weight, idx):
        return self.xp.take(weight, idx, axis=0)

    def embedding_backward(self, g, idx, num_weights, padding_idx, scale_grad_by_freq):
        xp = self.xp
        flat = idx.reshape(-1)
        d = g.shape[idx.ndim :]
        acc = xp.float64 if g.dtype.itemsize < 4 else g.dtype
        width = _count(d, range(len(d)))
        g2 = g.reshape((flat.shape[0], width)).astype(acc, copy=False)
        if scale_grad_by_freq:
            counts = xp.bincount(flat, minlength=num_weights)
            g2 = g2 / counts[flat].reshape(-1, 1)
        out = xp.zeros(num_weights * width, dtype=acc)
        # one flat scatter-add: the element (i, j) goes to row idx_i, column j
        pos = (flat.reshape(-1, 1) * width + xp.arange(width)).reshape(-1)
        self._ufunc_at(xp.add, out, pos, g2.reshape(-1))
        out = out.reshape((num_weights,) + d)
        if padding_idx is not None:
            out[padding_idx] = 0
        return out.astype(g.dtype, copy=False)

    def embedding_bag(self, weight, idx, bag, num_bags, mode, psw):
        xp = self.xp
        d = weight.shape[1]
        keep = bag >= 0
        iv, bv = idx[keep], bag[keep]
        rows = xp.take(weight, iv, axis=0)
        pos = (bv.reshape(-1, 1) * d + xp.arange(d)).reshape(-1)
        acc = xp.float64 if weight.dtype.itemsize < 4 else weight.dtype
        if mode == "max":
            out = xp.full(num_bags * d, -xp.inf, dtype=acc)
            self._ufunc_at(xp.maximum, out, pos, rows.reshape(-1).astype(acc, copy=False))
            won = rows.reshape(-1) == out[pos]  # the entries holding each maximum
            first = xp.full(num_bags * d, iv.shape[0], dtype=xp.int64)
            entry = xp.broadcast_to(xp.arange(iv.shape[0]).reshape(-1, 1), rows.shape)
            self._ufunc_at(xp.minimum, first, pos[won], entry.reshape(-1)[won])
            out[first == iv.shape[0]] = 0  # empty bags
            rows_of = xp.concatenate([iv.astype(xp.int64), xp.full(1, -1, xp.int64)])
            return (
                out.reshape(num_bags, d).astype(weight.dtype, copy=False),
                rows_of[first].reshape(num_bags, d),
            )
        if psw is not None:
            rows = rows * psw[keep].reshape(-1, 1)
        out = xp.zeros(num_bags * d, dtype=acc)
        self._ufunc_at(xp.add, out, pos, rows.reshape(-1).astype(acc, copy=False))
        out = out.reshape(num_bags, d)
        sizes = None
        if mode == "mean":
            sizes = xp.bincount(bv, minlength=num_bags).astype(acc)
            out /= xp.maximum(sizes, 1).reshape(-1, 1)
        return out.astype(weight.dtype, copy=False), sizes

    def embedding_bag_backward(
        self, g, weight, idx, bag, num_weights, mode, psw, aux, scale_grad_by_freq, need
    ):
        xp = self.xp
        d = g.shape[1]
        keep = bag >= 0
        iv, bv = idx[keep], bag[keep]
        gw = gpsw = None
        if need[0]:
            if mode == "max":
                hit = aux.reshape(-1) >= 0
                acc = xp.float64 if g.dtype.itemsize < 4 else g.dtype
                flat = xp.zeros(num_weights * d, dtype=acc)
                pos = (aux * d + xp.arange(d)).reshape(-1)[hit]
                self._ufunc_at(xp.add, flat, pos, g.reshape(-1)[hit].astype(acc, copy=False))
                gw = flat.reshape(num_weights, d).astype(g.dtype, copy=False)
            else:
                eg = g[bv]
                if mode == "mean":
                    eg = eg / xp.maximum(aux, 1)[bv].reshape(-1, 1).astype(g.dtype)
                elif psw is not None:
                    eg = eg * psw[keep].reshape(-1, 1)
                gw = self.embedding_backward(eg, iv, num_weights, None, scale_grad_by_freq)
        if need[1]:
            gpsw = xp.zeros(idx.shape[0], dtype=g.dtype)
            gpsw[keep] = xp.einsum("ij,ij->i", g[bv], xp.take(weight, iv, axis=0))
        return gw, gpsw

    def embedding_renorm_(self, weight, idx, max_norm, norm_type):
        xp = self.xp
        rows = xp.unique(idx.reshape(-1))
        sel = weight[rows]
        norms = xp.linalg.norm(_work(xp, sel), ord=norm_type, axis=-1, keepdims=True)
        scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[rows] = (sel * scale).astype(weight.dtype, copy=False)
