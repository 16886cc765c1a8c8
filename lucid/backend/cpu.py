"""The CPU backend: NumPy, with ``ml_dtypes`` for bfloat16."""

import mmap

import ml_dtypes
import numpy as np

from ..errors import ArgumentError, ExportError, LucidError
from . import dlpack
from .array import ArrayBackend

_HALF = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


class CpuBackend(ArrayBackend):
    """Every kernel of :class:`Backend` on NumPy arrays."""

    name = "cpu"
    xp = np
    ndarray = np.ndarray

    def to_numpy(self, a):
        return a

    def is_shared(self, a):
        base = self._root(a).base
        return isinstance(base, memoryview) and isinstance(base.obj, mmap.mmap)

    def to_shared(self, a):
        """Anonymous shared memory (``mmap``): forked worker processes see the same
        pages."""
        buf = mmap.mmap(-1, max(a.nbytes, 1))
        out = np.frombuffer(buf, dtype=a.dtype, count=a.size).reshape(a.shape)
        out[...] = a
        return out

    def data_ptr(self, a):
        return a.__array_interface__["data"][0]

    def to_dlpack(self, a, stream=None, max_version=None, dl_device=None, copy=None):
        """NumPy's own ``__dlpack__``; for bfloat16, which NumPy cannot export, the capsule
        of the array's ``uint16`` view with its dtype rewritten to ``kDLBfloat``
        (:mod:`lucid.backend.dlpack`). Either way the capsule shares ``a``'s memory."""
        if stream is not None:
            raise ExportError(f"__dlpack__: the CPU has no streams; stream must be None, "
                              f"got {stream!r}")
        if dl_device is not None and tuple(int(x) for x in dl_device) != (dlpack.kDLCPU, 0):
            raise ExportError(f"__dlpack__: can't export a CPU tensor to DLPack device "
                              f"{tuple(dl_device)} without moving it; the tensor is on "
                              f"({dlpack.kDLCPU}, 0)")
        try:
            if a.dtype == dlpack.BFLOAT16:
                return dlpack.to_dlpack(a, stream, max_version, dl_device, copy)
            kwargs = {k: v for k, v in (("stream", stream), ("max_version", max_version),
                                        ("dl_device", dl_device), ("copy", copy))
                      if v is not None}
            return a.__dlpack__(**kwargs)
        except (BufferError, RuntimeError, ValueError) as e:
            if isinstance(e, LucidError):
                raise
            raise ExportError(f"__dlpack__: {e}") from e

    def from_dlpack(self, obj):
        """The capsule is read with :mod:`lucid.backend.dlpack` for bfloat16 (which
        ``np.from_dlpack`` refuses) and handed to ``np.from_dlpack`` for every other dtype."""
        cap = dlpack.capsule_of(obj)
        if dlpack.capsule_dtype(cap) == (dlpack.kDLBfloat, 16, 1):
            return dlpack.from_capsule(cap)
        try:
            return np.from_dlpack(dlpack.CapsuleExporter(cap))
        except (BufferError, RuntimeError, TypeError, ValueError) as e:
            if isinstance(e, LucidError):
                raise
            raise ArgumentError(f"from_dlpack: {e}") from e

    def matmul(self, a, b):
        """NumPy has no fast half-precision GEMM: half inputs multiply in float32, and the
        result is cast back to the input dtype."""
        if a.dtype in _HALF:
            return np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(a.dtype)
        return np.matmul(a, b)
