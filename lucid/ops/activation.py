"""Fused activation ops (GELU, ...)."""

from __future__ import annotations

__all__ = []
