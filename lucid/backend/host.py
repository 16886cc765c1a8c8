"""Host data for the tensor factories: Python numbers and nested sequences, NumPy arrays
and scalars, read into NumPy arrays that a backend then takes (``Backend.asarray``).

What the factories decide (the dtype PyTorch infers, whether a value fits it) is theirs;
this module does the array work on the host, so that the tensor layer never touches
NumPy. Every error is a Lucid error that names the factory.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..errors import DTypeError, ShapeError, ValueOverflowError

__all__ = [
    "is_array",
    "is_scalar",
    "is_array_dtype",
    "is_writeable",
    "from_dlpack",
    "array_of",
    "scalar_array",
    "nested_array",
    "array_kind",
    "contiguous",
    "from_buffer",
]


def is_array(x):
    """Whether ``x`` is a NumPy array."""
    return isinstance(x, np.ndarray)


def is_scalar(x):
    """Whether ``x`` is a NumPy scalar (``np.float32(1)``)."""
    return isinstance(x, np.generic)


def is_array_dtype(d):
    """Whether ``d`` is a NumPy dtype or scalar type (``np.float32``), which a Lucid
    ``dtype=`` argument refuses as PyTorch's does."""
    return isinstance(d, np.dtype) or (isinstance(d, type) and issubclass(d, np.generic))


def array_kind(x):
    """``"array"`` for a NumPy array of numbers, ``"scalar"`` for a NumPy number, ``"bad"``
    for an array of strings, bytes or objects, None for anything else (what a collate
    function turns into tensors)."""
    if isinstance(x, np.ndarray):
        return "bad" if x.dtype.kind in "SaUOV" else "array"
    if isinstance(x, np.generic):
        return None if isinstance(x, (np.str_, np.bytes_)) else "scalar"
    return None


def contiguous(a):
    """Host array ``a`` C-contiguous, of its own shape (itself when it is already)."""
    return np.asarray(a, order="C")


def from_buffer(buf, dt, shape):
    """The host array of Lucid dtype ``dt`` and ``shape`` over the bytes of ``buf`` (shared,
    not copied)."""
    count = 1
    for s in shape:
        count *= s
    return np.frombuffer(buf, dt.np, count).reshape(shape)


def is_writeable(a):
    return bool(a.flags.writeable)


def from_dlpack(obj):
    """A host array sharing memory with DLPack exporter ``obj`` (NumPy's reader)."""
    return np.from_dlpack(obj)


def array_of(obj):
    """The host array of an object with NumPy's ``__array__`` protocol (shared where the
    object allows)."""
    return np.asarray(obj)


def scalar_array(x, dt):
    """NumPy scalar ``x`` as a 0-d array of Lucid dtype ``dt``."""
    return np.asarray(x).astype(dt.np)


def nested_array(data, dt, op="tensor"):
    """Nested Python data (numbers, sequences, host arrays at the leaves) as a host array
    of Lucid dtype ``dt``, with PyTorch's range rule for integer dtypes: floats must lie in
    ``[min, max]`` (nan and inf never fit); integers too, except that an unsigned dtype also
    takes ``-max..-1`` (wrapping, as ``tensor([-1], dtype=uint8)`` is 255)."""
    try:
        host = np.array(
            data,
            dtype=np.float64 if dt.is_floating_point else np.complex128 if dt.is_complex else None,
        )
    except OverflowError as e:  # an int too large for a float64
        raise ValueOverflowError(f"{op}: overflow converting to {dt.name} ({e})") from None
    except ValueError as e:
        raise ShapeError(f"{op}: nested sequences have inconsistent lengths ({e})") from None
    except TypeError:  # complex numbers into a real dtype
        raise DTypeError(f"{op}: can't convert complex values to {dt.name}") from None
    if host.dtype == object:
        raise ShapeError(f"{op}: nested sequences have inconsistent lengths")
    if dt._cat >= 2 or dt is _dt.bool:  # floating, complex
        if host.dtype.kind == "c" and dt._cat < 3:
            raise DTypeError(f"{op}: can't convert complex values to {dt.name}")
        return host.astype(dt.np)
    _check_fits(host, dt, op)
    with np.errstate(invalid="ignore", over="ignore"):
        return host.astype(dt.np)


def nested_bool_array(data, op="tensor"):
    """Nested data holding Python ints beyond int64 as a bool array (nonzero is True)."""
    try:
        host = np.array(data, dtype=object)
    except ValueError as e:
        raise ShapeError(f"{op}: nested sequences have inconsistent lengths ({e})") from None
    return host.astype(bool)


def _check_fits(host, dt, op):
    if not host.size or host.dtype.kind == "b" or dt is _dt.bool:
        return
    info = _dt.iinfo(dt)
    dmin, hi = info.min, info.max
    if host.dtype.kind == "f":
        bad = ~np.isfinite(host) | (host < dmin) | (host > hi)
    else:
        lo = -hi if dmin == 0 else dmin
        vmin, vmax = int(host.min()), int(host.max())
        bad = None if lo <= vmin and vmax <= hi else (host < lo) | (host > hi)
    if bad is not None and bad.any():
        v = host[bad].flat[0]
        raise ValueOverflowError(
            f"{op}: value {v.item()!r} cannot be converted to type "
            f"{dt.name} without overflow (range [{dmin}, {hi}])"
        )


def complex_as_pairs(a):
    """Complex host array ``a`` as a C-contiguous real array of shape ``a.shape + (2,)``
    (real, imaginary): safetensors has no complex dtype."""
    return np.ascontiguousarray(a)[..., None].view(a.real.dtype)


def pairs_as_complex(a):
    """The inverse of :func:`complex_as_pairs`, or None when ``a`` is not float32/float64
    pairs."""
    if a.dtype not in (np.float32, np.float64) or not a.ndim or a.shape[-1] != 2:
        return None
    return np.ascontiguousarray(a).view(np.complex64 if a.dtype == np.float32 else np.complex128)[
        ..., 0
    ]
