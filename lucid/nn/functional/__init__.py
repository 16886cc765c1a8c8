"""``lucid.nn.functional``: the stateless mirror of the layers of :mod:`lucid.nn`.

Each function validates its arguments and calls registered ops; the heavy ones
(convolution, pooling, norms, softmax, cross-entropy, GELU, embedding, attention) are single
fused ops with an analytic backward.
"""

import sys as _sys
import typing as _typing

from .activation import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .vision import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .vq import *  # noqa: F401,F403
from .value_transforms import *  # noqa: F401,F403
from .noisy import *  # noqa: F401,F403
from .fused import *  # noqa: F401,F403
from .fractional_pool import *  # noqa: F401,F403
from .positional import *  # noqa: F401,F403
from .grouped_attention import *  # noqa: F401,F403

# by module name: ``from . import linear`` would give the function linear, not its module
_FAMILIES = (
    "activation",
    "loss",
    "conv",
    "pooling",
    "vision",
    "normalization",
    "dropout",
    "sparse",
    "attention",
    "linear",
    "distance",
    "vq",
    "value_transforms",
    "noisy",
    "fused",
    "fractional_pool",
    "positional",
    "grouped_attention",
)
if not _typing.TYPE_CHECKING:  # (a type checker reads the star imports above instead)
    __all__ = [n for m in _FAMILIES for n in _sys.modules[f"{__name__}.{m}"].__all__]
