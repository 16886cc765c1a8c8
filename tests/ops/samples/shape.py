"""Registry-suite samples for shape ops and views."""

import torch

import lucid

from ._sample import Const, Sample, pos, rnd

SAMPLES = [
    Sample("view", lambda x: x.view(4, 3), (rnd(3, 4),), torch_fn=lambda x: x.view(4, 3)),
    Sample("reshape", lambda x: x.transpose(0, 1).reshape(-1), (rnd(3, 4),),
           torch_fn=lambda x: x.transpose(0, 1).reshape(-1)),
    Sample("expand", lambda x: x.expand(2, 3, 4), (rnd(3, 1),),
           torch_fn=lambda x: x.expand(2, 3, 4)),
    Sample("permute", lambda x: x.permute(2, 0, 1), (rnd(2, 3, 4),),
           torch_fn=lambda x: x.permute(2, 0, 1)),
]
