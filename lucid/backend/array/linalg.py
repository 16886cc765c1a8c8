"""Linalg kernels over an array module (NumPy or CuPy)."""

import math


def _half(dt):
    """float16 / bfloat16: no fast (or any) einsum loops; computed in float32."""
    return dt.itemsize == 2 and dt.kind not in "iub"


class XpLinalg:
    """Implements :class:`LinalgKernels` with ``self.xp``."""

    def matmul(self, a, b):
        return self.xp.matmul(a, b)

    def linear(self, x, w, b):
        out = self.matmul(x.reshape(math.prod(x.shape[:-1]), x.shape[-1]), w.T)
        if b is not None:
            out += b
        return out.reshape(x.shape[:-1] + (w.shape[0],))

    def linear_act(self, x, w, b, activation, approximate):
        return self._activate(self.linear(x, w, b), activation, approximate)

    def _activate(self, z, activation, approximate):
        """:meth:`linear_act`'s activation of the fresh pre-activation ``z``."""
        if activation == "relu":
            return self.xp.maximum(z, z.dtype.type(0), out=z)  # z is ours: in place
        return self.gelu(z, approximate), z

    def linear_weight_grad(self, g, x, npdtype=None):
        if npdtype is not None and npdtype != g.dtype:
            g, x = g.astype(npdtype), x.astype(npdtype)
        return self.matmul(g.T, x), self.sum_rows(g)

    def sum_rows(self, a):
        # a vector-matrix product (BLAS gemv): two to three times faster than NumPy's
        # strided column reduction
        return self.matmul(self.xp.ones(a.shape[0], dtype=a.dtype), a)

    def qr(self, a):
        if _half(a.dtype):
            q, r = self.qr(a.astype(self.xp.float32))
            return q.astype(a.dtype), r.astype(a.dtype)
        return self.xp.linalg.qr(a, mode="reduced")

    def einsum(self, equation, *arrays):
        xp = self.xp
        dt = arrays[0].dtype
        if _half(dt):
            return self.einsum(equation, *[a.astype(xp.float32) for a in arrays]).astype(dt)
        if len(arrays) == 1:
            out = xp.einsum(equation, arrays[0])
            # a pure transpose or diagonal comes back as a view of the input: own the result
            return out.copy() if xp.may_share_memory(out, arrays[0]) else out
        return xp.einsum(equation, *arrays, optimize=True)  # BLAS where a pair contracts

    def cross(self, a, b, axis):
        return self.xp.cross(a, b, axis=axis)

    def diag_embed(self, a, offset, dim1, dim2):
        n = a.shape[-1] + abs(offset)
        batch = iter(a.shape[:-1])
        shape = tuple(n if i in (dim1, dim2) else next(batch) for i in range(a.ndim + 1))
        out = self.xp.zeros(shape, dtype=a.dtype)
        self.diagonal(out, offset, dim1, dim2)[...] = a
        return out

    def cdist(self, x1, x2, p, use_mm):
        xp = self.xp
        if use_mm:
            sq = (
                (x1 * x1).sum(-1)[..., :, None]
                + (x2 * x2).sum(-1)[..., None, :]
                - 2 * self.matmul(x1, xp.swapaxes(x2, -1, -2))
            )
            return xp.sqrt(xp.maximum(sq, sq.dtype.type(1e-30)))
        a = xp.abs(x1[..., :, None, :] - x2[..., None, :, :])
        if p == 0:
            return (a != 0).sum(-1).astype(x1.dtype)
        if p == 1:
            return a.sum(-1)
        if p == 2:
            return xp.sqrt((a * a).sum(-1))
        if p == float("inf"):
            return a.max(-1) if a.shape[-1] else xp.zeros(a.shape[:-1], a.dtype)
        dt = a.dtype.type
        return (a ** dt(p)).sum(-1) ** dt(1 / p)

    def cdist_backward(self, g, x1, x2, d, p):
        xp = self.xp
        if p == 0:
            shape = xp.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
            return (
                xp.zeros(shape + x1.shape[-2:], x1.dtype),
                xp.zeros(shape + x2.shape[-2:], x2.dtype),
            )
        if p == 2:  # sum_j w_ij (x1_i - x2_j) as two GEMMs, no (P, R, M) tensor
            w = xp.where(d == 0, 0, g / xp.where(d == 0, 1, d))
            wt = xp.swapaxes(w, -1, -2)
            return (
                x1 * w.sum(-1)[..., None] - self.matmul(w, x2),
                x2 * wt.sum(-1)[..., None] - self.matmul(wt, x1),
            )
        diff = x1[..., :, None, :] - x2[..., None, :, :]
        w = xp.sign(diff) * g[..., None]  # zero wherever diff (or d) is zero
        if p == float("inf"):
            w = w * (xp.abs(diff) == d[..., None])
        elif p != 1:
            a = xp.abs(diff)
            dd = d[..., None]
            w = w * (xp.where(a == 0, 1, a) / xp.where(dd == 0, 1, dd)) ** (p - 1)
        return w.sum(-2), -w.sum(-3)
