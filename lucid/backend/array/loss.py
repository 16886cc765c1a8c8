"""Loss kernels over an array module."""


class XpLoss:
    """Loss kernels on ``self.xp``."""
