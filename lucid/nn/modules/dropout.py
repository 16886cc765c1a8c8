"""Dropout layers."""

__all__ = []
