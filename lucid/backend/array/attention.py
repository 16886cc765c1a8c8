"""Attention kernels over an array module."""


class XpAttention:
    """Implements :class:`AttentionKernels` with ``self.xp``."""

    def attention_probs(self, q, k, bias, allowed, scale, causal):
        xp = self.xp
        dt = q.dtype
        if dt.itemsize == 2:                   # float16 / bfloat16: scores in float32
            q, k = q.astype(xp.float32), k.astype(xp.float32)
        s = xp.matmul(q, xp.swapaxes(k, -1, -2))
        s *= scale
        if bias is not None:
            s = s + bias.astype(s.dtype, copy=False)
        if causal:
            tri = xp.tri(s.shape[-2], s.shape[-1], dtype=bool)
            allowed = tri if allowed is None else allowed & tri
        if allowed is not None:
            s = xp.where(allowed, s, -xp.inf)
        if s.shape[-1] and s.size:
            m = xp.amax(s, axis=-1, keepdims=True)
            m = xp.where(m == -xp.inf, 0, m)   # a fully masked row: exp(-inf) = 0 below
            s -= m
            xp.exp(s, out=s)
            z = xp.sum(s, axis=-1, keepdims=True)
            s /= xp.where(z == 0, 1, z)
        return s.astype(dt, copy=False)
