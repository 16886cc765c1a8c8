"""Normalisation ops (batch, layer, group, RMS norm): fused forward and analytic backward."""

from __future__ import annotations

__all__ = []
