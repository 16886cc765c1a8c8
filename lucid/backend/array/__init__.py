"""Kernels written once over an array module; NumPy and CuPy backends subclass them."""

import warnings

from ..base import Backend
from .attention import XpAttention
from .binary import XpBinary
from .complex import XpComplex
from .conv import XpConv
from .core import XpCore
from .decomp import XpDecomp
from .fft import XpFft
from .fractional_pool import XpFractionalPool
from .indexing import XpIndexing
from .ldl import XpLdl
from .linalg import XpLinalg
from .loss import XpLoss
from .norm import XpNorm
from .optim import XpOptim
from .random import XpRandom
from .reduction import XpReduction
from .shape import XpShape
from .sort import XpSort
from .special import XpNumeric, XpSpecial
from .unary import XpUnary
from .vision import XpVision


# Floating-point exceptions (overflow in exp, 0/0, log of a negative) give inf/nan like
# PyTorch, silently. NumPy attributes its RuntimeWarnings to the module that called the
# ufunc, so this filter quiets only the kernels and eager backward formulas, at no cost per call (an
# ``errstate`` block would cost microseconds on every op).
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"lucid\.(backend|ops)\.")


class ArrayBackend(
    XpCore,
    XpUnary,
    XpBinary,
    XpReduction,
    XpShape,
    XpIndexing,
    XpSort,
    XpLinalg,
    XpRandom,
    XpSpecial,
    XpNumeric,
    XpConv,
    XpNorm,
    XpLoss,
    XpOptim,
    XpAttention,
    XpVision,
    XpDecomp,
    XpLdl,
    XpComplex,
    XpFft,
    XpFractionalPool,
    Backend,
):
    """A :class:`Backend` implemented over ``self.xp`` (NumPy or CuPy)."""

    def parallel(self, fn, parts):
        """``[fn(p) for p in parts]``: on the CPU the parts run on the intra-op threads at
        once (:func:`lucid.backend.threads.parallel`); here, where one kernel launch
        already fills the device, in turn."""
        return [fn(p) for p in parts]

    def parallel_pieces(self):
        """How many pieces a pass that :meth:`parallel` runs is cut in (1: in turn)."""
        return 1
