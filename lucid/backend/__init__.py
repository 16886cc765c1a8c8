"""Backends: the :class:`Backend` interface and the device-type -> backend dispatch.

Each backend module registers a factory for its device type here; a device asks
:func:`backend_for` once and keeps the instance. The CUDA backend (CuPy) registers itself
only where CuPy imports.
"""

from .. import _device
from ..errors import DeviceError
from .base import Backend
from .cpu import CpuBackend

__all__ = ["Backend", "CpuBackend", "backend_for", "register_backend"]

_FACTORIES: dict = {}


def register_backend(device_type, factory):
    """Make ``factory(device)`` the backend maker for devices of ``device_type``."""
    _FACTORIES[device_type] = factory


def backend_for(dev):
    """The backend instance that computes on device ``dev`` (dispatch by device type)."""
    make = _FACTORIES.get(dev.type)
    if make is None:
        raise DeviceError(
            f"device {dev}: no backend for {dev.type!r} in this build; the "
            "CUDA backend needs CuPy: pip install 'lucid[cuda12]' or "
            "'lucid[cuda13]' on a machine with an NVIDIA GPU"
        )
    return make(dev)


_CPU = CpuBackend()
register_backend("cpu", lambda dev: _CPU)
_device.BACKEND_FOR[0] = backend_for

from . import cuda  # noqa: E402  (registers "cuda" where CuPy finds a GPU)

if cuda.AVAILABLE:
    register_backend("cuda", cuda.backend_of)
