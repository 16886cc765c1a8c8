"""``lucid.nn.functional``: the stateless mirror of the layers of :mod:`lucid.nn`.

Each function validates its arguments and calls registered ops; the heavy ones
(convolution, pooling, norms, softmax, cross-entropy, GELU, embedding, attention) are single
fused ops with an analytic backward.
"""

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
import sys as _sys

# by module name: ``from . import linear`` would give the function linear, not its module
__all__ = [
    n
    for m in (
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
    )
    for n in _sys.modules[f"{__name__}.{m}"].__all__
]

# fractional pooling, positional encodings, grouped-query attention
from .fractional_pool import *  # noqa: F401,F403
from .positional import *  # noqa: F401,F403
from .grouped_attention import *  # noqa: F401,F403

__all__ += [
    n
    for m in ("fractional_pool", "positional", "grouped_attention")
    for n in _sys.modules[f"{__name__}.{m}"].__all__
]
