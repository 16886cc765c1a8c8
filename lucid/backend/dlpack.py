"""DLPack capsules for bfloat16 on the CPU, read and written with :mod:`ctypes`.

NumPy's own DLPack knows no bfloat16: ``ndarray.__dlpack__`` refuses an ``ml_dtypes``
bfloat16 array and ``np.from_dlpack`` refuses a DLPack tensor whose dtype code is
``kDLBfloat``. This module lays the C structs of ``dlpack.h`` out with :mod:`ctypes` and
works on the capsules directly, so bfloat16 crosses in both directions without a copy.

The structs (DLPack 1.x, ``dlpack.h``)::

    DLDevice   {int32 device_type; int32 device_id}
    DLDataType {uint8 code; uint8 bits; uint16 lanes}
    DLTensor   {void *data; DLDevice device; int32 ndim; DLDataType dtype;
                int64 *shape; int64 *strides /* in elements, NULL: row-major */;
                uint64 byte_offset}
    DLManagedTensor          {DLTensor dl_tensor; void *manager_ctx;
                              void (*deleter)(DLManagedTensor *)}
    DLManagedTensorVersioned {DLPackVersion version /* uint32 major, minor */;
                              void *manager_ctx; void (*deleter)(...); uint64 flags;
                              DLTensor dl_tensor}

The Python protocol: a capsule named ``"dltensor"`` (``"dltensor_versioned"`` for the
versioned struct) holds a pointer to the managed tensor; the consumer renames it
``"used_dltensor"`` (``"used_dltensor_versioned"``) and calls ``deleter`` once it no longer
needs the memory; the producer's capsule destructor calls ``deleter`` only when the capsule
was never consumed.

Export (:func:`to_dlpack`). The bfloat16 array is exported as its ``uint16`` view (same
itemsize, shape, strides and memory: no copy) by NumPy's own ``__dlpack__``, and the dtype of
the DLTensor in the returned capsule is then rewritten from ``(kDLUInt, 16, 1)`` to
``(kDLBfloat, 16, 1)``. NumPy thus builds the managed tensor: its ``manager_ctx`` holds a
reference to the view (whose base is the bfloat16 array) until its deleter runs, and the
capsule destructor and the deleter are C functions. That is deliberate: a capsule destructor
written in Python through a ``ctypes`` callback runs while a consumer that rejected the
capsule (``np.from_dlpack`` of a bfloat16 tensor, say) has its exception pending, and the
callback's return then turns into ``SystemError: ... returned a result with an exception
set`` and swallows the consumer's own error. Only C code can be a correct destructor there.

Import (:func:`from_capsule`). The capsule is checked (name, DLPack major version, device,
dtype), renamed to its ``used_`` name, and its memory is presented to NumPy through an
owner object's ``__array_interface__`` (data pointer plus ``byte_offset``, shape, strides in
bytes, the read-only flag of a versioned tensor). The array's base chain ends at the owner,
so every view of it keeps the owner alive; when the last one dies a finalizer calls the
producer's ``deleter`` (through a ``PYFUNCTYPE`` pointer: the GIL stays held, as NumPy's
deleter needs). The finalizer runs from Python (weakref callback), never from a C destructor,
so the pending-exception trap above does not arise.
"""

from __future__ import annotations

import ctypes
import datetime
import math
import weakref

import ml_dtypes
import numpy as np

from ..errors import ArgumentError, DeviceError, DTypeError

__all__ = [
    "to_dlpack",
    "from_capsule",
    "capsule_of",
    "is_capsule",
    "capsule_dtype",
    "capsule_device",
    "CapsuleExporter",
    "BFLOAT16",
]

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)

# -- dlpack.h enums ---------------------------------------------------------------------------

kDLCPU = 1
kDLCUDAHost = 3  # pinned host memory: readable from the CPU
kDLCUDAManaged = 13  # unified memory: readable from the CPU
_HOST_DEVICES = (kDLCPU, kDLCUDAHost, kDLCUDAManaged)

kDLInt = 0
kDLUInt = 1
kDLFloat = 2
kDLBfloat = 4

DLPACK_FLAG_BITMASK_READ_ONLY = 1 << 0

