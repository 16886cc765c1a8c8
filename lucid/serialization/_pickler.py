"""Writing: the object pickled as ``torch.save`` pickles it, its storages collected.

A tensor is written as PyTorch writes one, ``torch._utils._rebuild_tensor_v2(storage,
offset, size, stride, requires_grad, OrderedDict())``, whose storage is the persistent id
``('storage', torch.<Type>Storage, key, location, numel)``; an ``nn.Parameter`` as
``torch._utils._rebuild_parameter(tensor, requires_grad, OrderedDict())``; dtypes as
``torch.<name>``, ``Size`` as ``torch.Size``, devices as ``torch.device``. Everything else
pickles as it always does (a Lucid module by its Lucid class path, a NumPy array through
NumPy's reconstructor). Python's pure pickler is used because it lets these PyTorch names
be written without torch installed; the pickle holds only the structure, not the data.
"""

from __future__ import annotations

import collections
import pickle
from collections.abc import Callable
from typing import Any, ClassVar

from .. import dtypes as _dt
from .._device import device as _device_cls
from .._tensor import Size, Tensor
from ..backend import host_storage as hs
from ..errors import SerializationError
from ._names import DTYPE_NAMES, STORAGE_TYPES, TorchName
from ..nn import parameter

__all__ = ["Pickler", "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2

_REBUILD_TENSOR = TorchName("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = TorchName("torch._utils", "_rebuild_parameter")
_SIZE = TorchName("torch", "Size")
_DEVICE = TorchName("torch", "device")


class _StorageRef:
    """One storage to write: its persistent id, and the array whose bytes it is."""

    __slots__ = ("pid", "root", "backend")

    def __init__(self, pid, root, backend):
        self.pid, self.root, self.backend = pid, root, backend


def _location(dev):
    return "cpu" if dev.type == "cpu" else f"{dev.type}:{dev.index or 0}"


class Pickler(pickle._Pickler):
    """Pickles an object as ``torch.save`` does; ``storages`` lists what it referred to,
    ``[(key, backend, root array)]`` in the order of first use."""

    dispatch: ClassVar[dict[type, Callable[..., Any]]] = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol=DEFAULT_PROTOCOL):
        super().__init__(file, protocol)
        self.storages = []
        self._refs = {}  # id(root array) -> (_StorageRef, dtype)
        self._parameter, self._buffer = parameter.Parameter, parameter.Buffer
        self._uninit = parameter._Uninitialized

    # -- the names of PyTorch's globals, written without importing torch

    def _save_global(self, name, obj):
        self.write(pickle.GLOBAL + f"{name.module}\n{name.name}\n".encode("utf-8"))
        self.memoize(obj)

    def _save_torch_name(self, obj):
        self._save_global(obj, obj)

    def _save_dtype(self, obj):
        self._save_global(DTYPE_NAMES[obj], obj)

    dispatch[TorchName] = _save_torch_name
    dispatch[_dt.dtype] = _save_dtype

    # -- tensors and what refers to storages

    def persistent_id(self, obj):
        return obj.pid if type(obj) is _StorageRef else None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            if isinstance(obj, self._uninit):
                raise SerializationError(
                    "save: can't save an uninitialized parameter or "
                    "buffer (run the lazy module once first)"
                )
            if isinstance(obj, self._parameter):
                return (
                    _REBUILD_PARAMETER,
                    (obj.detach(), obj.requires_grad, collections.OrderedDict()),
                )
            if type(obj) is not Tensor and not isinstance(obj, self._buffer):
                raise SerializationError(
                    f"save: can't save a tensor of class "
                    f"{type(obj).__name__}; Lucid saves Tensor and "
                    "nn.Parameter (save t.detach() for a plain one)"
                )
            return self._tensor(obj)
        if type(obj) is Size:
            return (_SIZE, (tuple(obj),))
        if type(obj) is _device_cls:
            return (_DEVICE, (str(obj),))
        return NotImplemented

    def _tensor(self, t):
        be = t._device.backend
        lay = hs.layout(be, t._data)
        if lay is None:  # a layout PyTorch can't express: save a copy
            lay = hs.layout(be, be.copy(t._data))
        root, offset, strides = lay
        ref = self._storage(root, be, t)
        return (
            _REBUILD_TENSOR,
            (ref, offset, tuple(t.shape), strides, t.requires_grad, collections.OrderedDict()),
        )

    def _storage(self, root, be, t):
        got = self._refs.get(id(root))
        if got is not None:
            ref, dt = got
            if dt is not t.dtype:
                raise SerializationError(
                    f"save: two tensors view the same storage as different dtypes ({dt.name} "
                    f"and {t.dtype.name}); PyTorch's format can't hold that: save a copy "
                    "(t.clone()) of one of them"
                )
            return ref
        key = str(len(self.storages))
        numel = root.nbytes // t.dtype.itemsize
        ref = _StorageRef(
            ("storage", STORAGE_TYPES[t.dtype], key, _location(t.device), numel), root, be
        )
        self._refs[id(root)] = (ref, t.dtype)
        self.storages.append((key, be, root))
        return ref
