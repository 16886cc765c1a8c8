"""Linalg kernels over an array module (NumPy or CuPy)."""


class XpLinalg:
    """Implements :class:`LinalgKernels` with ``self.xp``."""

    def matmul(self, a, b):
        return self.xp.matmul(a, b)
