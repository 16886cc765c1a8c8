"""Normalisation: batch_norm, layer_norm, group_norm, instance_norm, rms_norm, local_response_norm.

Each norm is one fused op of :mod:`lucid.ops.nn.normalization` (statistics, normalisation and
affine in one node); these wrappers check their arguments as PyTorch does and compute the op's
layout. ``local_response_norm`` is composed from ops.
"""

from __future__ import annotations

from typing import Any

import math
import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import ArgumentError, ArgumentTypeError, DTypeError, ShapeError
from ...ops import ones, pad
from ...ops.nn.normalization import (
    BatchNormBackward,
    GroupNormBackward,
    InstanceNormBackward,
    LayerNormBackward,
    RmsNormBackward,
)

__all__ = [
    "batch_norm",
    "instance_norm",
    "layer_norm",
    "group_norm",
    "rms_norm",
    "local_response_norm",
]


def _input(x, op, min_dim=0):
    if not isinstance(x, Tensor):
        raise ArgumentTypeError(f"{op}: expected input to be a Tensor, got {type(x).__name__}")
    if not x._dtype.is_floating_point:
        raise DTypeError(f"{op}: expected a floating point input, got {x._dtype.name}")
    if x._data.ndim < min_dim:
        raise ShapeError(
            f"{op}: expected an input with at least {min_dim} dims, got shape {tuple(x.shape)}"
        )
    return x


def _affine(op, weight, bias, shape, x):
    """The op's tensor inputs after ``x``: ``(w, b)``, ``(w,)`` or ``()`` (a bias without a
    weight comes with a constant weight of ones); each checked to have ``shape``."""
    for name, t in (("weight", weight), ("bias", bias)):
        if t is None:
            continue
        if not isinstance(t, Tensor):
            raise ArgumentTypeError(
                f"{op}: expected {name} to be a Tensor or None, got {type(t).__name__}"
            )
        if t._data.shape != shape:
            raise ShapeError(f"{op}: expected {name} of shape {list(shape)}, got {list(t.shape)}")
    if weight is None and bias is not None:
        weight = ones(shape, dtype=bias.dtype, device=bias.device)
    return tuple(t for t in (weight, bias) if t is not None)


def _number(v, name, op):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise ArgumentTypeError(f"{op}: {name} must be a number, got {type(v).__name__}")
    return float(v)


def _eps(eps, op):
    return _number(eps, "eps", op)


def _channel_layout(x, stats_over_batch):
    """Batch norm's (``stats_over_batch``) or instance norm's layout on ``(N, C, *)``."""
    nd = x._data.ndim
    spatial = tuple(range(2, nd))
    axes = (0,) + spatial if stats_over_batch else spatial
    return None, axes, (0,) + spatial, (1, x.shape[1]) + (1,) * (nd - 2)


def _running(op, running_mean, running_var, c):
    """``(mean_array, var_array)`` of the running statistics (either may be None), checked."""
    arrs = []
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None:
            if not isinstance(t, Tensor):
                raise ArgumentTypeError(
                    f"{op}: expected {name} to be a Tensor or None, got {type(t).__name__}"
                )
            if tuple(t.shape) != (c,):
                raise ShapeError(f"{op}: expected {name} of shape [{c}], got {list(t.shape)}")
        arrs.append(None if t is None else t._data)
    return tuple(arrs)


def _bump(*tensors):
    for t in tensors:
        if t is not None:
            t._vc[0] += 1


def _stats_norm(
    cls,
    op,
    x,
    wb,
    layout,
    eps,
    batch_stats,
    running,
    running_mean,
    running_var,
    momentum,
    eval_mode,
):
    """Batch or instance norm (op class ``cls``): from the input's statistics, updating the
    running ones in place (with a version bump) when given, or from the running ones."""
    if batch_stats:
        has_running = running[0] is not None or running[1] is not None
        out = cls.apply(
            x,
            *wb,
            layout=layout,
            eps=eps,
            running=running if has_running else None,
            momentum=_number(momentum, "momentum", op),
        )
        if has_running and x.numel():
            _bump(running_mean, running_var)
        return out
    if running_mean is None or running_var is None:
        raise ArgumentError(f"{op}: running_mean and running_var must be given {eval_mode}")
    return cls.apply(x, *wb, layout=layout, eps=eps, use_input_stats=False, running=running)


def batch_norm(
    input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5
):
    """Batch norm over ``(N, C, *)``: per channel over the batch and spatial dims; in
    training mode the running statistics (when given) are updated in place with
    ``momentum`` (the unbiased variance), in evaluation mode they normalise."""
    op = "batch_norm"
    x = _input(input, op, 2)
    c = x.shape[1]
    eps = _eps(eps, op)
    running = _running(op, running_mean, running_var, c)
    wb = _affine(op, weight, bias, (c,), x)
    layout = _channel_layout(x, True)
    if training:
        if eps <= 0:
            raise ArgumentError(f"{op}: eps must be positive during training, got {eps}")
        if x.numel() // c == 1:
            raise ArgumentError(
                f"{op}: expected more than 1 value per channel when "
                f"training, got input size {list(x.shape)}"
            )
    return _stats_norm(
        BatchNormBackward,
        op,
        x,
        wb,
        layout,
        eps,
        training,
        running,
        running_mean,
        running_var,
        momentum,
        "in evaluation mode (training=False)",
    )


