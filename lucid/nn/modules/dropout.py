"""Dropout layers: identity in evaluation mode."""

from __future__ import annotations

from typing import Any

from .. import functional as F
from ..functional.dropout import _p
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """``p`` (checked to lie in [0, 1]) and ``inplace``; ``forward`` calls ``_fn``."""

    _fn: Any = None

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = _p(p, type(self).__name__)
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero each element with probability ``p`` while training; scale the rest by
    ``1 / (1 - p)``."""

    _fn = F.dropout


class Dropout1d(_DropoutNd):
    """Zero whole channels of ``(N, C, L)`` / ``(C, L)`` input while training."""

    _fn = F.dropout1d


class Dropout2d(_DropoutNd):
    """Zero whole channels of ``(N, C, H, W)`` input while training."""

    _fn = F.dropout2d


class Dropout3d(_DropoutNd):
    """Zero whole channels of ``(N, C, D, H, W)`` / ``(C, D, H, W)`` input while
    training."""

    _fn = F.dropout3d


class AlphaDropout(_DropoutNd):
    """Alpha dropout (keeps SELU's zero mean and unit variance) while training."""

    _fn = F.alpha_dropout


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels while training."""

    _fn = F.feature_alpha_dropout
