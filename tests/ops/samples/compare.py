"""Registry-suite samples for comparison and logic ops (not differentiable: parity only)."""

import numpy as np
import torch

import lucid

from ._sample import Sample, rnd

_A = np.array([[0.5, -1.0, 2.0, 0.0], [3.0, 0.5, -2.0, 1.0], [0.0, 0.0, 1.5, -0.5]])
_B = np.array([0.5, 2.0, -2.0, 0.0])
_I = np.array([[3, -4, 0, 7], [1, 2, -8, 5]], dtype=np.int64)
_J = np.array([6, 5, -1, 7], dtype=np.int64)


def _cmp(name, a=_A, b=_B):
    return Sample(name, getattr(lucid, name), (a, b), torch_fn=getattr(torch, name), grad=False)


SAMPLES = (
    [
        _cmp(n)
        for n in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor")
    ]
    + [_cmp(n, _I, _J) for n in ("bitwise_and", "bitwise_or", "bitwise_xor")]
    + [
        Sample(
            "lt",
            lambda a: a < 0.25,
            (_A,),
            torch_fn=lambda a: a < 0.25,
            grad=False,
            name="lt[scalar]",
        ),
        Sample("logical_not", lucid.logical_not, (_A,), torch_fn=torch.logical_not, grad=False),
        Sample("bitwise_not", lucid.bitwise_not, (_I,), torch_fn=torch.bitwise_not, grad=False),
        Sample(
            "isclose",
            lucid.isclose,
            (_A, _A + rnd(3, 4) * 1e-3),
            {"rtol": 1e-3, "atol": 1e-4},
            torch_fn=torch.isclose,
            grad=False,
        ),
        Sample("isin", lucid.isin, (_A, _B), torch_fn=torch.isin, grad=False),
    ]
)
