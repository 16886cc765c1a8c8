"""The layers of :mod:`lucid.nn`, one module per family."""

import sys as _sys
import typing as _typing

from .module import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .activation import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .sync_batchnorm import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .vq import *  # noqa: F401,F403
from .lazy_norm import *  # noqa: F401,F403
from .noisy import *  # noqa: F401,F403
from .fused import *  # noqa: F401,F403
from .fractional_pool import *  # noqa: F401,F403
from .positional import *  # noqa: F401,F403
from .grouped_attention import *  # noqa: F401,F403
from .adaptive import *  # noqa: F401,F403
from . import channelshuffle as _channelshuffle, utils as _utils  # noqa: F401  (PyTorch's paths)
from . import compiled as _compiled  # noqa: F401  (lucid.compile(module): OptimizedModule)

# the families, in import order: what `from lucid.nn.modules import *` gives
_FAMILIES = (
    "module",
    "container",
    "linear",
    "flatten",
    "rnn",
    "distance",
    "activation",
    "loss",
    "conv",
    "pooling",
    "padding",
    "pixelshuffle",
    "upsampling",
    "fold",
    "normalization",
    "batchnorm",
    "sync_batchnorm",
    "instancenorm",
    "dropout",
    "sparse",
    "attention",
    "transformer",
    "vq",
    "lazy_norm",
    "noisy",
    "fused",
    "fractional_pool",
    "positional",
    "grouped_attention",
    "adaptive",
)
if not _typing.TYPE_CHECKING:  # (a type checker reads the star imports above instead)
    __all__ = [n for m in _FAMILIES for n in _sys.modules[f"{__name__}.{m}"].__all__]
