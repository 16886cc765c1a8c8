"""``lucid.cuda``: the GPUs as PyTorch's ``torch.cuda`` presents them.

Devices, the current device, synchronisation, streams and events (with timing), CUDA
graphs (capture and replay), memory statistics of the allocator and the CUDA random
generators. Where CuPy or a GPU is missing :func:`is_available` is False,
:func:`device_count` is 0, seeding is silently ignored (as in PyTorch) and everything else
raises :class:`~lucid.errors.DeviceError` saying how to install the CUDA backend.
"""

from __future__ import annotations

from .devices import (
    current_device,
    device,
    device_count,
    get_device_capability,
    get_device_name,
    get_device_properties,
    init,
    is_available,
    is_initialized,
    set_device,
    synchronize,
)
from .memory import (
    empty_cache,
    max_memory_allocated,
    mem_get_info,
    memory_allocated,
    memory_reserved,
    reset_peak_memory_stats,
)
from .random import (
    get_rng_state,
    get_rng_state_all,
    initial_seed,
    manual_seed,
    manual_seed_all,
    seed,
    seed_all,
    set_rng_state,
    set_rng_state_all,
)
from . import nvtx
from .graphs import CUDAGraph, graph, graph_pool_handle, is_current_stream_capturing
from .streams import Event, Stream, StreamContext, current_stream, default_stream, stream
from .._tensor.legacy_types import CUDA_TYPES as _LEGACY_TYPES

__all__ = [
    "is_available",
    "device_count",
    "current_device",
    "set_device",
    "device",
    "synchronize",
    "Stream",
    "Event",
    "stream",
    "StreamContext",
    "current_stream",
    "default_stream",
    "memory_allocated",
    "max_memory_allocated",
    "memory_reserved",
    "reset_peak_memory_stats",
    "empty_cache",
    "mem_get_info",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
    "get_rng_state_all",
    "set_rng_state_all",
    "get_device_name",
    "get_device_capability",
    "get_device_properties",
    "is_initialized",
    "init",
    "CUDAGraph",
    "graph",
    "graph_pool_handle",
    "is_current_stream_capturing",
]


globals().update(_LEGACY_TYPES)  # lucid.cuda.FloatTensor, ... (PyTorch's legacy types)
__all__ += list(_LEGACY_TYPES)
