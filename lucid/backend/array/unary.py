"""Unary kernels over an array module (NumPy or CuPy)."""


class XpUnary:
    """Implements :class:`UnaryKernels` with ``self.xp``."""

    def exp(self, a):
        return self.xp.exp(a)
