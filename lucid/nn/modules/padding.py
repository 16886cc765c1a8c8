"""Padding layers: zero, constant, reflection, replication, circular (1-d, 2-d, 3-d).

Each holds its ``padding`` as a tuple of ``2 n`` widths, ``(left, right[, top, bottom[,
front, back]])`` from the last dim backward (an int pads every side alike), and calls
:func:`lucid.nn.functional.pad`.
"""

from __future__ import annotations

import numbers

from ...errors import ShapeError
from .. import functional as F
from .module import Module

__all__ = [
    f"{kind}Pad{n}d"
    for kind in ("Zero", "Constant", "Reflection", "Replication", "Circular")
    for n in (1, 2, 3)
]


class _PadNd(Module):
    """``padding`` (an int, or the widths) and the F.pad ``mode``; ``n`` spatial dims."""

    n = 1
    mode = "constant"

    def __init__(self, padding):
        super().__init__()
        if isinstance(padding, numbers.Integral):
            padding = (int(padding),) * (2 * self.n)
        self.padding = tuple(padding)

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class _Zero:
    """Makes a ``ConstantPadNd`` a ``ZeroPadNd``: ``value`` fixed at 0 (as PyTorch, a
    subclass of the constant layer)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    mode = "circular"

    def forward(self, input):
        if input.ndim not in (self.n + 1, self.n + 2):
            raise ShapeError(
                f"{type(self).__name__}: expected {self.n + 1}D or {self.n + 2}D "
                f"input (got {input.ndim}D input)"
            )
        return super().forward(input)


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with ``value``."""

    n = 1


class ZeroPad1d(_Zero, ConstantPad1d):
    """Pads the last dim with zeros."""


class ReflectionPad1d(_PadNd):
    """Pads the last dim with the input's reflection (the edge value not repeated)."""

    n = 1
    mode = "reflect"


class ReplicationPad1d(_PadNd):
    """Pads the last dim by repeating the edge values."""

    n = 1
    mode = "replicate"


class CircularPad1d(_CircularPadNd):
    """Pads the last dim by wrapping the input around."""

    n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims with ``value``."""

    n = 2


class ZeroPad2d(_Zero, ConstantPad2d):
    """Pads the last 2 dims with zeros."""


class ReflectionPad2d(_PadNd):
    """Pads the last 2 dims with the input's reflection (the edge value not repeated)."""

    n = 2
    mode = "reflect"


class ReplicationPad2d(_PadNd):
    """Pads the last 2 dims by repeating the edge values."""

    n = 2
    mode = "replicate"


class CircularPad2d(_CircularPadNd):
    """Pads the last 2 dims by wrapping the input around."""

    n = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dims with ``value``."""

    n = 3


class ZeroPad3d(_Zero, ConstantPad3d):
    """Pads the last 3 dims with zeros."""


class ReflectionPad3d(_PadNd):
    """Pads the last 3 dims with the input's reflection (the edge value not repeated)."""

    n = 3
    mode = "reflect"


class ReplicationPad3d(_PadNd):
    """Pads the last 3 dims by repeating the edge values."""

    n = 3
    mode = "replicate"


class CircularPad3d(_CircularPadNd):
    """Pads the last 3 dims by wrapping the input around."""

    n = 3
