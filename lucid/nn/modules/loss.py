"""Loss layers."""

__all__ = []