def instance_norm(
    input,
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats=True,
    momentum=0.1,
    eps=1e-5,
):
    """Instance norm over ``(N, C, *)``: per sample and channel over the spatial dims;
    with ``use_input_stats`` the running statistics (when given) are updated with the
    batch average of the per-sample ones, else they normalise."""
    op = "instance_norm"
    x = _input(input, op, 3)
    c = x.shape[1]
    eps = _eps(eps, op)
    running = _running(op, running_mean, running_var, c)
    wb = _affine(op, weight, bias, (c,), x)
    layout = _channel_layout(x, False)
    if use_input_stats:
        if math.prod(x.shape[2:]) == 1:
            raise ArgumentError(
                f"{op}: expected more than 1 spatial element when "
                f"training, got input size {list(x.shape)}"
            )
    return _stats_norm(
        InstanceNormBackward,
        op,
        x,
        wb,
        layout,
        eps,
        use_input_stats,
        running,
        running_mean,
        running_var,
        momentum,
        "when use_input_stats=False",
    )


_LAYOUTS: dict = {}  # (input shape, normalized_shape) -> the trailing-dims layout


def _trailing(x, normalized_shape, op):
    """``normalized_shape`` as a tuple that ``x``'s trailing dims match, and the layout."""
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    shape = x._data.shape
    try:
        key = (shape, tuple(normalized_shape))
    except TypeError:
        raise ArgumentTypeError(
            f"{op}: normalized_shape must be an int or a sequence of "
            f"ints, got {type(normalized_shape).__name__}"
        ) from None
    got = _LAYOUTS.get(key)
    if got is not None:
        return got
    if not all(isinstance(n, numbers.Integral) and not isinstance(n, bool) for n in key[1]):
        raise ArgumentTypeError(
            f"{op}: normalized_shape must be an int or a sequence of ints, got {normalized_shape!r}"
        )
    ns = tuple(int(n) for n in normalized_shape)
    k, nd = len(ns), len(shape)
    if k == 0 or k > nd or shape[nd - k :] != ns:
        raise ShapeError(
            f"{op}: given normalized_shape={list(ns)}, expected input with "
            f"shape [*, {', '.join(map(str, ns))}], but got input of size "
            f"{list(shape)}"
        )
    got = ns, (None, tuple(range(nd - k, nd)), tuple(range(nd - k)), (1,) * (nd - k) + ns)
    if len(_LAYOUTS) < 1024:
        _LAYOUTS[key] = got
    return got


def layer_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Layer norm over the trailing ``normalized_shape`` dims, then ``* weight + bias``."""
    op = "layer_norm"
    x = _input(input, op)
    ns, layout = _trailing(x, normalized_shape, op)
    wb = _affine(op, weight, bias, ns, x)
    return LayerNormBackward.apply(x, *wb, layout=layout, eps=_eps(eps, op))


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """RMS norm over the trailing ``normalized_shape`` dims: ``x / sqrt(mean(x^2) + eps)
    * weight``; ``eps=None`` is the input dtype's machine epsilon (``finfo.eps``)."""
    op = "rms_norm"
    x = _input(input, op)
    ns, layout = _trailing(x, normalized_shape, op)
    wb = _affine(op, weight, None, ns, x)
    eps = _dt.finfo(x.dtype).eps if eps is None else _eps(eps, op)
    return RmsNormBackward.apply(x, *wb, layout=layout, eps=eps, center=False)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Group norm: the ``C`` channels of ``(N, C, *)`` split into ``num_groups`` groups,
    each normalised per sample over its channels and the spatial dims."""
    op = "group_norm"
    x = _input(input, op, 2)
    if isinstance(num_groups, bool) or not isinstance(num_groups, numbers.Integral):
        raise ArgumentTypeError(f"{op}: num_groups must be an int, got {type(num_groups).__name__}")
    n, c = x.shape[0], x.shape[1]
    g = int(num_groups)
    s = math.prod(x.shape[2:])
    if g > 0 and n * c // g * s == 1:
        # PyTorch's check (in evaluation mode too): a single value of each group of the
        # single sample, whose normalisation is 0 whatever the input
        raise ArgumentError(
            f"{op}: expected more than 1 value per channel when training, "
            f"got input size {list(x.shape)}"
        )
    if g <= 0 or c % g:
        raise ShapeError(
            f"{op}: expected number of channels in input ({c}) to be divisible "
            f"by num_groups, but got num_groups={num_groups}"
        )
    layout = ((n, g, c // g, s), (2, 3), (0, 3), (1, g, c // g, 1))
    wb = _affine(op, weight, bias, (c,), x)
    return GroupNormBackward.apply(x, *wb, layout=layout, eps=_eps(eps, op))


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Local response norm across channels: ``x / (k + alpha/size * sum_{window} x^2) **
    beta``, the window of ``size`` channels centred on each (zero padded); composed from
    ops. As PyTorch: an empty input is returned as is (a copy); int64 input is accepted, its
    window mean of squares an integer (floored, as PyTorch's int64 average pooling) and
    the result in the default float dtype; other integer and bool dtypes are refused."""
    op = "local_response_norm"
    if not isinstance(input, Tensor):
        raise ArgumentTypeError(f"{op}: expected input to be a Tensor, got {type(input).__name__}")
    x = input
    if x._data.ndim < 3:
        raise ShapeError(
            f"{op}: expected an input with at least 3 dims, got shape {tuple(x.shape)}"
        )
    if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 1:
        raise ArgumentError(f"{op}: size must be a positive int, got {size!r}")
    if x.numel() == 0:
        return x.clone()
    if not (x._dtype.is_floating_point or x._dtype is _dt.int64):
        raise DTypeError(
            f"{op}: expected a floating point input (or int64, as PyTorch), got {x._dtype.name}"
        )
    nd = x._data.ndim
    sq = x * x
    widths = [0, 0] * (nd - 2) + [size // 2, (size - 1) // 2]  # dim 1, last dims first
    win = pad(sq, widths).unfold(1, size, 1)
    div = win.sum(-1) // size if x._dtype is _dt.int64 else win.mean(-1)
    return x / (div * alpha + k) ** beta
