"""``lucid.nn.utils``: gradient clipping, parameter vectors, weight and spectral norm (hooks and
parametrizations), packed sequences."""

from . import parametrizations, parametrize, rnn  # noqa: F401
from .clip_grad import *  # noqa: F401,F403
from .convert_parameters import *  # noqa: F401,F403
from .weight_norm import *  # noqa: F401,F403
from .spectral_norm import *  # noqa: F401,F403
