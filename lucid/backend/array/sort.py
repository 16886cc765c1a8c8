"""Sort kernels over an array module (NumPy or CuPy)."""


class XpSort:
    """Implements :class:`SortKernels` with ``self.xp``."""
