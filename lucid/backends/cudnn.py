"""``lucid.backends.cudnn``: convolution switches, as ``torch.backends.cudnn``, plain
settable attributes that the CUDA convolution reads per call. ``enabled``: use cuDNN-class
algorithms where available; ``benchmark``: time the candidate algorithms once per shape and
keep the fastest (up to ``benchmark_limit`` of them); ``deterministic``: only algorithms
with run-to-run identical results; ``allow_tf32``: float32 convolutions may use TF32 tensor
cores. Lucid links no cuDNN (CuPy has no cuDNN bindings; convolutions run on its own
kernels and GEMMs), so :func:`is_available` is False."""

from __future__ import annotations

import contextlib
import sys

__all__ = [
    "enabled",
    "benchmark",
    "benchmark_limit",
    "deterministic",
    "allow_tf32",
    "flags",
    "is_available",
    "version",
]

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """Whether cuDNN is linked: never in Lucid (see the module doc)."""
    return False


def version():
    """The linked cuDNN's version number: None, as PyTorch's where cuDNN is absent."""
    return None


_NAMES = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """Set all five switches inside the block (PyTorch's defaults: cuDNN off) and restore
    them after."""
    mod = sys.modules[__name__]
    new = dict(zip(_NAMES, (enabled, benchmark, benchmark_limit, deterministic, allow_tf32)))
    old = {k: getattr(mod, k) for k in _NAMES}
    for k, v in new.items():
        setattr(mod, k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            setattr(mod, k, v)
