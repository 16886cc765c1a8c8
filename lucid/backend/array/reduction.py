"""Reduction kernels over an array module (NumPy or CuPy)."""


class XpReduction:
    """Implements :class:`ReductionKernels` with ``self.xp``."""

    def sum(self, a, axis, keepdims, npdtype=None):
        return self.xp.sum(a, axis=axis, keepdims=keepdims, dtype=npdtype)
