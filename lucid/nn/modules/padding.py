"""Padding layers: zero, constant, reflection, replication, circular."""

__all__ = []
