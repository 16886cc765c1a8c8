"""Utilities: :mod:`lucid.utils.checkpoint` (activation checkpointing), :mod:`lucid.utils.data`
(datasets, samplers, DataLoader), :class:`GarbageCollection` (scheduled garbage collection
for training loops, :mod:`lucid.utils.collection`)."""

from . import checkpoint, collection, data
from .collection import GarbageCollection

__all__ = ["checkpoint", "collection", "data", "GarbageCollection"]
