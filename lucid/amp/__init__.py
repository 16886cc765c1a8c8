"""Automatic mixed precision: :class:`autocast` applies each op's ``AmpPolicy``."""

from .autocast_mode import autocast, get_autocast_dtype, is_autocast_enabled

__all__ = ["autocast", "is_autocast_enabled", "get_autocast_dtype"]
