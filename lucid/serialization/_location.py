"""``map_location``: where each storage (or, in Lucid's older safetensors files, each tensor)
of a file is put when it is loaded."""

from __future__ import annotations

from .._device import device as _device_cls
from .._tensor import Tensor
from ..errors import ArgumentTypeError, DeviceError

__all__ = ["Locator"]


class Locator:
    """``locator(tensor, saved_location) -> tensor`` implementing ``map_location``:

    - None: each on the device it was saved from (``"cpu"``, ``"cuda:N"``);
    - a device or device string: all there;
    - a dict: saved location strings to others (those it lacks stay where they were);
    - a callable ``(storage, location) -> storage``, as PyTorch's: here the storage is a 1-D
      CPU tensor of the storage's elements, and a None result means the default placement.
    """

    def __init__(self, map_location, op="load"):
        self.op = op
        m = map_location
        if m is None or callable(m) or isinstance(m, dict):
            self._map = m
        elif isinstance(m, (str, _device_cls)):
            self._map = self._device(m, "map_location")
        else:
            raise ArgumentTypeError(
                f"{op}: map_location must be None, a device, a str, a "
                f"dict or a callable, got {type(m).__name__}"
            )

    def _device(self, where, what):
        try:
            return _device_cls(where)
        except (DeviceError, TypeError) as e:
            raise DeviceError(
                f"{self.op}: {what} {where!r} is not a Lucid device ({e}); "
                "pass map_location='cpu' (or another device) to load it "
                "there"
            ) from None

    def _move(self, t, where, loc):
        dev = where if isinstance(where, _device_cls) else self._device(where, "location")
        if dev == t.device:
            return t
        try:
            return t.to(dev)
        except DeviceError as e:
            raise DeviceError(
                f"{self.op}: can't restore a tensor saved on {loc} ({e}); pass "
                "map_location='cpu' (or another device) to load it there"
            ) from None

    def __call__(self, t, loc):
        m = self._map
        if m is None:
            return self._move(t, loc, loc)
        if isinstance(m, _device_cls):
            return self._move(t, m, loc)
        if isinstance(m, dict):
            return self._move(t, m.get(loc, loc), loc)
        out = m(t, loc)
        if out is None:
            return self._move(t, loc, loc)
        if not isinstance(out, Tensor):
            raise ArgumentTypeError(
                f"{self.op}: map_location returned a "
                f"{type(out).__name__}, expected a Tensor (or None)"
            )
        return out
