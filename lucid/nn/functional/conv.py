"""Convolutions: conv1d/2d/3d, conv_transpose1d/2d/3d, and unfold/fold (im2col/col2im).

Each function checks its arguments as PyTorch does (messages name the op, what it got and
what it expected), normalises them (``stride``/``dilation`` tuples, ``padding`` one
``(lo, hi)`` pair per spatial dim) and calls one fused op of :mod:`lucid.ops.nn.conv`.
Unbatched input (no batch dim) is accepted as in PyTorch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import math
import numbers

from ... import dtypes as _dt
from ...errors import ArgumentError, ArgumentTypeError, DTypeError, ShapeError
from ...ops.core.base import to_tensor
from ...ops.nn.conv import (
    Col2imBackward,
    ConvolutionBackward,
    ConvTransposeBackward,
    Im2colBackward,
)

if TYPE_CHECKING:
    from ..._tensor import Tensor

__all__ = [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "unfold",
    "fold",
]


def _tuple(v, n, name, op, low=0):
    """``v`` (an int or a sequence of ``n`` ints) as a tuple of ``n`` ints ``>= low``."""
    if type(v) is int:  # (the common cases first: a module's int or tuple of ints)
        t = (v,) * n
    elif type(v) is tuple and len(v) == n and all(type(i) is int for i in v):
        t = v
    elif isinstance(v, numbers.Integral) and not isinstance(v, bool):
        t = (int(v),) * n
    else:
        try:
            t = tuple(v)
        except TypeError:
            raise ArgumentTypeError(
                f"{op}: {name} must be an int or a tuple of {n} ints, got {type(v).__name__}"
            ) from None
        if len(t) == 1:
            t = t * n
        if len(t) != n or not all(
            isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in t
        ):
            raise ArgumentError(
                f"{op}: expected {name} to be an int or a tuple of {n} ints, got {v!r}"
            )
        t = tuple(int(i) for i in t)
    if any(i < low for i in t):
        what = "positive" if low else "non-negative"
        raise ArgumentError(f"{op}: {name} should be {what}, got {v!r}")
    return t


def _input(op, input, n, what="input", integers=False, complex_ok=False):
    """``(x, batched)``: the input with a batch dim, checked to be ``n``-d spatial and
    floating (or, where ``integers``, integer too; where ``complex_ok``, complex too)."""
    x = to_tensor(input)
    nd = x._data.ndim
    if nd not in (n + 1, n + 2):
        raise ShapeError(
            f"{op}: Expected {n + 1}D (unbatched) or {n + 2}D (batched) "
            f"{what} to {op}, but got {what} of size: {list(x.shape)}"
        )
    dt = x._dtype
    if not (
        dt.is_floating_point or integers and dt is not _dt.bool or complex_ok and dt.is_complex
    ):
        raise DTypeError(
            f"{op}: not implemented for {dt.name} input; expected a "
            f"floating point{' or integer' if integers else ''} tensor"
        )
    return (x, True) if nd == n + 2 else (x.unsqueeze(0), False)


def _same_dtype(op, x, *others):
    for name, t in others:
        if t is not None and t._dtype is not x._dtype:
            raise DTypeError(
                f"{op}: input type ({x._dtype.name}) and {name} type "
                f"({t._dtype.name}) should be the same"
            )


def _weight(op, weight, n, x, bias):
    w = to_tensor(weight, x)
    if w._data.ndim != n + 2:
        raise ShapeError(
            f"{op}: expected weight to be {n + 2}-dimensional (out_channels, "
            f"in_channels/groups, *kernel_size), but got weight of size "
            f"{list(w.shape)}"
        )
    b = None if bias is None else to_tensor(bias, x)
    _same_dtype(op, x, ("weight", w), ("bias", b))
    return w, b


def _check_bias(op, b, channels):
    if b is not None and tuple(b.shape) != (channels,):
        raise ShapeError(
            f"{op}: expected bias of shape [{channels}] (one per output "
            f"channel), but got bias of size {list(b.shape)}"
        )


def _groups(op, groups):
    if type(groups) is int and groups > 0:
        return groups
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral):
        raise ArgumentTypeError(f"{op}: groups must be an int, got {type(groups).__name__}")
    if groups <= 0:
        raise ArgumentError(f"{op}: non-positive groups is not supported, got {groups}")
    return int(groups)


def _conv(op, n, input, weight, bias, stride, padding, dilation, groups):
    x, batched = _input(op, input, n, complex_ok=True)
    w, b = _weight(op, weight, n, x, bias)
    groups = _groups(op, groups)
    stride = _tuple(stride, n, "stride", op, 1)
    dilation = _tuple(dilation, n, "dilation", op, 1)
    co, cg = w.shape[:2]
    kernel = tuple(w.shape[2:])
    if co % groups:
        raise ShapeError(
            f"{op}: Given groups={groups}, expected weight to be divisible by "
            f"{groups} at dimension 0, but got weight of size {list(w.shape)}"
        )
    if x.shape[1] != cg * groups:
        raise ShapeError(
            f"{op}: Given groups={groups}, weight of size {list(w.shape)}, "
            f"expected input{list(x.shape)} to have {cg * groups} channels, but "
            f"got {x.shape[1]} channels instead"
        )
    _check_bias(op, b, co)
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0),) * n
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise ArgumentError(
                    f"{op}: padding='same' is not supported for strided convolutions"
                )
            tot = [d * (k - 1) for d, k in zip(dilation, kernel)]
            pads = tuple((t // 2, t - t // 2) for t in tot)
        else:
            raise ArgumentError(
                f"{op}: Invalid padding string {padding!r}, should be one of 'valid' or 'same'"
            )
    else:
        pads = tuple((p, p) for p in _tuple(padding, n, "padding", op))
    spatial = tuple(x.shape[2:])
    padded = [s + lo + hi for s, (lo, hi) in zip(spatial, pads)]
    eff = [d * (k - 1) + 1 for d, k in zip(dilation, kernel)]
    if any(p < e for p, e in zip(padded, eff)):
        raise ShapeError(
            f"{op}: Calculated padded input size per channel: "
            f"({' x '.join(map(str, padded))}). Kernel size: "
            f"({' x '.join(map(str, eff))}). Kernel size can't be greater than "
            "actual input size"
        )
    args = (x, w) if b is None else (x, w, b)
    y = ConvolutionBackward.apply(
        *args, stride=stride, padding=pads, dilation=dilation, groups=groups
    )
    return y if batched else y.squeeze(0)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution (cross-correlation) of ``(N, C_in, L)`` input with a
    ``(C_out, C_in/groups, K)`` weight; ``padding`` an int, a tuple, ``"valid"`` or
    ``"same"``."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """2-d convolution of ``(N, C_in, H, W)`` input with a ``(C_out, C_in/groups, kH, kW)``
    weight; ``padding`` an int, a tuple, ``"valid"`` or ``"same"`` (an even kernel pads one
    more at the end, as PyTorch)."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d convolution of ``(N, C_in, D, H, W)`` input with a
    ``(C_out, C_in/groups, kD, kH, kW)`` weight."""
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def transpose_output_padding(op, in_spatial, output_size, stride, padding, kernel, dilation):
    """The ``output_padding`` that gives a transposed convolution the spatial size
    ``output_size`` (its last ``len(in_spatial)`` entries), checked to be reachable."""
    n = len(in_spatial)
    size = tuple(output_size)[-n:]
    if len(size) != n:
        raise ShapeError(
            f"{op}: output_size must have {n} or {n + 2} elements (got {len(tuple(output_size))})"
        )
    res = []
    for i, s, st, p, k, d in zip(in_spatial, size, stride, padding, kernel, dilation):
        lo = (i - 1) * st - 2 * p + d * (k - 1) + 1
        if not lo <= s < lo + st:
            raise ShapeError(
                f"{op}: requested an output size of {list(size)}, but valid "
                f"sizes range from {lo} to {lo + st - 1} (for an input of "
                f"{list(in_spatial)})"
            )
        res.append(s - lo)
    return tuple(res)


def _conv_transpose(
    op, n, input, weight, bias, stride, padding, output_padding, groups, dilation, output_size=None
):
    x, batched = _input(op, input, n, complex_ok=True)
    w, b = _weight(op, weight, n, x, bias)
    groups = _groups(op, groups)
    stride = _tuple(stride, n, "stride", op, 1)
    dilation = _tuple(dilation, n, "dilation", op, 1)
    if isinstance(padding, str):
        raise ArgumentError(
            f"{op}: padding must be an int or a tuple of ints, got "
            f"{padding!r} (string padding is for convolutions only)"
        )
    pad = _tuple(padding, n, "padding", op)
    kernel = tuple(w.shape[2:])
    spatial = tuple(x.shape[2:])
    if output_size is not None:
        opad = transpose_output_padding(op, spatial, output_size, stride, pad, kernel, dilation)
    else:
        opad = _tuple(output_padding, n, "output_padding", op)
        if any(o >= s and o >= d for o, s, d in zip(opad, stride, dilation)):
            raise ArgumentError(
                f"{op}: output padding must be smaller than either stride "
                f"or dilation, but got output_padding={opad}, stride="
                f"{stride}, dilation={dilation}"
            )
    ci, cog = w.shape[:2]
    if ci % groups:
        raise ShapeError(
            f"{op}: Given groups={groups}, expected weight to be divisible by "
            f"{groups} at dimension 0, but got weight of size {list(w.shape)}"
        )
    if x.shape[1] != ci:
        raise ShapeError(
            f"{op}: Given transposed=1, weight of size {list(w.shape)}, "
            f"expected input{list(x.shape)} to have {ci} channels, but got "
            f"{x.shape[1]} channels instead"
        )
    _check_bias(op, b, cog * groups)
    out = tuple(
        (i - 1) * s - 2 * p + d * (k - 1) + o + 1
        for i, s, p, d, k, o in zip(spatial, stride, pad, dilation, kernel, opad)
    )
    if any(o <= 0 for o in out):
        raise ShapeError(
            f"{op}: the output size {list(out)} computed for input "
            f"{list(x.shape)} is too small (non-positive)"
        )
    # the equivalent convolution pads hi by p - output_padding (its windows then fit)
    pads = tuple((p, p - o) for p, o in zip(pad, opad))
    args = (x, w) if b is None else (x, w, b)
    y = ConvTransposeBackward.apply(
        *args, out_spatial=out, stride=stride, padding=pads, dilation=dilation, groups=groups
    )
    return y if batched else y.squeeze(0)


def conv_transpose1d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """1-d transposed convolution ("deconvolution") of ``(N, C_in, L)`` input with a
    ``(C_in, C_out/groups, K)`` weight: the gradient of :func:`conv1d` in its input."""
    return _conv_transpose(
        "conv_transpose1d",
        1,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


def conv_transpose2d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """2-d transposed convolution of ``(N, C_in, H, W)`` input with a
    ``(C_in, C_out/groups, kH, kW)`` weight; ``output_padding`` adds to one side of the
    output to pick among the sizes a strided convolution maps to the same size."""
    return _conv_transpose(
        "conv_transpose2d",
        2,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


def conv_transpose3d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """3-d transposed convolution of ``(N, C_in, D, H, W)`` input with a
    ``(C_in, C_out/groups, kD, kH, kW)`` weight."""
    return _conv_transpose(
        "conv_transpose3d",
        3,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


# -- im2col / col2im ----------------------------------------------------------------------


def _blocks(op, spatial, kernel, dilation, padding, stride):
    out = tuple(
        (s + 2 * p - d * (k - 1) - 1) // st + 1
        for s, k, d, p, st in zip(spatial, kernel, dilation, padding, stride)
    )
    if any(o <= 0 for o in out):
        raise ShapeError(
            f"{op}: Given input with spatial size {tuple(spatial)}, "
            f"kernel_size={kernel}, dilation={dilation}, padding={padding}, "
            f"calculated shape of the array of sliding blocks as {out}, but its "
            "components must be at least one"
        )
    return out


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks of a batched image ``(N, C, H, W)`` (or ``(C, H, W)``) as columns
    ``(N, C \\prod kernel\\_size, L)``, ``L`` the number of blocks (im2col)."""
    x, batched = _input("unfold", input, 2)
    kernel = _tuple(kernel_size, 2, "kernel_size", "unfold", 1)
    dilation = _tuple(dilation, 2, "dilation", "unfold", 1)
    padding = _tuple(padding, 2, "padding", "unfold")
    stride = _tuple(stride, 2, "stride", "unfold", 1)
    out = _blocks("unfold", x.shape[2:], kernel, dilation, padding, stride)
    col = Im2colBackward.apply(
        x, kernel=kernel, stride=stride, padding=tuple((p, p) for p in padding), dilation=dilation
    )
    n, c = x.shape[:2]
    y = col.reshape((n, c * math.prod(kernel), math.prod(out)))
    return y if batched else y.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of :func:`unfold` (col2im): columns ``(N, C \\prod kernel\\_size, L)`` (or
    without ``N``) summed into an image ``(N, C, *output_size)``; overlapping values add."""
    x = to_tensor(input)
    if x._data.ndim not in (2, 3):
        raise ShapeError(
            f"fold: Expected 2D (unbatched) or 3D (batched) input to fold, but "
            f"got input of size: {list(x.shape)}"
        )
    if not x._dtype.is_floating_point:
        raise DTypeError(
            f"fold: not implemented for {x._dtype.name} input; expected a floating point tensor"
        )
    batched = x._data.ndim == 3
    if not batched:
        x = x.unsqueeze(0)
    size = _tuple(output_size, 2, "output_size", "fold", 1)
    kernel = _tuple(kernel_size, 2, "kernel_size", "fold", 1)
    dilation = _tuple(dilation, 2, "dilation", "fold", 1)
    padding = _tuple(padding, 2, "padding", "fold")
    stride = _tuple(stride, 2, "stride", "fold", 1)
    n, ck, length = x.shape
    kp = math.prod(kernel)
    if ck % kp:
        raise ShapeError(
            f"fold: Expected size of input's dimension 1 to be divisible by the "
            f"product of kernel_size, but got input.size(1)={ck} and "
            f"kernel_size={kernel}"
        )
    out = _blocks("fold", size, kernel, dilation, padding, stride)
    if length != math.prod(out):
        raise ShapeError(
            f"fold: Given output_size={size}, kernel_size={kernel}, dilation="
            f"{dilation}, padding={padding}, stride={stride}, expected size of "
            f"input's dimension 2 to match the calculated number of sliding "
            f"blocks {' * '.join(map(str, out))} = {math.prod(out)}, but got "
            f"input.size(2)={length}."
        )
    col = x.reshape((n, ck // kp) + kernel + out)
    y = Col2imBackward.apply(
        col,
        in_spatial=size,
        stride=stride,
        padding=tuple((p, p) for p in padding),
        dilation=dilation,
    )
    return y if batched else y.squeeze(0)
