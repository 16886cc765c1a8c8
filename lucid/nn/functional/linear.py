"""Linear maps: linear, bilinear."""

__all__ = []
