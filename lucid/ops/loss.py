"""Fused loss ops (cross-entropy, nll, ...)."""

from __future__ import annotations

__all__ = []
