"""Registry-suite samples for element-wise binary and ternary ops."""

import numpy as np
import torch

import lucid

from ._sample import Const, Sample, pos, rnd

_MASK = np.array(
    [[True, False, True, True], [False, True, False, False], [True, True, False, True]]
)


def _floor(a, b):
    return (lucid if isinstance(a, lucid.Tensor) else torch).div(a, b, rounding_mode="floor")


def _trunc(a, b):
    return (lucid if isinstance(a, lucid.Tensor) else torch).div(a, b, rounding_mode="trunc")


SAMPLES = [
    Sample("add", lucid.add, (rnd(3, 4), rnd(4, seed=1)), torch_fn=torch.add),
    Sample("add", lucid.add, (rnd(2, 1, 3), rnd(4, 1, seed=1)), {"alpha": 2.5}, torch_fn=torch.add),
    Sample("mul", lucid.mul, (rnd(3, 4), rnd(3, 1, seed=1)), torch_fn=torch.mul),
    Sample("mul_scalar", lambda x: x * 2.5, (rnd(3, 4),), torch_fn=lambda x: x * 2.5),
    Sample("mul_scalar", lambda x: -3 * x, (rnd(),), torch_fn=lambda x: -3 * x, name="rmul_scalar"),
    Sample(
        "add_scalar",
        lambda x: (x + 1.5).add(2, alpha=-0.5),
        (rnd(2, 3),),
        torch_fn=lambda x: (x + 1.5).add(2, alpha=-0.5),
    ),
    Sample("add_scalar", lambda x: 2 + x, (rnd(4),), torch_fn=lambda x: 2 + x, name="radd_scalar"),
    Sample(
        "sub_scalar",
        lambda x: (x - 0.25).sub(3, alpha=2),
        (rnd(2, 3),),
        torch_fn=lambda x: (x - 0.25).sub(3, alpha=2),
    ),
    Sample("rsub_scalar", lambda x: 1 - x, (rnd(3),), torch_fn=lambda x: 1 - x),
    Sample(
        "rsub_scalar",
        lambda x: (
            lucid.rsub(x, 2.5, alpha=-2)
            if isinstance(x, lucid.Tensor)
            else torch.rsub(x, 2.5, alpha=-2)
        ),
        (rnd(2, 2),),
        torch_fn=lambda x: torch.rsub(x, 2.5, alpha=-2),
        name="rsub_scalar-alpha",
    ),
    Sample("div_scalar", lambda x: x / 4 / -0.5, (rnd(3, 2),), torch_fn=lambda x: x / 4 / -0.5),
    Sample("mul", lucid.mul, (rnd(), rnd(2, 3, seed=1)), torch_fn=torch.mul),
    Sample("sub", lucid.sub, (rnd(3, 4), rnd(4, seed=1)), torch_fn=torch.sub),
    Sample(
        "sub", lucid.sub, (rnd(2, 1, 3), rnd(4, 1, seed=1)), {"alpha": -1.5}, torch_fn=torch.sub
    ),
    Sample(
        "sub",
        lucid.rsub,
        (rnd(3, 2), rnd(2, seed=1)),
        {"alpha": 2.0},
        torch_fn=torch.rsub,
        name="rsub",
    ),
    Sample("div", lucid.div, (rnd(3, 4), pos(4, seed=1)), torch_fn=torch.div),
    Sample("div", lucid.div, (rnd(), pos(2, 3, seed=1)), torch_fn=torch.div, name="div[0d,(2,3)]"),
    Sample(
        "div_rounding",
        _floor,
        (rnd(3, 4, low=-5, high=5), pos(4, seed=1)),
        torch_fn=_floor,
        name="div_floor",
    ),
    Sample(
        "div_rounding",
        _trunc,
        (rnd(3, 4, low=-5, high=5), rnd(3, 1, seed=1)),
        torch_fn=_trunc,
        name="div_trunc",
    ),
    Sample("pow", lucid.pow, (pos(3, 4), rnd(4, seed=1, low=-2, high=2)), torch_fn=torch.pow),
    Sample("pow", lucid.pow, (pos(2, 3), rnd(seed=1)), torch_fn=torch.pow, name="pow[(2,3),0d]"),
    Sample(
        "pow",
        lambda b: lucid.pow(1.7, b),
        (rnd(2, 3),),
        torch_fn=lambda b: torch.pow(1.7, b),
        name="pow_scalar_base",
    ),
    Sample(
        "pow_scalar", lambda x: lucid.pow(x, 3), (rnd(3, 4),), torch_fn=lambda x: torch.pow(x, 3)
    ),
    Sample(
        "pow_scalar",
        lambda x: x**-1.5,
        (pos(5),),
        torch_fn=lambda x: x**-1.5,
        name="pow_scalar[-1.5]",
    ),
    Sample("pow_scalar", lambda x: x**0, (rnd(4),), torch_fn=lambda x: x**0, name="pow_scalar[0]"),
    Sample(
        "remainder",
        lucid.remainder,
        (rnd(3, 4, low=-5, high=5), rnd(4, seed=1)),
        torch_fn=torch.remainder,
    ),
    Sample("fmod", lucid.fmod, (rnd(3, 4, low=-5, high=5), rnd(3, 1, seed=1)), torch_fn=torch.fmod),
    Sample("atan2", lucid.atan2, (rnd(3, 4), rnd(4, seed=1)), torch_fn=torch.atan2),
    Sample("hypot", lucid.hypot, (rnd(3, 4), rnd(3, 1, seed=1)), torch_fn=torch.hypot),
    Sample("maximum", lucid.maximum, (rnd(3, 4), rnd(4, seed=1)), torch_fn=torch.maximum),
    Sample("minimum", lucid.minimum, (rnd(3, 4), rnd(3, 1, seed=1)), torch_fn=torch.minimum),
    Sample("fmax", lucid.fmax, (rnd(3, 4), rnd(4, seed=1)), torch_fn=torch.fmax),
    Sample("fmin", lucid.fmin, (rnd(2, 3), rnd(2, 3, seed=1)), torch_fn=torch.fmin),
    Sample("logaddexp", lucid.logaddexp, (rnd(3, 4), rnd(4, seed=1)), torch_fn=torch.logaddexp),
    Sample(
        "logaddexp2", lucid.logaddexp2, (rnd(3, 4), rnd(3, 1, seed=1)), torch_fn=torch.logaddexp2
    ),
    Sample("xlogy", lucid.xlogy, (rnd(3, 4), pos(4, seed=1)), torch_fn=torch.xlogy),
    Sample("copysign", lucid.copysign, (rnd(3, 4), rnd(4, seed=1)), torch_fn=torch.copysign),
    Sample("lerp", lucid.lerp, (rnd(3, 4), rnd(4, seed=1), rnd(3, 1, seed=2)), torch_fn=torch.lerp),
    Sample(
        "lerp",
        lucid.lerp,
        (rnd(2, 3), rnd(2, 3, seed=1), 0.7),
        torch_fn=torch.lerp,
        name="lerp[scalar weight]",
    ),
    Sample(
        "addcmul",
        lucid.addcmul,
        (rnd(3, 4), rnd(4, seed=1), rnd(3, 1, seed=2)),
        {"value": 0.5},
        torch_fn=torch.addcmul,
    ),
    Sample(
        "addcdiv",
        lucid.addcdiv,
        (rnd(3, 4), rnd(4, seed=1), pos(3, 1, seed=2)),
        {"value": -2.0},
        torch_fn=torch.addcdiv,
    ),
    Sample("where", lucid.where, (Const(_MASK), rnd(3, 4), rnd(4, seed=1)), torch_fn=torch.where),
    Sample(
        "where",
        lucid.where,
        (Const(_MASK[:, :1]), rnd(3, 4), 0.5),
        torch_fn=torch.where,
        name="where[scalar other]",
    ),
]
