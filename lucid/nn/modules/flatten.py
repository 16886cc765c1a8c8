"""Flatten, Unflatten."""

__all__ = []
