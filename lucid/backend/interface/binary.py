"""Binary kernels of the Backend interface."""

from abc import ABC, abstractmethod


class BinaryKernels(ABC):
    """Binary primitive kernels (arrays of one backend in and out)."""

    @abstractmethod
    def add(self, a, b):
        """Element-wise ``a + b`` with broadcasting."""

    @abstractmethod
    def mul(self, a, b):
        """Element-wise ``a * b`` with broadcasting."""
