"""NVTX annotations: named ranges and marks on the host's timeline of NVIDIA's profilers
(Nsight Systems), as ``torch.cuda.nvtx``. ``lucid.autograd.profiler.emit_nvtx`` makes one
range per op and backward node."""

from __future__ import annotations

import contextlib

from .devices import _runtime as _rt

__all__ = ["range_push", "range_pop", "mark", "range"]

_DEPTH = [0]


def range_push(msg: str) -> int:
    """Open a range named ``msg``; returns the depth it opens at (0 for the outermost)."""
    _rt("nvtx.range_push").nvtx_push(msg)
    _DEPTH[0] += 1
    return _DEPTH[0] - 1


def range_pop() -> int:
    """Close the innermost open range; returns the depth it closed (-1: none was open)."""
    if _DEPTH[0] == 0:
        return -1
    _rt("nvtx.range_pop").nvtx_pop()
    _DEPTH[0] -= 1
    return _DEPTH[0]


def mark(msg: str) -> None:
    """An instant event named ``msg``."""
    _rt("nvtx.mark").nvtx_mark(msg)


@contextlib.contextmanager
def range(msg: str, *args, **kwargs):
    """A range around a block; ``msg`` is formatted with ``args`` and ``kwargs``."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
