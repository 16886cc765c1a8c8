"""Spatial functions: pad, interpolate (and the deprecated upsample family), grid_sample,
affine_grid, pixel_shuffle, pixel_unshuffle, channel_shuffle.

``interpolate`` and ``grid_sample`` are fused ops of :mod:`lucid.ops.nn.vision`; these
wrappers check their arguments as PyTorch does and work out the output size and the scale
each axis resamples with. ``pad`` wraps :func:`lucid.pad` with ``F.pad``'s rules,
``affine_grid`` is one matmul of a constant base grid, and the shuffles are reshapes and
permutations.
"""

from __future__ import annotations

import math
import numbers
import warnings

from ..._tensor import Tensor
from ...errors import ArgumentError, ArgumentTypeError, DTypeError, ShapeError
from ...ops import linspace, ones, stack
from ...ops import pad as _pad
from ...ops.nn.vision import GridSampleBackward, InterpolateBackward
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

__all__ = [
    "pad",
    "interpolate",
    "upsample",
    "upsample_nearest",
    "upsample_bilinear",
    "grid_sample",
    "affine_grid",
    "pixel_shuffle",
    "pixel_unshuffle",
    "channel_shuffle",
    "native_channel_shuffle",
]


def _tensor(x, op):
    if not isinstance(x, Tensor):
        raise ArgumentTypeError(f"{op}: expected input to be a Tensor, got {type(x).__name__}")
    return x


def _int(v, op, what):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise ArgumentTypeError(f"{op}: {what} must be an int, got {type(v).__name__}")
    return int(v)


# == pad ==================================================================================

_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def pad(input, pad, mode="constant", value=None):
    """``input`` padded by ``pad = (last_lo, last_hi, prev_lo, prev_hi, ...)``, from the
    last dim backward; negative widths crop.

    ``mode``: ``"constant"`` (fill ``value``, default 0; any number of dims), or
    ``"reflect"``, ``"replicate"``, ``"circular"``, which pad the last 1, 2 or 3 dims of a
    batched or unbatched input (2 widths for 2-D/3-D input, 4 for 3-D/4-D, 6 for 4-D/5-D).
    Reflect and replicate read the input before a negative width crops (PyTorch's order:
    ``(-3, 2)`` on a dim of 5 reflects its last cells, though 3 are cropped); they need
    non-empty dims (but a batch dim) and some non-empty padded dim in the output. Reflect
    needs each width below the dim's size, circular at most the size of the dim it wraps.
    """
    _tensor(input, "pad")
    if mode not in _PAD_MODES:
        raise ArgumentError(
            f"pad: unrecognised padding mode {mode!r}; expected one of {', '.join(_PAD_MODES)}"
        )
    if mode == "constant":
        return _pad(input, pad, mode, value)
    pad = tuple(_int(p, "pad", "each padding width") for p in pad)
    n, nd = len(pad), input.ndim
    if n not in (2, 4, 6) or not n // 2 + 1 <= nd <= n // 2 + 2:
        raise ShapeError(
            f"pad: padding size {n} is not supported for {nd}D input tensor in mode {mode!r}; "
            "supported: 2D or 3D input with padding size 2 (pads the last dimension), 3D or "
            "4D with 4 (the last 2), 4D or 5D with 6 (the last 3)"
        )
    if mode != "circular":
        shape, k = tuple(input.shape), n // 2
        if 0 in shape[nd - k - 1 :]:
            raise ShapeError(
                f"pad: {mode} padding expects a tensor with non-zero dimensions "
                f"(but for a batch dim), got shape {list(shape)}"
            )
        out = [shape[nd - 1 - i] + pad[2 * i] + pad[2 * i + 1] for i in range(k)]
        if max(out) < 1:
            raise ShapeError(
                f"pad: input {list(shape[nd - k :])} is too small: the padded "
                f"output would have sizes {out[::-1]}"
            )
        if min(pad) < 0 < max(pad):
            grown = _pad(input, tuple(max(p, 0) for p in pad), mode, value)
            return _pad(grown, tuple(min(p, 0) for p in pad))
    return _pad(input, pad, mode, value)


