"""Datasets: map-style (``__getitem__`` + ``__len__``) and iterable (``__iter__``), their
combinations and :func:`random_split`, as ``torch.utils.data``."""

from __future__ import annotations

import bisect
import itertools
import math
import numbers
import warnings

from ..._tensor import Tensor, tensor
from ...dtypes import int64
from ...ops import randperm
from ...errors import ArgumentError, ArgumentTypeError, ShapeError

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "StackDataset",
    "ConcatDataset",
    "ChainDataset",
    "Subset",
    "random_split",
]


class Dataset:
    """A map-style dataset: ``dataset[i]`` is sample ``i``; subclasses define
    ``__getitem__`` and usually ``__len__`` (which samplers need). ``a + b`` concatenates.
    A subclass may define ``__getitems__(indices) -> list of samples`` to fetch a batch in
    one call; the DataLoader uses it when present."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset that is a stream: subclasses define ``__iter__``. With worker processes
    every worker iterates its own copy; use :func:`get_worker_info` in ``__iter__`` to give
    each worker its share. ``a + b`` chains."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample ``i`` is ``tuple(t[i] for t in tensors)``; the tensors share their first
    dimension."""

    def __init__(self, *tensors):
        if not tensors:
            raise ArgumentError("TensorDataset: expected at least one tensor")
        for t in tensors:
            if not isinstance(t, Tensor):
                raise ArgumentTypeError(f"TensorDataset: expected tensors, got {type(t).__name__}")
            if t.ndim == 0:
                raise ShapeError("TensorDataset: tensors need a first dimension, got a 0-d tensor")
        sizes = [t.shape[0] for t in tensors]
        if any(s != sizes[0] for s in sizes):
            raise ShapeError(
                f"TensorDataset: size mismatch between tensors: first dimensions {sizes}"
            )
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]

    @property
    def _collated(self):
        """The DataLoader's fast path: a function giving what
        ``default_collate([self[i] for i in indices])`` gives (a list of stacked tensors)
        as one gather per tensor; None for a subclass with its own ``__getitem__``."""
        if type(self).__getitem__ is not TensorDataset.__getitem__:
            return None
        return lambda indices: [t[tensor(indices, dtype=int64)] for t in self.tensors]


class StackDataset(Dataset):
    """Datasets side by side: ``StackDataset(a, b)[i] == (a[i], b[i])`` and
    ``StackDataset(x=a, y=b)[i] == {"x": a[i], "y": b[i]}``; all of one length."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ArgumentError(
                "StackDataset: give datasets either as positional or as keyword arguments, not both"
            )
        parts = list(args) if args else list(kwargs.values())
        if not parts:
            raise ArgumentError("StackDataset: expected at least one dataset")
        lengths = [len(d) for d in parts]
        if any(n != lengths[0] for n in lengths):
            raise ShapeError(f"StackDataset: size mismatch between datasets: {lengths}")
        self._length = lengths[0]
        self.datasets = tuple(args) if args else dict(kwargs)

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """Map-style datasets one after the other; ``cumulative_sizes[k]`` is the length of
    the first ``k + 1``."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ArgumentError("ConcatDataset: datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise ArgumentTypeError(
                    "ConcatDataset: does not support IterableDataset (use ChainDataset)"
                )
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        n = len(self)
        if idx < 0:
            if -idx > n:
                raise IndexError(f"ConcatDataset: index {idx} is out of range for length {n}")
            idx += n
        k = bisect.bisect_right(self.cumulative_sizes, idx)
        if k == len(self.datasets):
            raise IndexError(f"ConcatDataset: index {idx} is out of range for length {n}")
        return self.datasets[k][idx - (self.cumulative_sizes[k - 1] if k else 0)]


class ChainDataset(IterableDataset):
    """Iterable datasets one after the other, chained lazily."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise ArgumentTypeError(
                    f"ChainDataset: only supports IterableDataset, got {type(d).__name__}"
                )
            yield from d

    def __len__(self):
        return sum(len(d) for d in self.datasets)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)

    @property
    def _collated(self):
        """The DataLoader's fast path (:meth:`TensorDataset._collated`) through the
        indices, when the dataset has one; else None."""
        inner = getattr(self.dataset, "_collated", None)
        if inner is None or type(self).__getitem__ is not Subset.__getitem__:
            return None
        return lambda indices: inner([self.indices[i] for i in indices])


def _split_lengths(lengths, n):
    """Integer lengths from ``lengths``: counts, or fractions summing to 1 (the remainder
    of flooring each fraction goes one by one to the first parts)."""
    lengths = list(lengths)
    if lengths and math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        if not all(0 <= f <= 1 for f in lengths):
            raise ArgumentError(f"random_split: fractions must lie in [0, 1], got {lengths}")
        counts = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        for i, c in enumerate(counts):
            if c == 0:
                warnings.warn(
                    f"random_split: length of split at index {i} is 0; this "
                    "might result in an empty dataset",
                    UserWarning,
                    stacklevel=3,
                )
        return counts
    if not all(
        isinstance(x, numbers.Integral) and not isinstance(x, bool) and x >= 0 for x in lengths
    ):
        raise ArgumentError(
            f"random_split: lengths must be non-negative ints or fractions "
            f"summing to 1, got {lengths}"
        )
    if sum(lengths) != n:
        raise ArgumentError(
            f"random_split: sum of input lengths ({sum(lengths)}) does not "
            f"equal the length of the input dataset ({n})"
        )
    return [int(x) for x in lengths]


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` at random into non-overlapping :class:`Subset` s of the given
    ``lengths`` (counts, or fractions summing to 1), drawing the permutation from
    ``generator`` (default: Lucid's default generator)."""
    counts = _split_lengths(lengths, len(dataset))
    perm = randperm(sum(counts), generator=generator, device="cpu").tolist()
    out, start = [], 0
    for c in counts:
        out.append(Subset(dataset, perm[start : start + c]))
        start += c
    return out
