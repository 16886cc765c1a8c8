"""Convolution ops (N-d, transposed, groups, dilation)."""

from __future__ import annotations

__all__ = []
