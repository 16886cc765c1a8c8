"""Optim kernels of the Backend interface."""

from abc import ABC, abstractmethod  # noqa: F401


class OptimKernels(ABC):
    """Optim primitive kernels (arrays of one backend in and out)."""
