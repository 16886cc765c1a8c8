"""The CUDA devices: availability, the current device, synchronisation and properties.

Every call that needs the GPU goes through :func:`_runtime`, which raises a
:class:`~lucid.errors.DeviceError` saying how to install the CUDA backend where CuPy or a
GPU is missing.
"""

from __future__ import annotations

from .._device import device as _device_cls
from ..backend import cuda as _cuda
from ..errors import DeviceError


def _runtime(op):
    if not _cuda.AVAILABLE:
        raise DeviceError(
            f"lucid.cuda.{op}: CUDA is not available (no CuPy, or no GPU); "
            "install the CUDA backend with pip install 'lucid[cuda12]' or "
            "'lucid[cuda13]' on a machine with an NVIDIA GPU"
        )
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
        self.idx = (
            -1 if dev is None or (isinstance(dev, int) and dev < 0) else _index(dev, "device")
        )

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
        _index(device, "get_device_capability")
    )


def get_device_properties(device=None) -> dict:
    return _runtime("get_device_properties").device_properties(
        _index(device, "get_device_properties")
    )
