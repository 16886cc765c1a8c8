"""``lucid.nn.utils``: gradient clipping, parameter vectors, weight and spectral norm (hooks and
parametrizations), packed sequences, pruning, conv/linear-batch-norm fusion."""

from . import fusion, init, parametrizations, parametrize, prune, rnn, stateless  # noqa: F401
from .clip_grad import *  # noqa: F401,F403
from .convert_parameters import *  # noqa: F401,F403
from .fusion import *  # noqa: F401,F403
from .init import skip_init  # noqa: F401
from .rnn import (
    PackedSequence,
    pack_padded_sequence,
    pack_sequence,  # noqa: F401
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)
from .weight_norm import *  # noqa: F401,F403
from .spectral_norm import *  # noqa: F401,F403
