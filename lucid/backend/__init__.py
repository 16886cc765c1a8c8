"""Backends: the :class:`Backend` interface and the device -> backend dispatch."""

from ..errors import DeviceError
from .base import Backend
from .cpu import CpuBackend

__all__ = ["Backend", "CpuBackend", "backend_for"]

_CPU = CpuBackend()


def backend_for(dev):
    """The backend instance that computes on device ``dev``."""
    if dev.type == "cpu":
        return _CPU
    raise DeviceError(f"device {dev}: the CUDA backend is not available in this build "
                      "(no CuPy / no GPU)")
