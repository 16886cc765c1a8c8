"""Packed sequences: pad_sequence, pack_padded_sequence, pad_packed_sequence, PackedSequence.

A :class:`PackedSequence` holds a batch of variable-length sequences, sorted by decreasing
length, time step after time step: ``data`` ``(sum of lengths, *)`` holds at step ``t`` the
``batch_sizes[t]`` sequences still running. Packing and padding are one masked gather or
scatter each (differentiable), not a loop over the batch.
"""

from __future__ import annotations

from collections import namedtuple

from ... import dtypes as _dt
from ..._device import CPU
from ..._tensor import Tensor, tensor
from ...errors import ArgumentError, ShapeError
from ...ops import arange, cat, cumsum, full, nonzero, repeat_interleave, sort, zeros

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]


def invert_permutation(permutation):
    """The inverse of the 1-D index permutation ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    return permutation.new_empty(permutation.shape).scatter_(
        0, permutation, arange(permutation.numel(), device=permutation.device)
    )


class PackedSequence(
    namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])
):
    """``(data, batch_sizes, sorted_indices, unsorted_indices)``: made by
    :func:`pack_padded_sequence` / :func:`pack_sequence`; ``batch_sizes`` is an int64 CPU
    tensor; ``sorted_indices`` maps the packed order to the original batch order
    (``unsorted_indices`` back), None when the batch was already sorted."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            data, batch_sizes = data
        if batch_sizes.device.type != "cpu":
            raise ArgumentError(
                f"PackedSequence: batch_sizes should always be on CPU, got {batch_sizes.device}"
            )
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The same sequence with ``data`` converted by ``Tensor.to`` (the indices follow
        its device)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        dev = data.device
        si = None if self.sorted_indices is None else self.sorted_indices.to(dev)
        ui = None if self.unsorted_indices is None else self.unsorted_indices.to(dev)
        return type(self)(data, self.batch_sizes, si, ui)

    def cuda(self, device=None):
        return self.to("cuda" if device is None else device)

    def cpu(self):
        return self.to("cpu")

    def double(self):
        return self.to(_dt.float64)

    def float(self):
        return self.to(_dt.float32)

    def half(self):
        return self.to(_dt.float16)

    @property
    def is_cuda(self):
        return self.data.is_cuda


def _lengths_tensor(lengths, op):
    if isinstance(lengths, Tensor):
        lengths = lengths.to(device=CPU, dtype=_dt.int64)
    else:
        lengths = tensor(list(lengths), dtype=_dt.int64)
    if lengths.ndim != 1:
        raise ShapeError(f"{op}: lengths must be 1-D, got shape {tuple(lengths.shape)}")
    return lengths


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch ``input`` ``(T, B, *)`` (``batch_first``: ``(B, T, *)``) of sequences of
    ``lengths`` (a list or 1-D tensor). ``enforce_sorted``: the lengths must be decreasing;
    otherwise the batch is sorted here and the permutation kept in the result."""
    lengths = _lengths_tensor(lengths, "pack_padded_sequence")
    bdim = 0 if batch_first else 1
    if lengths.numel() != input.shape[bdim]:
        raise ShapeError(
            f"pack_padded_sequence: expected `len(lengths)` to be equal to "
            f"batch_size, but got {lengths.numel()} (batch_size="
            f"{input.shape[bdim]})"
        )
    sorted_indices = None
    if enforce_sorted:
        if lengths.numel() > 1 and bool((lengths[1:] > lengths[:-1]).any()):
            raise ArgumentError(
                "pack_padded_sequence: `lengths` array must be sorted in "
                "decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement"
            )
    else:
        lengths, sorted_indices = sort(lengths, descending=True, stable=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(bdim, sorted_indices)
    if lengths.numel() == 0 or int(lengths[-1]) <= 0:
        raise ArgumentError(
            "pack_padded_sequence: length of all samples has to be greater "
            "than 0, but found an element in 'lengths' that is <= 0"
        )
    t_max = int(lengths[0])
    if batch_first:
        input = input.transpose(0, 1)
    if t_max > input.shape[0]:
        raise ShapeError(
            f"pack_padded_sequence: a length of {t_max} exceeds the padded "
            f"sequence length {input.shape[0]}"
        )
    mask = arange(t_max).unsqueeze(1) < lengths.unsqueeze(0)  # (T, B), CPU
    data = input[:t_max][mask.to(input.device)]
    return PackedSequence(data, mask.sum(1), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of :func:`pack_padded_sequence`: ``(padded, lengths)`` with padded
    ``(T, B, *)`` (``batch_first``: ``(B, T, *)``), T = the longest length or ``total_length``,
    in the original batch order; ``lengths`` an int64 CPU tensor."""
    data, batch_sizes = sequence.data, sequence.batch_sizes
    t_max = batch_sizes.numel()
    if total_length is not None:
        if total_length < t_max:
            raise ArgumentError(
                "pad_packed_sequence: expected total_length to be at least "
                "the length of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being "
                f"{t_max}"
            )
        t_max = total_length
    b = int(batch_sizes[0])
    sizes = cat([batch_sizes, zeros(t_max - batch_sizes.numel(), dtype=_dt.int64)])
    mask = arange(b).unsqueeze(0) < sizes.unsqueeze(1)  # (T, B), CPU
    lengths = mask.sum(0)
    idx = nonzero(mask.reshape(-1)).reshape(-1).to(data.device)
    out = full(
        (t_max * b,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype, device=data.device
    ).index_put((idx,), data)
    out = out.reshape((t_max, b) + tuple(data.shape[1:]))
    if batch_first:
        out = out.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        out = out.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.to(CPU)]
    return out, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors ``(L_i, *)`` into ``(L_max, B, *)`` (``batch_first``:
    ``(B, L_max, *)``), padding with ``padding_value`` after (``padding_side="right"``) or
    before (``"left"``) each."""
    if padding_side not in ("left", "right"):
        raise ArgumentError(
            f"pad_sequence: padding_side must be 'left' or 'right', got {padding_side!r}"
        )
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise ArgumentError("pad_sequence: received an empty list of sequences")
    trail = tuple(sequences[0].shape[1:])
    for s in sequences:
        if tuple(s.shape[1:]) != trail:
            raise ShapeError(
                f"pad_sequence: all sequences must have the same trailing "
                f"dims, got {trail} and {tuple(s.shape[1:])}"
            )
    dev = sequences[0].device
    n_b = len(sequences)
    lens = tensor([s.shape[0] for s in sequences], dtype=_dt.int64, device=dev)
    t_max = int(lens.max()) if n_b else 0
    data = cat(sequences)
    batch = repeat_interleave(arange(n_b, device=dev), lens)
    starts = cumsum(lens, 0) - lens
    step = arange(data.shape[0], device=dev) - repeat_interleave(starts, lens)
    if padding_side == "left":
        step = step + repeat_interleave(t_max - lens, lens)
    idx = batch * t_max + step if batch_first else step * n_b + batch
    lead = (n_b, t_max) if batch_first else (t_max, n_b)
    out = full((n_b * t_max,) + trail, padding_value, dtype=data.dtype, device=dev)
    return out.index_put((idx,), data).reshape(lead + trail)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, : int(n)] for i, n in enumerate(lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of tensors ``(L_i, *)``: ``pack_padded_sequence(pad_sequence(...))``."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of tensors a :class:`PackedSequence` holds, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
