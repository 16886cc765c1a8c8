"""Identity, Linear, Bilinear, LazyLinear."""

__all__ = []
