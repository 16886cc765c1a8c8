"""Devices: ``"cpu"``, ``"cuda"``, ``"cuda:N"`` (``"gpu"`` is an alias of ``"cuda"``).

A :class:`device` is interned (one object per place), so the op path compares devices by
identity, and it knows its backend, created on first use.
"""

from __future__ import annotations

from .errors import DeviceError

__all__ = ["device", "set_default_device", "get_default_device"]

_TYPES = {"cpu": "cpu", "cuda": "cuda", "gpu": "cuda"}


class device:
    """A place tensors live: ``device("cpu")``, ``device("cuda", 1)``, ``device("cuda:1")``."""

    __slots__ = ("type", "index", "_backend")
    type: str  # "cpu" or "cuda"
    index: int | None
    _interned: dict = {}

    def __new__(cls, spec="cpu", index=None):
        if isinstance(spec, device):
            if index is None:
                return spec
            spec = spec.type
        if not isinstance(spec, (str, int)):
            raise DeviceError(f"device: got {type(spec).__name__}, expected a string or int")
        key = (spec, index)
        got = cls._interned.get(key)
        if got is not None:
            return got
        if isinstance(spec, int) and not isinstance(spec, bool):
            kind, idx = "cuda", spec
        elif isinstance(spec, str):
            kind, _, rest = spec.strip().lower().partition(":")
            if kind not in _TYPES or (":" in spec and not rest.isdigit()):
                raise DeviceError(
                    f"device: got {spec!r}, expected 'cpu', 'cuda', 'cuda:N' or 'gpu'"
                )
            kind = _TYPES[kind]
            idx = int(rest) if rest else None
            if index is not None:
                if idx is not None:
                    raise DeviceError(f"device: index given twice in {spec!r} and {index}")
                idx = index
        else:
            raise DeviceError(f"device: got {type(spec).__name__}, expected a string or int")
        if kind == "cpu":
            if idx not in (None, 0):
                raise DeviceError(f"device: cpu has no index {idx}")
            idx = None
        elif idx is None:
            idx = 0
        canon = cls._interned.get((kind, idx))
        if canon is None:
            canon = object.__new__(cls)
            canon.type, canon.index, canon._backend = kind, idx, None
            cls._interned[(kind, idx)] = canon
        cls._interned[key] = canon
        return canon

    @property
    def backend(self):
        """The backend computing on this device (CpuBackend, CudaBackend)."""
        be = self._backend
        if be is None:
            be = self._backend = BACKEND_FOR[0](self)
        return be

    def __repr__(self):
        return (
            f"device(type='{self.type}')"
            if self.index is None
            else f"device(type='{self.type}', index={self.index})"
        )

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, (str, int)):
            try:
                other = device(other)
            except DeviceError:
                return False
        return self is other

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (str(self),))


# Installed by lucid.backend (a layer above): device -> its backend instance.
BACKEND_FOR: list = [None]

CPU = device("cpu")
_default = CPU


def set_default_device(d) -> None:
    """Set where factories (``zeros``, ``tensor``, ...) put tensors when no device is given."""
    global _default
    _default = device(d) if d is not None else CPU


def get_default_device() -> device:
    """The device factories use when no device is given."""
    return _default
