"""NCCL through CuPy's bindings (``cupy.cuda.nccl``), for ``lucid.distributed``'s
``"nccl"`` backend: loading the library, its unique id, communicators, and the tables from
Lucid dtypes and reductions to NCCL's constants. Buffers are device pointers
(``Tensor.data_ptr()``) and the stream a CUDA stream handle; nothing here holds arrays.
"""

from __future__ import annotations

from .. import dtypes as _dt
from ..errors import DistributedError

__all__ = ["available", "load", "unique_id", "communicator", "datatype", "redop", "UNIQUE_ID_BYTES"]

UNIQUE_ID_BYTES = 128
INSTALL = (
    "pip install 'lucid[cuda12]' or 'lucid[cuda13]' (CuPy, whose wheels load the "
    "NCCL library of the nvidia-nccl wheels) on a machine with an NVIDIA GPU"
)

_DTYPES = [
    (_dt.uint8, "NCCL_UINT8"),
    (_dt.int8, "NCCL_INT8"),
    (_dt.int32, "NCCL_INT32"),
    (_dt.int64, "NCCL_INT64"),
    (_dt.float16, "NCCL_FLOAT16"),
    (_dt.bfloat16, "NCCL_BFLOAT16"),
    (_dt.float32, "NCCL_FLOAT32"),
    (_dt.float64, "NCCL_FLOAT64"),
]
_OPS = {
    "sum": "NCCL_SUM",
    "product": "NCCL_PROD",
    "min": "NCCL_MIN",
    "max": "NCCL_MAX",
    "avg": "NCCL_AVG",
}


def _module():
    try:
        from cupy.cuda import nccl
    except Exception as e:  # CuPy missing, or built without NCCL
        return None, e
    if not getattr(nccl, "available", True):
        return None, "CuPy was built without NCCL"
    return nccl, None


def available() -> bool:
    """Whether CuPy's NCCL bindings load."""
    return _module()[0] is not None


def load(op):
    """The ``cupy.cuda.nccl`` module, or a DistributedError saying how to install it."""
    nccl, why = _module()
    if nccl is None:
        raise DistributedError(
            f"{op}: the 'nccl' backend needs CuPy with NCCL, which is not "
            f"available ({why}): {INSTALL}"
        )
    return nccl


def errors():
    """The exception type NCCL calls raise."""
    return load("nccl").NcclError


def unique_id() -> bytes:
    """A fresh NCCL unique id (rank 0 makes it; the others must receive it)."""
    return bytes(b & 0xFF for b in load("init_process_group").get_unique_id())


def communicator(world_size, uid, rank):
    """An NCCL communicator of ``world_size`` ranks from the unique id ``uid``; its
    methods take device pointers, element counts, NCCL constants and a stream handle.
    CuPy 14 takes the id as bytes, earlier versions as a tuple of C chars."""
    make = load("init_process_group").NcclCommunicator
    try:
        return make(world_size, bytes(uid), rank)
    except TypeError:
        return make(world_size, tuple(b - 256 if b > 127 else b for b in uid), rank)


def datatype(dt):
    """NCCL's constant for Lucid dtype ``dt``, or None when NCCL has none."""
    nccl = load("nccl")
    for d, name in _DTYPES:
        if d == dt:
            return getattr(nccl, name, None)
    return None


def redop(name):
    """NCCL's constant for reduction ``name`` (``"sum"``, ...), or None."""
    return getattr(load("nccl"), _OPS[name], None)


def group_start():
    load("nccl").groupStart()


def group_end():
    load("nccl").groupEnd()
