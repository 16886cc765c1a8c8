"""Registry-suite samples: the fused linear op (N-d input, bias, non-contiguous input)."""

import torch.nn.functional as TF

import lucid.nn.functional as F

from ._sample import Sample, rnd

SAMPLES = [
    Sample(
        "linear",
        F.linear,
        (rnd(4, 3), rnd(5, 3, seed=1), rnd(5, seed=2)),
        torch_fn=TF.linear,
        name="linear[2-D, bias]",
    ),
    Sample(
        "linear",
        F.linear,
        (rnd(2, 3, 4), rnd(2, 4, seed=1)),
        torch_fn=TF.linear,
        name="linear[3-D, no bias]",
    ),
    Sample(
        "linear",
        F.linear,
        (rnd(3, 4).T, rnd(2, 3, seed=1), rnd(2, seed=2)),
        torch_fn=TF.linear,
        name="linear[non-contiguous]",
    ),
    Sample(
        "linear",
        F.linear,
        (rnd(3), rnd(2, 3, seed=1), rnd(2, seed=2)),
        torch_fn=TF.linear,
        name="linear[1-D input]",
    ),
]
