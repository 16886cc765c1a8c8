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

    probs_transposed = True

    def attention_probs(self, q, k, bias, allowed, scale, causal):
        # The scores are computed transposed, (..., S, L) in memory: the max and the sum
        # over the keys then run across contiguous rows (vectorised, about twice as fast
        # as along them), and P is returned as the (..., L, S) view of that buffer.
        xp = self.xp
        st = self._scores_t(q, k, bias, allowed, scale, causal)
        if k.shape[-2] and st.size:
            m = xp.amax(st, axis=-2, keepdims=True)
            m = xp.where(m == -xp.inf, 0, m)  # a fully masked row: exp(-inf) = 0 below
            st -= m
            xp.exp(st, out=st)
            z = xp.sum(st, axis=-2, keepdims=True)
            st /= xp.where(z == 0, 1, z)
        return xp.swapaxes(st, -1, -2).astype(q.dtype, copy=False)

    def _scores_t(self, q, k, bias, allowed, scale, causal):
        r"""The scores :math:`S^\top` of :meth:`attention_probs`, ``(..., S, L)``, float32
        for half inputs, :math:`-\infty` where masked."""
        xp = self.xp
        dt = q.dtype
        if dt.itemsize == 2:  # float16 / bfloat16: scores in float32
            q, k = q.astype(xp.float32), k.astype(xp.float32)
        n_q, n_k = q.shape[-2], k.shape[-2]
        if q.shape[-1] < n_k:  # scale the smaller operand
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
            tri = xp.tri(n_q, n_k, dtype=bool).T  # key j <= query i
            keep = tri if keep is None else keep & tri
        if keep is not None:
            if _fits(keep.shape, st.shape):
                xp.copyto(st, -xp.inf, where=~keep)
            else:
                st = xp.where(keep, st, -xp.inf)
        return st

    def attention_forward(self, q, k, v, bias, allowed, scale, causal, groups):
        # the reference path: P materialised (transposed, as in attention_probs), not kept
        xp = self.xp
        k, v = self._repeat_kv(k, v, groups)
        st = self._scores_t(q, k, bias, allowed, scale, causal)
        lse = self._lse_t(st)
        p = xp.exp(st - lse[..., None, :])
        out = xp.matmul(xp.swapaxes(p, -1, -2), v.astype(p.dtype, copy=False))
        return out.astype(q.dtype, copy=False), lse

    def attention_backward(self, g, q, k, v, bias, allowed, out, lse, scale, causal, groups):
        xp = self.xp
        kk, vv = self._repeat_kv(k, v, groups)
        st = self._scores_t(q, kk, bias, allowed, scale, causal)
        pt = xp.exp(st - lse[..., None, :])  # P^T, (..., S, L)
        ct = pt.dtype
        g, q32 = g.astype(ct, copy=False), q.astype(ct, copy=False)
        kk, vv = kk.astype(ct, copy=False), vv.astype(ct, copy=False)
        dv = xp.matmul(pt, g)
        d = xp.sum(g * out.astype(ct, copy=False), axis=-1)
        dst = xp.matmul(vv, xp.swapaxes(g, -1, -2))  # dP^T
        dst -= d[..., None, :]
        dst *= pt
        dst *= scale  # s dS^T
        dq = xp.matmul(xp.swapaxes(dst, -1, -2), kk)
        dk = xp.matmul(dst, q32)
        dk, dv = self._group_sum(dk, groups), self._group_sum(dv, groups)
        return (
            dq.astype(q.dtype, copy=False),
            dk.astype(k.dtype, copy=False),
            dv.astype(v.dtype, copy=False),
        )

    def _lse_t(self, st):
        """The log-sum-exp over axis -2 of the transposed scores, ``+inf`` where a row is
        fully masked."""
        xp = self.xp
        if not st.shape[-2]:
            return xp.full(st.shape[:-2] + st.shape[-1:], xp.inf, st.dtype)
        m = xp.amax(st, axis=-2)
        dead = m == -xp.inf
        m = xp.where(dead, 0, m)
        lse = m + xp.log(xp.sum(xp.exp(st - m[..., None, :]), axis=-2))
        return xp.where(dead, xp.inf, lse)

    def _repeat_kv(self, k, v, groups):
        """``k``, ``v`` with each head repeated for the ``groups`` query heads it serves."""
        if groups == 1:
            return k, v
        xp = self.xp
        return xp.repeat(k, groups, axis=-3), xp.repeat(v, groups, axis=-3)

    def _group_sum(self, a, groups):
        """``a`` (``(..., H * groups, S, E)``) summed over each group of consecutive heads."""
        if groups == 1:
            return a
        s = a.shape
        return a.reshape(s[:-3] + (s[-3] // groups, groups) + s[-2:]).sum(axis=-3)
