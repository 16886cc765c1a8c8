"""Reduction kernels of the Backend interface."""

from abc import ABC, abstractmethod


class ReductionKernels(ABC):
    """Reduction primitive kernels (arrays of one backend in and out)."""

    @abstractmethod
    def sum(self, a, axis, keepdims, npdtype=None):
        """Sum over ``axis`` (a tuple), accumulating in ``npdtype`` when given."""
