"""``lucid.cuda``: the GPUs as PyTorch's ``torch.cuda`` presents them.

Devices, the current device, synchronisation, streams and events (with timing), CUDA
graphs (capture and replay), memory statistics of the allocator and the CUDA random
generators. Where CuPy or a GPU is missing :func:`is_available` is False,
:func:`device_count` is 0, seeding is silently ignored (as in PyTorch) and everything else
raises :class:`~lucid.errors.DeviceError` saying how to install the CUDA backend.
"""

from __future__ import annotations

from .. import random as _random
from .._device import device as _device_cls
from ..backend import cuda as _cuda
from ..errors import DeviceError
from .graphs import CUDAGraph, graph, graph_pool_handle, is_current_stream_capturing
from .streams import Event, Stream, StreamContext, current_stream, default_stream, stream
from .._tensor.legacy_types import CUDA_TYPES as _LEGACY_TYPES

__all__ = ["is_available", "device_count", "current_device", "set_device", "device",
           "synchronize", "Stream", "Event", "stream", "StreamContext", "current_stream",
           "default_stream", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "reset_peak_memory_stats", "empty_cache", "mem_get_info", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state",
           "set_rng_state", "get_rng_state_all", "set_rng_state_all", "get_device_name",
           "get_device_capability", "get_device_properties", "is_initialized", "init",
           "CUDAGraph", "graph", "graph_pool_handle", "is_current_stream_capturing"]


globals().update(_LEGACY_TYPES)      # lucid.cuda.FloatTensor, ... (PyTorch's legacy types)
__all__ += list(_LEGACY_TYPES)


def _runtime(op):
    if not _cuda.AVAILABLE:
        raise DeviceError(f"lucid.cuda.{op}: CUDA is not available (no CuPy, or no GPU); "
                          "install the CUDA backend with pip install 'lucid[cuda12]' or "
                          "'lucid[cuda13]' on a machine with an NVIDIA GPU")
    return _cuda.runtime


def is_available() -> bool:
    """Whether the CUDA backend can run here: CuPy imports and a GPU is visible."""
    return _cuda.AVAILABLE


def is_initialized() -> bool:
    return _cuda.AVAILABLE


def init() -> None:
    """Nothing to do (the runtime starts with CuPy); raises where CUDA is unavailable."""
    _runtime("init")


def device_count() -> int:
    return _cuda.runtime.device_count() if _cuda.AVAILABLE else 0


def _index(dev, op):
    """The device index ``dev`` names (None: the current device)."""
    rt = _runtime(op)
    if dev is None:
        return rt.current_device()
    if isinstance(dev, int) and not isinstance(dev, bool):
        return dev
    d = _device_cls(dev)
    if d.type != "cuda":
        raise DeviceError(f"lucid.cuda.{op}: expected a CUDA device, got {d}")
    return d.index


def current_device() -> int:
    """The index of the device new CUDA work goes to."""
    return _runtime("current_device").current_device()


def set_device(dev) -> None:
    """Make ``dev`` (an index, ``"cuda:N"`` or a device) the current device."""
    _runtime("set_device").set_device(_index(dev, "set_device"))


class device:
    """Context manager making ``dev`` the current device for its block, then restoring."""

    def __init__(self, dev):
        self.idx = -1 if dev is None or (isinstance(dev, int) and dev < 0) else \
            _index(dev, "device")

    def __enter__(self):
        if self.idx >= 0:
            self._ctx = _runtime("device").device_context(self.idx)
            self._ctx.__enter__()
        return self

    def __exit__(self, *exc):
        if self.idx >= 0:
            self._ctx.__exit__(*exc)
        return False


def synchronize(device=None) -> None:
    """Wait until every kernel queued on ``device`` (default: current) has finished."""
    _runtime("synchronize").synchronize(_index(device, "synchronize"))


def get_device_name(device=None) -> str:
    return _runtime("get_device_name").device_name(_index(device, "get_device_name"))


def get_device_capability(device=None) -> tuple:
    """``(major, minor)`` compute capability: ``(9, 0)`` on a Hopper GPU."""
    return _runtime("get_device_capability").device_capability(
        _index(device, "get_device_capability"))


def get_device_properties(device=None) -> dict:
    return _runtime("get_device_properties").device_properties(
        _index(device, "get_device_properties"))


# -- memory --------------------------------------------------------------------------

def memory_allocated(device=None) -> int:
    """Bytes held by live CUDA tensors on ``device``."""
    return _runtime("memory_allocated").memory_allocated(_index(device, "memory_allocated"))


def max_memory_allocated(device=None) -> int:
    """The peak of :func:`memory_allocated` since start or the last
    :func:`reset_peak_memory_stats`."""
    return _runtime("max_memory_allocated").max_memory_allocated(
        _index(device, "max_memory_allocated"))


def memory_reserved(device=None) -> int:
    """Bytes the allocator holds from the driver: allocated plus cached free blocks."""
    return _runtime("memory_reserved").memory_reserved(_index(device, "memory_reserved"))


def reset_peak_memory_stats(device=None) -> None:
    _runtime("reset_peak_memory_stats").reset_peak_memory_stats(
        _index(device, "reset_peak_memory_stats"))


def empty_cache() -> None:
    """Give the allocator's cached free blocks back to the driver (live tensors stay)."""
    if _cuda.AVAILABLE:
        _cuda.runtime.empty_cache()


def mem_get_info(device=None) -> tuple:
    """``(free, total)`` bytes of the device as the driver reports them."""
    return _runtime("mem_get_info").mem_get_info(_index(device, "mem_get_info"))


# -- random numbers ------------------------------------------------------------------

def _generator(device):
    return _random._default_for(_device_cls("cuda", _index(device, "get_rng_state")))


def manual_seed(seed) -> None:
    """Seed the current device's default generator (ignored where CUDA is unavailable)."""
    if _cuda.AVAILABLE:
        _generator(None).manual_seed(seed)


def manual_seed_all(seed) -> None:
    """Seed the default generator of every CUDA device (ignored without CUDA)."""
    for i in range(device_count()):
        _generator(i).manual_seed(seed)


def seed() -> None:
    """Seed the current device's default generator from the OS's entropy."""
    if _cuda.AVAILABLE:
        _generator(None).seed()


def seed_all() -> None:
    for i in range(device_count()):
        _generator(i).seed()


def initial_seed() -> int:
    return _generator(None).initial_seed()


def get_rng_state(device="cuda"):
    """The state of ``device``'s default generator as a uint8 CPU tensor."""
    return _generator(device).get_state()


def set_rng_state(new_state, device="cuda") -> None:
    _generator(device).set_state(new_state)


def get_rng_state_all() -> list:
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states) -> None:
    for i, st in enumerate(new_states):
        set_rng_state(st, i)
