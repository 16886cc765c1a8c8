"""Registry-suite samples for indexing: views by basic indices, advanced indexing, index-put
(``__setitem__`` and every scatter-like op), masked fill, scatter_reduce, nonzero."""

import numpy as np
import torch

import lucid

from ._sample import Const, Sample, rnd

_I = np.array([[0, 2, 1, 2], [1, 1, 0, 0]])  # duplicates along dim 1 of (2, 3)
_MASK = np.array([[True, False, True], [False, False, True]])
_ZERO1 = np.array([[2.0, 0.0, -1.5, 1.2], [0.0, 3.0, 0.5, -2.0]])  # one zero per group
_ZERO2 = np.array([[2.0, 0.0, -1.5, 0.0], [0.0, 3.0, 0.5, -2.0]])  # two zeros in a group


def _same(op, fn, args, **kw):
    """A sample whose Lucid and torch calls are spelled the same."""
    return Sample(op, fn, args, torch_fn=fn, **kw)


def _set(index):
    """``y = x * 1; y[index] = v; y`` as a function of ``(x, v)``."""

    def fn(x, v):
        y = x * 1
        y[index] = v
        return y

    return fn


def _lib(t):
    return torch if isinstance(t, torch.Tensor) else lucid


def _reduce(reduce, include_self, src=None, name="", **kw):
    # PyTorch has no complex autograd for scatter_reduce (tests/test_complex.py checks
    # Lucid's against finite differences)
    kw.setdefault("complex", False)
    return _same(
        "scatter_reduce",
        lambda x, s, i: x.scatter_reduce(1, i, s, reduce, include_self=include_self),
        (rnd(2, 3), rnd(2, 4, seed=1) if src is None else src, _I),
        name=f"scatter_reduce[{reduce},{include_self}{name}]",
        **kw,
    )


SAMPLES = [
    _same("slice", lambda x: x[1, ::2, None], (rnd(3, 4),)),
    _same("slice", lambda x: x[..., 1:3][0], (rnd(2, 3, 4),), name="slice-chain"),
    _same("slice", lambda x: x[-1, -3:], (rnd(3, 4),), name="slice-negative"),
    _same("index", lambda x, i: x[i], (rnd(3, 4), np.array([2, 0, 2])), name="index-dup"),
    _same("index", lambda x: x[:, [[0, 1], [3, 3]], 1], (rnd(2, 4, 3),), name="index-2d"),
    _same("index", lambda x: x[[0, 1], :, [2, 0]], (rnd(2, 4, 3),), name="index-separated"),
    _same("index", lambda x, m: x[m], (rnd(2, 3), _MASK), name="index-mask"),
    _same("index", lambda x, i: x.gather(1, i), (rnd(2, 3), _I), name="gather"),
    _same(
        "index",
        lambda x: x.index_select(-1, torch_or_lucid(x).tensor([2, 0, 2])),
        (rnd(2, 3),),
        name="index_select",
    ),
    _same("index", lambda x, i: x.take(i), (rnd(2, 3), np.array([[5, -1], [0, 5]])), name="take"),
    _same(
        "index",
        lambda x, i: x.take_along_dim(i, 0),
        (rnd(3, 1), np.array([[2, 0, 1]])),
        name="take_along_dim",
    ),
    _same("index", lambda x, m: x.masked_select(m), (rnd(3), _MASK), name="masked_select"),
    _same("index_put", _set((1, slice(None, 3))), (rnd(3, 4), rnd(3, seed=1)), name="setitem-view"),
    _same(
        "index_put", _set((slice(None), [2, 0])), (rnd(3, 4), rnd(3, 1, seed=1)), name="setitem-adv"
    ),
    _same("index_put", _set(_MASK), (rnd(2, 3), rnd(1, seed=1)), name="setitem-mask"),
    _same(
        "index_put",
        lambda x, s, i: x.scatter(1, i, s),
        (rnd(2, 3), rnd(2, 2), np.array([[0, 2], [1, 0]])),
        name="scatter",
    ),
    _same(
        "index_put",
        lambda x, s, i: x.scatter_add(1, i, s),
        (rnd(2, 3), rnd(2, 4), _I),
        name="scatter_add",
    ),
    _same(
        "index_put",
        lambda x, s: x.index_add(0, torch_or_lucid(x).tensor([1, 1, 0]), s, alpha=2.0),
        (rnd(2, 3), rnd(3, 3, seed=1)),
        name="index_add",
    ),
    _same(
        "index_put",
        lambda x, s: x.index_copy(1, torch_or_lucid(x).tensor([2, 0]), s),
        (rnd(2, 3), rnd(2, 2, seed=1)),
        name="index_copy",
    ),
    _same(
        "index_put",
        lambda x, v: x.index_fill(1, torch_or_lucid(x).tensor([0, 2]), v),
        (rnd(2, 3), rnd()),
        name="index_fill",
    ),
    _same(
        "index_put",
        lambda x, m, s: x.masked_scatter(m, s),
        (rnd(3), _MASK, rnd(5, seed=1)),
        name="masked_scatter",
    ),
    _same(
        "index_put",
        lambda x, s: x.put(torch_or_lucid(x).tensor([4, 0, 4]), s, accumulate=True),
        (rnd(2, 3), rnd(3, seed=1)),
        name="put",
    ),
    _same(
        "index_put",
        lambda x, v: x.index_put((torch_or_lucid(x).tensor([0, 1, 0]),), v, accumulate=True),
        (rnd(2, 3), rnd(3, seed=1)),
        name="index_put-accumulate",
    ),
    _same("masked_fill", lambda x, m, v: x.masked_fill(m, v), (rnd(3), _MASK, rnd())),
    _same(
        "masked_fill",
        lambda x, m: x.masked_fill(m, 2.5),
        (rnd(2, 3), _MASK),
        name="masked_fill-scalar",
    ),
    _reduce("sum", True),
    _reduce("sum", False),
    _reduce("mean", True),
    _reduce("mean", False),
    _reduce("amax", True),
    _reduce("amin", False),
    _reduce("prod", True),
    _reduce("prod", False, _ZERO1, "-zero"),
    _reduce("prod", True, _ZERO1, "-zero"),
    _reduce("prod", True, _ZERO2, "-zeros", gradgrad=False),
    _same("nonzero", lambda x: x.nonzero(), (Const(_MASK * rnd(2, 3)),), grad=False),
    _same(
        "nonzero",
        lambda x: _lib(x).argwhere(x),
        (Const(np.array([0.0, 1.0, 0.0])),),
        grad=False,
        name="argwhere",
    ),
]


def torch_or_lucid(x):
    """The module (torch or lucid) a tensor comes from, to spell a call once."""
    return _lib(x)
