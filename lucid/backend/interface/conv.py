"""Conv kernels of the Backend interface."""

from abc import ABC, abstractmethod  # noqa: F401


class ConvKernels(ABC):
    """Conv primitive kernels (arrays of one backend in and out)."""
