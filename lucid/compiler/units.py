"""The units of a recording: how their arguments are named, and a node's backward as one.

A unit is ``(fn, arg specs, kw specs, out spec)``. A *spec* says where a value is found at
replay: ``(SLOT, k)`` the buffer ``k`` (an earlier unit's output or a source read when the
replay starts), ``(CONST, v)`` the value itself, ``(SEQ, type, specs)`` and ``(DICT,
specs)`` containers of specs, ``(GEN, generator)`` a generator's current state (random
kernels draw afresh), ``(HYPER, group, key, index)`` an optimizer's hyperparameter as its
param group holds it now (a learning-rate schedule).
"""

from __future__ import annotations

from .._tensor import Tensor
from ..autograd.graph import Node

__all__ = [
    "SLOT",
    "CONST",
    "SEQ",
    "DICT",
    "GEN",
    "HYPER",
    "resolve",
    "bind",
    "slots_in",
    "reads",
    "BackwardUnit",
]

SLOT, CONST, SEQ, DICT, GEN, HYPER = range(6)

_wrap = Tensor._wrap
_APPLY_EAGER = Node.apply_eager


def resolve(s, env):
    """The value of spec ``s`` over the buffers ``env``."""
    k = s[0]
    if k == SLOT:
        return env[s[1]]
    if k == CONST:
        return s[1]
    if k == SEQ:
        return s[1](resolve(v, env) for v in s[2])
    if k == DICT:
        return {n: resolve(v, env) for n, v in s[1].items()}
    if k == HYPER:  # a param group's current value
        v = s[1][s[2]]
        return float(v if s[3] is None else v[s[3]])
    return s[1]._impl  # GEN: the generator's current state


def bind(s, out, env):
    """Store what a unit returned into the slots of its out spec ``s``."""
    k = s[0]
    if k == SLOT:
        env[s[1]] = out
    elif k == SEQ:
        for v, o in zip(s[2], out):
            bind(v, o, env)


def slots_in(s, acc):
    """Append the slots spec ``s`` reads to ``acc``; returns ``acc``."""
    k = s[0]
    if k == SLOT:
        acc.append(s[1])
    elif k == SEQ:
        for v in s[2]:
            slots_in(v, acc)
    elif k == DICT:
        for v in s[1].values():
            slots_in(v, acc)
    return acc


def reads(args, kw):
    """The slots a unit with arg specs ``args`` and kw specs ``kw`` reads."""
    acc: list = []
    for a in args:
        slots_in(a, acc)
    for v in (kw or {}).values():
        slots_in(v, acc)
    return acc


class BackwardUnit:
    """One node's eager backward at replay: a copy of the recorded node (its edges, input
    shapes, params) whose saved arrays, output and intermediates each replay rebinds from
    its buffers (and its params: a loss's target, an index) before calling
    :meth:`~lucid.autograd.graph.Node.apply_eager`."""

    __slots__ = ("node", "holders")

    def __init__(self, node):
        copy = object.__new__(type(node))
        for cls in type(node).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if name != "__weakref__" and hasattr(node, name):
                    object.__setattr__(copy, name, getattr(node, name))
        copy._versions = None
        copy._freed = False
        copy._hooks = copy._pre_hooks = copy._retain = None
        self.node = copy
        self.holders = tuple(
            None if t is None else _wrap(None, t._dtype, t._device) for t in node.saved or ()
        )

    def __call__(self, grads, saved, out, extra, params):
        node = self.node
        node.params = params
        hold = self.holders
        if hold:
            for h, a in zip(hold, saved):
                if h is not None:
                    h._data = a
            node.saved = hold
        node.out = out
        node.extra = extra
        try:
            return _APPLY_EAGER(node, grads)
        finally:
            node.out = node.extra = None
            for h in hold:
                if h is not None:
                    h._data = None

    def __repr__(self):
        return f"<backward of {self.node.name()}>"


_APPLY_EAGER = Node.apply_eager
