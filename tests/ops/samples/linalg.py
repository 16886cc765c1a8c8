"""Registry-suite samples for linear algebra."""

import torch

import lucid

from ._sample import Const, Sample, pos, rnd

SAMPLES = [
    Sample("matmul", lucid.matmul, (rnd(3, 4), rnd(4, 2, seed=1)), torch_fn=torch.matmul),
    Sample("matmul", lucid.matmul, (rnd(2, 1, 3, 4), rnd(5, 4, 2, seed=1)),
           torch_fn=torch.matmul),
    Sample("matmul", lucid.matmul, (rnd(4), rnd(2, 4, 3, seed=1)), torch_fn=torch.matmul),
    Sample("matmul", lucid.matmul, (rnd(2, 3, 4), rnd(4, seed=1)), torch_fn=torch.matmul),
    Sample("matmul", lucid.matmul, (rnd(4), rnd(4, seed=1)), torch_fn=torch.matmul),
]
