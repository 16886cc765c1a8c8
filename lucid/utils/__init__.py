"""Utilities: :mod:`lucid.utils.checkpoint` (activation checkpointing), :mod:`lucid.utils.data`
(datasets, samplers, DataLoader)."""

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
