"""The CPU backend: NumPy, with ``ml_dtypes`` for bfloat16."""

import mmap

import ml_dtypes
import numpy as np

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

    def matmul(self, a, b):
        """NumPy has no fast half-precision GEMM: half inputs multiply in float32, and the
        result is cast back to the input dtype."""
        if a.dtype in _HALF:
            return np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(a.dtype)
        return np.matmul(a, b)
