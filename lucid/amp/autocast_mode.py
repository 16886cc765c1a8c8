"""``autocast``: run ops in a lower precision where their ``AmpPolicy`` allows.

Autocast state is kept per device type, as PyTorch's: ``"cpu"`` (default dtype bfloat16)
and ``"cuda"`` (default float16), each enabled or not with its own dtype. An op applies its
policy only when autocast is on for the device type of its inputs, so
``autocast("cuda")`` leaves CPU ops alone and ``autocast("cpu")`` CUDA ones.

The op path reads one flag: ``STATE.autocast`` is ``None`` while autocast is off for every
device type, else a mapping ``{device_type: dtype}`` of the enabled ones (a fresh dict at
each change, never mutated, so :mod:`lucid.utils.checkpoint` can save and replay it).

Policies (:class:`~lucid.ops.core.schema.AmpPolicy`): ``PROMOTE`` ops (matmul, conv) cast
float32/float16/bfloat16 inputs to the autocast dtype (float64 stays, as PyTorch);
``PROMOTE_FIRST`` ops (linear) cast their first input so and the weights themselves,
inside the op (no cast nodes; the weight gradients come out of it in float32);
``FORCE_FP32`` ops (exp, log, softmax, norms, reductions, losses) cast half inputs to
float32; ``KEEP_INPUT`` ops run as given. Lucid applies the same lists on both device
types (PyTorch's CUDA lists; its CPU list runs e.g. exp and softmax in bfloat16). Casts are
recorded in the graph, so each input's gradient arrives in its own dtype. Casts are not
cached: ``cache_enabled`` is accepted for PyTorch compatibility.
"""

from __future__ import annotations

import functools

from .. import dtypes as _dt
from .._tensor import Tensor
from ..autograd.grad_mode import STATE
from ..errors import ArgumentTypeError, DTypeError

__all__ = [
    "autocast",
    "is_autocast_enabled",
    "get_autocast_dtype",
    "set_autocast_enabled",
    "set_autocast_dtype",
    "custom_fwd",
    "custom_bwd",
]

_DTYPE = {"cpu": _dt.bfloat16, "cuda": _dt.float16}  # per device type, on or off


def _device_type(device_type, where):
    if not isinstance(device_type, str):
        raise ArgumentTypeError(
            f"{where}: device_type must be a str, got {type(device_type).__name__}"
        )
    if device_type not in _DTYPE:
        raise DTypeError(f"{where}: device_type must be 'cpu' or 'cuda', got {device_type!r}")
    return device_type


def _half_dtype(dtype, where):
    dtype = _dt.as_dtype(dtype)
    if dtype not in (_dt.float16, _dt.bfloat16):
        raise DTypeError(f"{where}: dtype must be float16 or bfloat16, got {dtype}")
    return dtype


def is_autocast_enabled(device_type=None) -> bool:
    """Whether autocast is on for ``device_type`` (``None``: for any device type)."""
    on = STATE.autocast
    if device_type is None:
        return on is not None
    return _device_type(device_type, "is_autocast_enabled") in (on or ())


def get_autocast_dtype(device_type):
    """The dtype autocast uses (or would use, while off) on ``device_type``."""
    return _DTYPE[_device_type(device_type, "get_autocast_dtype")]


def set_autocast_enabled(device_type, enabled) -> None:
    """Turn autocast on or off for ``device_type`` (``autocast`` is the scoped form)."""
    device_type = _device_type(device_type, "set_autocast_enabled")
    on = dict(STATE.autocast or {})
    if enabled:
        on[device_type] = _DTYPE[device_type]
    else:
        on.pop(device_type, None)
    STATE.autocast = on or None


def set_autocast_dtype(device_type, dtype) -> None:
    """Set the dtype autocast uses on ``device_type`` (float16 or bfloat16)."""
    device_type = _device_type(device_type, "set_autocast_dtype")
    _DTYPE[device_type] = _half_dtype(dtype, "set_autocast_dtype")
    on = STATE.autocast
    if on is not None and device_type in on:
        STATE.autocast = {**on, device_type: _DTYPE[device_type]}


class autocast:
    """A context manager (and decorator): inside it, ops on ``device_type`` tensors apply
    their ``AmpPolicy`` with ``dtype`` (default: bfloat16 on ``"cpu"``, float16 on
    ``"cuda"``). ``enabled=False`` turns autocast off for that device type inside the
    block; blocks nest, and each restores the previous state on exit.
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        self.device_type = _device_type(device_type, "autocast")
        self.fast_dtype = _DTYPE[device_type] if dtype is None else _half_dtype(dtype, "autocast")
        self.enabled = bool(enabled)
        self.cache_enabled = cache_enabled

    def __enter__(self):
        self._prev = (STATE.autocast, _DTYPE[self.device_type])
        set_autocast_dtype(self.device_type, self.fast_dtype)
        set_autocast_enabled(self.device_type, self.enabled)
        return self

    def __exit__(self, *exc):
        STATE.autocast, _DTYPE[self.device_type] = self._prev
        return False

    def __call__(self, fn):
        args = (self.device_type, self.fast_dtype, self.enabled, self.cache_enabled)

        @functools.wraps(fn)
        def wrapper(*a, **kw):
            with autocast(*args):
                return fn(*a, **kw)

        return wrapper


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator of a custom :class:`~lucid.autograd.Function`'s ``forward(ctx, ...)``.

    Without ``cast_inputs`` the forward runs under the caller's autocast state, which is
    recorded on ``ctx`` for :func:`custom_bwd`. With ``cast_inputs`` (a floating dtype) and
    autocast on for ``device_type``, floating tensor arguments on that device type (float64
    excepted) are cast to it and the forward, and later the backward, run with autocast
    off."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    device_type = _device_type(device_type, "custom_fwd")

    @functools.wraps(fwd)
    def forward(ctx, *args, **kwargs):
        on = is_autocast_enabled(device_type)
        ctx._autocast_dtype = get_autocast_dtype(device_type)
        ctx._fwd_used_autocast = on and cast_inputs is None
        if cast_inputs is None or not on:
            return fwd(ctx, *args, **kwargs)
        with autocast(device_type, enabled=False):
            return fwd(
                ctx,
                *_cast_all(args, device_type, cast_inputs),
                **_cast_all(kwargs, device_type, cast_inputs),
            )

    return forward


def custom_bwd(bwd=None, *, device_type):
    """Decorator of a custom Function's ``backward``: it runs under the autocast state its
    forward (decorated with :func:`custom_fwd`) ran under."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    device_type = _device_type(device_type, "custom_bwd")

    @functools.wraps(bwd)
    def backward(ctx, *grads):
        with autocast(device_type, ctx._autocast_dtype, ctx._fwd_used_autocast):
            return bwd(ctx, *grads)

    return backward


def _cast_all(value, device_type, dtype):
    """``value`` with floating tensors on ``device_type`` (inside lists, tuples, dicts)
    cast to ``dtype``."""
    if isinstance(value, Tensor):
        if (
            value.is_floating_point()
            and value.dtype is not _dt.float64
            and value.device.type == device_type
        ):
            return value.to(dtype)
        return value
    if isinstance(value, dict):
        return {k: _cast_all(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_all(v, device_type, dtype) for v in value)
    return value
