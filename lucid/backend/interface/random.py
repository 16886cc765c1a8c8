"""Random kernels of the Backend interface."""

from abc import ABC, abstractmethod


class RandomKernels(ABC):
    """Random primitive kernels (arrays of one backend in and out)."""
