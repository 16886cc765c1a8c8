"""The CUDA runtime as ``lucid.cuda`` sees it: devices, streams, events, memory statistics
and page-locked host memory, all through CuPy.

Memory statistics count CuPy's memory pool, which every Lucid CUDA array comes from:
*allocated* bytes are those held by live arrays, *reserved* bytes those the pool holds from
the driver (allocated plus cached free blocks). The peak of allocated bytes is exact: it can
only rise at an allocation, so the pool's allocator is wrapped to read the in-use count
after each one (one Python call per allocation, none per free).
"""

import cupy
import numpy as np

from ...errors import DeviceError
from . import checks

_POOL = cupy.get_default_memory_pool()
_peak: dict = {}  # device index -> peak allocated bytes since reset


def _tracking_malloc(nbytes, _malloc=_POOL.malloc, _used=_POOL.used_bytes):
    mem = _malloc(nbytes)
    used = _used()
    if used > _peak.get(mem.device_id, 0):
        _peak[mem.device_id] = used
    return mem


cupy.cuda.set_allocator(_tracking_malloc)


def device_count():
    try:
        return cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError:
        return 0


def check_index(index, op):
    """``index`` as a valid device index, else a DeviceError naming ``op``."""
    n = device_count()
    if not 0 <= index < n:
        raise DeviceError(
            f"{op}: CUDA device {index} does not exist; this machine has {n} "
            f"CUDA device{'s' if n != 1 else ''}"
        )
    return index


def current_device():
    return cupy.cuda.runtime.getDevice()


def set_device(index):
    cupy.cuda.runtime.setDevice(check_index(index, "set_device"))


def device_context(index):
    """A context manager making device ``index`` current (CuPy's ``Device``)."""
    return cupy.cuda.Device(check_index(index, "device"))


def device_name(index):
    props = cupy.cuda.runtime.getDeviceProperties(check_index(index, "get_device_name"))
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else name


def device_capability(index):
    cc = cupy.cuda.Device(check_index(index, "get_device_capability")).compute_capability
    return int(cc[:-1]), int(cc[-1])


def device_properties(index):
    """The runtime's ``cudaDeviceProp`` fields as a dict (str keys)."""
    return dict(cupy.cuda.runtime.getDeviceProperties(check_index(index, "get_device_properties")))


def synchronize(index):
    """Wait for the device, then report the device-side checks queued so far."""
    with cupy.cuda.Device(check_index(index, "synchronize")):
        cupy.cuda.runtime.deviceSynchronize()
    checks.flush()


def mem_get_info(index):
    with cupy.cuda.Device(check_index(index, "mem_get_info")):
        return cupy.cuda.runtime.memGetInfo()


# -- memory statistics ------------------------------------------------------------------


def memory_allocated(index):
    return _POOL.used_bytes() if index == current_device() else _device_pool_used(index)


def _device_pool_used(index):
    with cupy.cuda.Device(index):
        return _POOL.used_bytes()


def max_memory_allocated(index):
    return max(_peak.get(index, 0), memory_allocated(index))


def memory_reserved(index):
    with cupy.cuda.Device(index):
        return _POOL.total_bytes()


def reset_peak_memory_stats(index):
    _peak[index] = memory_allocated(index)


def empty_cache():
    """Return every cached free block of the pool (and of the pinned-memory pool) to the
    driver."""
    _POOL.free_all_blocks()
    cupy.get_default_pinned_memory_pool().free_all_blocks()


# -- streams and events -----------------------------------------------------------------


def new_stream(index, priority=0):
    with cupy.cuda.Device(check_index(index, "Stream")):
        return cupy.cuda.Stream(non_blocking=True, priority=priority)


def wrap_stream(ptr, index):
    """A CuPy stream object around an existing ``cudaStream_t`` (``ExternalStream``)."""
    return cupy.cuda.ExternalStream(ptr, device_id=index)


def current_stream():
    return cupy.cuda.get_current_stream()


def default_stream():
    return cupy.cuda.Stream.null


def new_event(enable_timing=False, blocking=False, interprocess=False):
    return cupy.cuda.Event(
        block=blocking, disable_timing=not enable_timing, interprocess=interprocess
    )


def elapsed_ms(start, end):
    return cupy.cuda.get_elapsed_time(start, end)


# -- NVTX ranges (what Nsight Systems shows on the host's timeline) --------------------


def nvtx_push(message):
    cupy.cuda.nvtx.RangePush(message)


def nvtx_pop():
    cupy.cuda.nvtx.RangePop()


def nvtx_mark(message):
    cupy.cuda.nvtx.Mark(message)


# -- page-locked host memory --------------------------------------------------------------


def pinned_empty(shape, dtype):
    """A NumPy array of ``shape`` in page-locked host memory from CuPy's pinned pool."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    mem = cupy.cuda.alloc_pinned_memory(max(count * dtype.itemsize, 1))
    return np.frombuffer(mem, dtype, count).reshape(shape)


def is_pinned(a):
    """Whether NumPy array ``a`` views memory from :func:`pinned_empty`."""
    while isinstance(a, np.ndarray):
        a = a.base
    return isinstance(getattr(a, "obj", a), cupy.cuda.PinnedMemoryPointer)
