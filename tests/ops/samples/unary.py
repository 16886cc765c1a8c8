"""Registry-suite samples for element-wise unary ops."""

import numpy as np
import torch

import lucid

from ._sample import Const, Sample, pos, rnd


def _away_from_ints(*shape, seed=0, scale=3.0):
    """Data in ``[-scale, scale)`` at least 0.05 from every integer (and half-integer),
    so finite differences of step functions never straddle a jump."""
    x = rnd(*shape, seed=seed, low=-scale, high=scale)
    return np.floor(x * 2) / 2 + 0.05 + 0.4 * (x * 2 - np.floor(x * 2)) / 2


def _special():
    return np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.5, 3e38])


def _simple(name, data, lfn=None, tfn=None, **kw):
    lfn = lfn or getattr(lucid, name)
    tfn = tfn or getattr(torch, name)
    return [
        Sample(name, lfn, (data,), torch_fn=tfn, **kw),
        Sample(name, lfn, (data.reshape(-1)[:1].reshape(()),), torch_fn=tfn, **kw),
    ]


_SMOOTH = [
    ("exp", rnd(3, 4)),
    ("exp2", rnd(3, 4)),
    ("expm1", rnd(3, 4)),
    ("log", pos(3, 4)),
    ("log2", pos(3, 4)),
    ("log10", pos(3, 4)),
    ("log1p", pos(3, 4)),
    ("sqrt", pos(3, 4)),
    ("rsqrt", pos(3, 4)),
    ("square", rnd(3, 4)),
    ("reciprocal", pos(3, 4)),
    ("sigmoid", rnd(3, 4, low=-4, high=4)),
    ("sin", rnd(3, 4, low=-4, high=4)),
    ("cos", rnd(3, 4, low=-4, high=4)),
    ("tan", rnd(3, 4)),
    ("asin", rnd(3, 4) * 0.9),
    ("acos", rnd(3, 4) * 0.9),
    ("atan", rnd(3, 4, low=-3, high=3)),
    ("sinh", rnd(3, 4)),
    ("cosh", rnd(3, 4)),
    ("tanh", rnd(3, 4, low=-2, high=2)),
    ("asinh", rnd(3, 4, low=-3, high=3)),
    ("acosh", pos(3, 4) + 1.0),
    ("atanh", rnd(3, 4) * 0.9),
    ("erf", rnd(3, 4, low=-3, high=3)),
    ("erfc", rnd(3, 4, low=-3, high=3)),
    ("erfinv", rnd(3, 4) * 0.9),
    ("neg", rnd(3, 4)),
    ("abs", rnd(3, 4)),
    ("relu", rnd(3, 4)),
    ("frac", _away_from_ints(3, 4)),
    ("sinc", rnd(3, 4, low=-2, high=2)),
]
_STEP = [
    ("sign", rnd(3, 4)),
    ("floor", _away_from_ints(3, 4)),
    ("ceil", _away_from_ints(3, 4)),
    ("round", _away_from_ints(3, 4)),
    ("trunc", _away_from_ints(3, 4)),
]
_PREDICATES = ["isnan", "isinf", "isposinf", "isneginf", "isfinite", "signbit"]

_SINC_AT_ZERO = np.array([0.0, 0.5, -1.25, 2.0])
_LOGIT = rnd(3, 4, low=0.05, high=0.95)


def _first_grad(fn):
    """``x -> d(sum fn(x) * w)/dx`` with create_graph: the backward op as a function
    (``fn`` a unary op's name, or "cube" / "root" for ``x ** 3`` / ``x ** 0.5``); ``w`` is
    the backward's grad_output, so complex ``x`` works too."""

    def first(x):
        lib = lucid if isinstance(x, lucid.Tensor) else torch
        w = lib.tensor(rnd(*x.shape, seed=5), dtype=x.dtype)
        with lib.enable_grad():  # gradcheck's finite differences run under no_grad
            x = x if x.requires_grad else x.detach().requires_grad_()
            y = x**3 if fn == "cube" else x**0.5 if fn == "root" else getattr(lib, fn)(x)
            (g,) = lib.autograd.grad(y, x, w, create_graph=True)
        return g

    return first


