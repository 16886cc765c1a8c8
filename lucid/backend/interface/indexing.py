"""Indexing kernels of the Backend interface."""

from abc import ABC, abstractmethod


class IndexingKernels(ABC):
    """Indexing primitive kernels (arrays of one backend in and out)."""
