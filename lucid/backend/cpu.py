"""The CPU backend: NumPy, with ``ml_dtypes`` for bfloat16."""

import numpy as np

from .array import ArrayBackend


class CpuBackend(ArrayBackend):
    """Every kernel of :class:`Backend` on NumPy arrays."""

    name = "cpu"
    xp = np
    ndarray = np.ndarray

    def to_numpy(self, a):
        return a

    def data_ptr(self, a):
        return a.__array_interface__["data"][0]
