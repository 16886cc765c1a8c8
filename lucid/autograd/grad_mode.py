"""Grad modes and the global switches the op path reads.

``STATE`` holds every flag the hot path checks, so a feature that is off costs one
attribute read: whether ops record a graph, the autocast dtype (``None`` when off), anomaly
mode, and whether deterministic algorithms are required.
"""

from __future__ import annotations

import functools

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "inference_mode", "is_inference_mode_enabled"]


class _State:
    __slots__ = ("grad_enabled", "inference", "autocast", "anomaly", "anomaly_nan",
                 "deterministic", "deterministic_warn_only")

    def __init__(self):
        self.grad_enabled = True
        self.inference = False
        self.autocast = None        # the autocast dtype while autocast is on
        self.anomaly = False
        self.anomaly_nan = True
        self.deterministic = False
        self.deterministic_warn_only = False


STATE = _State()


class _GradModeContext:
    """A context manager that is also a decorator, restoring the previous mode on exit."""

    _enabled: bool

    def __enter__(self):
        self._prev = STATE.grad_enabled
        STATE.grad_enabled = self._enabled

    def __exit__(self, *exc):
        STATE.grad_enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeContext):
    """Inside this block ops record no graph: results have ``requires_grad=False``."""

    _enabled = False


class enable_grad(_GradModeContext):
    """Turn graph recording back on inside a ``no_grad`` block."""

    _enabled = True


class set_grad_enabled(_GradModeContext):
    """Set grad mode to ``mode``; applies at once, and as a context restores it on exit."""

    def __init__(self, mode: bool):
        self._prev = STATE.grad_enabled
        self._enabled = bool(mode)
        STATE.grad_enabled = self._enabled

    def __enter__(self):
        pass

    def __call__(self, fn):
        mode = self._enabled
        STATE.grad_enabled = self._prev

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper


def is_grad_enabled() -> bool:
    """Whether ops currently record a graph."""
    return STATE.grad_enabled


class inference_mode:
    """Like ``no_grad``, and tensors made inside are marked as inference tensors.

    ``inference_mode(False)`` is a no-op context, as in PyTorch.
    """

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)

    def __enter__(self):
        self._prev = (STATE.grad_enabled, STATE.inference)
        if self.mode:
            STATE.grad_enabled, STATE.inference = False, True

    def __exit__(self, *exc):
        STATE.grad_enabled, STATE.inference = self._prev
        return False

    def __call__(self, fn):
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return fn(*args, **kwargs)
        return wrapper


def is_inference_mode_enabled() -> bool:
    """Whether an ``inference_mode`` block is active."""
    return STATE.inference
