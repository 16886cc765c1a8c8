"""Registry-suite samples: the straight-through estimator of vector quantisation and the
symlog / symexp value transforms."""

import torch

import lucid.nn.functional as F

from ._sample import Sample, rnd


def _t_symlog(x):
    return torch.sign(x) * torch.log1p(x.abs())


def _t_symexp(x):
    return torch.sign(x) * torch.expm1(x.abs())


def _t_straight_through(hard, soft):
    return soft + (hard - soft).detach()


# straight_through's gradient is by definition not its derivative (identity for soft,
# where the value does not depend on soft): no gradcheck (grad=False); its gradients, eager and
# graph mode, are tested against torch's composition in tests/nn/test_vq.py
SAMPLES = [
    Sample(
        "straight_through",
        F.straight_through,
        (rnd(3, 4), rnd(3, 4, seed=1)),
        torch_fn=_t_straight_through,
        grad=False,
        name="straight_through[same shape]",
    ),
    Sample(
        "straight_through",
        F.straight_through,
        (rnd(3, 1), rnd(4, seed=1)),
        torch_fn=_t_straight_through,
        grad=False,
        name="straight_through[broadcast]",
    ),
    Sample("symlog", F.symlog, (3 * rnd(4, 5),), torch_fn=_t_symlog),
    Sample("symlog", F.symlog, (rnd(),), torch_fn=_t_symlog, name="symlog[0-d]"),
    Sample("symexp", F.symexp, (2 * rnd(4, 5),), torch_fn=_t_symexp),
    Sample("symexp", F.symexp, (rnd(3, 4).T,), torch_fn=_t_symexp, name="symexp[non-contiguous]"),
]
