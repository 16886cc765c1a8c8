"""BatchNorm1d/2d/3d and their lazy forms. Their bases live in _norm_base.py and
SyncBatchNorm in sync_batchnorm.py; PyTorch's path for all of them is this module."""

from __future__ import annotations

from ._norm_base import _BatchNorm, _NormBase  # noqa: F401  (PyTorch's path for both)
from .lazy_norm import _LazyNorm
from .sync_batchnorm import SyncBatchNorm  # noqa: F401  (PyTorch's path for it)

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
]


class BatchNorm1d(_BatchNorm):
    """Batch norm over ``(N, C)`` or ``(N, C, L)`` input."""

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm over ``(N, C, H, W)`` input."""

    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch norm over ``(N, C, D, H, W)`` input."""

    _dims = (5,)


# -- lazy layers (their shared base is lazy_norm.py's) --


class LazyBatchNorm1d(_LazyNorm, BatchNorm1d):
    """A :class:`BatchNorm1d` whose ``num_features`` is inferred from its first input."""

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNorm, BatchNorm2d):
    """A :class:`BatchNorm2d` whose ``num_features`` is inferred from its first input."""

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNorm, BatchNorm3d):
    """A :class:`BatchNorm3d` whose ``num_features`` is inferred from its first input."""

    cls_to_become = BatchNorm3d
