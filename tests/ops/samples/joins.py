"""Registry-suite samples for joins and splits."""

from ._sample import Sample, rnd
from .shape import torch_or_lucid as _m


def _same(op, fn, args, **kw):
    return Sample(op, fn, args, torch_fn=fn, **kw)


SAMPLES = [
    _same("cat", lambda a, b, c: _m(a).cat([a, b, c], 1), (rnd(2, 1), rnd(2, 3), rnd(2, 2))),
    _same("cat", lambda a, b: _m(a).cat([a, b], -1), (rnd(2, 0), rnd(2, 3)), name="cat-empty"),
    _same("cat", lambda a, b: _m(a).hstack([a, b]), (rnd(3), rnd(2)), name="hstack"),
    _same("cat", lambda a, b: _m(a).vstack([a, b]), (rnd(3), rnd(2, 3)), name="vstack"),
    _same("cat", lambda a, b: _m(a).dstack([a, b]), (rnd(2, 3), rnd(2, 3, 2)), name="dstack"),
    _same("cat", lambda a, b: _m(a).column_stack([a, b]), (rnd(3), rnd(3, 2)), name="column_stack"),
    _same("stack", lambda a, b: _m(a).stack([a, b], -1), (rnd(2, 3), rnd(2, 3))),
    _same("split", lambda x: x.split(2, 1), (rnd(3, 5),)),
    _same("split", lambda x: x.split([1, 3], 0)[1], (rnd(4, 2),), name="split-one-used"),
    _same("split", lambda x: x.chunk(3, -1)[::2], (rnd(2, 7),), name="chunk"),
    _same("split", lambda x: x.tensor_split(3, 0), (rnd(7, 2),), name="tensor_split"),
    _same(
        "narrow", lambda x: x.tensor_split([3, 1], 0), (rnd(5, 2),), name="tensor_split-unsorted"
    ),
    _same("unbind", lambda x: x.unbind(1), (rnd(2, 3),)),
    _same("unbind", lambda x: x.unbind(0)[1], (rnd(3, 2),), name="unbind-one-used"),
]
