"""Helpers shared by the indexing modules: index and value arguments checked as PyTorch
checks them (indices in range, with the dim and its size named; fill values of the input's
dtype, complex refused for a real input), 0-d tensors seen as 1-d by the ops along a dim,
and the installer of the in-place Tensor methods (``scatter_``, ``index_add_``, ...).
"""

from __future__ import annotations

import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import DTypeError, ShapeError, ValueOverflowError
from ..core.base import scalar_like
from ..core.inplace import apply_inplace
from ..shape.reshape import broadcast_shapes


_ATOMICS_NOTE = (
    "On CUDA, repeated indices combine through atomic operations whose order "
    "varies between runs (floating-point sums may differ in the last bits)."
)
_FULL = slice(None)


def _array(t, x):
    """The backend array of tensor ``t`` on ``x``'s device."""
    if t._device is x._device:
        return t._data
    return x._device._backend.asarray(t._device._backend.to_numpy(t._data))


def _check_range(op, be, a, n, dim, negative):
    """IndexingError unless every index of array ``a`` is in ``[-n, n)`` (``[0, n)``)."""
    be.check_index_bounds(
        a, -n if negative else 0, n, lambda e: f"{op}: {e} for dimension {dim} with size {n}"
    )


def _same_dtype(op, x, src, what="src"):
    if src._dtype is not x._dtype:
        raise DTypeError(
            f"{op}: expected self and {what} to have the same dtype, but got "
            f"{x._dtype} and {src._dtype}"
        )


def _broadcast(op, a, b, what="mask"):
    """The broadcast of shapes ``a`` (input) and ``b``, or a ShapeError naming ``op``."""
    try:
        return tuple(broadcast_shapes(a, b))
    except ShapeError:
        raise ShapeError(
            f"{op}: {what} of shape {list(b)} cannot be broadcast with the input of shape {list(a)}"
        ) from None


def _fill_value(op, value, x):
    """``value`` (a number or 0-d tensor) as a 0-d tensor of ``x``'s dtype and device; a
    complex value for a real ``x`` is refused (PyTorch: it cannot be converted)."""
    if isinstance(value, Tensor) and value._dtype.is_complex:
        _complex_into(op, x)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise ShapeError(
                f"{op}: only supports a 0-dimensional value tensor, but got "
                f"tensor with {value._data.ndim} dimension(s)"
            )
        if value._device is not x._device:
            value = value.to(x._device)
        return value if value._dtype is x._dtype else value.to(x._dtype)
    if not isinstance(value, numbers.Number):
        raise DTypeError(
            f"{op}: value must be a number or a 0-d tensor, got {type(value).__name__}"
        )
    if isinstance(value, complex):
        _complex_into(op, x)
    if x._dtype._cat == 1 and not isinstance(value, bool):
        info = _dt.iinfo(x._dtype)  # PyTorch's scalar rule: unsigned wraps down to -max
        if not (-info.max if info.min == 0 else info.min) <= value <= info.max:
            raise ValueOverflowError(
                f"{op}: value {value} cannot be converted to {x._dtype.name} without overflow"
            )
    return scalar_like(value, x._dtype, x)


def _complex_into(op, x):
    """Refuse a complex value for a real ``x`` (PyTorch: it cannot be converted)."""
    if not x._dtype.is_complex:
        raise DTypeError(f"{op}: a complex value cannot be converted to the {x._dtype.name} tensor")


def _vec(t):
    """A 0-d tensor as shape ``(1,)`` (ops along a dim treat a scalar as a vector)."""
    return t.reshape(1) if t._data.ndim == 0 else t


def _unvec(out, like):
    return out.reshape(()) if like._data.ndim == 0 else out


def _inplace(fn):
    def method(self, *args, **kwargs):
        return apply_inplace(fn, self, *args, **kwargs)

    method.__name__ = fn.__name__ + "_"
    method.__doc__ = f"In-place :func:`{fn.__name__}`."
    setattr(Tensor, method.__name__, method)
