"""Random number generators: :class:`Generator`, the default generators and seeding.

A :class:`Generator` owns one backend generator object (on the CPU a NumPy PCG64
``Generator``; on a GPU a counter-based Philox4x32-10 state, a seed and an offset, as
PyTorch's CUDA generator); every random function takes ``generator=`` and otherwise draws
from the default generator of its output's device. The same seed gives the same numbers on
one backend; the numbers are not PyTorch's bit for bit, and the CPU and a GPU give
different ones.
"""

from __future__ import annotations

import numbers
import os
from math import trunc as _trunc

from . import dtypes as _dt
from ._device import CPU, device as _device_cls
from .errors import DeviceMismatchError, DTypeError, ShapeError
from ._tensor import Tensor as _Tensor
from ._tensor import tensor as _tensor_of

__all__ = [
    "Generator",
    "default_generator",
    "manual_seed",
    "seed",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
]

_DEFAULT_SEED = 67280421310721  # the seed of a new Generator, as in PyTorch
_U64 = 0xFFFF_FFFF_FFFF_FFFF


def _check_seed(seed, op):
    """``seed`` as an int in [0, 2**64): negative seeds wrap (two's complement)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise DTypeError(f"{op}: expected an int seed, got {type(seed).__name__}")
    seed = int(seed)
    if not -(1 << 63) <= seed <= _U64:
        raise ShapeError(
            f"{op}: seed {seed} is out of range; expected a value in [-2**63, 2**64 - 1]"
        )
    return seed & _U64


class Generator:
    """A seedable source of random numbers on one device.

    ``Generator(device="cpu")`` starts from seed 67280421310721 (``seed=`` picks another,
    as ``manual_seed`` would); ``manual_seed`` returns the generator, so
    ``lucid.Generator().manual_seed(0)`` is one expression.
    ``get_state`` / ``set_state`` save and restore it exactly as a uint8 tensor.
    """

    __slots__ = ("_device", "_seed", "_impl")

    def __init__(self, device="cpu", *, seed=None):
        self._device = _device_cls(device)
        self._seed = _DEFAULT_SEED if seed is None else _check_seed(seed, "Generator")
        self._impl = self._device.backend.rng_create(self._seed)

    @property
    def device(self):
        return self._device

    def manual_seed(self, seed) -> "Generator":
        """Reseed with ``seed`` (an int in [-2**63, 2**64)); returns ``self``."""
        self._seed = _check_seed(seed, "manual_seed")
        self._impl = self._device.backend.rng_create(self._seed)
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        self.manual_seed(int.from_bytes(os.urandom(8), "little"))
        return self._seed

    def initial_seed(self) -> int:
        """The seed this generator was last seeded with."""
        return self._seed

    def get_state(self):
        """The full state as a 1-D uint8 CPU tensor (the seed, then the backend state)."""
        raw = self._seed.to_bytes(8, "little") + self._device.backend.rng_get_state(self._impl)
        return _tensor_of(list(raw), dtype=_dt.uint8)

    def set_state(self, new_state) -> "Generator":
        """Restore a state given by :meth:`get_state`; returns ``self``."""
        if not isinstance(new_state, _Tensor) or new_state.dtype is not _dt.uint8:
            got = (
                new_state.dtype.name if isinstance(new_state, _Tensor) else type(new_state).__name__
            )
            raise DTypeError(f"set_state: RNG state must be a uint8 tensor, got {got}")
        raw = bytes(new_state.reshape(-1).tolist())
        try:
            self._device.backend.rng_set_state(self._impl, raw[8:])
        except ValueError as e:
            raise ShapeError(
                f"set_state: invalid RNG state of {len(raw)} bytes for a "
                f"{self._device} generator ({e}, after an 8-byte seed)"
            ) from None
        self._seed = int.from_bytes(raw[:8], "little")
        return self

    def __repr__(self):
        return f"<lucid.Generator device={self._device}>"


default_generator = Generator()
default_generator.seed()
_defaults = {CPU: default_generator}


def _default_for(dev):
    """The default generator of device ``dev`` (made on first use, seeded like the CPU's)."""
    g = _defaults.get(dev)
    if g is None:
        g = _defaults[dev] = Generator(dev).manual_seed(default_generator.initial_seed())
    return g


def generator_for(generator, dev, op):
    """The generator an op drawing on device ``dev`` uses: ``generator`` or the default."""
    if generator is None:
        return _default_for(dev)
    if not isinstance(generator, Generator):
        raise DTypeError(
            f"{op}: generator must be a lucid.Generator, got {type(generator).__name__}"
        )
    if generator._device.type != dev.type:
        raise DeviceMismatchError(
            f"{op}: expected a '{dev.type}' device type for generator "
            f"but found '{generator._device.type}'"
        )
    return generator


def manual_seed(seed) -> Generator:
    """Seed every default generator (all devices); returns the CPU default generator."""
    if isinstance(seed, numbers.Real) and not isinstance(seed, numbers.Integral):
        seed = _trunc(seed)
    seed = _check_seed(seed, "manual_seed")
    for g in _defaults.values():
        g.manual_seed(seed)
    return default_generator


def seed() -> int:
    """Seed every default generator from the operating system's entropy; returns the seed."""
    s = default_generator.seed()
    for g in _defaults.values():
        if g is not default_generator:
            g.manual_seed(s)
    return s


def initial_seed() -> int:
    """The seed of the CPU default generator."""
    return default_generator.initial_seed()


def get_rng_state():
    """The CPU default generator's state as a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restore the CPU default generator from :func:`get_rng_state`'s tensor."""
    default_generator.set_state(new_state)
