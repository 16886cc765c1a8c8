"""The CUDA devices' default random generators, as ``torch.cuda.random``.

Seeding is silently ignored where CUDA is unavailable, as in PyTorch.
"""

from __future__ import annotations

from .. import random as _random
from .._device import device as _device_cls
from ..backend import cuda as _cuda
from .devices import _index, device_count


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
