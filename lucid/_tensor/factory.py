"""Tensors from data: ``tensor``, ``as_tensor``, ``from_numpy``, ``from_dlpack``, and the
two :class:`Tensor` methods that read data, installed on the class here: the legacy
constructor ``Tensor(*sizes)`` / ``Tensor(data)`` and pickling (``__reduce_ex__``)."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping

from .. import dtypes as _dt
from .._device import device as _device_cls, get_default_device
from ..backend import host as _host
from ..errors import ArgumentTypeError, DTypeError, ShapeError, ValueOverflowError
from .._device import CPU
from .tensor import Size, Tensor
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..types import DeviceLike, DTypeLike

__all__ = ["tensor", "as_tensor", "from_numpy", "from_dlpack", "is_tensor"]

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def dtype_arg(d, op):
    """``d`` as a Lucid dtype for an op's ``dtype=`` argument (None stays None).

    As PyTorch's argument parser, a string (``"float32"``) or a NumPy dtype or scalar type
    (``np.float32``) is refused with a ``TypeError``; a Lucid dtype, ``float``/``int``/
    ``bool`` and a ``torch.dtype`` are accepted."""
    if d is None or d.__class__ is _dt.dtype:
        return d
    if isinstance(d, str) or _host.is_array_dtype(d):
        raise ArgumentTypeError(
            f"{op}(): argument 'dtype' must be lucid.dtype, not {type(d).__name__} ({d!r})"
        )
    return _dt.as_dtype(d)


def _overflowing_int(data):
    """The first Python int in nested ``data`` outside int64, or None."""
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, int) and not isinstance(x, bool) and not _INT64_MIN <= x <= _INT64_MAX:
            return x
    return None


# -- reading nested data -----------------------------------------------------------------
#
# PyTorch reads ``data`` as a sequence when it has ``__len__`` and ``__getitem__`` (a list,
# a tuple, a deque, a range, an array.array, a user's class), strings, bytes and mappings
# excepted, and infers the dtype by promoting each leaf's: a Python bool, int, float or
# complex gives bool, int64, the default float or its complex; a NumPy scalar, a 0-d array
# or a Tensor its own dtype. Lucid also takes arrays and tensors of any shape as leaves
# (their shape extends the nesting) and objects with ``__array__`` or ``__dlpack__``.

_PY_LEAVES = {bool: _dt.bool, int: _dt.int64}  # float, complex: the default dtype's
_PY_NUMBERS = {bool, int, float, complex}
_NOT_SEQUENCES = (str, bytes, bytearray, Mapping)
_RAGGED = "nested sequences have inconsistent lengths"


def _items(x):
    """The items of ``x`` if it is read as a sequence, else None (a number, or an array or
    tensor, read whole)."""
    k = x.__class__
    if k is list or k is tuple:
        return x
    if (
        not (hasattr(k, "__len__") and hasattr(k, "__getitem__"))
        or isinstance(x, _NOT_SEQUENCES)
        or isinstance(x, Tensor)
        or _host.is_array(x)
        or _exporter(x)
        or hasattr(k, "__array__")
    ):
        return None
    if hasattr(k, "__iter__"):  # a deque indexes in O(n): iterate instead
        return list(x)
    return [x[i] for i in range(len(x))]


def _exporter(x):
    """Whether ``x`` (not a Tensor or NumPy array) shares its memory through DLPack."""
    return hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__")


def _imported(x):
    """A Tensor sharing the memory of DLPack exporter ``x``; a PyTorch tensor that requires
    grad (which refuses to export) through its ``detach()``."""
    if getattr(x, "requires_grad", False) and hasattr(x, "detach"):
        x = x.detach()
    return from_dlpack(x)


def _leaf(x, op):
    """``(value, dtype, shape)`` of a leaf of nested data: a number as itself, an array-like
    as a host array."""
    k = x.__class__
    if k is float or k is complex:
        return x, _dt.scalar_dtype(x), ()
    d = _PY_LEAVES.get(k)
    if d is not None:
        return x, d, ()
    if isinstance(x, Tensor):
        a = x._device.backend.to_numpy(x._data)
        return a, x._dtype, tuple(x.shape)
    if not (_host.is_array(x) or _host.is_scalar(x)):
        if _exporter(x):
            return _leaf(_imported(x), op)
        if hasattr(x, "__array__"):
            x = _host.array_of(x)
        elif isinstance(x, numbers.Number):
            return x, _dt.scalar_dtype(x), ()
        else:
            raise DTypeError(
                f"{op}: could not infer the dtype of {type(x).__name__}; "
                "expected numbers, nested sequences of numbers, arrays or "
                "tensors"
            )
    return x, _dt.from_numpy_dtype(x.dtype), tuple(x.shape)


def _read(data, op):
    """``(nested lists of numbers and host arrays, inferred dtype, whether a Python int
    lies outside int64)`` of nested ``data``, with PyTorch's check that every sequence at
    one depth has the same length (an array or tensor leaf counts as the sequences of its
    shape)."""
    shape, x = [], data
    while True:  # the shape, along the first elements
        items = _items(x)
        if items is None:
            shape.extend(_leaf(x, op)[2])
            break
        shape.append(len(items))
        if not items:
            break
        x = items[0]
    ndim = len(shape)
    rest = [tuple(shape[d:]) for d in range(ndim + 1)]
    dts, big = set(), [False]

    def numbers_only(items):
        """Whether ``items`` are Python numbers only (the common case, read in C loops)."""
        kinds = set(map(type, items))
        if not kinds <= _PY_NUMBERS:
            return False
        dts.update(_dt.scalar_dtype(k()) for k in kinds)
        if (
            int in kinds
            and complex not in kinds
            and not (_INT64_MIN <= min(items) and max(items) <= _INT64_MAX)
        ):
            big[0] = True
        return True

    def walk(x, depth):
        items = _items(x)
        if items is None:
            v, d, s = _leaf(x, op)
            if s != rest[depth]:
                what = f"an element of shape {s}" if s else type(x).__name__
                raise ShapeError(
                    f"{op}: {_RAGGED}: expected a sequence of length "
                    f"{shape[depth]} at dim {depth}, got {what}"
                )
            dts.add(d)
            if d is _dt.int64 and v.__class__ is int and not _INT64_MIN <= v <= _INT64_MAX:
                big[0] = True
            return v
        if depth == ndim:
            raise ShapeError(
                f"{op}: {_RAGGED}: expected a number at dim {depth}, got a "
                f"sequence of length {len(items)}"
            )
        if len(items) != shape[depth]:
            raise ShapeError(
                f"{op}: {_RAGGED}: expected sequence of length {shape[depth]} "
                f"at dim {depth} (got {len(items)})"
            )
        if depth == ndim - 1 and numbers_only(items):
            return items
        return [walk(e, depth + 1) for e in items]

    out = walk(data, 0)
    best = None
    for d in dts:
        best = d if best is None else _dt.promote_types(best, d)
    return out, best or _dt.get_default_dtype(), big[0]


def _to_array(data, dtype, dev):
    """``(backend array, lucid dtype)`` from any data, converted to ``dtype`` on ``dev``."""
    be = dev.backend
    want = dtype_arg(dtype, "tensor")
    if isinstance(data, Tensor):
        src = (
            data._data
            if data._device is dev
            else be.asarray(data._device.backend.to_numpy(data._data))
        )
        dt = want or data._dtype
        return be.copy(src) if dt is data._dtype else be.astype(src, dt.np), dt
    if data.__class__ is list or data.__class__ is tuple:
        nested, inferred, big = _read(data, "tensor")
        dt = want or inferred
    else:
        if not _host.is_array(data) and _exporter(data):
            return _to_array(_imported(data), want, dev)
        if not _host.is_array(data) and hasattr(data, "__array__"):
            data = _host.array_of(data)
        if _host.is_array(data) or (be.name != "cpu" and isinstance(data, be.ndarray)):
            dt = want or _dt.from_numpy_dtype(data.dtype)
            arr = be.asarray(data)
            return (be.copy(arr) if arr.dtype == dt.np else be.astype(arr, dt.np)), dt
        if _host.is_scalar(data):
            dt = want or _dt.from_numpy_dtype(data.dtype)
            return be.asarray(_host.scalar_array(data, dt)), dt
        if isinstance(data, numbers.Number):
            dt = want or _dt.scalar_dtype(data)
            nested, big = data, _overflowing_int(data) is not None
        elif _items(data) is not None:  # a deque, a range, an array.array, ...
            nested, inferred, big = _read(data, "tensor")
            dt = want or inferred
        else:
            raise DTypeError(
                f"tensor: could not convert {type(data).__name__} to a tensor; "
                "expected a number, nested sequence, ndarray or Tensor"
            )
    if big and dt._cat < 2:
        # Python ints beyond int64 never fit an integer dtype (PyTorch: "Overflow when
        # unpacking long long"); into a float or bool dtype they convert like any number
        if dt is _dt.bool:
            return be.asarray(_host.nested_bool_array(nested)), dt
        big = _overflowing_int(nested)
        raise ValueOverflowError(
            f"tensor: overflow: the Python int {big} does not fit "
            f"int64 (range [{_INT64_MIN}, {_INT64_MAX}])"
        )
    return be.asarray(_host.nested_array(nested, dt)), dt


def tensor(
    data: Any, *, dtype: DTypeLike = None, device: DeviceLike = None, requires_grad: bool = False
) -> Tensor:
    """A new tensor holding a copy of ``data``: a number, a nested sequence (anything with
    ``__len__`` and ``__getitem__``: lists, tuples, deques, ranges, ``array.array``) of
    numbers, NumPy scalars, arrays and tensors, an array, a tensor, or an object with
    ``__array__`` or ``__dlpack__``. The dtype, unless given, is PyTorch's inference (see
    :func:`_read`)."""
    dev = _device_cls(device) if device is not None else get_default_device()
    arr, dt = _to_array(data, dtype, dev)
    t = Tensor._wrap(arr, dt, dev)
    if requires_grad:
        t.requires_grad = True
    return t


def as_tensor(data: Any, dtype: DTypeLike = None, device: DeviceLike = None) -> Tensor:
    """``data`` as a tensor, sharing memory when it already is one of the right dtype and
    device: a Tensor, a NumPy array (or an object with ``__array__``) for the CPU, a DLPack
    exporter (a PyTorch or CuPy tensor) on its own device; other data as :func:`tensor`."""
    dev = _device_cls(device) if device is not None else None
    want = dtype_arg(dtype, "as_tensor")
    if isinstance(data, Tensor):
        if (want is None or want is data._dtype) and (dev is None or dev is data._device):
            return data
        return data.to(device=dev or data._device, dtype=want or data._dtype)
    if not _host.is_array(data) and _exporter(data):
        return as_tensor(_imported(data), want, dev)
    if not _host.is_array(data) and hasattr(data, "__array__"):
        data = _host.array_of(data)
    dev = dev or get_default_device()
    if (
        _host.is_array(data)
        and dev.type == "cpu"
        and data.dtype in _dt._BY_NP
        and (want is None or want.np == data.dtype)
    ):
        return from_numpy(data)
    return tensor(data, dtype=want, device=dev)


def from_numpy(a: Any) -> Tensor:
    """A CPU tensor sharing memory with NumPy array ``a``.

    A read-only array gives a tensor that shares it too; as in PyTorch a ``UserWarning``
    says so, and an in-place write to the tensor later raises, naming it read-only."""
    if not _host.is_array(a):
        raise DTypeError(f"from_numpy: expected np.ndarray, got {type(a).__name__}")
    if not _host.is_writeable(a):
        warnings.warn(
            "from_numpy: the given NumPy array is not writable, and Lucid does not "
            "support non-writable tensors: the tensor shares its memory, so writing "
            "to it in place raises; copy the array (a.copy()) to write to it",
            UserWarning,
            stacklevel=2,
        )
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
        raise ArgumentTypeError(
            f"from_dlpack: expected an object with __dlpack__ and "
            f"__dlpack_device__, or a DLPack capsule, got "
            f"{type(ext).__name__}"
        )
    kind, index = ext.__dlpack_device__()
    dev = _device_cls("cpu") if int(kind) == 1 else _device_cls("cuda", int(index))
    a = dev.backend.from_dlpack(ext)  # bfloat16 too, which np.from_dlpack refuses
    return Tensor._wrap(a, _dt.from_numpy_dtype(a.dtype), dev)


def is_tensor(obj: object) -> bool:
    return isinstance(obj, Tensor)


def _rebuild(array, dtype_name, device, requires_grad):
    return tensor(array, dtype=_dt.as_dtype(dtype_name), device=device, requires_grad=requires_grad)


# -- the Tensor methods that read data -----------------------------------------------------


def _legacy_init(self, *args, dtype=None, device=None, requires_grad=False):
    """``Tensor(*sizes)`` (uninitialised) or ``Tensor(data)``, as PyTorch's legacy
    constructor: in the default float dtype unless ``dtype`` is given."""
    dev = _device_cls(device) if device is not None else CPU
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args):
        if any(a < 0 for a in args):
            raise ShapeError(f"Tensor: negative dimension in size {list(args)}")
        arr = dev.backend.empty(args if args else (0,), dt.np)
    elif len(args) == 1 and not isinstance(args[0], numbers.Number):
        arr, dt = _to_array(args[0], dt, dev)
    else:
        raise DTypeError(
            f"Tensor: expected sizes (ints) or one sequence of data, got "
            f"{', '.join(type(a).__name__ for a in args)}"
        )
    Tensor._init(self, arr, dt, dev)
    if requires_grad:
        self.requires_grad = True


def _reduce_ex(self, protocol):
    """Pickle as ``_rebuild(host array, dtype name, device, requires_grad)``."""
    return (
        _rebuild,
        (
            self._device.backend.to_numpy(self._data),
            self._dtype.name,
            str(self._device),
            self._requires_grad,
        ),
    )


_legacy_init.__name__ = _legacy_init.__qualname__ = "__init__"
_reduce_ex.__name__ = _reduce_ex.__qualname__ = "__reduce_ex__"
Tensor.__init__ = _legacy_init
Tensor.__reduce_ex__ = _reduce_ex
