"""Optim kernels over an array module."""


class XpOptim:
    """Optim kernels on ``self.xp``."""
