"""The sample format the registry-driven suite walks: one or more per registered op."""

from __future__ import annotations

import dataclasses
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
    Complex arrays (complex128) become complex tensors. ``complex``: whether the suite also
    runs the sample's complex variant (:func:`complex_variant`) when the op declares
    ``complex_grad="holomorphic"``.
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
    complex: bool = True

    def __post_init__(self):
        if not self.name:
            shapes = ",".join(str(tuple(a.shape)) for a in self.args if isinstance(a, np.ndarray))
            self.name = f"{self.op}[{shapes}]"


def rnd(*shape, seed=0, low=-1.0, high=1.0):
    """Reproducible float64 test data in ``[low, high)``."""
    return np.random.default_rng(seed + 7 * len(shape)).uniform(low, high, size=shape)


def pos(*shape, seed=0):
    """Positive float64 test data in ``[0.5, 2)``."""
    return rnd(*shape, seed=seed, low=0.5, high=2.0)


def complex_variant(sample):
    """``sample`` with every float array argument ``a`` made complex, ``a + i b`` with a
    reproducible ``b`` in ``[-0.5, 0.5)`` (small, so a positive domain stays off the branch
    cuts of ``log`` and ``sqrt``); ``Const`` arguments stay as they are."""
    args = tuple(
        np.asarray(a + 1j * np.random.default_rng(17 + i).uniform(-0.5, 0.5, a.shape))
        if isinstance(a, np.ndarray) and a.dtype.kind == "f"
        else a
        for i, a in enumerate(sample.args)
    )
    return dataclasses.replace(sample, args=args, name=sample.name + "[complex]")


def crnd(*shape, seed=0):
    """Reproducible complex128 test data, both parts in ``[-1, 1)``."""
    return np.asarray(rnd(*shape, seed=seed) + 1j * rnd(*shape, seed=seed + 1))
