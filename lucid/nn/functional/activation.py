"""Activation functions (relu family, gelu, silu, softmax family, glu, ...)."""

__all__ = []
