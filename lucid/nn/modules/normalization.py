"""LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm."""

__all__ = []
