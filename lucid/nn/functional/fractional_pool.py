"""Fractional max pooling, 2d and 3d (Graham, 2014), as PyTorch's.

Each function checks its arguments as PyTorch does, turns ``output_ratio`` into an output
size (``int(L * r)`` per dim), draws the samples (``rand(N, C, n)`` of the input's dtype)
unless ``_random_samples`` are given, and calls the fused
:class:`~lucid.ops.nn.fractional_pool.FractionalMaxPoolBackward`. Unbatched input (no batch
dim) is accepted.

Where Lucid and PyTorch differ: ``kernel_size`` must be positive (PyTorch takes 0 and
returns windows of nothing, ``-inf``); ``fractional_max_pool2d`` takes a single number as
``output_ratio`` (PyTorch's function needs a pair there, its layer takes either).
"""

from __future__ import annotations

import numbers

from ...errors import ArgumentError, ArgumentTypeError, DTypeError, ShapeError
from ...ops import rand
from ...ops.core.base import to_tensor
from ...ops.nn.fractional_pool import FractionalMaxPoolBackward
from .conv import _input, _tuple

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]

_DIM_NAMES = ("time", "height", "width")


def _ratio(op, n, output_ratio):
    """``output_ratio`` (a number or ``n`` numbers) as a tuple of ``n`` floats."""
    r = output_ratio
    if isinstance(r, numbers.Real) and not isinstance(r, bool):
        return (float(r),) * n
    try:
        r = tuple(r)
    except TypeError:
        raise ArgumentTypeError(
            f"{op}: output_ratio must be a number or a tuple of {n} "
            f"numbers, got {type(output_ratio).__name__}"
        ) from None
    if len(r) == 1:
        r = r * n
    if len(r) != n or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in r):
        raise ArgumentError(
            f"{op}: output_ratio must be a number or a tuple of {n} numbers, got {output_ratio!r}"
        )
    return tuple(float(v) for v in r)


def _samples(op, n, x, samples):
    """The samples ``(N, C, n)``, drawn when None, checked as PyTorch checks them."""
    bsz, chans = x.shape[:2]
    if samples is None:
        return rand(bsz, chans, n, dtype=x.dtype, device=x.device)
    if not hasattr(samples, "shape"):
        raise ArgumentTypeError(
            f"{op}: _random_samples must be a Tensor, got {type(samples).__name__}"
        )
    u = to_tensor(samples, x)
    if u.ndim != 3:
        raise ShapeError(
            f"{op}: expected _random_samples to have 3 dimensions (N, C, {n}), "
            f"got shape {tuple(u.shape)}"
        )
    if u.shape[2] != n:
        raise ShapeError(
            f"{op}: expected _random_samples.size(2) to be {n}, got shape {tuple(u.shape)}"
        )
    if u.shape[1] != chans:
        raise ShapeError(
            f"{op}: expected _random_samples.size(1) to equal the input's "
            f"{chans} channels, got shape {tuple(u.shape)}"
        )
    if u.shape[0] < bsz:
        raise ShapeError(
            f"{op}: expected _random_samples.size(0) to be at least the batch "
            f"size {bsz}, got shape {tuple(u.shape)}"
        )
    if u.dtype is not x.dtype:
        raise DTypeError(
            f"{op}: expected _random_samples to have the input's dtype "
            f"{x.dtype.name}, got {u.dtype.name}"
        )
    return u if u.shape[0] == bsz else u[:bsz]


def _fractional_max_pool(
    op, n, input, kernel_size, output_size, output_ratio, return_indices, _random_samples
):
    x, batched = _input(op, input, n)
    if any(s == 0 for s in x.shape[1:]):
        raise ShapeError(
            f"{op}: expected input to have non-zero size for non-batch "
            f"dimensions, but got {list(input.shape)}"
        )
    kernel = _tuple(kernel_size, n, "kernel_size", op, 1)
    if output_size is None and output_ratio is None:
        raise ArgumentError(f"{op} requires specifying either an output_size or an output_ratio")
    spatial = tuple(x.shape[2:])
    if output_size is not None:
        size = _tuple(output_size, n, "output_size", op)
    else:
        size = tuple(int(s * r) for s, r in zip(spatial, _ratio(op, n, output_ratio)))
        if any(o < 0 for o in size):
            raise ArgumentError(f"{op}: output_ratio must be non-negative, got {output_ratio!r}")
    for name, s, k, o in zip(_DIM_NAMES[-n:], spatial, kernel, size):
        # PyTorch's bound: O + K - 1 <= L in 2-d, strictly below L in 3-d
        if o + k - 1 > s - (n == 3):
            raise ShapeError(
                f"{op}: pool {name} {k} too large relative to input {name} "
                f"{s} for output {name} {o}"
            )
    u = _samples(op, n, x, _random_samples)
    if n == 2:
        u = u.flip(-1)  # PyTorch's 2-d samples are (w, h): one per dim, in order
    vals, idx = FractionalMaxPoolBackward.apply(x, u, kernel=kernel, out_spatial=size)
    if not batched:
        vals, idx = vals.squeeze(0), idx.squeeze(0)
    return (vals, idx) if return_indices else vals


def fractional_max_pool2d(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices=False,
    _random_samples=None,
):
    r"""2-d fractional max pooling (Graham, 2014) of ``(N, C, H, W)`` or ``(C, H, W)``.

    Windows of ``kernel_size`` start at pseudo-random, overlapping positions drawn per
    plane from ``_random_samples`` ``(N, C, 2)`` in :math:`[0, 1)` (column 0 for the
    width, 1 for the height, as PyTorch; drawn with :func:`lucid.rand` when None):
    :math:`a_o = \lfloor (o + u)\alpha \rfloor - \lfloor u\alpha \rfloor`,
    :math:`\alpha = (L - K)/(O - 1)`, the last window ending at the input's end. The
    output has ``output_size`` positions, or ``int(L * output_ratio)`` per dim
    (``output_size`` wins when both are given). ``return_indices``: also the flat index
    ``h * W + w`` of each maximum (int64), as :func:`max_unpool2d` takes it.
    """
    return _fractional_max_pool(
        "fractional_max_pool2d",
        2,
        input,
        kernel_size,
        output_size,
        output_ratio,
        return_indices,
        _random_samples,
    )


def fractional_max_pool3d(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices=False,
    _random_samples=None,
):
    r"""3-d fractional max pooling of ``(N, C, T, H, W)`` or ``(C, T, H, W)``, as
    :func:`fractional_max_pool2d`; ``_random_samples`` ``(N, C, 3)`` has one column per
    dim in order ``(t, h, w)``. As PyTorch, each dim needs :math:`O + K - 1 < L` (2-d:
    :math:`\le`).
    """
    return _fractional_max_pool(
        "fractional_max_pool3d",
        3,
        input,
        kernel_size,
        output_size,
        output_ratio,
        return_indices,
        _random_samples,
    )
