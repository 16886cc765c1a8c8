"""Norm kernels of the Backend interface."""

from abc import ABC, abstractmethod  # noqa: F401


class NormKernels(ABC):
    """Norm primitive kernels (arrays of one backend in and out)."""
