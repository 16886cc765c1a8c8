"""Pooling: max/avg/adaptive/lp pooling and max_unpool, 1d/2d/3d.

Each function checks its arguments as PyTorch does, computes the output size (``ceil_mode``
lets the last window start in the input or the leading padding and run past the end) and
calls one fused op of :mod:`lucid.ops.nn.pooling`; ``lp_pool`` is composed from
``avg_pool`` as in PyTorch. Unbatched input (no batch dim) is accepted.
"""

from __future__ import annotations

import math
import numbers

from ... import dtypes as _dt, ops as _ops
from ...errors import ArgumentError, DTypeError, ShapeError
from ...ops.core.base import to_tensor
from ...ops.nn.pooling import (
    AdaptiveAvgPoolBackward,
    AdaptiveMaxPoolBackward,
    AvgPoolBackward,
    MaxPoolBackward,
    MaxPoolIndicesBackward,
    MaxUnpoolBackward,
)
from .conv import _input, _tuple

__all__ = [
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
]


def _unbatch(y, batched):
    return y if batched else y.squeeze(0)


def _window_args(op, n, kernel_size, stride, padding, dilation):
    kernel = _tuple(kernel_size, n, "kernel_size", op, 1)
    stride = (
        kernel
        if stride is None or (not isinstance(stride, numbers.Integral) and len(tuple(stride)) == 0)
        else _tuple(stride, n, "stride", op, 1)
    )
    pad = _tuple(padding, n, "padding", op)
    dil = _tuple(dilation, n, "dilation", op, 1)
    return kernel, stride, pad, dil


def _out_size(op, x, kernel, stride, pad, dil, ceil_mode):
    """PyTorch's pooling output size, and the ``(lo, hi)`` padding that gives exactly it
    (``hi`` may exceed the padding in ceil mode, or fall short of it)."""
    spatial = tuple(x.shape[2:])
    out, pads = [], []
    for s, k, st, p, d in zip(spatial, kernel, stride, pad, dil):
        span = s + 2 * p - d * (k - 1) - 1
        o = (span + (st - 1 if ceil_mode else 0)) // st + 1
        if ceil_mode and (o - 1) * st >= s + p:
            o -= 1
        out.append(o)
        pads.append((p, (o - 1) * st + d * (k - 1) + 1 - s - p))
    if any(o <= 0 for o in out):
        raise ShapeError(
            f"{op}: Given input size: ({'x'.join(map(str, x.shape[1:]))}). "
            f"Calculated output size: ({x.shape[1]}x{'x'.join(map(str, out))}). "
            "Output size is too small"
        )
    return tuple(out), tuple(pads)


