"""Norm kernels over an array module."""


class XpNorm:
    """Norm kernels on ``self.xp``."""
