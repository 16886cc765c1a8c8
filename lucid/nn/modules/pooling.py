"""Pooling layers."""

__all__ = []
