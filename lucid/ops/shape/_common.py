"""Helpers shared by the shape modules: size and int arguments read as PyTorch reads them
(``f(2, 3)`` and ``f((2, 3))`` alike; ints, integer scalars and one-element integer
tensors), and the in-place form of a view op (``squeeze_``, ``t_``, ...), which gives the
tensor itself the view's shape and strides.
"""

from __future__ import annotations

import numbers
import operator

from ..._state import STATE
from ...errors import AutogradError, DTypeError


def _shape_arg(size, op="shape"):
    """``f(2, 3)`` and ``f((2, 3))`` both give ``(2, 3)``."""
    if (
        len(size) == 1
        and size[0].__class__ is not int
        and not isinstance(size[0], numbers.Integral)
    ):
        size = size[0]
    try:
        return tuple(map(operator.index, size))
    except TypeError:
        raise DTypeError(f"{op}: expected a sequence of ints, got {size!r}") from None


def _int(v, what, op):
    """``v`` as an int (ints, integer scalars, one-element integer tensors), else DTypeError."""
    try:
        return operator.index(v)
    except TypeError:
        raise DTypeError(f"{op}: {what} must be an int, got {type(v).__name__}") from None


def _restride_(name, x, view):
    """Make ``x`` itself the view ``view`` of it, as PyTorch's ``squeeze_``, ``t_``, ...:
    the same storage with new shape and strides, and ``view``'s history.

    The values do not change, so the version counter is not bumped (PyTorch bumps it):
    nodes that saved ``x`` stay valid, and views taken from ``x`` before keep replaying
    against an unchanged base.
    """
    if STATE.grad_enabled and x._requires_grad and x._grad_fn is None:
        raise AutogradError(
            f"{name}: a leaf Variable that requires grad is being used in an in-place operation."
        )
    x._data = view._data
    if x._base is not None:  # a view stays a view, one step further down its chain
        x._meta = view._meta
        x._view_v = view._view_v
    x._grad_fn = view._grad_fn
    x._output_nr = view._output_nr
    x._requires_grad = view._requires_grad
    return x
