"""Fractional max pooling layers, 2d and 3d, as PyTorch's (same constructor arguments,
attributes and buffer); ``forward`` is one call of :mod:`lucid.nn.functional`."""

from __future__ import annotations

from typing import Any

from ...errors import ArgumentError
from .. import functional as F
from .module import Module

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


def _ntuple(v, n):
    if isinstance(v, (tuple, list)):
        return tuple(v) * n if len(v) == 1 else tuple(v)
    return (v,) * n


class _FractionalMaxPoolNd(Module):
    _n = 0
    _fn: Any = None

    def __init__(
        self,
        kernel_size,
        output_size=None,
        output_ratio=None,
        return_indices=False,
        _random_samples=None,
    ):
        super().__init__()
        n, name = self._n, type(self).__name__
        self.kernel_size = _ntuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, n) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ArgumentError(
                f"{name} requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ArgumentError(
                f"{name}: only one of output_size and output_ratio may be specified"
            )
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ArgumentError(
                f"{name}: output_ratio must be between 0 and 1 (got {output_ratio})"
            )

    def forward(self, input):
        return type(self)._fn(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-d fractional max pooling (see :func:`lucid.nn.functional.fractional_max_pool2d`).

    ``_random_samples`` ``(N, C, 2)``, when given, is a buffer (so it is in the
    ``state_dict`` and moves with the module) and fixes the windows; else each call draws
    new ones.
    """

    _n = 2
    _fn = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-d fractional max pooling (see :func:`lucid.nn.functional.fractional_max_pool3d`);
    ``_random_samples`` ``(N, C, 3)`` as :class:`FractionalMaxPool2d`'s."""

    _n = 3
    _fn = staticmethod(F.fractional_max_pool3d)
