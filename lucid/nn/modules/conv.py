"""Convolution layers."""

__all__ = []
