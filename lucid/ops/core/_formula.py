"""Helpers of the one gradient formula (:meth:`~lucid.ops.core.base.Op.grad`) for constants.

A formula runs on backend arrays (eager) and on Tensors (graph mode). Quantities that are
constant for the gradient — masks, counts, tie weights, the zeros a gradient is scattered
into — are computed once on backend arrays with the node's backend, in either mode, and
:func:`const` hands them to the formula in the form of its operands: the array itself in
eager mode, a Tensor without history on the operand's device in graph mode (so the second
derivative treats them as constants, as PyTorch's boolean selections do).
"""

from __future__ import annotations

from ... import dtypes as _dt
from ..._tensor import Tensor

__all__ = ["const", "array_of"]

_wrap = Tensor._wrap


def const(arr, like):
    """Backend array ``arr`` as an operand of ``like``'s kind: ``arr`` when ``like`` is an
    array, a history-free Tensor on ``like``'s device when it is a Tensor."""
    if isinstance(like, Tensor):
        return _wrap(arr, _dt.from_numpy_dtype(arr.dtype), like._device)
    return arr


def array_of(x):
    """The backend array of an operand: ``x`` itself, or a Tensor's array (``None`` stays
    ``None``)."""
    return x._data if isinstance(x, Tensor) else x
