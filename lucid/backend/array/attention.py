"""Attention kernels over an array module."""


def _t(a, xp):
    """``a`` (at least 2-D after leading 1s) with its last two axes swapped, a view."""
    if a.ndim < 2:
        a = a.reshape((1,) * (2 - a.ndim) + a.shape)
    return xp.swapaxes(a, -1, -2)


def _fits(small, big):
    """Whether shape ``small`` broadcasts to ``big`` without enlarging it (so an in-place
    update of ``big`` can take it)."""
    return len(small) <= len(big) and all(s in (1, b) for s, b in zip(small[::-1], big[::-1]))


class XpAttention:
    """Implements :class:`AttentionKernels` with ``self.xp``."""

    def attention_probs(self, q, k, bias, allowed, scale, causal):
        # The scores are computed transposed, (..., S, L) in memory: the max and the sum
        # over the keys then run across contiguous rows (vectorised, about twice as fast
        # as along them), and P is returned as the (..., L, S) view of that buffer.
        xp = self.xp
        dt = q.dtype
        if dt.itemsize == 2:                   # float16 / bfloat16: scores in float32
            q, k = q.astype(xp.float32), k.astype(xp.float32)
        n_q, n_k = q.shape[-2], k.shape[-2]
        if q.shape[-1] < n_k:                  # scale the smaller operand
            st = xp.matmul(k, xp.swapaxes(q * scale, -1, -2))
        else:
            st = xp.matmul(k, xp.swapaxes(q, -1, -2))
            st *= scale
        if bias is not None:
            bt = _t(bias.astype(st.dtype, copy=False), xp)
            if _fits(bt.shape, st.shape):
                st += bt
            else:
                st = st + bt
        keep = None if allowed is None else _t(allowed, xp)
        if causal:
            tri = xp.tri(n_q, n_k, dtype=bool).T       # key j <= query i
            keep = tri if keep is None else keep & tri
        if keep is not None:
            if _fits(keep.shape, st.shape):
                xp.copyto(st, -xp.inf, where=~keep)
            else:
                st = xp.where(keep, st, -xp.inf)
        if n_k and st.size:
            m = xp.amax(st, axis=-2, keepdims=True)
            m = xp.where(m == -xp.inf, 0, m)   # a fully masked row: exp(-inf) = 0 below
            st -= m
            xp.exp(st, out=st)
            z = xp.sum(st, axis=-2, keepdims=True)
            st /= xp.where(z == 0, 1, z)
        return xp.swapaxes(st, -1, -2).astype(dt, copy=False)
