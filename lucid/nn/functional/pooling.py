"""Pooling: max/avg/adaptive/lp pooling and max_unpool."""

__all__ = []
