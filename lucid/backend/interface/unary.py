"""Unary kernels of the Backend interface."""

from abc import ABC, abstractmethod


class UnaryKernels(ABC):
    """Unary primitive kernels (arrays of one backend in and out)."""

    @abstractmethod
    def exp(self, a):
        r"""Element-wise :math:`e^a`."""
