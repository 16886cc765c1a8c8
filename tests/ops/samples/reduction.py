"""Registry-suite samples for reductions."""

import torch

import lucid

from ._sample import Const, Sample, pos, rnd

SAMPLES = [
    Sample("sum", lucid.sum, (rnd(3, 4),), torch_fn=torch.sum),
    Sample("sum", lucid.sum, (rnd(2, 3, 4),), {"dim": (0, -1), "keepdim": True},
           torch_fn=torch.sum),
    Sample("sum", lucid.sum, (rnd(2, 3),), {"dim": 1}, torch_fn=torch.sum),
]
