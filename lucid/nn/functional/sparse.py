"""Embeddings and one-hot: embedding, embedding_bag, one_hot.

``embedding`` and ``embedding_bag`` are the fused ops
:class:`~lucid.ops.nn.embedding.EmbeddingBackward` and
:class:`~lucid.ops.nn.embedding.EmbeddingBagBackward`; ``one_hot`` compares with a range.
"""

from __future__ import annotations

import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...errors import ArgumentError, ArgumentTypeError, DTypeError, IndexingError, ShapeError
from ...ops import arange
from ...ops.nn.embedding import EmbeddingBackward, EmbeddingBagBackward

__all__ = ["embedding", "embedding_bag", "one_hot"]

_INDEX_DTYPES = (_dt.int32, _dt.int64)


def _indices(t, op, what="input"):
    if not isinstance(t, Tensor):
        raise ArgumentTypeError(f"{op}: expected {what} to be a Tensor, got {type(t).__name__}")
    if t._dtype not in _INDEX_DTYPES:
        raise DTypeError(
            f"{op}: expected {what} to have an integer dtype (int32 or int64), got {t._dtype.name}"
        )
    return t


def _weight(weight, op):
    if not isinstance(weight, Tensor):
        raise ArgumentTypeError(
            f"{op}: expected weight to be a Tensor, got {type(weight).__name__}"
        )
    if weight.ndim != 2:
        raise ShapeError(f"{op}: 'weight' must be 2-D, got shape {list(weight.shape)}")
    return weight


def _padding_idx(padding_idx, n, op):
    if padding_idx is None:
        return None
    if isinstance(padding_idx, bool) or not isinstance(padding_idx, numbers.Integral):
        raise ArgumentTypeError(
            f"{op}: padding_idx must be an int or None, got {type(padding_idx).__name__}"
        )
    if not -n <= padding_idx < n:
        raise ArgumentError(
            f"{op}: padding_idx must be within num_embeddings ({n}), got {padding_idx}"
        )
    return int(padding_idx) % n


def _check_range(idx, n, op):
    idx._device._backend.check_index_bounds(
        idx._data,
        0,
        n,
        lambda e: f"{op}: index out of range in self ({e}; the weight has {n} rows)",
    )


def _renorm(weight, idx, max_norm, norm_type):
    """PyTorch's ``embedding_renorm_``: rows of ``idx`` longer than ``max_norm`` scaled
    down in place (no history; the weight's version moves)."""
    with no_grad():
        weight._device._backend.embedding_renorm_(
            weight._data, idx._data, float(max_norm), float(norm_type)
        )
    weight._vc[0] += 1


def embedding(
    input,
    weight,
    padding_idx=None,
    max_norm=None,
    norm_type=2.0,
    scale_grad_by_freq=False,
    sparse=False,
):
    """The rows of ``weight`` at the integer indices ``input``: shape
    ``input.shape + (D,)``. ``padding_idx``'s row gets no gradient; ``max_norm``
    renormalises the looked-up rows in place first; ``scale_grad_by_freq`` divides each
    row's gradient by its index's count in ``input``."""
    op = "embedding"
    idx = _indices(input, op)
    w = _weight(weight, op)
    if sparse:
        raise ArgumentError(
            f"{op}: sparse=True (sparse gradients) is not supported; use sparse=False"
        )
    n = w.shape[0]
    pad = _padding_idx(padding_idx, n, op)
    _check_range(idx, n, op)
    if max_norm is not None:
        _renorm(w, idx, max_norm, norm_type)
    return EmbeddingBackward.apply(
        w, idx, padding_idx=pad, scale_grad_by_freq=bool(scale_grad_by_freq)
    )


