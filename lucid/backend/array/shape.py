"""Shape kernels over an array module (NumPy or CuPy)."""


class XpShape:
    """Implements :class:`ShapeKernels` with ``self.xp``."""

    def permute(self, a, axes):
        return a.transpose(axes)

    def swapaxes(self, a, d0, d1):
        return self.xp.swapaxes(a, d0, d1)
