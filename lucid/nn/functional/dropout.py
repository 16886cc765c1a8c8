"""Dropout family: dropout, dropout1d/2d/3d, alpha_dropout, feature_alpha_dropout.

All run the one fused op :class:`~lucid.ops.nn.dropout.DropoutBackward`; they differ in the
noise shape (the input's, or one value per channel) and in plain or alpha scaling. Not
training, ``p = 0`` or an empty input return the input itself, as PyTorch; otherwise
integer and bool inputs are refused for ``0 < p < 1`` (``p = 1`` gives zeros), as PyTorch.
"""

from __future__ import annotations


import numbers
import warnings

from ..._tensor import Tensor
from ...errors import ArgumentError, ArgumentTypeError, DTypeError, ShapeError
from ...ops import apply_inplace
from ...ops.nn.dropout import dropout_op

__all__ = [
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "alpha_dropout",
    "feature_alpha_dropout",
]


def _p(p, op):
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise ArgumentTypeError(f"{op}: p must be a number, got {type(p).__name__}")
    if not 0.0 <= p <= 1.0:
        raise ArgumentError(f"{op}: dropout probability has to be between 0 and 1, but got {p}")
    return float(p)


def _run(input, p, training, inplace, alpha, noise_shape, op):
    if not isinstance(input, Tensor):
        raise ArgumentTypeError(f"{op}: expected input to be a Tensor, got {type(input).__name__}")
    p = _p(p, op)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    dt = input.dtype
    if p < 1.0 and not (dt.is_floating_point or dt.is_complex):
        # the kept elements are scaled by 1 / (1 - p): PyTorch refuses to cast that back
        raise DTypeError(
            f"{op}: expected a floating point input for 0 < p < 1 (the scaled "
            f"result cannot be cast back to it), got {dt}"
        )
    shape = noise_shape(tuple(input.shape))
    if inplace:
        return apply_inplace(lambda x: dropout_op(x, p, alpha, shape), input)
    return dropout_op(input, p, alpha, shape)


def _same(shape):
    return shape


def _channels(batched):
    """The noise shape of channel-wise dropout: one value per (sample,) channel."""
    k = 2 if batched else 1
    return lambda shape: shape[:k] + (1,) * (len(shape) - k)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``."""
    return _run(input, p, training, inplace, False, _same, "dropout")


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped elements take SELU's negative saturation and an
    affine map keeps zero mean and unit variance."""
    return _run(input, p, training, inplace, True, _same, "alpha_dropout")


def _feature(input, op, batched=True):
    if isinstance(input, Tensor) and input.ndim < 2:
        raise ShapeError(
            f"{op}: feature dropout requires at least 2 dimensions in the "
            f"input, got shape {list(input.shape)}"
        )
    return _channels(batched)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels of ``(N, C, *)``."""
    op = "feature_alpha_dropout"
    return _run(input, p, training, inplace, True, _feature(input, op), op)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, L)`` or unbatched ``(C, L)`` input."""
    op = "dropout1d"
    nd = input.ndim if isinstance(input, Tensor) else None
    if nd not in (2, 3):
        raise ShapeError(f"{op}: expected 2D or 3D input, but received a {nd}D input")
    return _run(input, p, training, inplace, False, _channels(nd == 3), op)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, H, W)`` input (a 3D input is read as ``(N, C, L)``,
    as PyTorch does, with its warning)."""
    op = "dropout2d"
    nd = input.ndim if isinstance(input, Tensor) else None
    if nd == 3:
        warnings.warn(
            "dropout2d: received a 3D input and assuming that channel-wise 1D "
            "dropout behavior is desired: the input is interpreted as shape "
            "(N, C, L); use dropout1d for that",
            stacklevel=2,
        )
    elif nd != 4:
        warnings.warn(
            f"dropout2d: received a {nd}-D input, which is deprecated; "
            "dropout2d expects (N, C, H, W)",
            stacklevel=2,
        )
    return _run(input, p, training, inplace, False, _feature(input, op), op)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, D, H, W)`` or unbatched ``(C, D, H, W)`` input."""
    op = "dropout3d"
    nd = input.ndim if isinstance(input, Tensor) else None
    if nd not in (4, 5):
        warnings.warn(
            f"dropout3d: received a {nd}-D input, which is deprecated; "
            "dropout3d expects (N, C, D, H, W) or (C, D, H, W)",
            stacklevel=2,
        )
    return _run(input, p, training, inplace, False, _channels(nd == 5), op)
