"""Samplers: iterables of dataset indices (or of lists of indices, :class:`BatchSampler`),
as ``torch.utils.data``. Random samplers draw from their ``generator``; without one, each
pass seeds a fresh generator from Lucid's default generator, so shuffling is reproducible
under ``lucid.manual_seed``."""

from __future__ import annotations

import numbers

from ..._tensor import as_tensor
from ...dtypes import float64
from ...ops import multinomial, randint, randperm
from ...random import Generator
from ...errors import ArgumentError, ArgumentTypeError, ShapeError

__all__ = [
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
    "BatchSampler",
]


def _positive_int(value, what, op):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ArgumentError(
            f"{op}: {what} should be a positive integer value, but got {what}={value!r}"
        )
    return int(value)


def _bool(value, what, op, error=ArgumentError):
    """``value`` if it is a bool; otherwise ``error`` (PyTorch's types: ValueError, but
    TypeError for RandomSampler's replacement)."""
    if not isinstance(value, bool):
        raise error(f"{op}: {what} should be a boolean value, but got {what}={value!r}")
    return value


def _pass_generator(generator):
    """The generator for one pass: ``generator``, or a new one seeded from the default."""
    if generator is not None:
        return generator
    seed = randint(0, 1 << 62, ()).item()
    return Generator().manual_seed(seed)


class Sampler:
    """Base class: an iterable of indices; ``__len__`` is optional."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Indices of ``data_source`` in random order: a permutation per ``len(data_source)``
    samples, or with ``replacement`` independent uniform draws; ``num_samples`` (default
    ``len(data_source)``) indices per pass."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = _bool(replacement, "replacement", "RandomSampler", ArgumentTypeError)
        self._num_samples = num_samples
        self.generator = generator
        if num_samples is not None:
            _positive_int(num_samples, "num_samples", "RandomSampler")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n, k = len(self.data_source), self.num_samples
        g = _pass_generator(self.generator)
        if self.replacement:
            if n == 0:
                raise ArgumentError(
                    "RandomSampler: can't draw with replacement from an empty data source"
                )
            yield from randint(0, n, (k,), generator=g).tolist()
            return
        if n == 0:
            return
        for _ in range(k // n):
            yield from randperm(n, generator=g, device="cpu").tolist()
        yield from randperm(n, generator=g, device="cpu").tolist()[: k % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in random order (a new permutation each pass)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        g = _pass_generator(self.generator)
        for i in randperm(len(self.indices), generator=g, device="cpu").tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices in ``[0, len(weights))`` drawn with probability proportional
    to ``weights`` (with or without ``replacement``)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        self.num_samples = _positive_int(num_samples, "num_samples", "WeightedRandomSampler")
        self.replacement = _bool(replacement, "replacement", "WeightedRandomSampler")
        w = as_tensor(weights, dtype=float64)
        if w.ndim != 1:
            raise ShapeError(
                f"WeightedRandomSampler: weights should be a 1-D sequence, "
                f"got shape {tuple(w.shape)}"
            )
        self.weights = w
        self.generator = generator

    def __iter__(self):
        g = _pass_generator(self.generator)
        yield from multinomial(
            self.weights, self.num_samples, self.replacement, generator=g
        ).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler``; the last, shorter list is dropped
    with ``drop_last``."""

    def __init__(self, sampler, batch_size, drop_last):
        self.batch_size = _positive_int(batch_size, "batch_size", "BatchSampler")
        self.drop_last = _bool(drop_last, "drop_last", "BatchSampler")
        self.sampler = sampler

    def __iter__(self):
        batch, size = [], self.batch_size
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