def _max_pool(op, n, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    x, batched = _input(op, input, n, integers=True)
    kernel, stride, pad, dil = _window_args(op, n, kernel_size, stride, padding, dilation)
    for p, k, d in zip(pad, kernel, dil):
        if 2 * p > k:  # PyTorch's rule: the kernel's own size, not the dilated one
            raise ArgumentError(
                f"{op}: pad should be at most half of kernel size, but got "
                f"pad={p}, kernel_size={k} (dilation={d})"
            )
    _, pads = _out_size(op, x, kernel, stride, pad, dil, ceil_mode)
    vals, arg = MaxPoolBackward.apply(x, kernel=kernel, stride=stride, padding=pads, dilation=dil)
    if return_indices:
        idx = MaxPoolIndicesBackward.apply(
            arg,
            in_spatial=tuple(x.shape[2:]),
            kernel=kernel,
            stride=stride,
            padding=pads,
            dilation=dil,
        )
        return _unbatch(vals, batched), _unbatch(idx, batched)
    return _unbatch(vals, batched)


def max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """1-d max pooling over ``(N, C, L)``; ``return_indices`` also gives the flat index of
    each maximum (for :func:`max_unpool1d`)."""
    return _max_pool(
        "max_pool1d", 1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
    )


def max_pool2d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """2-d max pooling over ``(N, C, H, W)`` (``stride`` defaults to ``kernel_size``;
    padding is :math:`-\\infty`)."""
    return _max_pool(
        "max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
    )


def max_pool3d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """3-d max pooling over ``(N, C, D, H, W)``."""
    return _max_pool(
        "max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
    )


def _avg_pool(
    op, n, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
):
    x, batched = _input(op, input, n)
    kernel, stride, pad, _ = _window_args(op, n, kernel_size, stride, padding, 1)
    for p, k in zip(pad, kernel):
        if 2 * p > k:
            raise ArgumentError(
                f"{op}: pad should be smaller than or equal to half of "
                f"kernel size, but got pad={p} and kernel_size={k}"
            )
    if divisor_override is not None:
        if isinstance(divisor_override, bool) or not isinstance(divisor_override, numbers.Integral):
            raise ArgumentError(f"{op}: divisor_override must be an int, got {divisor_override!r}")
        if divisor_override == 0:
            raise ArgumentError(f"{op}: divisor must be not zero")
        divisor_override = int(divisor_override)
    _, pads = _out_size(op, x, kernel, stride, pad, (1,) * n, ceil_mode)
    limit = tuple((p, p) for p in pad) if count_include_pad else ((0, 0),) * n
    y = AvgPoolBackward.apply(
        x,
        kernel=kernel,
        stride=stride,
        padding=pads,
        limit=limit,
        divisor_override=divisor_override,
    )
    return _unbatch(y, batched)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-d average pooling; ``count_include_pad``: the zero padding counts in the
    divisor."""
    return _avg_pool(
        "avg_pool1d", 1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None
    )


def avg_pool2d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """2-d average pooling; ``divisor_override`` replaces every window's divisor."""
    return _avg_pool(
        "avg_pool2d",
        2,
        input,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
    )


def avg_pool3d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """3-d average pooling."""
    return _avg_pool(
        "avg_pool3d",
        3,
        input,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
    )


def _adaptive_size(op, n, x, output_size):
    """``output_size`` (an int or a tuple, ``None`` keeping the input's size) as a tuple."""
    if isinstance(output_size, numbers.Integral) and not isinstance(output_size, bool):
        size = (int(output_size),) * n
    else:
        size = tuple(output_size)
        if len(size) == 1:
            size = size * n
        if len(size) != n:
            raise ArgumentError(
                f"{op}: output_size must be an int or a tuple of {n} ints, got {output_size!r}"
            )
        size = tuple(int(s) if s is not None else int(x.shape[2 + i]) for i, s in enumerate(size))
    if any(s < 0 for s in size):
        raise ArgumentError(f"{op}: output_size must be non-negative, got {size}")
    return size


def _adaptive_input(op, input, n):
    x, batched = _input(op, input, n)
    if any(s == 0 for s in x.shape[1:]):
        raise ShapeError(
            f"{op}: Expected input to have non-zero size for non-batch "
            f"dimensions, but input has sizes {list(x.shape)} with dimension "
            f"{list(x.shape).index(0)} being empty"
        )
    return x, batched


def _adaptive_avg(op, n, input, output_size):
    x, batched = _adaptive_input(op, input, n)
    size = _adaptive_size(op, n, x, output_size)
    return _unbatch(AdaptiveAvgPoolBackward.apply(x, out_spatial=size), batched)


def adaptive_avg_pool1d(input, output_size):
    """1-d adaptive average pooling to ``output_size`` positions."""
    return _adaptive_avg("adaptive_avg_pool1d", 1, input, output_size)


def adaptive_avg_pool2d(input, output_size):
    """2-d adaptive average pooling to ``output_size`` (``None`` entries keep the input's
    size); window :math:`o` spans :math:`[\\lfloor oL/O \\rfloor, \\lceil (o+1)L/O \\rceil)`."""
    return _adaptive_avg("adaptive_avg_pool2d", 2, input, output_size)


def adaptive_avg_pool3d(input, output_size):
    """3-d adaptive average pooling."""
    return _adaptive_avg("adaptive_avg_pool3d", 3, input, output_size)


def _adaptive_max(op, n, input, output_size, return_indices):
    x, batched = _adaptive_input(op, input, n)
    size = _adaptive_size(op, n, x, output_size)
    vals, idx = AdaptiveMaxPoolBackward.apply(x, out_spatial=size)
    if return_indices:
        return _unbatch(vals, batched), _unbatch(idx, batched)
    return _unbatch(vals, batched)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """1-d adaptive max pooling (``return_indices``: also the flat index of each max)."""
    return _adaptive_max("adaptive_max_pool1d", 1, input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-d adaptive max pooling to ``output_size``."""
    return _adaptive_max("adaptive_max_pool2d", 2, input, output_size, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-d adaptive max pooling to ``output_size``."""
    return _adaptive_max("adaptive_max_pool3d", 3, input, output_size, return_indices)


def _lp_pool(op, n, pool, input, norm_type, kernel_size, stride, ceil_mode):
    kernel = _tuple(kernel_size, n, "kernel_size", op, 1)
    x = to_tensor(input)
    out = pool(x.pow(norm_type), kernel, stride, 0, ceil_mode)
    return (_ops.sign(out) * _ops.relu(_ops.abs(out))).mul(math.prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling :math:`(\\sum_{window} x^p)^{1/p}` over ``(N, C, L)``
    (PyTorch's formula: ``avg_pool`` of :math:`x^p` times the window size)."""
    return _lp_pool("lp_pool1d", 1, avg_pool1d, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """2-d power-average pooling :math:`(\\sum_{window} x^p)^{1/p}`."""
    return _lp_pool("lp_pool2d", 2, avg_pool2d, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """3-d power-average pooling :math:`(\\sum_{window} x^p)^{1/p}`."""
    return _lp_pool("lp_pool3d", 3, avg_pool3d, input, norm_type, kernel_size, stride, ceil_mode)


def _max_unpool(op, n, input, indices, kernel_size, stride, padding, output_size):
    x, batched = _input(op, input, n)
    idx = to_tensor(indices, x)
    if not batched:
        idx = idx.unsqueeze(0)
    if idx._dtype.is_floating_point or idx._dtype is _dt.bool:
        raise DTypeError(f"{op}: expected indices to be an int64 tensor, got {idx._dtype.name}")
    if tuple(idx.shape) != tuple(x.shape):
        raise ShapeError(
            f"{op}: Expected shape of indices to be same as that of the input "
            f"tensor ({list(x.shape)}) but got indices tensor with shape: "
            f"{list(idx.shape)}"
        )
    kernel, stride, pad, _ = _window_args(op, n, kernel_size, stride, padding, 1)
    default = tuple((i - 1) * s - 2 * p + k for i, s, p, k in zip(x.shape[2:], stride, pad, kernel))
    if output_size is None:
        size = default
    else:
        size = tuple(int(s) for s in tuple(output_size))
        if len(size) == n + 2:
            size = size[2:]
        if len(size) != n:
            raise ShapeError(
                f"{op}: output_size must have {n} or {n + 2} elements, got {len(size)}"
            )
        for s, d, st in zip(size, default, stride):
            if not d - st < s < d + st:
                raise ShapeError(
                    f"{op}: invalid output_size {list(size)} (it must be "
                    f"between {[d - st + 1 for d, st in zip(default, stride)]}"
                    f" and {[d + st - 1 for d, st in zip(default, stride)]})"
                )
    be = x._device._backend
    be.check_index_bounds(
        idx._data,
        0,
        math.prod(size),
        lambda e: (
            f"{op}: Found an invalid max index: {e} (the output has "
            f"{math.prod(size)} elements per channel)"
        ),
    )
    if idx._dtype is not _dt.int64:
        idx = idx.to(_dt.int64)
    y = MaxUnpoolBackward.apply(x, idx, out_spatial=size, accumulate=False)
    return _unbatch(y, batched)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of :func:`max_pool1d`: each value put back at its index, zeros
    elsewhere."""
    return _max_unpool("max_unpool1d", 1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of :func:`max_pool2d` (``output_size`` resolves the sizes that
    pool to the same size)."""
    return _max_unpool("max_unpool2d", 2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of :func:`max_pool3d`."""
    return _max_unpool("max_unpool3d", 3, input, indices, kernel_size, stride, padding, output_size)
