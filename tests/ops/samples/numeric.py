"""Registry-suite samples for frexp, ldexp, nextafter, heaviside and the integer ops."""

import numpy as np
import torch

import lucid

from ._sample import Const, Sample, rnd

_INTS_A = np.array([[12, -18, 0, 7], [1, 100, -45, 9]], dtype=np.int64)
_INTS_B = np.array([[8, 12, 0, 21], [-3, 75, 30, 0]], dtype=np.int64)
_SHIFTS = np.array([0, 1, 3, 62], dtype=np.int64)
_AT_ZERO = np.array([-1.5, 0.0, 0.0, 2.0, 0.0])

SAMPLES = [
    Sample(
        "frexp",
        lambda x: tuple(lucid.frexp(x)),
        (rnd(3, 4, low=-8, high=8),),
        torch_fn=lambda x: tuple(torch.frexp(x)),
    ),
    Sample("ldexp", lucid.ldexp, (rnd(3, 4), rnd(4, seed=1, low=-2, high=2)), torch_fn=torch.ldexp),
    # torch's backward computes 2 ** (negative int) in integers (0), so no torch_fn here
    Sample(
        "ldexp",
        lucid.ldexp,
        (rnd(3, 4), Const(np.array([1, -2, 3, 0]))),
        name="ldexp[int exponent]",
    ),
    Sample(
        "nextafter",
        lucid.nextafter,
        (rnd(3, 4), Const(rnd(3, 4, seed=1))),
        torch_fn=None,
        gradgrad=True,
        atol=1e-5,
        rtol=1e-3,
    ),
    Sample("heaviside", lucid.heaviside, (Const(_AT_ZERO), rnd(5, seed=2))),
    Sample(
        "heaviside",
        lucid.heaviside,
        (rnd(5, seed=3), rnd(5, seed=2)),
        name="heaviside[away from 0]",
    ),
    Sample(
        "heaviside",
        lucid.heaviside,
        (Const(_AT_ZERO), Const(np.array([0.5]))),
        torch_fn=torch.heaviside,
        grad=False,
        name="heaviside[const]",
    ),
    Sample("gcd", lucid.gcd, (_INTS_A, _INTS_B), torch_fn=torch.gcd, grad=False),
    Sample("lcm", lucid.lcm, (_INTS_A, _INTS_B), torch_fn=torch.lcm, grad=False),
    Sample(
        "bitwise_left_shift",
        lucid.bitwise_left_shift,
        (_INTS_A[0], _SHIFTS),
        torch_fn=torch.bitwise_left_shift,
        grad=False,
    ),
    Sample(
        "bitwise_right_shift",
        lucid.bitwise_right_shift,
        (_INTS_A[1], _SHIFTS),
        torch_fn=torch.bitwise_right_shift,
        grad=False,
    ),
]
