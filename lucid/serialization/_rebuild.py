"""What a file's tensors are rebuilt from: its storages, and the rebuild functions that its
pickle calls (``torch._utils._rebuild_tensor_v2`` and friends map to these).

A tensor of the file is ``(storage, offset, size, stride)``: a strided view of one storage.
Each storage is made a 1-D tensor once, on the device ``map_location`` says, and each tensor
of it a view of that, so tensors that shared a storage when saved share one buffer when
loaded. Every view is bounds-checked against its storage before it is made.
"""

from __future__ import annotations

import numbers

from .. import dtypes as _dt
from .._device import CPU
from .._tensor import Tensor
from ..backend import host_storage as hs
from ..errors import LucidError, SerializationError
from ..nn.parameter import Parameter

__all__ = [
    "LoadedStorage",
    "rebuild_tensor",
    "rebuild_tensor_v2",
    "rebuild_tensor_v3",
    "rebuild_parameter",
    "rebuild_parameter_with_state",
]


class LoadedStorage:
    """One storage of the file being loaded: ``host`` (a 1-D host array of its elements,
    uint8 for an untyped storage), its ``dtype`` (None: untyped), the ``location`` it was
    saved from, and, made on first use, its 1-D tensor per dtype where ``locate`` puts it."""

    __slots__ = ("key", "host", "dtype", "location", "_locate", "_bases")

    def __init__(self, key, host, dtype, location, locate):
        self.key, self.host, self.dtype, self.location = key, host, dtype, location
        self._locate, self._bases = locate, {}

    def __repr__(self):
        return f"<storage {self.key!r} of the file, saved on {self.location}>"

    def base(self, dt):
        """The whole storage as a 1-D tensor of dtype ``dt`` on its target device."""
        b = self._bases.get(dt)
        if b is not None:
            return b
        arr = self.host if dt is self.dtype else hs.bytes_as(hs.as_bytes(self.host), dt)
        if arr is None:
            raise SerializationError(
                f"load: storage {self.key!r} of the file holds "
                f"{self.host.nbytes} bytes, not a whole number of "
                f"{dt.name} elements"
            )
        t = Tensor._wrap(arr, dt, CPU)
        b = self._locate(t, self.location)
        if b.dtype is not dt or b.shape != t.shape:
            raise SerializationError(
                f"load: map_location turned storage {self.key!r} "
                f"({dt.name}, {t.numel()} elements) into a "
                f"{b.dtype.name} tensor of shape {tuple(b.shape)}"
            )
        if b.storage_offset() or not b.is_contiguous() or b.untyped_storage().nbytes() != b.nbytes:
            b = b.clone()  # views are made relative to a storage of its own
        self._bases[dt] = b
        return b


def _ints(v, what):
    if not isinstance(v, (tuple, list)) or not all(
        isinstance(i, numbers.Integral) and not isinstance(i, bool) and i >= 0 for i in v
    ):
        raise SerializationError(
            f"load: a tensor of the file has {what} {v!r}, expected a tuple of non-negative ints"
        )
    return tuple(int(i) for i in v)


def _view(storage, offset, size, stride, dt=None):
    """The tensor ``(offset, size, stride)`` of ``storage``, bounds-checked."""
    if not isinstance(storage, LoadedStorage):
        raise SerializationError(
            f"load: a tensor of the file is built on a {type(storage).__name__}, expected a storage"
        )
    dt = dt if dt is not None else storage.dtype
    if not isinstance(dt, _dt.dtype):
        raise SerializationError(
            f"load: a tensor of storage {storage.key!r} has no dtype (got {dt!r})"
        )
    size, stride = _ints(size, "size"), _ints(stride, "stride")
    (offset,) = _ints((offset,), "storage offset")
    if len(size) != len(stride):
        raise SerializationError(
            f"load: a tensor of the file has size {size} and stride {stride} of different lengths"
        )
    base = storage.base(dt)
    n = base.numel()
    end = offset if 0 in size else offset + 1 + sum((s - 1) * st for s, st in zip(size, stride))
    if end > n:
        raise SerializationError(
            f"load: a tensor of the file (offset {offset}, size {size}, "
            f"stride {stride}) reaches element {end} of storage "
            f"{storage.key!r}, which has {n}: the file is corrupt"
        )
    arr = base._device.backend.as_strided(base._data, size, stride, offset)
    return Tensor._wrap(arr, dt, base._device)


def _finish(t, requires_grad, hooks, metadata):
    if not isinstance(hooks, dict):
        raise SerializationError(
            f"load: a tensor of the file has backward hooks of type "
            f"{type(hooks).__name__}, expected a dict"
        )
    if metadata:
        raise SerializationError(
            f"load: a tensor of the file carries metadata {metadata!r}, which Lucid does not read"
        )
    if requires_grad is True:
        try:
            t.requires_grad_(True)
        except LucidError as e:
            raise SerializationError(
                f"load: a {t.dtype.name} tensor of the file is marked requires_grad ({e})"
            ) from None
    elif requires_grad is not False:
        raise SerializationError(
            f"load: a tensor of the file has requires_grad {requires_grad!r}, expected a bool"
        )
    return t


def rebuild_tensor(storage, storage_offset, size, stride):
    """PyTorch's ``_rebuild_tensor``: the view ``(offset, size, stride)`` of a storage."""
    return _view(storage, storage_offset, size, stride)


def rebuild_tensor_v2(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None
):
    """PyTorch's ``_rebuild_tensor_v2``: a view of a typed storage, and its
    ``requires_grad``."""
    t = _view(storage, storage_offset, size, stride)
    return _finish(t, requires_grad, backward_hooks, metadata)


def rebuild_tensor_v3(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None
):
    """PyTorch's ``_rebuild_tensor_v3``: a view of an untyped storage as ``dtype``."""
    t = _view(storage, storage_offset, size, stride, dtype)
    return _finish(t, requires_grad, backward_hooks, metadata)


def _parameter(data, requires_grad):
    if not isinstance(data, Tensor) or not isinstance(requires_grad, bool):
        raise SerializationError(
            f"load: a parameter of the file is built of a "
            f"{type(data).__name__} and {requires_grad!r}, expected a "
            "tensor and a bool"
        )
    try:
        return Parameter(data, requires_grad=requires_grad)
    except LucidError as e:
        raise SerializationError(f"load: a parameter of the file can't be rebuilt ({e})") from None


def rebuild_parameter(data, requires_grad, backward_hooks):
    """PyTorch's ``_rebuild_parameter``: ``nn.Parameter(data, requires_grad)``."""
    _finish(data, False, backward_hooks, None)
    return _parameter(data, requires_grad)


def rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """PyTorch's ``_rebuild_parameter_with_state``: a parameter with Python attributes."""
    p = rebuild_parameter(data, requires_grad, backward_hooks)
    attrs, slots = state if isinstance(state, tuple) and len(state) == 2 else (state, None)
    for part in (attrs, slots):
        if part is None:
            continue
        if not isinstance(part, dict) or not all(
            isinstance(k, str) and not hasattr(type(p), k) for k in part
        ):
            raise SerializationError(
                f"load: a parameter of the file has state {state!r}, "
                "expected a dict of attributes of its own (none "
                "shadowing Parameter's)"
            )
        p.__dict__.update(part)
    return p
