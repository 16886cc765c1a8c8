"""Registry-suite samples for reductions and scans."""

import numpy as np
import torch

import lucid

from ._sample import Sample, pos, rnd


def _zeros(*shape, at=(0,), seed=0):
    """Random data with zeros at the given flat positions (prod/cumprod gradients)."""
    a = rnd(*shape, seed=seed)
    a.reshape(-1)[list(at)] = 0.0
    return a


def _with_nan(*shape):
    a = rnd(*shape)
    a.reshape(-1)[[1, 4]] = np.nan
    return a


INF = float("inf")

SAMPLES = [
    Sample("sum", lucid.sum, (rnd(3, 4),), torch_fn=torch.sum),
    Sample(
        "sum", lucid.sum, (rnd(2, 3, 4),), {"dim": (0, -1), "keepdim": True}, torch_fn=torch.sum
    ),
    Sample("sum", lucid.sum, (rnd(2, 3),), {"dim": 1}, torch_fn=torch.sum),
    Sample("mean", lucid.mean, (rnd(3, 4),), torch_fn=torch.mean),
    Sample(
        "mean", lucid.mean, (rnd(2, 3, 4),), {"dim": (-1, 0), "keepdim": True}, torch_fn=torch.mean
    ),
    Sample("prod", lucid.prod, (rnd(2, 3),), torch_fn=torch.prod),
    Sample("prod", lucid.prod, (rnd(3, 4),), {"dim": -1}, torch_fn=torch.prod),
    Sample(
        "prod",
        lucid.prod,
        (_zeros(3, 4, at=(1, 5, 6)),),
        {"dim": 1, "keepdim": True},
        torch_fn=torch.prod,
        name="prod[zeros]",
    ),
    Sample(
        "prod", lucid.prod, (_zeros(2, 3, at=(2,)),), torch_fn=torch.prod, name="prod[one zero]"
    ),
    Sample("nansum", lucid.nansum, (_with_nan(3, 4),), {"dim": 1}, torch_fn=torch.nansum),
    Sample("nanmean", lucid.nanmean, (_with_nan(3, 4),), {"dim": 0}, torch_fn=torch.nanmean),
    Sample("amax", lucid.amax, (rnd(3, 4),), {"dim": (0, 1)}, torch_fn=torch.amax),
    Sample("amax", lucid.amax, (rnd(3, 4),), {"dim": 1, "keepdim": True}, torch_fn=torch.amax),
    Sample("amin", lucid.amin, (rnd(3, 4),), {"dim": -1}, torch_fn=torch.amin),
    Sample("median_all", lucid.median, (rnd(3, 5),), torch_fn=torch.median),
    Sample("max", lucid.max, (rnd(3, 4),), {"dim": 1}, torch_fn=torch.max),
    Sample("max", lucid.max, (rnd(3, 4),), {"dim": 0, "keepdim": True}, torch_fn=torch.max),
    Sample("min", lucid.min, (rnd(3, 4),), {"dim": -1}, torch_fn=torch.min),
    Sample("median", lucid.median, (rnd(3, 5),), {"dim": 1}, torch_fn=torch.median),
    Sample(
        "median", lucid.median, (rnd(4, 3),), {"dim": 0, "keepdim": True}, torch_fn=torch.median
    ),
    # distinct values tie in count: torch's choice is unspecified, Lucid documents the
    # smallest; no torch parity here (tests/ops/test_reduction.py checks the rule)
    Sample("mode", lucid.mode, (rnd(3, 4),), {"dim": 1}),
    Sample("cummax", lucid.cummax, (rnd(3, 5),), {"dim": 1}, torch_fn=torch.cummax),
    Sample("cummin", lucid.cummin, (rnd(4, 3),), {"dim": 0}, torch_fn=torch.cummin),
    Sample("var", lucid.var, (rnd(3, 4),), torch_fn=torch.var),
    Sample(
        "var",
        lucid.var,
        (rnd(3, 4),),
        {"dim": 1, "correction": 0, "keepdim": True},
        torch_fn=torch.var,
    ),
    Sample("std", lucid.std, (rnd(3, 4),), {"dim": (0, 1)}, torch_fn=torch.std),
    Sample("std", lucid.std, (rnd(3, 4),), {"dim": 0, "correction": 2}, torch_fn=torch.std),
    Sample("logsumexp", lucid.logsumexp, (rnd(3, 4),), {"dim": 1}, torch_fn=torch.logsumexp),
    Sample(
        "logsumexp",
        lucid.logsumexp,
        (rnd(2, 3, 4) * 50,),
        {"dim": (0, 2), "keepdim": True},
        torch_fn=torch.logsumexp,
    ),
    Sample("norm", lucid.norm, (rnd(3, 4),), torch_fn=torch.norm),
    Sample("norm", lucid.norm, (rnd(3, 4),), {"p": 1, "dim": 1}, torch_fn=torch.norm),
    Sample("norm", lucid.norm, (rnd(3, 4),), {"p": INF, "dim": 0}, torch_fn=torch.norm),
    Sample("norm", lucid.norm, (rnd(3, 4),), {"p": -INF}, torch_fn=torch.norm),
    Sample(
        "norm", lucid.norm, (rnd(3, 4),), {"p": 3, "dim": -1, "keepdim": True}, torch_fn=torch.norm
    ),
    Sample("norm", lucid.norm, (pos(3, 4),), {"p": 0.5, "dim": 1}, torch_fn=torch.norm),
    Sample("norm", lucid.norm, (rnd(3, 4),), {"p": 1.5}, torch_fn=torch.norm),
    Sample("norm", lucid.norm, (rnd(3, 4),), {"p": 0}, torch_fn=torch.norm),
    Sample("norm", lucid.norm, (rnd(2, 3, 4),), {"p": "fro", "dim": (0, 2)}, torch_fn=torch.norm),
    Sample("all", lucid.all, (rnd(3, 4),), {"dim": 1}, torch_fn=torch.all, grad=False),
    Sample("any", lucid.any, (rnd(3, 4),), torch_fn=torch.any, grad=False),
    Sample(
        "count_nonzero",
        lucid.count_nonzero,
        (_zeros(3, 4, at=(0, 5)),),
        {"dim": 0},
        torch_fn=torch.count_nonzero,
        grad=False,
    ),
    Sample("argmax", lucid.argmax, (rnd(3, 4),), {"dim": 1}, torch_fn=torch.argmax, grad=False),
    Sample("argmin", lucid.argmin, (rnd(3, 4),), torch_fn=torch.argmin, grad=False),
    Sample("cumsum", lucid.cumsum, (rnd(3, 4),), {"dim": 1}, torch_fn=torch.cumsum),
    Sample("cumsum", lucid.cumsum, (rnd(3, 4),), {"dim": -2}, torch_fn=torch.cumsum),
    Sample("cumprod", lucid.cumprod, (rnd(3, 4),), {"dim": 1}, torch_fn=torch.cumprod),
    Sample(
        "cumprod",
        lucid.cumprod,
        (_zeros(3, 5, at=(1, 3, 6, 14)),),
        {"dim": 1},
        torch_fn=torch.cumprod,
        name="cumprod[zeros]",
    ),
    Sample("diff", lucid.diff, (rnd(3, 5),), torch_fn=torch.diff),
    Sample("diff", lucid.diff, (rnd(4, 3),), {"n": 2, "dim": 0}, torch_fn=torch.diff),
]
