"""Sort kernels of the Backend interface."""

from abc import ABC, abstractmethod


class SortKernels(ABC):
    """Sort primitive kernels (arrays of one backend in and out)."""
