"""weight_norm, remove_weight_norm."""

__all__ = []