def _bags(idx, offsets, include_last_offset, op):
    """``(flat indices, bag id of each, number of bags)`` of embedding_bag's input."""
    be = idx._device._backend
    if idx.ndim == 2:
        if offsets is not None:
            raise ArgumentError(f"{op}: if input is 2-D, offsets must be None")
        b, length = idx.shape
        bag = be.repeat_indices(be.full((b,), length, _dt.int64.np))
        return idx._data.reshape(-1), bag, b
    if idx.ndim != 1:
        raise ShapeError(f"{op}: input has to be 1-D or 2-D, got shape {list(idx.shape)}")
    if offsets is None:
        raise ArgumentError(f"{op}: offsets has to be a 1-D tensor when input is 1-D")
    off = _indices(offsets, op, "offsets")
    if off.ndim != 1:
        raise ShapeError(f"{op}: offsets has to be a 1-D tensor, got shape {list(off.shape)}")
    o = be.astype(off._data, _dt.int64.np)
    total = idx.shape[0]
    if include_last_offset:
        if o.shape[0] == 0:
            raise ArgumentError(f"{op}: include_last_offset needs at least one offset")
        o = o[:-1]
    nb = o.shape[0]
    if nb and (int(o[0]) != 0 or bool((o[1:] < o[:-1]).any()) or int(o[-1]) > total):
        raise ArgumentError(
            f"{op}: offsets must start at 0, be non-decreasing and not exceed "
            f"the input length {total}"
        )
    ends = be.concatenate([o[1:], be.full((1,), total, o.dtype)], 0) if nb else o
    return idx._data, be.repeat_indices(ends - o), nb


def embedding_bag(
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """Sums, means or maxima of bags of embeddings (one fused op): a 2-D ``input`` is one
    bag per row; a 1-D one is cut at ``offsets``.
    ``per_sample_weights`` (``mode="sum"`` only) scales each looked-up row; entries equal
    to ``padding_idx`` are left out (and not counted in a mean); an empty bag gives
    zeros."""
    op = "embedding_bag"
    idx = _indices(input, op)
    w = _weight(weight, op)
    if mode not in ("sum", "mean", "max"):
        raise ArgumentError(f"{op}: mode has to be one of sum, mean or max, got {mode!r}")
    if sparse:
        raise ArgumentError(f"{op}: sparse=True (sparse gradients) is not supported")
    if per_sample_weights is not None:
        if mode != "sum":
            raise ArgumentError(
                f"{op}: per_sample_weights was not None; "
                f"per_sample_weights is only supported for mode='sum' (got "
                f"mode='{mode}')"
            )
        if tuple(per_sample_weights.shape) != tuple(idx.shape):
            raise ShapeError(
                f"{op}: per_sample_weights of shape "
                f"{list(per_sample_weights.shape)} must have the input's "
                f"shape {list(idx.shape)}"
            )
    if scale_grad_by_freq and mode == "max":
        raise ArgumentError(
            f"{op}: max mode does not support scaling the gradient by the frequency"
        )
    n = w.shape[0]
    pad = _padding_idx(padding_idx, n, op)
    flat, bag, nb = _bags(idx, offsets, include_last_offset, op)
    be = idx._device._backend
    if pad is not None:  # entries of the padding index belong to no bag
        bag = be.where(flat == pad, be.full((), -1, bag.dtype), bag)
    sel = Tensor._wrap(flat, idx._dtype, idx._device)
    _check_range(sel, n, op)
    if max_norm is not None:
        _renorm(w, sel, max_norm, norm_type)
    extra = () if per_sample_weights is None else (per_sample_weights.reshape(-1),)
    return EmbeddingBagBackward.apply(
        w, sel, *extra, bag=bag, num_bags=nb, mode=mode, scale_grad_by_freq=bool(scale_grad_by_freq)
    )


def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding of the integer ``tensor``: shape ``tensor.shape +
    (num_classes,)``; ``num_classes=-1`` takes the largest value plus one."""
    op = "one_hot"
    if not isinstance(tensor, Tensor):
        raise ArgumentTypeError(f"{op}: expected a Tensor, got {type(tensor).__name__}")
    if tensor._dtype is not _dt.int64:
        raise DTypeError(
            f"{op}: is only applicable to index tensors of dtype int64, got {tensor._dtype.name}"
        )
    if isinstance(num_classes, bool) or not isinstance(num_classes, numbers.Integral):
        raise ArgumentTypeError(
            f"{op}: num_classes must be an int, got {type(num_classes).__name__}"
        )
    empty = tensor.numel() == 0
    if num_classes == -1:
        if empty:
            raise ArgumentError(f"{op}: can not infer total number of classes from empty tensor")
        num_classes = int(tensor.max()) + 1
    if not empty:
        lo, hi = int(tensor.min()), int(tensor.max())
        if lo < 0:
            raise IndexingError(f"{op}: class values must be non-negative, got {lo}")
        if hi >= num_classes:
            raise IndexingError(
                f"{op}: class values must be smaller than num_classes ({num_classes}), got {hi}"
            )
    classes = arange(int(num_classes), device=tensor.device)
    return (tensor.unsqueeze(-1) == classes).to(_dt.int64)
