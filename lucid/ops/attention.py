"""Scaled dot-product attention: one fused op."""

from __future__ import annotations

__all__ = []
