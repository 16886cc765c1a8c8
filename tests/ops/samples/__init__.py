"""All samples of the registry suite, gathered from one module per op area."""

from . import (
    binary,
    compare,
    complex,
    core,
    creation,
    indexing,
    joins,
    linalg,
    random,
    reduction,
    shape,
    sort,
    unary,
)
from . import numeric, special, special_fns
from . import linalg_lib
from . import fft, linalg_eig, linalg_ldl
from . import (
    nn_activation,
    nn_attention,
    nn_conv,
    nn_dropout,
    nn_embedding,
    nn_linear,
    nn_loss,
    nn_norm,
    nn_pooling,
    nn_rnn,
    nn_vision,
)
from . import nn_vq, nn_fused

SAMPLES = [
    s
    for m in (
        binary,
        compare,
        core,
        creation,
        indexing,
        joins,
        linalg,
        random,
        reduction,
        shape,
        sort,
        unary,
        special,
        special_fns,
        numeric,
        nn_activation,
        nn_attention,
        nn_conv,
        nn_dropout,
        nn_embedding,
        nn_linear,
        nn_loss,
        nn_norm,
        nn_pooling,
        nn_rnn,
        nn_vision,
        linalg_lib,
        complex,
        fft,
        linalg_eig,
        linalg_ldl,
        nn_vq,
        nn_fused,
    )
    for s in m.SAMPLES
]
