"""Registry-suite samples: the fused class-index losses (cross-entropy, NLL) and binary
cross-entropy."""

import numpy as np
import torch.nn.functional as TF

import lucid.nn.functional as F

from ._sample import Const, Sample, pos, rnd

_X = rnd(5, 4, low=-2, high=2)
_T = np.array([0, 3, 1, 3, 2])
_TI = np.array([0, -100, 1, 3, -100])  # two ignored
_W = pos(4)
_XK = rnd(2, 3, 2, 2)
_TK = np.array([[[0, 2], [1, 1]], [[2, 0], [0, 1]]])


def _like(x, ws):
    """torch wants the class weight in the input's dtype (Lucid casts it)."""
    return [w.to(x.dtype) for w in ws]


def _ce(**kw):
    return (
        lambda x, t, *w: F.cross_entropy(x, t, *w, **kw),
        lambda x, t, *w: TF.cross_entropy(x, t, *_like(x, w), **kw),
    )


def _nll(**kw):
    return (
        lambda x, t, *w: F.nll_loss(x, t, *w, **kw),
        lambda x, t, *w: TF.nll_loss(x, t, *_like(x, w), **kw),
    )


def _bce(**kw):
    return (
        lambda x, t, *w: F.binary_cross_entropy(x, t, *w, **kw),
        lambda x, t, *w: TF.binary_cross_entropy(x, t, *w, **kw),
    )


_P = rnd(3, 4, low=0.05, high=0.95)
_Y = rnd(3, 4, seed=1, low=0.0, high=1.0)


def _s(op, fns, args, name):
    return Sample(op, fns[0], args, torch_fn=fns[1], name=name)


SAMPLES = [
    _s("cross_entropy", _ce(), (_X, Const(_T)), "cross_entropy[mean]"),
    _s("cross_entropy", _ce(reduction="none"), (_X, Const(_T)), "cross_entropy[none]"),
    _s(
        "cross_entropy",
        _ce(reduction="sum", label_smoothing=0.3),
        (_X, Const(_T)),
        "cross_entropy[sum, smoothing]",
    ),
    _s(
        "cross_entropy",
        _ce(label_smoothing=0.2),
        (_X, Const(_TI), Const(_W)),
        "cross_entropy[weight, ignore, smoothing]",
    ),
    _s(
        "cross_entropy",
        _ce(reduction="none", label_smoothing=0.1),
        (_XK, Const(_TK)),
        "cross_entropy[K-dim]",
    ),
    _s("cross_entropy", _ce(reduction="none"), (rnd(4), Const(np.array(2))), "cross_entropy[(C,)]"),
    _s("nll_loss", _nll(), (_X, Const(_T)), "nll_loss[mean]"),
    _s(
        "nll_loss",
        _nll(reduction="none"),
        (_X, Const(_TI), Const(_W)),
        "nll_loss[none, weight, ignore]",
    ),
    _s("nll_loss", _nll(reduction="sum"), (_XK, Const(_TK)), "nll_loss[K-dim]"),
    _s("nll_loss", _nll(), (_X, Const(_TI), Const(_W)), "nll_loss[mean, weight]"),
    _s("binary_cross_entropy", _bce(reduction="none"), (_P, _Y), "bce[none]"),
    _s("binary_cross_entropy", _bce(), (_P, _Y, Const(pos(4))), "bce[mean, weight]"),
]