SAMPLES = (
    [s for name, data in _SMOOTH + _STEP for s in _simple(name, data)]
    + [
        Sample(
            "tanh_backward",
            _first_grad("tanh"),
            (rnd(3, 4, low=-2, high=2),),
            torch_fn=_first_grad("tanh"),
        ),
        Sample(
            "sigmoid_backward",
            _first_grad("sigmoid"),
            (rnd(3, 4, low=-3, high=3),),
            torch_fn=_first_grad("sigmoid"),
        ),
        Sample(
            "pow_scalar_backward", _first_grad("cube"), (rnd(3, 4),), torch_fn=_first_grad("cube")
        ),
        Sample(
            "pow_scalar_backward",
            _first_grad("root"),
            (pos(3, 2),),
            torch_fn=_first_grad("root"),
            name="pow_scalar_backward[p=0.5]",
        ),
        Sample("exp", lucid.exp, (rnd(0, 3),), torch_fn=torch.exp),
        Sample("tanh", lucid.tanh, (rnd(4, 3).T,), torch_fn=torch.tanh, name="tanh[transposed]"),
        # sinc's second derivative at 0 is masked to 0 (PyTorch), so no gradgrad there.
        Sample(
            "sinc",
            lucid.sinc,
            (_SINC_AT_ZERO,),
            torch_fn=torch.sinc,
            gradgrad=False,
            name="sinc[at 0]",
        ),
        Sample(
            "round",
            lucid.round,
            (rnd(3, 4, low=-20, high=20),),
            {"decimals": 1},
            torch_fn=torch.round,
            name="round[decimals=1]",
        ),
        Sample(
            "round",
            lucid.round,
            (rnd(3, 4, low=-2000, high=2000),),
            {"decimals": -2},
            torch_fn=torch.round,
            name="round[decimals=-2]",
        ),
        Sample("logit", lucid.logit, (_LOGIT,), torch_fn=torch.logit),
        Sample(
            "logit",
            lucid.logit,
            (_LOGIT,),
            {"eps": 0.3},
            torch_fn=torch.logit,
            name="logit[eps=0.3]",
        ),
        Sample(
            "clamp",
            lucid.clamp,
            (rnd(3, 4),),
            {"min": -0.5, "max": 0.4},
            torch_fn=torch.clamp,
            name="clamp[numbers]",
        ),
        Sample(
            "clamp",
            lucid.clamp,
            (rnd(3, 4),),
            {"max": 0.3},
            torch_fn=torch.clamp,
            name="clamp[max only]",
        ),
        Sample(
            "clamp",
            lambda x, lo, hi: lucid.clamp(x, lo, hi),
            (rnd(3, 4), rnd(4, seed=1, low=-0.8, high=0.0), rnd(3, 1, seed=2, low=0.0, high=0.8)),
            torch_fn=lambda x, lo, hi: torch.clamp(x, lo, hi),
            name="clamp[tensors]",
        ),
        Sample(
            "clamp",
            lambda x, lo, hi: lucid.clamp(x, lo, hi),
            (rnd(3, 4), rnd(3, 4, seed=1), rnd(3, 4, seed=2)),
            torch_fn=lambda x, lo, hi: torch.clamp(x, lo, hi),
            name="clamp[crossed bounds]",
        ),
        Sample(
            "clamp",
            lambda x, lo: lucid.clamp(x, min=lo),
            (rnd(2, 3), rnd(3, seed=4)),
            torch_fn=lambda x, lo: torch.clamp(x, min=lo),
            name="clamp[tensor min]",
        ),
        Sample(
            "clamp",
            lambda x, hi: lucid.clamp(x, max=hi),
            (rnd(2, 3), Const(rnd(3, seed=4))),
            torch_fn=lambda x, hi: torch.clamp(x, max=hi),
            name="clamp[const max]",
        ),
        Sample("nan_to_num", lucid.nan_to_num, (rnd(3, 4),), torch_fn=torch.nan_to_num),
        Sample(
            "nan_to_num",
            lucid.nan_to_num,
            (_special(),),
            {"nan": 1.0, "posinf": 2.0},
            torch_fn=torch.nan_to_num,
            grad=False,
            name="nan_to_num[special]",
        ),
    ]
    + [
        Sample(p, getattr(lucid, p), (_special(),), torch_fn=getattr(torch, p), grad=False)
        for p in _PREDICATES
    ]
)
