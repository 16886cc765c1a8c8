"""Kernels written once over an array module; NumPy and CuPy backends subclass them."""

from ..base import Backend
from .binary import XpBinary
from .core import XpCore
from .indexing import XpIndexing
from .linalg import XpLinalg
from .random import XpRandom
from .reduction import XpReduction
from .shape import XpShape
from .sort import XpSort
from .unary import XpUnary


class ArrayBackend(XpCore, XpUnary, XpBinary, XpReduction, XpShape, XpIndexing, XpSort,
                   XpLinalg, XpRandom, Backend):
    """A :class:`Backend` implemented over ``self.xp`` (NumPy or CuPy)."""