# -- dlpack.h structs -------------------------------------------------------------------------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    # the deleter is a function pointer; kept as a plain address and cast when called
    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
    ]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


# the deleter's C signature, called with the GIL held (PYFUNCTYPE)
_DELETER = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)

# -- the PyCapsule C API ----------------------------------------------------------------------

_api = ctypes.pythonapi
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

_CAPSULE_TYPE = type(datetime.datetime_CAPI)  # the PyCapsule type (types.CapsuleType, 3.13+)

_LEGACY = b"dltensor"
_VERSIONED = b"dltensor_versioned"
# PyCapsule_SetName keeps the pointer, not a copy: the new names live as long as the module
_USED_LEGACY = ctypes.create_string_buffer(b"used_dltensor")
_USED_VERSIONED = ctypes.create_string_buffer(b"used_dltensor_versioned")

_MAX_VERSION = (1, 0)  # the versioned layout this module reads (any 1.x)


def is_capsule(obj):
    """Whether ``obj`` is a PyCapsule (a raw DLPack capsule or any other)."""
    return type(obj) is _CAPSULE_TYPE


def _valid(cap, name):
    return bool(_api.PyCapsule_IsValid(cap, name))


def _managed(cap, op):
    """``(managed struct, versioned)`` of an unconsumed DLPack capsule; a clear error for a
    consumed capsule or a capsule of something else."""
    if _valid(cap, _VERSIONED):
        ptr = _api.PyCapsule_GetPointer(cap, _VERSIONED)
        m = DLManagedTensorVersioned.from_address(ptr)
        if m.version.major != _MAX_VERSION[0]:
            raise ArgumentError(
                f"{op}: DLPack tensor of version {m.version.major}."
                f"{m.version.minor}; Lucid reads DLPack 1.x"
            )
        return m, True
    if _valid(cap, _LEGACY):
        return DLManagedTensor.from_address(_api.PyCapsule_GetPointer(cap, _LEGACY)), False
    name = _api.PyCapsule_GetName(cap) if is_capsule(cap) else None
    if name in (b"used_dltensor", b"used_dltensor_versioned"):
        raise ArgumentError(
            f"{op}: this DLPack capsule was already consumed; a capsule "
            "can be consumed only once (call __dlpack__ again for a new one)"
        )
    what = (
        f"a capsule named {name.decode(errors='replace')!r}"
        if name is not None
        else f"a {type(cap).__name__}"
    )
    raise ArgumentError(
        f"{op}: expected a DLPack capsule named 'dltensor' or 'dltensor_versioned', got {what}"
    )


def capsule_of(obj, op="from_dlpack"):
    """The DLPack capsule of ``obj``: ``obj`` itself when it is a capsule, else
    ``obj.__dlpack__()``, asking for a versioned capsule (``max_version=(1, 0)``) and falling
    back to the legacy call for a producer that predates the keyword."""
    if is_capsule(obj):
        return obj
    if not hasattr(obj, "__dlpack__"):
        raise ArgumentError(
            f"{op}: expected an object with __dlpack__ or a DLPack capsule, "
            f"got {type(obj).__name__}"
        )
    try:
        return obj.__dlpack__(max_version=_MAX_VERSION)
    except TypeError:
        return obj.__dlpack__()


def capsule_dtype(cap, op="from_dlpack"):
    """``(code, bits, lanes)`` of the tensor an unconsumed capsule holds."""
    d = _managed(cap, op)[0].dl_tensor.dtype
    return d.code, d.bits, d.lanes


def capsule_device(cap, op="from_dlpack"):
    """``(device_type, device_id)`` of the tensor an unconsumed capsule holds."""
    d = _managed(cap, op)[0].dl_tensor.device
    return d.device_type, d.device_id


