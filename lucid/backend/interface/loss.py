"""Loss kernels of the Backend interface."""

from abc import ABC, abstractmethod  # noqa: F401


class LossKernels(ABC):
    """Loss primitive kernels (arrays of one backend in and out)."""
