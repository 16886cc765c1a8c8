"""Activation layers."""

__all__ = []
