"""Grad modes and the global switches the op path reads.

``STATE`` holds every flag the hot path checks, so a feature that is off costs one
attribute read: whether ops record a graph, autocast (``None`` when off, else
``{device type: dtype}``), anomaly mode, and whether deterministic algorithms are required.
"""

from __future__ import annotations

import functools
import inspect

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "is_inference_mode_enabled",
]


from .._state import STATE  # noqa: F401  (re-exported: the flags live in the bottom layer)


class _DecoratorContext:
    """A context manager that is also a decorator (of functions and generators, with or
    without parentheses: ``@no_grad`` and ``@no_grad()``). ``_clone`` gives a fresh
    context of the same mode for each call of a decorated function."""

    def _clone(self):
        return self.__class__()

    def __call__(self, fn):
        make = self._clone
        if inspect.isgeneratorfunction(fn):
            return _wrap_generator(make, fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with make():
                return fn(*args, **kwargs)

        return wrapper


def _wrap_generator(make, fn):
    """``fn``'s generator, with the mode set around each step (not while suspended)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        gen = fn(*args, **kwargs)
        try:
            with make():
                out = gen.send(None)
            while True:
                try:
                    sent = yield out
                except GeneratorExit:
                    with make():
                        gen.close()
                    raise
                except BaseException as e:
                    with make():
                        out = gen.throw(e)
                else:
                    with make():
                        out = gen.send(sent)
        except StopIteration as stop:
            return stop.value

    return wrapper


class _GradModeContext(_DecoratorContext):
    """Sets grad mode to ``_enabled`` inside, restoring the previous mode on exit."""

    _enabled: bool

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)  # used as a bare decorator

    def __enter__(self):
        self._prev = STATE.grad_enabled
        STATE.grad_enabled = self._enabled

    def __exit__(self, *exc):
        STATE.grad_enabled = self._prev
        return False


class no_grad(_GradModeContext):
    """Inside this block ops record no graph: results have ``requires_grad=False``."""

    _enabled = False


class enable_grad(_GradModeContext):
    """Turn graph recording back on inside a ``no_grad`` block."""

    _enabled = True


class set_grad_enabled(_DecoratorContext):
    """Set grad mode to ``mode``; applies at once, and as a context restores it on exit.

    As a decorator, the decorated function runs with ``mode`` and the mode in force when
    the decorator was applied is left unchanged."""

    def __init__(self, mode: bool):
        self._prev = STATE.grad_enabled
        self._enabled = bool(mode)
        STATE.grad_enabled = self._enabled

    def _clone(self):
        return set_grad_enabled(self._enabled)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        STATE.grad_enabled = self._prev
        return False

    def __call__(self, fn):
        STATE.grad_enabled = self._prev
        return super().__call__(fn)


def is_grad_enabled() -> bool:
    """Whether ops currently record a graph."""
    return STATE.grad_enabled


class inference_mode(_DecoratorContext):
    """Like ``no_grad``, and ``is_inference_mode_enabled()`` is True inside.

    ``inference_mode(False)`` is a no-op context, as in PyTorch.
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # used as a bare decorator

    def __init__(self, mode: bool = True):
        self.mode = mode if isinstance(mode, bool) else True

    def _clone(self):
        return inference_mode(self.mode)

    def __enter__(self):
        self._prev = (STATE.grad_enabled, STATE.inference)
        if self.mode:
            STATE.grad_enabled, STATE.inference = False, True

    def __exit__(self, *exc):
        STATE.grad_enabled, STATE.inference = self._prev
        return False


def is_inference_mode_enabled() -> bool:
    """Whether an ``inference_mode`` block is active."""
    return STATE.inference
