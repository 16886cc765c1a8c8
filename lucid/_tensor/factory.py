"""Tensors from data: ``tensor``, ``as_tensor``, ``from_numpy``, ``from_dlpack``."""

from __future__ import annotations

import numbers
import warnings

from .. import dtypes as _dt
from .._device import device as _device_cls, get_default_device
from ..backend import host as _host
from ..errors import ArgumentTypeError, DTypeError, ValueOverflowError
from .tensor import Tensor

__all__ = ["tensor", "as_tensor", "from_numpy", "from_dlpack", "is_tensor"]

_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1


def dtype_arg(d, op):
    """``d`` as a Lucid dtype for an op's ``dtype=`` argument (None stays None).

    As PyTorch's argument parser, a string (``"float32"``) or a NumPy dtype or scalar type
    (``np.float32``) is refused with a ``TypeError``; a Lucid dtype, ``float``/``int``/
    ``bool`` and a ``torch.dtype`` are accepted."""
    if d is None or d.__class__ is _dt.dtype:
        return d
    if isinstance(d, str) or _host.is_array_dtype(d):
        raise ArgumentTypeError(f"{op}(): argument 'dtype' must be lucid.dtype, not "
                                f"{type(d).__name__} ({d!r})")
    return _dt.as_dtype(d)


def _overflowing_int(data):
    """The first Python int in nested ``data`` outside int64, or None."""
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, int) and not isinstance(x, bool) and \
                not _INT64_MIN <= x <= _INT64_MAX:
            return x
    return None


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
        elif _host.is_array(x):
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
    want = dtype_arg(dtype, "tensor")
    if isinstance(data, Tensor):
        src = data._data if data._device is dev else \
            be.asarray(data._device.backend.to_numpy(data._data))
        dt = want or data._dtype
        return be.copy(src) if dt is data._dtype else be.astype(src, dt.np), dt
    if hasattr(data, "__dlpack__") and not _host.is_array(data) and \
            type(data).__module__.split(".")[0] in ("torch", "cupy"):
        data = be.from_dlpack(data) if dev.type != "cpu" else _host.from_dlpack(data)
    if _host.is_array(data) or (be.name != "cpu" and isinstance(data, be.ndarray)):
        dt = want or _dt.from_numpy_dtype(data.dtype)
        arr = be.asarray(data)
        return (be.copy(arr) if arr.dtype == dt.np else be.astype(arr, dt.np)), dt
    if _host.is_scalar(data):
        dt = want or _dt.from_numpy_dtype(data.dtype)
        return be.asarray(_host.scalar_array(data, dt)), dt
    if isinstance(data, range):         # tensor(range(3)), as PyTorch
        data = list(data)
    elif isinstance(data, (list, tuple)) and any(isinstance(x, range) for x in data):
        data = [list(x) if isinstance(x, range) else x for x in data]
    if not isinstance(data, (list, tuple, numbers.Number, bool)):
        raise DTypeError(f"tensor: could not convert {type(data).__name__} to a tensor; "
                         "expected a number, nested sequence, ndarray or Tensor")
    dt = want or _infer_dtype(data)
    if dt._cat < 2:
        # Python ints beyond int64 never fit an integer dtype (PyTorch: "Overflow when
        # unpacking long long"); into a float or bool dtype they convert like any number
        big = _overflowing_int(data)
        if big is not None and dt is _dt.bool:
            return be.asarray(_host.nested_bool_array(_flatten_tensors(data))), dt
        if big is not None:
            raise ValueOverflowError(f"tensor: overflow: the Python int {big} does not fit "
                                     f"int64 (range [{_INT64_MIN}, {_INT64_MAX}])")
    return be.asarray(_host.nested_array(_flatten_tensors(data), dt)), dt


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
    want = dtype_arg(dtype, "as_tensor")
    if isinstance(data, Tensor):
        if (want is None or want is data._dtype) and (dev is None or dev is data._device):
            return data
        return data.to(device=dev or data._device, dtype=want or data._dtype)
    dev = dev or get_default_device()
    if _host.is_array(data) and dev.type == "cpu" and data.dtype in _dt._BY_NP and \
            (want is None or want.np == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=want, device=dev)


def from_numpy(a):
    """A CPU tensor sharing memory with NumPy array ``a``.

    A read-only array gives a tensor that shares it too; as in PyTorch a ``UserWarning``
    says so, and an in-place write to the tensor later raises, naming it read-only."""
    if not _host.is_array(a):
        raise DTypeError(f"from_numpy: expected np.ndarray, got {type(a).__name__}")
    if not _host.is_writeable(a):
        warnings.warn("from_numpy: the given NumPy array is not writable, and Lucid does not "
                      "support non-writable tensors: the tensor shares its memory, so writing "
                      "to it in place raises; copy the array (a.copy()) to write to it",
                      UserWarning, stacklevel=2)
    return Tensor._wrap(a, _dt.from_numpy_dtype(a.dtype), _device_cls("cpu"))


class _RawCapsule:
    """A bare DLPack capsule (``torch.utils.dlpack.to_dlpack``) presented as an exporter
    of host memory, which is what a capsule without its array can only be read as."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)


def from_dlpack(ext):
    """A tensor sharing memory with any DLPack-capable array (NumPy, CuPy, PyTorch), or
    with the host tensor a raw DLPack capsule describes; bfloat16 included (read by the CPU
    backend, as NumPy's DLPack has no bfloat16). A capsule can be consumed once."""
    if not hasattr(ext, "__dlpack_device__") and type(ext).__name__ == "PyCapsule":
        ext = _RawCapsule(ext)
    if not (hasattr(ext, "__dlpack__") and hasattr(ext, "__dlpack_device__")):
        raise ArgumentTypeError(f"from_dlpack: expected an object with __dlpack__ and "
                                f"__dlpack_device__, or a DLPack capsule, got "
                                f"{type(ext).__name__}")
    kind, index = ext.__dlpack_device__()
    dev = _device_cls("cpu") if int(kind) == 1 else _device_cls("cuda", int(index))
    a = dev.backend.from_dlpack(ext)         # bfloat16 too, which np.from_dlpack refuses
    return Tensor._wrap(a, _dt.from_numpy_dtype(a.dtype), dev)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def _rebuild(array, dtype_name, device, requires_grad):
    return tensor(array, dtype=_dt.as_dtype(dtype_name), device=device,
                  requires_grad=requires_grad)
