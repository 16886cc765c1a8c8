"""``torch.nn.utils.init``: :func:`skip_init`."""

from __future__ import annotations

import inspect

from ...errors import ArgumentError, ArgumentTypeError
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` whose parameter values the caller will overwrite,
    as PyTorch's ``skip_init``: the class must take a ``device`` argument. PyTorch builds
    it on its ``meta`` device to skip the initialisers; Lucid has no meta device, so the
    constructor's initialisation runs (the values are as unspecified to the caller as
    PyTorch's, only no time is saved)."""
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise ArgumentTypeError(f"skip_init: expected a Module class, got {module_cls!r}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise ArgumentError(
            f"skip_init: {module_cls.__name__} must take a 'device' argument to skip initialization"
        )
    return module_cls(*args, **kwargs)
