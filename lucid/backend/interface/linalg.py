"""Linalg kernels of the Backend interface."""

from abc import ABC, abstractmethod


class LinalgKernels(ABC):
    """Linalg primitive kernels (arrays of one backend in and out)."""

    @abstractmethod
    def matmul(self, a, b):
        """Matrix product with NumPy's ``matmul`` broadcasting rules."""
