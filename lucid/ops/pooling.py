"""Pooling ops (max, average, adaptive, unpool)."""

from __future__ import annotations

__all__ = []
