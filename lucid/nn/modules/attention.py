"""MultiheadAttention."""

__all__ = []
