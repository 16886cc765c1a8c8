"""Norm, dropout and embedding kernels over an array module (NumPy or CuPy).

Half-precision inputs compute in float32 (statistics stay float32, outputs are cast back),
as PyTorch does on the CPU.
"""

_SELU_ALPHA_PRIME = 1.7580993408473766     # -scale * alpha of SELU


def _work(xp, a):
    """``a`` in its compute dtype: float32 for half types, itself otherwise."""
    return a.astype(xp.float32) if a.dtype.itemsize == 2 else a


def _count(shape, axes):
    n = 1
    for d in axes:
        n *= shape[d]
    return n


class XpNorm:
    """Implements :class:`NormKernels` with ``self.xp``."""

    # -- normalisation ---------------------------------------------------------------

    def norm_moments(self, x, axes, center):
        xp = self.xp
        xw = _work(xp, x)
        inv = 1.0 / (_count(x.shape, axes) or 1)      # an empty slice: mean 0, var 0
        if not center:
            return None, (xw * xw).sum(axis=axes, keepdims=True) * inv
        mean = xw.sum(axis=axes, keepdims=True) * inv
        d = xw - mean
        d *= d
        return mean, d.sum(axis=axes, keepdims=True) * inv

    def norm_normalize(self, x, mean, var, w, b, eps):
        xp = self.xp
        xw = _work(xp, x)
        rstd = 1.0 / xp.sqrt(var + eps)
        rstd = rstd.astype(var.dtype, copy=False)
        y = xw - mean if mean is not None else xw.copy()
        y *= rstd
        if w is not None:
            y *= w
        if b is not None:
            y += b
        return y.astype(x.dtype, copy=False), rstd

    def norm_backward(self, g, x, w, mean, rstd, axes, paxes, eps, stats_grad, need):
        xp = self.xp
        gw32, xw = _work(xp, g), _work(xp, x)
        xhat = (xw - mean) * rstd if mean is not None else xw * rstd
        inv = 1.0 / (_count(x.shape, axes) or 1)
        gx = gw_ = gb = None
        if axes == paxes:       # batch norm: the weight sums are the backward's own means
            sg = gw32.sum(axis=axes, keepdims=True)
            sgx = (gw32 * xhat).sum(axis=axes, keepdims=True)
            gw_ = sgx if need[1] else None
            gb = sg if need[2] else None
            if need[0]:
                scale = rstd if w is None else rstd * w
                if stats_grad:
                    gx = gw32 - xhat * (sgx * inv)
                    if mean is not None:
                        gx -= sg * inv
                    gx *= scale
                else:
                    gx = gw32 * scale
        else:
            if need[1]:
                gw_ = (gw32 * xhat).sum(axis=paxes, keepdims=True)
            if need[2]:
                gb = gw32.sum(axis=paxes, keepdims=True)
            if need[0]:
                gh = gw32 if w is None else gw32 * w
                if stats_grad:
                    gx = gh - xhat * ((gh * xhat).sum(axis=axes, keepdims=True) * inv)
                    if mean is not None:
                        gx -= gh.sum(axis=axes, keepdims=True) * inv
                    gx *= rstd
                else:
                    gx = gh * rstd
        return tuple(None if a is None else a.astype(x.dtype, copy=False)
                     for a in (gx, gw_, gb))

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
        keep = xp.asarray(rng.random(shape) >= p)
        cdt = xp.float64 if xp.dtype(npdtype) == xp.float64 else xp.float32
        if not alpha:
            return (keep * cdt(1.0 / (1.0 - p))).astype(npdtype, copy=False), None
        k = keep.astype(cdt)
        a = ((_SELU_ALPHA_PRIME ** 2 * p + 1) * (1 - p)) ** -0.5
        shift = (k - (1 - p)) * cdt(a * _SELU_ALPHA_PRIME)
        return (k * cdt(a)).astype(npdtype, copy=False), shift.astype(npdtype, copy=False)

    # -- embeddings ------------------------------------------------------------------

    def embedding(self, weight, idx):
        return self.xp.take(weight, idx, axis=0)

    def embedding_backward(self, g, idx, num_weights, padding_idx, scale_grad_by_freq):
        xp = self.xp
        flat = idx.reshape(-1)
        d = g.shape[idx.ndim:]
        g2 = g.reshape((flat.shape[0],) + d)
        if scale_grad_by_freq:
            counts = xp.bincount(flat, minlength=num_weights)
            g2 = g2 / counts[flat].reshape((-1,) + (1,) * len(d)).astype(g.dtype)
        out = xp.zeros((num_weights,) + d, dtype=xp.float64 if g.dtype.itemsize < 4
                       else g.dtype)
        xp.add.at(out, flat, g2)
        if padding_idx is not None:
            out[padding_idx] = 0
        return out.astype(g.dtype, copy=False)

    def embedding_renorm_(self, weight, idx, max_norm, norm_type):
        xp = self.xp
        rows = xp.unique(idx.reshape(-1))
        sel = weight[rows]
        norms = xp.linalg.norm(_work(xp, sel), ord=norm_type, axis=-1, keepdims=True)
        scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[rows] = (sel * scale).astype(weight.dtype, copy=False)
