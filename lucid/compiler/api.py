"""``lucid.compile``: record a call once, replay it for every later call of the same
signature.

:class:`CompiledFunction` wraps a function (or a module's call). Per call it computes the
signature (:mod:`.guards`); the first call of a signature runs eagerly while a
:class:`~lucid.compiler.recorder.Recorder` writes down its units, and becomes a
:class:`~lucid.compiler.program.Program` unless something in it cannot be replayed (a graph
break: that signature then always runs eagerly, and :func:`stats` says why and where).
Later calls of the signature replay the program. A call that set up new state (an
optimizer's first step makes its moments) is recorded again next time, since the state it
made is not remade by a replay.
"""

from __future__ import annotations

import functools
import weakref

from .._state import STATE
from .._tensor import Tensor
from ..autograd.engine import run_backward
from ..autograd.graph import AccumulateGrad
from ..errors import ArgumentError
from .guards import signature, stateful_objects
from .program import Program, Stale, make_backward_node
from .recorder import ACTIVE, Recorder
from .cudagraph import try_capture
from .state import ARG, Snapshot
from .units import reads

__all__ = ["CompiledFunction", "STATS", "ALL"]

_MODES = (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")

#: every compiled function alive (``lucid.compiler.reset`` empties their caches)
ALL: weakref.WeakSet = weakref.WeakSet()

_BROKEN = "broken"  # a cache entry: this signature runs eagerly


def _new_stats():
    return {
        "calls": 0,
        "captures": 0,
        "replays": 0,
        "eager_calls": 0,
        "recompiles": 0,
        "cache_limit_hits": 0,
        "cudagraph_replays": 0,
        "cudagraph_fallbacks": [],
        "graph_breaks": [],
    }


STATS = _new_stats()


class CompiledFunction:
    """A function with a cache of recordings, one per signature (see the module doc)."""

    def __init__(self, fn, *, fullgraph=False, dynamic=None, mode=None, cache_size_limit=8):
        if mode not in _MODES:
            raise ArgumentError(
                f"lucid.compile: unknown mode {mode!r}; expected one of "
                + ", ".join(repr(m) for m in _MODES)
            )
        self.fn = fn
        self.fullgraph = bool(fullgraph)
        self.dynamic = dynamic
        self.mode = mode
        self.cudagraphs = mode in ("reduce-overhead", "max-autotune")
        self.cache_size_limit = cache_size_limit
        self.cache: dict = {}
        self.warmups: dict = {}  # signature -> calls that set up new state
        functools.update_wrapper(self, fn, updated=())
        ALL.add(self)

    def __get__(self, obj, objtype=None):  # a decorated method binds like a function
        if obj is None:
            return self
        return functools.partial(self, obj)

    def reset(self):
        self.cache.clear()
        self.warmups.clear()

    def __call__(self, *args, **kwargs):
        if ACTIVE[0] is not None:  # inside another recording: its units include these
            return self.fn(*args, **kwargs)
        STATS["calls"] += 1
        objects = stateful_objects(self.fn, args, kwargs)
        key, tensors = signature(args, kwargs, objects)
        entry = self.cache.get(key)
        if entry is None:
            if len(self.cache) >= self.cache_size_limit:
                STATS["cache_limit_hits"] += 1
                STATS["eager_calls"] += 1
                return self.fn(*args, **kwargs)
            return self._record(key, tensors, objects, args, kwargs)
        if entry is _BROKEN:
            STATS["eager_calls"] += 1
            return self.fn(*args, **kwargs)
        try:
            prof = STATE.profiler
            if prof is None:
                out = self._play(entry, tensors)
            else:
                out = prof.call("Compiled Region", "annotation", None, self._play, entry, tensors)
        except Stale:
            del self.cache[key]
            return self._record(key, tensors, objects, args, kwargs)
        STATS["replays"] += 1
        return out

    def _play(self, prog, tensors):
        if self.cudagraphs and prog.cuda is not None and prog.backward is None:
            return _graph_replay(prog, tensors)
        return _replay(prog, tensors)

    def _record(self, key, tensors, objects, args, kwargs):
        STATS["captures"] += 1
        if self.cache or self.warmups:
            STATS["recompiles"] += 1
        if self.cudagraphs:
            for o in objects:  # (Adam, AdamW: count steps on the device)
                getattr(o, "_compile_for_cudagraphs", _nothing)()
            objects = stateful_objects(self.fn, args, kwargs)
            key, tensors = signature(args, kwargs, objects)
        before = [o._compile_guard()[0] for o in objects]
        rec = Recorder(Snapshot(tensors), self.fullgraph)
        hypers = _hypers(rec, objects)
        with rec:
            for o in objects:
                why = getattr(o, "_compile_unreplayable", _nothing)()
                if why is not None:
                    rec.graph_break(why)
            out = self.fn(*args, **kwargs)
        if not rec.breaks and [o._compile_guard()[0] for o in objects] != before:
            # the call set up state (or changed what the guards see): record the next one
            n = self.warmups.get(key, 0) + 1
            self.warmups[key] = n
            if n < 3:
                return out
            rec.graph_break("the call changes the state its own signature depends on")
        if not rec.breaks:
            prog = _finish(rec, out, tensors)
            prog.hyper_checks = [h for h in hypers if (id(h[0]), h[1], h[2]) not in rec.bound]
            if not rec.breaks:
                self.cache[key] = prog
                return out
        for reason, where in rec.breaks:
            STATS["graph_breaks"].append(
                {
                    "function": getattr(self.fn, "__qualname__", repr(self.fn)),
                    "reason": reason,
                    "where": where,
                }
            )
        self.cache[key] = _BROKEN
        return out


def _nothing():
    """What an object without the optional hook answers (nothing to do, no reason)."""
    return None


def _hypers(rec, objects):
    """The hyperparameters of the optimizers the call reaches that their guards leave out
    (``_compile_hypers``: ``(group, key, index, value)``); registered with the recorder, so
    that an optimizer kernel taking one reads it from its group at replay. A value shared
    by two places is not registered (its place would be ambiguous)."""
    out = []
    for o in objects:
        get = getattr(o, "_compile_hypers", None)
        if get is not None:
            out.extend(get())
    seen: dict = {}
    for h in out:
        seen[id(h[3])] = seen.get(id(h[3]), 0) + 1
    rec.hypers = {id(h[3]): h[:3] for h in out if seen[id(h[3])] == 1}
    return out


def _finish(rec, out, tensors):
    """The :class:`Program` of a finished recording: effects, outputs and, when the
    outputs still need a backward, the recorded backward."""
    effects = rec.snapshot.effects(rec)
    roots: list = []
    outputs = _out_spec(rec, out, tensors, roots)
    n_fwd = len(rec.keep)
    prog = Program(rec.units, rec.sources, rec.keep, effects, outputs)
    keep = set()
    for kind, _, v in effects:
        if kind != "vc":
            if isinstance(v, tuple):
                if v[0] is not None:
                    keep.add(v[0])
            else:
                keep.add(v)
    _out_slots(outputs, keep)
    if roots:
        bw = _record_backward(rec, roots, tensors)
        if bw is not None:
            prog.backward = bw
            for u in bw.units:
                for k in reads(u[2], u[3]):
                    if k < n_fwd:
                        keep.add(k)
        else:
            outputs = _detach(outputs)
            prog.outputs = outputs
    prog.finish(keep)
    if prog.backward is not None:
        prog.backward.finish(set(prog.backward.result_slots) - {None})
    prog.n_slots = len(rec.keep)
    prog.cuda = _cuda_backend(rec.sources, tensors)
    rec.keep = []  # the recorded run's arrays: the replay keeps none
    rec.slots = {}
    rec.nodes = set()
    rec.snapshot = None
    return prog


def _cuda_backend(sources, tensors):
    """The backend of the one CUDA device every source lives on, or None."""
    devs = {tensors[v]._device if kind == ARG else v._device for _, (kind, v) in sources}
    if len(devs) != 1:
        return None
    dev = devs.pop()
    return dev._backend if dev.type == "cuda" else None


def _out_slots(s, acc):
    k = s[0]
    if k == "T":
        acc.add(s[1])
    elif k == "seq":
        for v in s[2]:
            _out_slots(v, acc)
    elif k == "dict":
        for v in s[1].values():
            _out_slots(v, acc)


def _out_spec(rec, x, tensors, roots):
    """How the replay builds the return value: a tensor over a slot, an argument, or a
    constant; tensors that still need a backward are collected into ``roots``."""
    if isinstance(x, Tensor):
        for i, t in enumerate(tensors):
            if t is x:
                return ("arg", i)
        if id(x) in rec.snapshot.known:
            return ("const", x)
        k = rec.slots.get(id(x._data))
        if k is None:
            rec.graph_break("an output tensor whose array no recorded operation made")
            return ("const", x)
        nr = None
        if x._requires_grad and x._grad_fn is not None and x._grad_fn in rec.nodes:
            nr = len(roots)
            roots.append(x)
        return ("T", k, x._dtype, x._device, nr)
    c = x.__class__
    if c is tuple or c is list:
        return ("seq", c, [_out_spec(rec, v, tensors, roots) for v in x])
    if c is dict:
        return ("dict", {k: _out_spec(rec, v, tensors, roots) for k, v in x.items()})
    return ("const", x)


def _detach(s):
    k = s[0]
    if k == "T":
        return s[:4] + (None,)
    if k == "seq":
        return ("seq", s[1], [_detach(v) for v in s[2]])
    if k == "dict":
        return ("dict", {n: _detach(v) for n, v in s[1].items()})
    return s


def _record_backward(rec, roots, tensors):
    """Record, once, the backward from ``roots`` to the boundary of the call (the tensors
    from outside that require grad): None when the graph was already used (a whole training
    step differentiates inside the call)."""
    boundary = _boundary(rec, roots, tensors)
    if boundary is None:
        return None
    specs, inputs = boundary
    fwd_units, fwd_sources = rec.units, rec.sources
    rec.units, rec.sources = [], []
    grad_slots = []
    grads = []
    for t in roots:
        be = t._device._backend
        g = Tensor._wrap(be.ones_like(t._data), t._dtype, t._device)
        grads.append(g)
        grad_slots.append(rec.new_slot(g._data))
    try:
        with rec:
            res = run_backward(
                roots, grads, True, False, inputs=inputs, accumulate=False, allow_unused=True
            )
    finally:
        bw_units, bw_sources = rec.units, rec.sources
        rec.units, rec.sources = fwd_units, fwd_sources
    if rec.breaks:
        return None
    bw = Program(bw_units, bw_sources, rec.keep)
    bw.grad_slots = grad_slots
    bw.result_slots = [None if a is None else rec.slot_of(a) for a in res]
    bw.boundary = specs
    bw.backend = roots[0]._device._backend
    bw.out_meta = tuple((t._data.shape, t._dtype) for t in roots) if len(roots) > 1 else None
    return bw


def _boundary(rec, roots, tensors):
    """``(specs, tensors)`` of the tensors from outside the call that the roots' graph
    reaches and that require grad: leaves (parameters) and arguments. None when a node of
    the graph was freed (the call ran its backward) or a tensor made before the call, not
    an argument, carries history into it."""
    args = {id(t): i for i, t in enumerate(tensors)}
    arg_nodes = {}
    for i, t in enumerate(tensors):
        if t._grad_fn is not None:
            arg_nodes[(t._grad_fn, t._output_nr)] = i
    specs, inputs, seen = [], [], set()
    stack = [t._grad_fn for t in roots]
    visited = set()
    while stack:
        node = stack.pop()
        if node in visited:
            continue
        visited.add(node)
        if node._freed:
            return None
        for e in node.next_edges:
            if e is None:
                continue
            child, nr = (e, 0) if e.__class__ is not tuple else e
            if child.__class__ is AccumulateGrad:
                var = child._var()
                if var is not None and id(var) not in seen:
                    seen.add(id(var))
                    i = args.get(id(var))
                    specs.append(("arg", i) if i is not None else ("t", var))
                    inputs.append(var)
            elif child in rec.nodes:
                stack.append(child)
            else:
                i = arg_nodes.get((child, nr))
                if i is None:
                    rec.graph_break("an output's history reaches a tensor made before the call")
                    return None
                if ("arg", i) not in specs:
                    specs.append(("arg", i))
                    inputs.append(tensors[i])
    return specs, inputs


def _graph_replay(prog, tensors):
    """A replay through the program's CUDA graph (captured on its first replay); a plain
    replay where the graph cannot serve (:mod:`.cudagraph`)."""
    g = prog.graph
    if g is None:
        g = try_capture(prog, tensors, prog.cuda)
        if isinstance(g, str):
            STATS["cudagraph_fallbacks"].append(g)
            g = False
        prog.graph = g
    if g is False or not g.valid():
        return _replay(prog, tensors)
    prog.check_hypers()
    env = g.replay(tensors)
    STATS["cudagraph_replays"] += 1
    prog.apply_effects(env)
    return prog.build_outputs(env, tensors, None, prog.cuda.copy)


def _replay(prog, tensors):
    env = [None] * prog.n_slots
    prog.read_sources(env, tensors)
    prog.run(env)
    prog.apply_effects(env)
    node = None
    bw = prog.backward
    if bw is not None:
        inputs = [tensors[v] if k == "arg" else v for k, v in bw.boundary]
        node = make_backward_node(bw, env, tensors, inputs, bw.backend)
        node._out_meta = bw.out_meta
    return prog.build_outputs(env, tensors, node)
