"""Registry-suite samples: the fused linear + activation op (ReLU, exact and tanh GELU;
bias or none, N-d and non-contiguous input)."""

import torch.nn.functional as TF

import lucid.nn.functional as F

from ._sample import Sample, rnd


def _t_relu(x, w, b=None):
    return TF.relu(TF.linear(x, w, b))


def _t_gelu(x, w, b=None, approximate="none"):
    return TF.gelu(TF.linear(x, w, b), approximate=approximate)


SAMPLES = [
    Sample(
        "fused_linear",
        F.fused_linear_relu,
        (rnd(4, 3), rnd(5, 3, seed=1), rnd(5, seed=2)),
        torch_fn=_t_relu,
        name="fused_linear[relu, bias]",
    ),
    Sample(
        "fused_linear",
        F.fused_linear_relu,
        (rnd(2, 3, 4), rnd(2, 4, seed=1)),
        torch_fn=_t_relu,
        name="fused_linear[relu, 3-D, no bias]",
    ),
    Sample(
        "fused_linear",
        F.fused_linear_gelu,
        (rnd(4, 3), rnd(5, 3, seed=1), rnd(5, seed=2)),
        torch_fn=_t_gelu,
        name="fused_linear[gelu, bias]",
    ),
    Sample(
        "fused_linear",
        F.fused_linear_gelu,
        (rnd(3, 4).T, rnd(2, 3, seed=1)),
        kwargs={"approximate": "tanh"},
        torch_fn=_t_gelu,
        name="fused_linear[gelu tanh, non-contiguous]",
    ),
    Sample(
        "fused_linear",
        F.fused_linear_gelu,
        (rnd(3), rnd(2, 3, seed=1), rnd(2, seed=2)),
        kwargs={"approximate": "tanh"},
        torch_fn=_t_gelu,
        name="fused_linear[gelu tanh, 1-D]",
    ),
]