class CapsuleExporter:
    """A capsule already taken from its producer, presented as a DLPack exporter, so that a
    consumer that calls ``__dlpack__`` itself (``np.from_dlpack``) can take it."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return capsule_device(self._capsule)


# -- export -----------------------------------------------------------------------------------


def to_dlpack(a, stream=None, max_version=None, dl_device=None, copy=None):
    """The DLPack capsule of bfloat16 array ``a``, sharing its memory (a copy only when
    ``copy=True`` asks for one): NumPy's capsule of ``a.view(uint16)`` with the DLTensor's
    dtype rewritten to ``kDLBfloat`` (see the module notes). Versioned when ``max_version``
    is at least ``(1, 0)``; NumPy's errors (a ``stream`` on the CPU, another ``dl_device``,
    a read-only array asked for a legacy capsule) propagate to the caller."""
    if a.dtype != BFLOAT16:
        raise DTypeError(f"__dlpack__: expected a bfloat16 array, got {a.dtype}")
    kwargs = {
        k: v
        for k, v in (
            ("stream", stream),
            ("max_version", max_version),
            ("dl_device", dl_device),
            ("copy", copy),
        )
        if v is not None
    }
    cap = a.view(np.uint16).__dlpack__(**kwargs)
    dt = _managed(cap, "__dlpack__")[0].dl_tensor.dtype
    if (dt.code, dt.bits, dt.lanes) != (kDLUInt, 16, 1):  # NumPy's uint16: cannot happen
        raise DTypeError(
            f"__dlpack__: NumPy exported uint16 as DLPack dtype ({dt.code}, {dt.bits}, {dt.lanes})"
        )
    dt.code = kDLBfloat
    return cap


# -- import -----------------------------------------------------------------------------------


def _call_deleter(deleter, ptr):
    if deleter:
        _DELETER(deleter)(ptr)


class _Imported:
    """Owner of imported DLPack memory: the NumPy array's base. Its finalizer hands the
    memory back to the producer (``deleter``) once no array refers to it any more."""

    __slots__ = ("__array_interface__", "__weakref__")

    def __init__(self, interface, deleter, ptr):
        self.__array_interface__ = interface
        # atexit=False: at interpreter exit the producer may already be torn down
        weakref.finalize(self, _call_deleter, deleter, ptr).atexit = False


def from_capsule(cap, op="from_dlpack"):
    """The NumPy bfloat16 array over the memory of DLPack capsule ``cap`` (no copy),
    consuming the capsule; the producer's deleter runs once the array and all its views are
    gone. A capsule already consumed, or of another device or dtype, raises."""
    m, versioned = _managed(cap, op)
    t = m.dl_tensor
    if t.device.device_type not in _HOST_DEVICES:
        raise DeviceError(
            f"{op}: DLPack tensor on device type {t.device.device_type} "
            f"(id {t.device.device_id}); the CPU reads host memory only "
            f"(kDLCPU = {kDLCPU})"
        )
    code, bits, lanes = t.dtype.code, t.dtype.bits, t.dtype.lanes
    if (code, bits, lanes) != (kDLBfloat, 16, 1):
        raise DTypeError(
            f"{op}: expected a bfloat16 DLPack tensor (code {kDLBfloat}, 16 "
            f"bits, 1 lane), got code {code}, {bits} bits, {lanes} lanes"
        )
    ndim = t.ndim
    if ndim < 0:
        raise ArgumentError(f"{op}: DLPack tensor with ndim {ndim}")
    shape = tuple(int(t.shape[i]) for i in range(ndim))
    if t.strides:
        strides = tuple(int(t.strides[i]) for i in range(ndim))
    else:  # NULL strides: row-major
        strides, step = [], 1
        for n in reversed(shape):
            strides.insert(0, step)
            step *= n
        strides = tuple(strides)
    read_only = versioned and bool(m.flags & DLPACK_FLAG_BITMASK_READ_ONLY)
    ptr, deleter = ctypes.addressof(m), m.deleter
    _api.PyCapsule_SetName(cap, _USED_VERSIONED if versioned else _USED_LEGACY)
    if math.prod(shape) == 0:
        # no element to share (the data pointer may be NULL): give the memory back now
        _call_deleter(deleter, ptr)
        return np.empty(shape, BFLOAT16)
    itemsize = BFLOAT16.itemsize
    interface = {
        "version": 3,
        "shape": shape,
        "typestr": np.dtype(np.uint16).str,
        "data": ((t.data or 0) + t.byte_offset, read_only),
        "strides": tuple(s * itemsize for s in strides),
    }
    owner = _Imported(interface, deleter, ptr)
    return np.asarray(owner).view(BFLOAT16)
