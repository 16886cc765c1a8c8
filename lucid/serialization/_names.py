"""The names PyTorch's files use for what Lucid has too: dtypes, storage types, ``Size``,
``device``, the tensor and parameter rebuild functions, and ``torch.nn`` module classes.

A file's pickle refers to these by ``module.name`` (``torch._utils._rebuild_tensor_v2``,
``torch.FloatStorage``, ``torch.float16``, ``torch.nn.modules.linear.Linear``); Lucid writes
the same names, so PyTorch reads its files, and reading maps each name to Lucid's
counterpart, so Lucid reads PyTorch's. Nothing here imports torch.
"""

from __future__ import annotations

import importlib
import re

from .. import dtypes as _dt
from ..errors import SerializationError
from ..nn import parameter
from ..nn import functional
from .. import nn
from .._tensor import Size
from .._device import device
from . import _rebuild as r

__all__ = [
    "TorchName",
    "StorageType",
    "STORAGE_TYPES",
    "DTYPE_NAMES",
    "torch_counterpart",
    "UNTYPED",
]


class TorchName:
    """A global of PyTorch's that a file Lucid writes refers to (written as the pickle's
    ``GLOBAL module name``; torch need not be installed)."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __repr__(self):
        return f"{self.module}.{self.name}"

    def __call__(self, *args, **kwargs):  # (pickle writes only callables' names)
        raise TypeError(f"{self!r} is a name written into files, not a function to call")


class StorageType:
    """What a storage type of a file (``torch.FloatStorage``, ``torch.storage.UntypedStorage``)
    loads as: the dtype of its elements (None: untyped bytes)."""

    __slots__ = ("dtype", "name")

    def __init__(self, dtype, name):
        self.dtype, self.name = dtype, name

    def __repr__(self):
        return f"<storage type {self.name}>"


# Lucid dtype -> torch's (legacy) typed-storage class name, which torch's files use
_STORAGE_NAMES = {
    _dt.bool: "BoolStorage",
    _dt.uint8: "ByteStorage",
    _dt.int8: "CharStorage",
    _dt.int16: "ShortStorage",
    _dt.int32: "IntStorage",
    _dt.int64: "LongStorage",
    _dt.float16: "HalfStorage",
    _dt.bfloat16: "BFloat16Storage",
    _dt.float32: "FloatStorage",
    _dt.float64: "DoubleStorage",
    _dt.complex64: "ComplexFloatStorage",
    _dt.complex128: "ComplexDoubleStorage",
}
STORAGE_TYPES = {dt: TorchName("torch", n) for dt, n in _STORAGE_NAMES.items()}
DTYPE_NAMES = {dt: TorchName("torch", dt.name) for dt in _STORAGE_NAMES}
UNTYPED = StorageType(None, "torch.storage.UntypedStorage")

# torch dtypes Lucid has none of: named in the error that refuses them
_MISSING_DTYPES = {
    "uint16",
    "uint32",
    "uint64",
    "complex32",
    "quint8",
    "qint8",
    "qint32",
    "quint4x2",
    "quint2x4",
    "bits1x8",
    "bits2x4",
    "bits4x2",
    "bits8",
    "bits16",
    "int1",
    "int2",
    "int3",
    "int4",
    "int5",
    "int6",
    "int7",
    "uint1",
    "uint2",
    "uint3",
    "uint4",
    "uint5",
    "uint6",
    "uint7",
    "float4_e2m1fn_x2",
}
_MISSING_STORAGES = {
    "QUInt8Storage",
    "QInt8Storage",
    "QInt32Storage",
    "QUInt4x2Storage",
    "QUInt2x4Storage",
    "ComplexHalfStorage",
}

_IDENT = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def _fixed():
    """The counterparts that need no look-up, by ``module.name``."""
    names = {
        "torch._utils._rebuild_tensor": r.rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": r.rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": r.rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": r.rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": r.rebuild_parameter_with_state,
        "torch.Size": Size,
        "torch.device": device,
        "torch.storage.UntypedStorage": UNTYPED,
        "torch.UntypedStorage": UNTYPED,
    }
    for dt, n in _STORAGE_NAMES.items():
        names[f"torch.{n}"] = StorageType(dt, f"torch.{n}")
        names[f"torch.{dt.name}"] = dt
    return names


_FIXED: list = []


def fixed_counterparts():
    """``{"module.name": Lucid object}`` of the rebuild functions, storage types, dtypes,
    ``Size`` and ``device`` (built on first use: the rebuild module imports nn)."""
    if not _FIXED:
        _FIXED.append(_fixed())
    return _FIXED[0]


def _module_class(module, name):
    """Lucid's ``nn`` module class for ``torch.nn.modules.<file>.<name>``, or None."""
    rest = module[len("torch.nn.modules.") :]
    found = None
    if _IDENT.match(rest) and _IDENT.match(name):
        try:
            found = getattr(importlib.import_module(f"lucid.nn.modules.{rest}"), name, None)
        except ImportError:
            found = None
        if found is None:
            found = getattr(nn, name, None)
    ok = isinstance(found, type) and issubclass(found, nn.Module)
    return found if ok else None


def torch_counterpart(module, name):
    """Lucid's counterpart of PyTorch's global ``module.name``: a rebuild function, a storage
    type, a dtype, ``Size``, ``device``, an ``nn`` module class (``torch.nn.modules.X.Cls``
    -> ``lucid.nn.modules.X.Cls``, or ``lucid.nn.Cls``), an ``nn.functional`` function
    (a module's ``activation``) or ``nn.Parameter``; a
    :class:`SerializationError` names what Lucid lacks. Imports only Lucid's own modules."""
    full = f"{module}.{name}"
    got = fixed_counterparts().get(full)
    if got is not None:
        return got
    if module == "torch" and (
        name in _MISSING_DTYPES or name in _MISSING_STORAGES or name.startswith("float8")
    ):
        raise SerializationError(
            f"load: the file holds data of {full}, which Lucid has no "
            "dtype for (Lucid has bool, uint8, int8..int64, float16, "
            "bfloat16, float32, float64, complex64, complex128)"
        )
    if module.startswith("torch.nn.modules."):
        cls = _module_class(module, name)
        if cls is not None:
            return cls
        raise SerializationError(
            f"load: the file holds a {full}, which Lucid has no module "
            f"class for (no lucid.nn.modules.{module[17:]}.{name} nor "
            f"lucid.nn.{name}); load its state_dict into a Lucid model "
            "instead"
        )
    if module in ("torch.nn.functional", "torch._C._nn") and _IDENT.match(name):
        fn = getattr(functional, name, None)
        if callable(fn):
            return fn
    if module == "torch.nn.parameter" and name in ("Parameter", "Buffer"):
        return getattr(parameter, name)
    raise SerializationError(
        f"load: the file refers to {full}, which Lucid has no "
        "counterpart of (Lucid reads tensors, storages, parameters, "
        "dtypes, devices, sizes and torch.nn module classes it has)"
    )
