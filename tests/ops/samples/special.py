"""Registry-suite samples for the gamma family, the softmax family and logcumsumexp."""

import numpy as np
import torch

import lucid

from ._sample import Sample, pos, rnd

_X = rnd(3, 4, low=-3, high=3)

SAMPLES = [
    Sample("lgamma", lucid.lgamma, (pos(3, 4) * 3,), torch_fn=torch.lgamma),
    Sample(
        "lgamma",
        lucid.lgamma,
        (np.array([-2.5, -0.3, 0.7, 1.2, 2.0, 12.5]),),
        torch_fn=torch.lgamma,
        name="lgamma[reflection and series]",
    ),
    Sample("lgamma", lucid.lgamma, (np.array(4.25),), torch_fn=torch.lgamma),
    # torch's trigamma (digamma's gradient) is accurate to ~1e-9 only: no torch_fn on
    # digamma or polygamma(1) samples (test_surface_special.py checks them with tolerances)
    Sample("digamma", lucid.digamma, (pos(3, 4) * 3,)),
    Sample(
        "digamma", lucid.digamma, (np.array([-2.5, -0.3, 0.7, 15.0]),), name="digamma[negative]"
    ),
    Sample("polygamma", lambda x: lucid.polygamma(1, x), (pos(2, 3),)),
    Sample(
        "polygamma",
        lambda x: lucid.polygamma(2, x),
        (pos(2, 3) + 1,),
        torch_fn=lambda x: torch.polygamma(2, x),
        name="polygamma[n=2]",
    ),
    Sample(
        "softmax", lambda x: lucid.softmax(x, -1), (_X,), torch_fn=lambda x: torch.softmax(x, -1)
    ),
    Sample(
        "softmax",
        lambda x: lucid.softmax(x, 0),
        (rnd(4, 3).T,),
        torch_fn=lambda x: torch.softmax(x, 0),
        name="softmax[transposed]",
    ),
    Sample(
        "softmax",
        lambda x: lucid.softmax(x, 0),
        (np.array(1.5),),
        torch_fn=lambda x: torch.softmax(x, 0),
    ),
    Sample(
        "log_softmax",
        lambda x: lucid.log_softmax(x, 1),
        (rnd(2, 3, 4),),
        torch_fn=lambda x: torch.log_softmax(x, 1),
    ),
    Sample(
        "log_softmax",
        lambda x: lucid.log_softmax(x, -1),
        (rnd(0, 3),),
        torch_fn=lambda x: torch.log_softmax(x, -1),
    ),
    Sample(
        "logcumsumexp",
        lambda x: lucid.logcumsumexp(x, 1),
        (_X,),
        torch_fn=lambda x: torch.logcumsumexp(x, 1),
    ),
    Sample(
        "logcumsumexp",
        lambda x: lucid.logcumsumexp(x, 0),
        (rnd(5),),
        torch_fn=lambda x: torch.logcumsumexp(x, 0),
    ),
]
