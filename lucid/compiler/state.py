"""The tensors that live across calls, and what a recorded call did to them.

A :class:`Snapshot` is taken when a recording starts: every live tensor and generator
(found once through the garbage collector's list of objects), with each tensor's array,
``.grad``, version and history. It names the *source* of an array that existed before the
call — an argument's, a gradient's (read through the tensor it belongs to, since
``zero_grad`` replaces ``.grad``), or a tensor's (a parameter, a buffer, an optimizer
state) — and, when the call is over, lists its *effects*: the tensors whose array or
``.grad`` was replaced and the version counters that moved. A replay reads the sources
before its first unit and applies the effects after its last.
"""

from __future__ import annotations

import gc

from .._tensor import Tensor
from ..random import Generator

__all__ = ["Snapshot", "ARG", "DATA", "GRAD"]

ARG, DATA, GRAD = range(3)  # source kinds: argument i's array, a tensor's, a .grad's


class Snapshot:
    """Every live tensor and generator before a recorded call (see the module doc)."""

    def __init__(self, args):
        tensors = []
        gens = {}
        for o in gc.get_objects():
            c = type(o)  # (not isinstance: a lazy module's proxy answers __class__ itself)
            if issubclass(c, Tensor):
                tensors.append(o)
            elif c is Generator:
                gens[id(o._impl)] = o
        self.generators = gens
        self.before = [(t, t._data, t._grad, t._vc[0], t._grad_fn) for t in tensors]
        grad_of = {id(t._grad): t for t in tensors if t._grad is not None}
        owner: dict = {}  # id(array) -> source, by preference: argument, gradient, tensor
        for t in tensors:
            p = grad_of.get(id(t))
            if p is not None:
                owner[id(t._data)] = (GRAD, p)
        for t in tensors:
            owner.setdefault(id(t._data), (DATA, t))
        for i, t in enumerate(args):
            owner[id(t._data)] = (ARG, i)
        self.owner = owner
        self.known = {id(t) for t in tensors}

    def source_of(self, a):
        """Where array ``a`` is found at replay, or None if no tensor held it."""
        return self.owner.get(id(a))

    def effects(self, rec):
        """What the call did to the tensors that existed before it, as replayable effects:
        ``(DATA, t, slot)`` (``t``'s array replaced), ``(GRAD, t, spec)`` (its ``.grad``
        replaced: None, an earlier tensor, or a new one over a slot), ``("vc", counter,
        delta)``. A change a replay cannot make (history recorded on such a tensor, an
        array that is neither a slot nor a source) is a graph break."""
        out = []
        counters = set()
        for t, data, grad, version, fn in self.before:
            if t._data is not data:
                out.append((DATA, t, self._slot(rec, t._data)))
            g = t._grad
            if g is not grad:
                if g is None or id(g) in self.known:
                    out.append((GRAD, t, (None, g)))
                else:
                    out.append((GRAD, t, (self._slot(rec, g._data), g._dtype, g._device)))
            vc = t._vc
            if vc[0] != version and id(vc) not in counters:
                counters.add(id(vc))
                out.append(("vc", vc, vc[0] - version))
            if t._grad_fn is not fn:
                rec.graph_break(
                    "an in-place operation recorded autograd history on a tensor that exists "
                    "across calls"
                )
        return out

    @staticmethod
    def _slot(rec, a):
        k = rec.slots.get(id(a))
        if k is None:
            k = rec.slot_of(a)
        return k
