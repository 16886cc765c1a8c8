"""``autocast``: run ops in a lower precision where their ``AmpPolicy`` allows."""

from __future__ import annotations

import functools

from .. import dtypes as _dt
from ..autograd.grad_mode import STATE
from ..errors import DTypeError

__all__ = ["autocast", "is_autocast_enabled", "get_autocast_dtype"]


class autocast:
    """Inside this block, ``PROMOTE`` ops (matmul, linear, conv) run in ``dtype`` and
    ``FORCE_FP32`` ops (exp, log, softmax, reductions) run half inputs in float32.

    ``device_type`` is ``"cpu"`` or ``"cuda"``; ``dtype`` is ``bfloat16`` (default) or
    ``float16``. Casts are recorded in the graph, so gradients reach each input in its own
    dtype.
    """

    def __init__(self, device_type="cpu", dtype=None, enabled=True, cache_enabled=None):
        if device_type not in ("cpu", "cuda"):
            raise DTypeError(f"autocast: device_type must be 'cpu' or 'cuda', got "
                             f"{device_type!r}")
        self.device_type = device_type
        dtype = _dt.as_dtype(dtype) if dtype is not None else (
            _dt.bfloat16 if device_type == "cpu" else _dt.float16)
        if dtype not in (_dt.float16, _dt.bfloat16):
            raise DTypeError(f"autocast: dtype must be float16 or bfloat16, got {dtype}")
        self.dtype = dtype
        self.enabled = bool(enabled)

    def __enter__(self):
        self._prev = STATE.autocast
        STATE.autocast = self.dtype if self.enabled else None
        return self

    def __exit__(self, *exc):
        STATE.autocast = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with autocast(self.device_type, self.dtype, self.enabled):
                return fn(*args, **kwargs)
        return wrapper


def is_autocast_enabled(device_type=None) -> bool:
    return STATE.autocast is not None


def get_autocast_dtype(device_type=None):
    return STATE.autocast
