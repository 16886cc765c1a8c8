"""Ops: one class per op (schema, dispatch, both backwards), the registry and the wrappers.

Every public wrapper is re-exported here (``lucid.ops.exp``) and by ``lucid`` itself; the
op modules also install the matching Tensor methods and operators.
"""

from . import registry
from .base import apply_inplace
from .schema import AmpPolicy, OpSchema
from .core import *          # noqa: F401,F403
from .unary import *         # noqa: F401,F403
from .binary import *        # noqa: F401,F403
from .compare import *       # noqa: F401,F403
from .reduction import *     # noqa: F401,F403
from .shape import *         # noqa: F401,F403
from .joins import *         # noqa: F401,F403
from .indexing import *      # noqa: F401,F403
from .sort import *          # noqa: F401,F403
from .linalg import *        # noqa: F401,F403
from .creation import *      # noqa: F401,F403
from .random import *        # noqa: F401,F403
from .special import *       # noqa: F401,F403
from .numeric import *       # noqa: F401,F403
from .stats import *         # noqa: F401,F403
from .combinatorics import *  # noqa: F401,F403
from .surface import *       # noqa: F401,F403
from .complex import *       # noqa: F401,F403
from .aliases import *       # noqa: F401,F403
from .device_ops import move  # noqa: F401
# the fused ops of the training stack; their public wrappers live in lucid.nn.functional
from . import (activation, attention, conv, dropout, embedding, linear, loss,  # noqa: F401
               normalization, pooling, rnn, vision)
from . import scalar_ops  # noqa: F401  (tensor-with-number arithmetic: one-input nodes)
from . import special_fns  # noqa: F401  (the ops of lucid.special beyond the core's)
from . import fft  # noqa: F401  (the transforms of lucid.fft)
from . import straight_through, symlog  # noqa: F401  (wrapped in lucid.nn.functional)
from . import fused_linear  # noqa: F401  (wrapped in lucid.nn.functional)
from . import base as _base, graph_ns

_base.Op.graph_ns = graph_ns     # F of every gradient formula in graph mode

import sys as _sys

# What ``from lucid.ops import *`` (and so ``lucid``) re-exports: the wrappers, not the
# submodules (``lucid.random`` is the RNG module, not ``lucid.ops.random``). Looked up in
# sys.modules because wrappers such as ``sort`` shadow their module's name here.
# Internals (registry, apply_inplace, OpSchema, AmpPolicy, move) stay under lucid.ops only.
__all__ = [
    name for mod in ("core", "unary", "binary", "compare", "reduction", "shape", "joins",
                     "indexing", "sort", "linalg", "creation", "random", "special", "numeric",
                     "stats", "combinatorics", "surface", "complex", "aliases")
    for name in _sys.modules[f"{__name__}.{mod}"].__all__]
