"""Tensors from data: ``tensor``, ``as_tensor``, ``from_numpy``, ``from_dlpack``."""

from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes as _dt
from .._device import device as _device_cls, get_default_device
from ..errors import DTypeError, ShapeError
from .tensor import Tensor

__all__ = ["tensor", "as_tensor", "from_numpy", "from_dlpack", "is_tensor"]


def _infer_dtype(data):
    """The dtype PyTorch infers for nested Python data (bool < int64 < default float)."""
    best = None
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
            continue
        if isinstance(x, Tensor):
            d = x._dtype
        elif isinstance(x, np.ndarray):
            d = _dt.from_numpy_dtype(x.dtype)
        else:
            d = _dt.scalar_dtype(x)
        best = d if best is None else _dt.promote_types(best, d)
    return best or _dt.get_default_dtype()


def _flatten_tensors(data):
    if isinstance(data, Tensor):
        return data._device.backend.to_numpy(data._data)
    if isinstance(data, (list, tuple)):
        return [_flatten_tensors(x) for x in data]
    return data


def _to_array(data, dtype, dev):
    """``(backend array, lucid dtype)`` from any data, converted to ``dtype`` on ``dev``."""
    be = dev.backend
    want = _dt.as_dtype(dtype) if dtype is not None else None
    if isinstance(data, Tensor):
        src = data._data if data._device is dev else \
            be.asarray(data._device.backend.to_numpy(data._data))
        dt = want or data._dtype
        return be.copy(src) if dt is data._dtype else be.astype(src, dt.np), dt
    if hasattr(data, "__dlpack__") and not isinstance(data, np.ndarray) and \
            type(data).__module__.split(".")[0] in ("torch", "cupy"):
        data = np.from_dlpack(data) if dev.type == "cpu" else be.xp.from_dlpack(data)
    if isinstance(data, np.ndarray) or (be.name != "cpu" and isinstance(data, be.ndarray)):
        dt = want or _dt.from_numpy_dtype(data.dtype)
        arr = be.asarray(data)
        return (be.copy(arr) if arr.dtype == dt.np else be.astype(arr, dt.np)), dt
    if isinstance(data, np.generic):
        dt = want or _dt.from_numpy_dtype(data.dtype)
        return be.asarray(np.asarray(data).astype(dt.np)), dt
    if not isinstance(data, (list, tuple, numbers.Number, bool)):
        raise DTypeError(f"tensor: could not convert {type(data).__name__} to a tensor; "
                         "expected a number, nested sequence, ndarray or Tensor")
    dt = want or _infer_dtype(data)
    try:
        host = np.array(_flatten_tensors(data), dtype=np.float64 if dt.is_floating_point
                        else None)
    except ValueError as e:
        raise ShapeError(f"tensor: nested sequences have inconsistent lengths ({e})") from None
    if host.dtype == object:
        raise ShapeError("tensor: nested sequences have inconsistent lengths")
    return be.asarray(host.astype(dt.np)), dt


def tensor(data, *, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of ``data`` (numbers, nested lists, arrays, tensors)."""
    dev = _device_cls(device) if device is not None else get_default_device()
    arr, dt = _to_array(data, dtype, dev)
    t = Tensor._wrap(arr, dt, dev)
    if requires_grad:
        t.requires_grad = True
    return t


def as_tensor(data, dtype=None, device=None):
    """``data`` as a tensor, sharing memory when it already is one of the right dtype/device."""
    dev = _device_cls(device) if device is not None else None
    want = _dt.as_dtype(dtype) if dtype is not None else None
    if isinstance(data, Tensor):
        if (want is None or want is data._dtype) and (dev is None or dev is data._device):
            return data
        return data.to(device=dev or data._device, dtype=want or data._dtype)
    dev = dev or get_default_device()
    if isinstance(data, np.ndarray) and dev.type == "cpu" and data.dtype in _dt._BY_NP and \
            (want is None or want.np == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=want, device=dev)


def from_numpy(a):
    """A CPU tensor sharing memory with NumPy array ``a``."""
    if not isinstance(a, np.ndarray):
        raise DTypeError(f"from_numpy: expected np.ndarray, got {type(a).__name__}")
    return Tensor._wrap(a, _dt.from_numpy_dtype(a.dtype), _device_cls("cpu"))


def from_dlpack(ext):
    """A tensor sharing memory with any DLPack-capable array (NumPy, CuPy, PyTorch)."""
    kind, _ = ext.__dlpack_device__()
    if int(kind) == 1:
        a = np.from_dlpack(ext)
        return Tensor._wrap(a, _dt.from_numpy_dtype(a.dtype), _device_cls("cpu"))
    dev = _device_cls("cuda")
    a = dev.backend.xp.from_dlpack(ext)
    return Tensor._wrap(a, _dt.from_numpy_dtype(a.dtype), dev)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def _rebuild(array, dtype_name, device, requires_grad):
    return tensor(array, dtype=dtype_name, device=device, requires_grad=requires_grad)
