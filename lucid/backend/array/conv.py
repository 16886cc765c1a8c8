"""Conv kernels over an array module."""


class XpConv:
    """Conv kernels on ``self.xp``."""
