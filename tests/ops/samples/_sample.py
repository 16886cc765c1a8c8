"""The sample format the registry-driven suite walks: one or more per registered op."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np


@dataclass
class Const:
    """Wrap an array argument that must become a tensor *without* requires_grad."""

    value: Any


@dataclass
class Sample:
    """One call of a registered op for the registry suite.

    ``fn(*tensors, **kwargs)`` calls the public Lucid wrapper. Each ``np.ndarray`` in
    ``args`` becomes a Lucid tensor (float64 arrays require grad); ``Const`` wraps arrays
    that must not; anything else is passed as is. ``torch_fn`` (optional) is the same call
    on torch tensors, for parity. ``gradgrad`` says whether second derivatives exist here.
    """

    op: str
    fn: Callable
    args: tuple
    kwargs: dict = field(default_factory=dict)
    torch_fn: Callable | None = None
    grad: bool = True
    gradgrad: bool = True
    atol: float = 1e-5
    rtol: float = 1e-3
    name: str = ""

    def __post_init__(self):
        if not self.name:
            shapes = ",".join(str(tuple(a.shape)) for a in self.args
                              if isinstance(a, np.ndarray))
            self.name = f"{self.op}[{shapes}]"


def rnd(*shape, seed=0, low=-1.0, high=1.0):
    """Reproducible float64 test data in ``[low, high)``."""
    return np.random.default_rng(seed + 7 * len(shape)).uniform(low, high, size=shape)


def pos(*shape, seed=0):
    """Positive float64 test data in ``[0.5, 2)``."""
    return rnd(*shape, seed=seed, low=0.5, high=2.0)
