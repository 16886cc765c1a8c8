"""Memory statistics of the CUDA allocator, as ``torch.cuda.memory``."""

from __future__ import annotations

from ..backend import cuda as _cuda
from .devices import _index, _runtime


def memory_allocated(device=None) -> int:
    """Bytes held by live CUDA tensors on ``device``."""
    return _runtime("memory_allocated").memory_allocated(_index(device, "memory_allocated"))


def max_memory_allocated(device=None) -> int:
    """The peak of :func:`memory_allocated` since start or the last
    :func:`reset_peak_memory_stats`."""
    return _runtime("max_memory_allocated").max_memory_allocated(
        _index(device, "max_memory_allocated")
    )


def memory_reserved(device=None) -> int:
    """Bytes the allocator holds from the driver: allocated plus cached free blocks."""
    return _runtime("memory_reserved").memory_reserved(_index(device, "memory_reserved"))


def reset_peak_memory_stats(device=None) -> None:
    _runtime("reset_peak_memory_stats").reset_peak_memory_stats(
        _index(device, "reset_peak_memory_stats")
    )


def empty_cache() -> None:
    """Give the allocator's cached free blocks back to the driver (live tensors stay)."""
    if _cuda.AVAILABLE:
        _cuda.runtime.empty_cache()


def mem_get_info(device=None) -> tuple:
    """``(free, total)`` bytes of the device as the driver reports them."""
    return _runtime("mem_get_info").mem_get_info(_index(device, "mem_get_info"))
