"""``lucid.accelerator``: the device-agnostic accelerator API of PyTorch 2.x
(``torch.accelerator``).

Lucid has one accelerator kind, CUDA (the CuPy backend). Where it can run (CuPy imports and
sees a GPU) :func:`current_accelerator` is ``device("cuda")`` and the functions below act on
:mod:`lucid.cuda`'s current device; elsewhere :func:`is_available` is False,
:func:`current_accelerator` is None, :func:`device_count` is 0, ``device_index(None)`` is a
no-op, and everything that needs a device raises :class:`~lucid.errors.DeviceError` (a
``RuntimeError``, as PyTorch's "Cannot access accelerator device when none is
available").
"""

from __future__ import annotations

import warnings

from . import cuda as _cuda
from ._device import device as _device_cls
from .errors import ArgumentTypeError, DeviceError

__all__ = [
    "is_available",
    "current_accelerator",
    "device_count",
    "current_device_index",
    "current_device_idx",
    "set_device_index",
    "set_device_idx",
    "synchronize",
    "device_index",
]


def is_available() -> bool:
    """Whether an accelerator (a CUDA GPU) can run work here."""
    return _cuda.is_available()


def current_accelerator(check_available: bool = False):
    """The accelerator's device, ``device("cuda")``, or None where there is none.
    ``check_available`` is accepted for PyTorch's signature: Lucid reports CUDA only where
    it is usable, so the answer is the same."""
    return _device_cls("cuda") if _cuda.is_available() else None


def device_count() -> int:
    """How many accelerator devices are visible (0 without one)."""
    return _cuda.device_count()


def _require(op):
    if not _cuda.is_available():
        raise DeviceError(
            f"lucid.accelerator.{op}: cannot access an accelerator device "
            "when none is available (no CuPy, or no GPU)"
        )


def _as_index(device, op):
    """The device index of ``device`` (an int, ``"cuda:N"`` or a device); None: current."""
    if device is None or isinstance(device, int) and not isinstance(device, bool):
        return device
    if isinstance(device, (str, _device_cls)):
        d = _device_cls(device)
        if d.type != "cuda":
            raise DeviceError(
                f"lucid.accelerator.{op}: expected the accelerator's device type 'cuda', got {d}"
            )
        return d.index
    raise ArgumentTypeError(
        f"lucid.accelerator.{op}: expected a device index, a device "
        f"string or a device, got {type(device).__name__}"
    )


def current_device_index() -> int:
    """The index of the device new accelerator work goes to."""
    _require("current_device_index")
    return _cuda.current_device()


def set_device_index(device, /) -> None:
    """Make ``device`` (an index, ``"cuda:N"`` or a device) the current accelerator
    device."""
    _require("set_device_index")
    _cuda.set_device(_as_index(device, "set_device_index"))


def current_device_idx() -> int:
    """Deprecated name of :func:`current_device_index` (warns, as PyTorch's)."""
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_idx(device, /) -> None:
    """Deprecated name of :func:`set_device_index` (warns, as PyTorch's)."""
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


def synchronize(device=None, /) -> None:
    """Wait until every kernel queued on ``device`` (default: the current one) is done."""
    _require("synchronize")
    _cuda.synchronize(_as_index(device, "synchronize"))


class device_index:
    """Context manager making accelerator device ``device`` current for its block and
    restoring the previous one after; ``device_index(None)`` changes nothing (and needs no
    accelerator)."""

    def __init__(self, device, /):
        self.idx = _as_index(device, "device_index")
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is not None:
            _require("device_index")
            self.prev_idx = _cuda.current_device()
            _cuda.set_device(self.idx)

    def __exit__(self, *exc_info):
        if self.idx is not None:
            _cuda.set_device(self.prev_idx)
        return False
