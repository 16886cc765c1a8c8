"""Indexing kernels over an array module (NumPy or CuPy)."""


class XpIndexing:
    """Implements :class:`IndexingKernels` with ``self.xp``."""
