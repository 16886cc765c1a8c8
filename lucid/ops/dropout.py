"""Dropout ops."""

from __future__ import annotations

__all__ = []
