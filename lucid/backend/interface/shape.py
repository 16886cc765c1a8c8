"""Shape kernels of the Backend interface."""

from abc import ABC, abstractmethod


class ShapeKernels(ABC):
    """Shape primitive kernels (arrays of one backend in and out)."""

    @abstractmethod
    def permute(self, a, axes):
        """A view of ``a`` with its axes reordered."""

    @abstractmethod
    def swapaxes(self, a, d0, d1):
        """A view of ``a`` with axes ``d0`` and ``d1`` swapped."""
