"""The :class:`Backend` interface: one documented method per primitive kernel.

Ops call only these methods (never NumPy or CuPy directly), so adding a device means
implementing this interface. It is assembled from one interface class per area.
"""

from .interface.attention import AttentionKernels
from .interface.binary import BinaryKernels
from .interface.complex import ComplexKernels
from .interface.conv import ConvKernels
from .interface.core import CoreKernels
from .interface.decomp import DecompKernels
from .interface.fft import FftKernels
from .interface.fractional_pool import FractionalPoolKernels
from .interface.indexing import IndexingKernels
from .interface.linalg import LinalgKernels
from .interface.loss import LossKernels
from .interface.norm import NormKernels
from .interface.optim import OptimKernels
from .interface.random import RandomKernels
from .interface.reduction import ReductionKernels
from .interface.shape import ShapeKernels
from .interface.sort import SortKernels
from .interface.special import NumericKernels, SpecialKernels
from .interface.unary import UnaryKernels
from .interface.vision import VisionKernels


class Backend(
    CoreKernels,
    UnaryKernels,
    BinaryKernels,
    ReductionKernels,
    ShapeKernels,
    IndexingKernels,
    SortKernels,
    LinalgKernels,
    RandomKernels,
    SpecialKernels,
    NumericKernels,
    ConvKernels,
    NormKernels,
    LossKernels,
    OptimKernels,
    AttentionKernels,
    VisionKernels,
    DecompKernels,
    ComplexKernels,
    FftKernels,
    FractionalPoolKernels,
):
    """Every primitive kernel an op may call, on the arrays of one device."""

    name: str