# == interpolate ==========================================================================

# PyTorch mode -> (the kernel's mode, the input dims it takes)
_INTERP_MODES = {
    "nearest": ("nearest", (3, 4, 5)),
    "nearest-exact": ("nearest-exact", (3, 4, 5)),
    "area": ("area", (3, 4, 5)),
    "linear": ("linear", (3,)),
    "bilinear": ("linear", (4,)),
    "trilinear": ("linear", (5,)),
    "bicubic": ("cubic", (4,)),
}


_ADAPTIVE_AVG = {1: adaptive_avg_pool1d, 2: adaptive_avg_pool2d, 3: adaptive_avg_pool3d}


def _per_axis(v, d, what, input):
    if isinstance(v, (list, tuple)):
        if len(v) != d:
            raise ShapeError(
                f"interpolate: input and {what} must have the same number of spatial "
                f"dimensions, but got input with spatial dimensions of "
                f"{list(input.shape[2:])} and {what} {tuple(v)}; give the input as "
                f"(N, C, d1, ..., dK) and {what} as K values"
            )
        return list(v)
    return [v] * d


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    """``input`` ``(N, C, *S)`` resampled to ``size``, or to ``floor(S * scale_factor)``.

    Modes: ``"nearest"`` (PyTorch's ``floor(j * in / out)`` source index),
    ``"nearest-exact"`` (``floor((j + 0.5) * in / out)``), ``"linear"`` (3-D input),
    ``"bilinear"`` / ``"bicubic"`` (4-D), ``"trilinear"`` (5-D), ``"area"``
    (:func:`adaptive_avg_pool2d` and its 1-d/3-d forms, to the output size).
    ``align_corners`` (interpolating modes only, default False) maps the corner pixels'
    centres onto each other. With ``scale_factor``, the source positions use
    ``1 / scale_factor`` unless ``recompute_scale_factor`` is True, which resamples as if
    the computed size had been given. ``antialias=True`` (bilinear and bicubic) filters as
    PyTorch (and PIL) do: when downsampling, the triangle or cubic (A = -0.5) filter is
    stretched by the scale, so that every input contributes.
    """
    _tensor(input, "interpolate")
    if mode not in _INTERP_MODES:
        raise ArgumentError(
            f"interpolate: unsupported mode {mode!r}; expected one of {', '.join(_INTERP_MODES)}"
        )
    kmode, dims = _INTERP_MODES[mode]
    if kmode in ("nearest", "nearest-exact", "area"):
        if align_corners is not None:
            raise ArgumentError(
                "interpolate: align_corners option can only be set with the "
                "interpolating modes: linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    nd = input.ndim
    if nd not in dims:
        want = " or ".join(f"{k}D" for k in dims)
        raise ShapeError(
            f"interpolate: got {nd}D input, but mode {mode!r} needs {want} input (N, C, *spatial)"
        )
    if antialias:
        if mode not in ("bilinear", "bicubic"):
            raise ArgumentError(
                "interpolate: the anti-alias option is restricted to bilinear "
                "and bicubic modes and requires a 4-D tensor as input"
            )
        kmode += "-aa"
    d = nd - 2
    if size is not None and scale_factor is not None:
        raise ArgumentError("interpolate: only one of size or scale_factor should be defined")
    if size is not None:
        if recompute_scale_factor:
            raise ArgumentError(
                "interpolate: recompute_scale_factor is not meaningful with an explicit size"
            )
        out = [_int(s, "interpolate", "size") for s in _per_axis(size, d, "output size", input)]
        scales = [None] * d
    elif scale_factor is not None:
        scales = [float(s) for s in _per_axis(scale_factor, d, "scale_factor", input)]
        out = [math.floor(n * s) for n, s in zip(input.shape[2:], scales)]
        if recompute_scale_factor or kmode == "area":
            scales = [None] * d
    else:
        raise ArgumentError("interpolate: either size or scale_factor should be defined")
    if kmode == "area":  # adaptive pooling checks its sizes (0 outputs are fine)
        return _ADAPTIVE_AVG[d](input, tuple(out))
    if min(input.shape[2:]) <= 0 or min(out) <= 0:
        raise ShapeError(
            f"interpolate: input and output sizes should be greater than 0, but "
            f"got input {tuple(input.shape[2:])} and output {tuple(out)}"
        )
    if kmode not in ("nearest", "nearest-exact") and not input.dtype.is_floating_point:
        raise DTypeError(
            f"interpolate: mode {mode!r} needs a floating point input, got {input.dtype.name}"
        )
    return InterpolateBackward.call(
        input, size=tuple(out), mode=kmode, align_corners=bool(align_corners), scales=tuple(scales)
    )


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of :func:`interpolate` (warns, as PyTorch)."""
    warnings.warn(
        "nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.", stacklevel=2
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: :func:`interpolate` with ``mode="nearest"`` (warns, as PyTorch)."""
    warnings.warn(
        "nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: :func:`interpolate` with ``mode="bilinear", align_corners=True``
    (warns, as PyTorch)."""
    warnings.warn(
        "nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# == grid_sample, affine_grid =============================================================


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """``input`` ``(N, C, H, W)`` (or ``(N, C, D, H, W)``) sampled at the normalised
    coordinates ``grid`` ``(N, H_out, W_out, 2)`` (``(N, D_out, H_out, W_out, 3)``), where
    ``grid[..., 0]`` is x (width), -1 the left edge and 1 the right.

    ``mode``: ``"bilinear"``, ``"nearest"``, ``"bicubic"`` (4-D only); ``padding_mode``:
    ``"zeros"``, ``"border"``, ``"reflection"``; ``align_corners`` (default False): -1 and
    1 are the corner pixels' centres rather than their outer edges. Differentiable in both
    ``input`` and ``grid``.
    """
    _tensor(input, "grid_sample")
    _tensor(grid, "grid_sample")
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ArgumentError(
            f"grid_sample: expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: {mode!r}"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ArgumentError(
            f"grid_sample: expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: {padding_mode!r}"
        )
    xs, gs = tuple(input.shape), tuple(grid.shape)
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise ShapeError(
            f"grid_sample: expected 4D or 5D input and grid with same number of "
            f"dimensions, but got input with sizes {list(xs)} and grid with "
            f"sizes {list(gs)}"
        )
    d = input.ndim - 2
    if gs[0] != xs[0]:
        raise ShapeError(
            f"grid_sample: expected grid and input to have same batch size, but "
            f"got input with sizes {list(xs)} and grid with sizes {list(gs)}"
        )
    if gs[-1] != d:
        raise ShapeError(
            f"grid_sample: expected grid to have size {d} in last dimension, but "
            f"got grid with sizes {list(gs)}"
        )
    for i in range(2, input.ndim):
        if xs[i] == 0:
            raise ShapeError(
                f"grid_sample: expected input to have non-empty spatial "
                f"dimensions, but input has sizes {list(xs)} with dimension {i} "
                "being empty"
            )
    if mode == "bicubic" and d != 2:
        raise ShapeError("grid_sample: bicubic interpolation only supports 4D input")
    if not (input.dtype.is_floating_point and input.dtype is grid.dtype):
        raise DTypeError(
            f"grid_sample: expected input and grid to have the same floating "
            f"point dtype, but input has {input.dtype.name} and grid has "
            f"{grid.dtype.name}"
        )
    return GridSampleBackward.apply(
        input, grid, mode=mode, padding_mode=padding_mode, align_corners=bool(align_corners)
    )


def _base_coords(n, align_corners, like):
    """``n`` normalised pixel-centre coordinates in ``[-1, 1]`` (0 for a single one)."""
    if n <= 1:
        return linspace(0, 0, n, dtype=like.dtype, device=like.device)
    c = linspace(-1, 1, n, dtype=like.dtype, device=like.device)
    return c if align_corners else c * ((n - 1) / n)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps ``theta`` for :func:`grid_sample`:
    ``(N, H, W, 2)`` for ``theta`` ``(N, 2, 3)`` and ``size = (N, C, H, W)``, or
    ``(N, D, H, W, 3)`` for ``(N, 3, 4)`` and ``(N, C, D, H, W)``; point
    :math:`(x, y[, z])` of the normalised output grid maps to :math:`\\theta (x, y[, z], 1)`.
    Differentiable in ``theta``."""
    _tensor(theta, "affine_grid")
    if not theta.dtype.is_floating_point:
        raise DTypeError(
            f"affine_grid: expected theta to have floating point type, but got {theta.dtype.name}"
        )
    size = [_int(s, "affine_grid", "size") for s in size]
    if len(size) not in (4, 5):
        raise ShapeError(
            f"affine_grid: only 4D and 5D sizes are supported, for 2D and 3D "
            f"affine transforms, respectively; got size {size}"
        )
    d = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (d, d + 1):
        raise ShapeError(
            f"affine_grid: expected a batch of {d}D affine matrices of shape "
            f"Nx{d}x{d + 1} for size {size}, got {tuple(theta.shape)}"
        )
    if theta.shape[0] != size[0]:
        raise ShapeError(
            f"affine_grid: theta holds {theta.shape[0]} matrices but size asks "
            f"for a batch of {size[0]}"
        )
    spatial = size[2:]
    if min(spatial) <= 0:
        raise ShapeError(f"affine_grid: expected non-zero, positive output size, got {size}")
    axes = [_base_coords(n, align_corners, theta) for n in spatial]  # D, H, W order
    full = tuple(spatial)
    cols = []
    for k in range(d):  # x varies along the last axis, then y, then z
        a = d - 1 - k
        shape = [1] * d
        shape[a] = spatial[a]
        cols.append(axes[a].reshape(shape).expand(full))
    cols.append(ones(full, dtype=theta.dtype, device=theta.device))
    base = stack(cols, -1).reshape(-1, d + 1)
    return (base @ theta.transpose(1, 2)).reshape([size[0]] + spatial + [d])


# == pixel and channel shuffles ===========================================================


def _shuffle_input(input, op, factor, what):
    _tensor(input, op)
    if input.ndim < 3:
        raise ShapeError(
            f"{op}: expects input to have at least 3 dimensions, but got input "
            f"with {input.ndim} dimension(s)"
        )
    factor = _int(factor, op, what)
    if factor <= 0:
        raise ArgumentError(f"{op}: expects a positive {what}, but got {factor}")
    return factor


def pixel_shuffle(input, upscale_factor):
    """``(*, C r^2, H, W)`` rearranged to ``(*, C, H r, W r)``:
    ``out[..., c, h r + i, w r + j] = in[..., c r^2 + i r + j, h, w]``."""
    r = _shuffle_input(input, "pixel_shuffle", upscale_factor, "upscale_factor")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise ShapeError(
            f"pixel_shuffle: expects its input's 'channel' dimension to be "
            f"divisible by the square of upscale_factor, but "
            f"input.size(-3)={c} is not divisible by {r * r}"
        )
    k = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    """The inverse of :func:`pixel_shuffle`: ``(*, C, H r, W r)`` to ``(*, C r^2, H, W)``."""
    r = _shuffle_input(input, "pixel_unshuffle", downscale_factor, "downscale_factor")
    *lead, c, h, w = input.shape
    for name, n, ax in (("height", h, -2), ("width", w, -1)):
        if n % r:
            raise ShapeError(
                f"pixel_unshuffle: expects {name} to be divisible by "
                f"downscale_factor, but input.size({ax})={n} is not divisible "
                f"by {r}"
            )
    k = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


def channel_shuffle(input, groups):
    """``(N, C, *)`` with its channels regrouped: channel ``g (C/groups) + i`` moves to
    ``i groups + g`` (ShuffleNet's shuffle)."""
    g = _shuffle_input(input, "channel_shuffle", groups, "groups")
    n, c, *rest = input.shape
    if c % g:
        raise ShapeError(
            f"channel_shuffle: number of channels must be divisible by groups, "
            f"got {c} channels and {g} groups"
        )
    x = input.reshape(n, g, c // g, *rest).transpose(1, 2)
    return x.reshape(n, c, *rest)


native_channel_shuffle = channel_shuffle
