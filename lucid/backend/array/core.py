"""Core kernels over an array module (NumPy or CuPy share this code)."""


class XpCore:
    """Implements :class:`CoreKernels` with ``self.xp``."""

    def asarray(self, data, dtype=None, copy=None):
        return self.xp.asarray(data, dtype=dtype) if copy is None else \
            self.xp.array(data, dtype=dtype, copy=copy)

    def astype(self, a, npdtype):
        return a.astype(npdtype)

    def copy(self, a):
        return self.xp.array(a, order="C", copy=True)

    def empty(self, shape, npdtype):
        return self.xp.empty(shape, dtype=npdtype)

    def full(self, shape, value, npdtype):
        return self.xp.full(shape, value, dtype=npdtype)

    def ones(self, shape, npdtype):
        if shape == ():
            return self.xp.asarray(1, dtype=npdtype)
        return self.xp.ones(shape, dtype=npdtype)

    def broadcast_copy(self, a, shape):
        out = self.xp.empty(shape, dtype=a.dtype)
        out[...] = a
        return out

    def ones_like(self, a):
        return self.xp.ones_like(a)

    def zeros_like(self, a):
        return self.xp.zeros_like(a)

    def assign(self, dst, src):
        dst[...] = src

    def sum_to(self, a, shape):
        if a.shape == shape:
            return a
        lead = a.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(shape) if n == 1 and a.shape[lead + i] != 1)
        out = a.sum(axis=axes, keepdims=True) if axes else a
        return out.reshape(shape)

    def broadcast_to(self, a, shape):
        return self.xp.broadcast_to(a, shape)

    def reshape(self, a, shape):
        return a.reshape(shape)

    def shares_memory(self, a, b):
        return self.xp.shares_memory(a, b)
