"""Registry-suite samples: dropout. Each call reseeds the default generator (and restores
its state afterwards), so gradcheck's repeated calls see the same mask; there is no torch
parity here (the masks are not PyTorch's; tests/nn/test_dropout.py checks statistics)."""

import lucid
import lucid.nn.functional as F

from ._sample import Sample, rnd


def _seeded(fn):
    def call(*args):
        state = lucid.random.get_rng_state()
        lucid.manual_seed(0)
        try:
            return fn(*args)
        finally:
            lucid.random.set_rng_state(state)

    return call


SAMPLES = [
    Sample("dropout", _seeded(lambda x: F.dropout(x, 0.3)), (rnd(4, 5),)),
    Sample(
        "dropout",
        _seeded(lambda x: F.dropout2d(x, 0.5)),
        (rnd(3, 4, 2, 2),),
        name="dropout[2d channels]",
    ),
    Sample(
        "dropout",
        _seeded(lambda x: F.alpha_dropout(x, 0.2, training=True)),
        (rnd(6, 3),),
        name="dropout[alpha]",
    ),
    Sample(
        "dropout",
        _seeded(lambda x: F.feature_alpha_dropout(x, 0.4, training=True)),
        (rnd(2, 3, 4),),
        name="dropout[feature alpha]",
    ),
]
