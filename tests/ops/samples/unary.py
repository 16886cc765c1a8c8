"""Registry-suite samples for element-wise unary ops."""

import torch

import lucid

from ._sample import Const, Sample, pos, rnd

SAMPLES = [
    Sample("exp", lucid.exp, (rnd(3, 4),), torch_fn=torch.exp),
    Sample("exp", lucid.exp, (rnd(),), torch_fn=torch.exp),
]
