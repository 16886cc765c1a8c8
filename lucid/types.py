"""The type aliases of Lucid's public signatures, as ``torch.types``: what a ``device=``,
``dtype=`` or size argument accepts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

from ._device import device
from .dtypes import dtype

__all__ = ["DeviceLike", "DTypeLike", "SizeLike"]

#: ``"cpu"``, ``"cuda:1"``, a CUDA index or a :class:`lucid.device` (None: the default).
DeviceLike = Union[str, int, device, None]
#: A Lucid dtype, or ``float`` / ``int`` / ``bool`` / ``complex`` (None: the default).
DTypeLike = Union[dtype, type, None]
#: One dimension's size, or a sequence of them (``(2, 3)``, a :class:`lucid.Size`).
SizeLike = Union[int, Sequence[int]]
