"""Batched tensors: the values ``lucid.func.vmap`` runs a function on.

A :class:`BatchedTensor` at vmap level ``L`` stands for one entry of a batch: its logical
shape is what the function sees; ``_bval`` is the physical tensor, the whole batch with the
batch dim first (a plain Tensor, or a BatchedTensor of a lower level under nested vmap).
Its ``_data`` is a zero-strided placeholder of the logical shape and dtype (no memory), so
the code above the op pipeline (argument checks, dim normalisation, shape arithmetic) works
unchanged; :meth:`~lucid.ops.core.base.Op.apply` hands every op with an input batched at the
innermost active level to that op's batching rule (:mod:`lucid.func.batching`), which runs
the op once on the physical tensors. Reading a batched tensor's values (``item``,
``numpy``, ``bool``) raises :class:`VmapError`: the result would depend on the batch entry.

``LEVELS`` holds, per active level, its batch size and randomness mode.
"""

from __future__ import annotations

import weakref

from .._state import STATE
from .._tensor import Tensor
from ..errors import LucidError

__all__ = ["BatchedTensor", "VmapError", "LEVELS", "wrap", "unwrap_all", "lift"]

LEVELS: list = []  # per active vmap level (level L at LEVELS[L - 1]): (batch size, randomness)
_PLACEHOLDERS: weakref.WeakValueDictionary = (
    weakref.WeakValueDictionary()
)  # id(its _data) -> a live BatchedTensor


class VmapError(LucidError, RuntimeError):
    """A function cannot be vectorized by vmap (no batching rule, a data-dependent read,
    mismatched batch sizes, a random op under ``randomness='error'``)."""


class BatchedTensor(Tensor):
    """One batch entry of ``_bval`` (batch dim 0) at vmap level ``_level``."""

    __slots__ = ("_bval", "_level")

    def __repr__(self):
        return (
            f"BatchedTensor(level={self._level}, batch_size={self._bval.shape[0]}, "
            f"shape={tuple(self.shape)}, dtype={self._dtype})"
        )

    def _no_data(self, what):
        raise VmapError(
            f"vmap: {what} of a batched tensor is not supported: the value "
            "differs between batch entries (the function is data-dependent)"
        )

    def item(self):
        self._no_data("item()")

    def tolist(self):
        self._no_data("tolist()")

    def numpy(self, *, force=False):
        self._no_data("numpy()")

    def __bool__(self):
        self._no_data("bool()")

    def __float__(self):
        self._no_data("float()")

    def __int__(self):
        self._no_data("int()")

    def detach(self):
        return wrap(self._bval.detach(), self._level)

    def __setitem__(self, index, value):
        """``self[index] = value`` for basic indices: an in-place copy into the batched
        view ``self[index]`` (advanced indices would select a copy)."""
        items = index if isinstance(index, tuple) else (index,)
        if not all(i is None or i is Ellipsis or isinstance(i, (int, slice)) for i in items):
            raise VmapError(
                "vmap: assignment into a batched tensor supports basic indices "
                "(ints, slices, None, ...) only; use lucid.where or index_put"
            )
        self[index].copy_(value)


def wrap(phys, level):
    """A BatchedTensor at ``level`` over physical ``phys`` (batch dim 0)."""
    be = phys._device._backend
    shape = tuple(phys.shape)[1:]
    data = be.broadcast_to(be.full((), 0, phys._dtype.np), shape)
    t = BatchedTensor._wrap(data, phys._dtype, phys._device)
    t._bval = phys
    t._level = level
    _PLACEHOLDERS[id(data)] = t
    return t


def batched_of(a):
    """The BatchedTensor whose placeholder array ``a`` is (an op took the tensor's data as
    a parameter: an index, a mask, a target), else None."""
    if a is None or a.__class__ in (int, float, bool, str, tuple):
        return None
    t = _PLACEHOLDERS.get(id(a))
    return t if t is not None and t._data is a else None


def unwrap_all(t):
    """``(plain tensor, ascending levels)``: the plain tensor holds one dim per level, in
    ascending level order, before the logical dims."""
    levels = []
    while t.__class__ is BatchedTensor:
        levels.append(t._level)
        t = t._bval
    return t, levels[::-1]


def lift(t, levels):
    """``t`` batched at every level of ascending ``levels`` (which include ``t``'s):
    missing levels are broadcast (an expanded view); also returns the plain tensor."""
    plain, have = unwrap_all(t)
    for i, lv in enumerate(levels):
        if lv not in have:
            shape = list(plain.shape)
            shape.insert(i, LEVELS[lv - 1][0])
            plain = plain.unsqueeze(i).expand(shape)
    return rewrap(plain, levels), plain


def rewrap(plain, levels):
    """Plain ``plain`` (one leading dim per level of ascending ``levels``) wrapped."""
    for lv in levels:
        plain = wrap(plain, lv)
    return plain


def active_levels():
    return list(range(1, STATE.vmap + 1))
