"""Ops: one class per op (schema, dispatch, both backwards), the registry and the wrappers.

Every public wrapper is re-exported here (``lucid.ops.exp``) and by ``lucid`` itself; the
op modules also install the matching Tensor methods and operators.
"""

import sys as _sys
import typing as _typing

from ..autograd.graph import OPS as _AUTOGRAD_OPS
from .core import registry
from .core.inplace import apply_inplace
from .core.schema import AmpPolicy, OpSchema
from .core.casts import *  # noqa: F401,F403
from .elementwise.sign_magnitude import *  # noqa: F401,F403
from .elementwise.exp_log import *  # noqa: F401,F403
from .elementwise.trig import *  # noqa: F401,F403
from .elementwise.erf import *  # noqa: F401,F403
from .elementwise.rounding import *  # noqa: F401,F403
from .elementwise.fp_classify import *  # noqa: F401,F403
from .binary.arith import *  # noqa: F401,F403
from .binary.functions import *  # noqa: F401,F403
from .binary.ternary import *  # noqa: F401,F403
from .elementwise.compare import *  # noqa: F401,F403
from .reduction.sums import *  # noqa: F401,F403
from .reduction.extrema import *  # noqa: F401,F403
from .reduction.moments import *  # noqa: F401,F403
from .reduction.norm import *  # noqa: F401,F403
from .reduction.logical import *  # noqa: F401,F403
from .reduction.scans import *  # noqa: F401,F403
from .shape.reshape import *  # noqa: F401,F403
from .shape.permute import *  # noqa: F401,F403
from .shape.views import *  # noqa: F401,F403
from .shape.repeats import *  # noqa: F401,F403
from .shape.padding import *  # noqa: F401,F403
from .shape.joins import *  # noqa: F401,F403
from .indexing.subscript import *  # noqa: F401,F403
from .indexing.gather_scatter import *  # noqa: F401,F403
from .indexing.masks import *  # noqa: F401,F403
from .reduction.sort import *  # noqa: F401,F403
from .linalg.products import *  # noqa: F401,F403
from .linalg.einsum import *  # noqa: F401,F403
from .linalg.addmm import *  # noqa: F401,F403
from .creation.creation import *  # noqa: F401,F403
from .random.sampling import *  # noqa: F401,F403
from .special.functions import *  # noqa: F401,F403
from .elementwise.numeric import *  # noqa: F401,F403
from .reduction.stats import *  # noqa: F401,F403
from .indexing.combinatorics import *  # noqa: F401,F403
from .surface.surface import *  # noqa: F401,F403
from .elementwise.complex import *  # noqa: F401,F403
from .surface.aliases import *  # noqa: F401,F403
from .core.device import move  # noqa: F401

# the fused ops of the training stack; their public wrappers live in lucid.nn.functional
from .elementwise import activation, symlog  # noqa: F401
from .nn import (
    attention,
    conv,
    dropout,
    embedding,
    fused_linear,
    linear,  # noqa: F401
    loss,
    normalization,
    pooling,
    rnn,
    straight_through,
    vision,
)
from .binary import scalar_ops  # noqa: F401  (tensor-with-number arithmetic: one-input nodes)

# the ops of lucid.special beyond the core's
from .special import gaussian, bessel, entropy, gamma_zeta, polynomials  # noqa: F401
from .signal import fft as _fft  # noqa: F401  (the transforms of lucid.fft)
from .core import base as _base, graph_ns

_base.Op.graph_ns = graph_ns  # F of every gradient formula in graph mode
_AUTOGRAD_OPS["stack"] = stack  # noqa: F405  (jacobian's rows, batched gradients)

# What ``from lucid.ops import *`` (and so ``lucid``) re-exports: the wrappers, not the
# submodules (``lucid.random`` is the RNG module, not ``lucid.ops.random``). Looked up in
# sys.modules because wrappers such as ``sort`` shadow their module's name here.
# Internals (registry, apply_inplace, OpSchema, AmpPolicy, move) stay under lucid.ops only.
if not _typing.TYPE_CHECKING:  # (a type checker reads the star imports above instead)
    __all__ = [
        name
        for mod in (
            "core.casts",
            "elementwise.sign_magnitude",
            "elementwise.exp_log",
            "elementwise.trig",
            "elementwise.erf",
            "elementwise.rounding",
            "elementwise.fp_classify",
            "binary.arith",
            "binary.functions",
            "binary.ternary",
            "elementwise.compare",
            "reduction.sums",
            "reduction.extrema",
            "reduction.moments",
            "reduction.norm",
            "reduction.logical",
            "reduction.scans",
            "shape.reshape",
            "shape.permute",
            "shape.views",
            "shape.repeats",
            "shape.padding",
            "shape.joins",
            "indexing.subscript",
            "indexing.gather_scatter",
            "indexing.masks",
            "reduction.sort",
            "linalg.products",
            "linalg.einsum",
            "linalg.addmm",
            "creation.creation",
            "random.sampling",
            "special.functions",
            "elementwise.numeric",
            "reduction.stats",
            "indexing.combinatorics",
            "surface.surface",
            "elementwise.complex",
            "surface.aliases",
        )
        for name in _sys.modules[f"{__name__}.{mod}"].__all__
    ]
