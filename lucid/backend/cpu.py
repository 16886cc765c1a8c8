"""The CPU backend: NumPy, with ``ml_dtypes`` for bfloat16."""

import ctypes
import mmap
import os
import sys

import ml_dtypes
import numpy as np

from ..errors import ArgumentError, ExportError, LucidError
from . import dlpack, threads
from .array import ArrayBackend

_HALF = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))

# glibc's malloc hands the free top of the heap back to the OS once it exceeds
# M_TRIM_THRESHOLD (by default twice the largest block freed so far, at most 64 MiB), and a
# training step frees most of what it allocated (activations, gradients) at its end: every
# step then faults its arrays' pages in again, zero-filled by the kernel (2,600 faults and
# ~5 ms of the 28 ms CNN step of benchmarks/train.py on one core). Keeping up to
# _TRIM_BYTES of freed heap (and serving blocks up to _MMAP_BYTES, glibc's own dynamic
# maximum, from the heap rather than from mmap, which setting the trim threshold would
# otherwise fix at 128 KiB) makes the next step reuse those pages: no faults, 28 -> 23 ms.
# The cost: up to _TRIM_BYTES of freed memory stays resident. Only on glibc, and not when
# the user set either threshold through glibc's MALLOC_*_ environment variables.
_MMAP_BYTES, _TRIM_BYTES = 32 << 20, 128 << 20


def _keep_freed_heap():
    if not sys.platform.startswith("linux") or any(
        v in os.environ for v in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")
    ):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
        gnu = ctypes.CDLL(None).gnu_get_libc_version
    except (AttributeError, OSError):  # not glibc (musl has no mallopt tuning)
        return
    del gnu
    m_trim_threshold, m_mmap_threshold = -1, -3
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt(m_mmap_threshold, _MMAP_BYTES)
    mallopt(m_trim_threshold, _TRIM_BYTES)


_keep_freed_heap()


class CpuBackend(ArrayBackend):
    """Every kernel of :class:`Backend` on NumPy arrays."""

    name = "cpu"
    ordinal = 0
    xp = np
    ndarray = np.ndarray
    # what a kernel may return as a value: arrays and NumPy's scalars (``lucid.compile``
    # records both as the buffers of its replay)
    value_types = (np.ndarray, np.generic)
    # batch norm's passes block by block of the batch: 256 KiB of x and its temporaries
    # stay in a core's L2 (2 MiB here) between the block's ops
    norm_block_bytes = 1 << 18
    conv_adjoint_min_channels = 64
    conv_merge_rows = True

    def parallel(self, fn, parts):
        return threads.parallel(fn, parts)

    def parallel_pieces(self):
        return threads.get_num_threads()

    def to_numpy(self, a, non_blocking=False):
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
            raise ExportError(
                f"__dlpack__: the CPU has no streams; stream must be None, got {stream!r}"
            )
        if dl_device is not None and tuple(int(x) for x in dl_device) != (dlpack.kDLCPU, 0):
            raise ExportError(
                f"__dlpack__: can't export a CPU tensor to DLPack device "
                f"{tuple(dl_device)} without moving it; the tensor is on "
                f"({dlpack.kDLCPU}, 0)"
            )
        try:
            if a.dtype == dlpack.BFLOAT16:
                return dlpack.to_dlpack(a, stream, max_version, dl_device, copy)
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
