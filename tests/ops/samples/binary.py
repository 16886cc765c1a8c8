"""Registry-suite samples for element-wise binary ops."""

import torch

import lucid

from ._sample import Const, Sample, pos, rnd

SAMPLES = [
    Sample("add", lucid.add, (rnd(3, 4), rnd(4, seed=1)), torch_fn=torch.add),
    Sample("add", lucid.add, (rnd(2, 1, 3), rnd(4, 1, seed=1)), {"alpha": 2.5},
           torch_fn=torch.add),
    Sample("mul", lucid.mul, (rnd(3, 4), rnd(3, 1, seed=1)), torch_fn=torch.mul),
    Sample("mul", lucid.mul, (rnd(), rnd(2, 3, seed=1)), torch_fn=torch.mul),
]
