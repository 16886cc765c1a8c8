"""Automatic mixed precision: :class:`autocast` applies each op's ``AmpPolicy`` per device
type; :class:`GradScaler` scales the loss so half-precision gradients do not underflow."""

from .autocast_mode import (
    autocast,
    custom_bwd,
    custom_fwd,
    get_autocast_dtype,
    is_autocast_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)
from .grad_scaler import GradScaler

__all__ = [
    "autocast",
    "is_autocast_enabled",
    "get_autocast_dtype",
    "set_autocast_enabled",
    "set_autocast_dtype",
    "custom_fwd",
    "custom_bwd",
    "GradScaler",
]
