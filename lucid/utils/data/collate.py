"""``default_collate`` (a list of samples -> one batch) and ``default_convert`` (NumPy arrays
-> tensors, for ``batch_size=None``), with PyTorch's semantics.

This module is also callable: ``lucid.utils.data.collate(batch)`` is
``default_collate(batch)`` (Lucid³'s ``collate`` function), while
``from lucid.utils.data.collate import default_collate`` keeps working (PyTorch's module
path, ``torch.utils.data._utils.collate``). The module's class is a ``ModuleType``
subclass with ``__call__``: the one object is both the module and the function, so no
import path finds the one where it wanted the other (a function bound over the module's
name in the package would break ``import lucid.utils.data.collate as m`` and dotted-path
patching), and it pickles by name, so ``collate_fn=collate`` reaches worker processes.
"""

from __future__ import annotations

import collections.abc
import importlib
import sys
import types

from ..._tensor import Tensor, as_tensor, tensor
from ...dtypes import float64
from ...ops import stack
from ...backend import host
from ...errors import ArgumentTypeError, ShapeError

__all__ = ["default_collate", "default_convert", "collate"]


def _namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def default_collate(batch):
    """Stack a list of samples into a batch, recursively: tensors with ``lucid.stack``
    (a new first dimension), NumPy arrays and scalars as tensors, floats as a float64 and
    ints as an int64 tensor (bools a bool tensor), strings and bytes kept as a list, dicts
    key by key (same type), namedtuples field by field, and other sequences position by
    position (tuples become lists, as in PyTorch). Samples of sequences must be of equal
    length."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(batch, 0)
    kind = host.array_kind(elem)
    if kind in ("array", "scalar"):
        return stack([as_tensor(b) for b in batch], 0)
    if kind == "bad":
        raise ArgumentTypeError(
            f"default_collate: batch must contain tensors, numpy arrays, "
            f"numbers, dicts or lists; found a numpy array of dtype "
            f"{elem.dtype}"
        )
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        out = {k: default_collate([d[k] for d in batch]) for k in elem}
        try:
            return type(elem)(out)
        except TypeError:
            return out
    if _namedtuple(elem):
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        n = len(elem)
        if any(len(b) != n for b in batch):
            raise ShapeError(
                "default_collate: each element in list of batch should be of "
                f"equal size, got lengths {[len(b) for b in batch]}"
            )
        columns = [default_collate(s) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        try:
            return type(elem)(columns)
        except TypeError:
            return columns
    raise ArgumentTypeError(
        f"default_collate: batch must contain tensors, numpy arrays, "
        f"numbers, dicts or lists; found {type(elem).__name__}"
    )


def default_convert(data):
    """NumPy arrays and scalars in ``data`` as tensors, recursively through dicts,
    namedtuples and sequences (tuples become lists); everything else unchanged."""
    if isinstance(data, Tensor):
        return data
    kind = host.array_kind(data)
    if kind in ("array", "scalar"):
        return as_tensor(data)
    if isinstance(data, (str, bytes)) or kind == "bad":
        return data
    if isinstance(data, collections.abc.Mapping):
        out = {k: default_convert(v) for k, v in data.items()}
        try:
            return type(data)(out)
        except TypeError:
            return out
    if _namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence):
        out = [default_convert(d) for d in data]
        try:
            return type(data)(out)
        except TypeError:
            return out
    return data


def collate(batch):
    """``default_collate(batch)``: a list of samples stacked into one batch (see
    :func:`default_collate`); the module itself calls this."""
    return default_collate(batch)


class _CallableModule(types.ModuleType):
    """This module's class: calling it collates (:func:`collate`); pickled by name."""

    def __call__(self, batch):
        return collate(batch)

    def __reduce__(self):
        return importlib.import_module, (self.__name__,)


sys.modules[__name__].__class__ = _CallableModule
