"""Registry-suite samples for sort and search."""

import numpy as np
import torch

import lucid

from ._sample import Const, Sample, rnd

_INTS = np.array([[3, 1, 2, 1, 3], [0, 0, 2, 2, 1]])
_SEQ = np.sort(rnd(2, 6, seed=4), axis=-1)

SAMPLES = [
    Sample("sort", lucid.sort, (rnd(3, 5),), torch_fn=torch.sort),
    Sample(
        "sort", lucid.sort, (rnd(3, 5),), kwargs={"dim": 0, "descending": True}, torch_fn=torch.sort
    ),
    Sample("topk", lucid.topk, (rnd(3, 5),), kwargs={"k": 2}, torch_fn=torch.topk),
    Sample(
        "topk",
        lucid.topk,
        (rnd(4, 3),),
        kwargs={"k": 3, "dim": 0, "largest": False},
        torch_fn=torch.topk,
    ),
    Sample("kthvalue", lucid.kthvalue, (rnd(3, 5),), kwargs={"k": 2}, torch_fn=torch.kthvalue),
    Sample(
        "kthvalue",
        lucid.kthvalue,
        (rnd(4, 3),),
        kwargs={"k": 4, "dim": 0, "keepdim": True},
        torch_fn=torch.kthvalue,
    ),
    Sample(
        "unique",
        lucid.unique,
        (Const(_INTS),),
        kwargs={"return_inverse": True, "return_counts": True},
        torch_fn=torch.unique,
    ),
    Sample(
        "unique",
        lucid.unique,
        (Const(_INTS),),
        kwargs={"dim": 1, "return_inverse": True},
        torch_fn=torch.unique,
        name="unique[dim=1]",
    ),
    Sample(
        "unique_consecutive",
        lucid.unique_consecutive,
        (Const(_INTS),),
        kwargs={"return_inverse": True, "return_counts": True},
        torch_fn=torch.unique_consecutive,
    ),
    Sample(
        "searchsorted",
        lucid.searchsorted,
        (Const(_SEQ), Const(rnd(2, 4, seed=5))),
        torch_fn=torch.searchsorted,
    ),
    Sample(
        "searchsorted",
        lucid.searchsorted,
        (Const(_SEQ[0]), Const(rnd(3, 2, seed=5))),
        kwargs={"right": True},
        torch_fn=torch.searchsorted,
    ),
    Sample("histc", lucid.histc, (rnd(50),), kwargs={"bins": 7}, torch_fn=torch.histc),
    Sample(
        "histc",
        lucid.histc,
        (rnd(4, 5),),
        kwargs={"bins": 4, "min": -0.5, "max": 0.5},
        torch_fn=torch.histc,
    ),
    Sample(
        "bincount",
        lucid.bincount,
        (Const(_INTS[0]),),
        kwargs={"minlength": 6},
        torch_fn=torch.bincount,
    ),
    Sample("bincount", lucid.bincount, (Const(_INTS[1]), rnd(5)), torch_fn=torch.bincount),
]
