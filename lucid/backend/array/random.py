"""Random kernels over an array module (NumPy or CuPy)."""


class XpRandom:
    """Implements :class:`RandomKernels` with ``self.xp``."""
