"""Convolutions: conv1d/2d/3d and conv_transpose1d/2d/3d."""

__all__ = []
