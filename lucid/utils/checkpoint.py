"""Activation checkpointing: trade compute for memory.

``checkpoint(function, *args)`` runs ``function`` and keeps none of the tensors its ops
save for the backward; the backward runs ``function`` again on the same inputs (with the
random-number state of the first run, so dropout draws the same mask), then
differentiates that recomputation. Gradients equal those of the plain call.

This is the non-reentrant variant (``use_reentrant=False``): the checkpointed region
becomes one node of the graph whose inputs are the tensor arguments, the leaves the
function reads from outside (module parameters) and any other outside tensor with history
it reads, so ``backward()``, ``autograd.grad`` with respect to any of them, nesting and
``create_graph=True`` work as in the plain call.

How the region's boundary is found: the first run records a graph as usual, on detached
copies of the arguments; the graph is walked from the outputs, then the outputs are
dropped. Nodes made by the region die with them; the nodes that survive belong to tensors
made outside (they are the region's outside inputs), except nodes that still lead to the
argument copies (the function kept a reference to an intermediate tensor), which count as
inside. The recorded activations are therefore freed before ``checkpoint`` returns.
"""

from __future__ import annotations

import weakref

from .. import random as _random
from .._device import CPU
from .._tensor import Tensor
from ..autograd import Function, enable_grad, grad as _grad
from ..autograd.graph import AccumulateGrad, edge
from ..autograd.grad_mode import STATE
from ..errors import ArgumentError, AutogradError

__all__ = ["checkpoint", "checkpoint_sequential"]


def _copy_arg(a):
    """A fresh leaf sharing ``a``'s data (no history, no base), requiring grad like ``a``."""
    c = Tensor._wrap(a._data, a._dtype, a._device)
    if a._requires_grad and a._dtype.is_floating_point:
        c.requires_grad_()
    return c


def _outputs(out):
    """``(tensors, rebuild)``: the Tensors among ``function``'s result and a function that
    puts replacements back in the same structure (a Tensor or a flat tuple/list)."""
    if isinstance(out, Tensor):
        return [out], lambda ts: ts[0]
    if isinstance(out, (tuple, list)):
        pos = [i for i, o in enumerate(out) if isinstance(o, Tensor)]
        kind = type(out)

        def rebuild(ts):
            items = list(out)
            for i, t in zip(pos, ts):
                items[i] = t
            return kind(items) if kind in (tuple, list) else kind(*items)

        return [out[i] for i in pos], rebuild
    raise ArgumentError(
        f"checkpoint: the function must return a Tensor or a tuple/list of "
        f"values, got {type(out).__name__}"
    )


class _RngFork:
    """The default generators' states of some devices, to replay and to restore."""

    def __init__(self, devices):
        self.gens = [_random._default_for(d) for d in devices]
        self.states = [g.get_state() for g in self.gens]

    def swap(self):
        """Install the saved states; return the states they replaced."""
        cur = [g.get_state() for g in self.gens]
        for g, s in zip(self.gens, self.states):
            g.set_state(s)
        return cur

    def restore(self, states):
        for g, s in zip(self.gens, states):
            g.set_state(s)


def _boundary(outs, copies):
    """Walk the graph of ``outs`` (down to the ``copies``' accumulators); return what the
    caller needs to find the region's outside inputs once ``outs`` are dropped: weak
    references to the nodes, and the edges ``(consumer, producer, output_nr, meta)``."""
    copy_acc = {id(c._accum) for c in copies if c._accum is not None}
    roots = [o.grad_fn for o in outs if o.grad_fn is not None]
    seen = {}
    edges = []
    stack = list(roots)
    for r in roots:
        seen[id(r)] = r
    while stack:
        node = stack.pop()
        if node.__class__ is AccumulateGrad:
            continue
        for i, e in enumerate(node.next_edges):
            if e is None:
                continue
            child, nr = edge(e)
            edges.append((id(node), id(child), nr, node.in_meta[i]))
            if id(child) not in seen:
                seen[id(child)] = child
                stack.append(child)
    # the nodes from which an argument copy is reachable: inside even if still alive
    parents = {}
    for c, p, _, _ in edges:
        parents.setdefault(p, []).append(c)
    to_copy = set()
    stack = [k for k in copy_acc if k in seen]
    while stack:
        k = stack.pop()
        for c in parents.get(k, ()):
            if c not in to_copy:
                to_copy.add(c)
                stack.append(c)
    leaves = {}
    for k, n in seen.items():
        if n.__class__ is AccumulateGrad and k not in copy_acc:
            var = n._var()
            if var is not None:
                leaves[k] = var
    refs = {k: weakref.ref(n) for k, n in seen.items() if n.__class__ is not AccumulateGrad}
    return refs, edges, to_copy, leaves


def _outside_inputs(refs, edges, to_copy, leaves):
    """After the region's nodes died: the leaves and ``(node, output_nr, meta)`` of the
    surviving outside nodes that region nodes consumed."""

    def inside(k):
        return k in refs and (refs[k]() is None or k in to_copy)

    used_leaves, outer, seen = [], [], set()
    for c, p, nr, meta in edges:
        if not inside(c):
            continue
        if p in leaves:
            if p not in seen:
                seen.add(p)
                used_leaves.append(leaves[p])
        elif p in refs and not inside(p):
            key = (p, nr)
            if key not in seen:
                seen.add(key)
                node = refs[p]()
                if node is not None:
                    outer.append((node, nr, meta))
    return used_leaves, outer


class _Checkpoint(Function):
    """The node of one checkpointed region (inputs: arguments, outside leaves, outside
    tensors with history)."""

    @staticmethod
    def forward(ctx, info, *tensors):
        ctx.info = info
        ctx.save_for_backward(*tensors[: info["n_args"]])
        ctx.set_materialize_grads(False)
        values = tuple(info.pop("values"))
        # outputs the first run made without history stay without it (as in PyTorch)
        ctx.mark_non_differentiable(*[v for v, r in zip(values, info["requires_grad"]) if not r])
        return values

    @staticmethod
    def backward(ctx, *grads):
        info = ctx.info
        args = ctx.saved_tensors
        create_graph = STATE.grad_enabled
        # eager: recompute on fresh leaves (the inner backward stops there); under
        # create_graph, on the arguments themselves so the gradient's graph reaches them
        copies = list(args) if create_graph else [_copy_arg(a) for a in args]
        call_args = list(info["args"])
        for pos, c in zip(info["tensor_pos"], copies):
            call_args[pos] = c
        fork = info["rng"]
        prev = fork.swap() if fork is not None else None
        saved_autocast = STATE.autocast
        STATE.autocast = info["autocast"]
        try:
            with enable_grad():
                out = info["function"](*call_args, **info["kwargs"])
        finally:
            STATE.autocast = saved_autocast
            if fork is not None:
                fork.restore(prev)
        outs, _ = _outputs(out)
        if len(outs) != len(info["meta"]) or any(
            (tuple(o.shape), o.dtype) != m for o, m in zip(outs, info["meta"])
        ):
            raise AutogradError(
                "checkpoint: the recomputed outputs differ in number, shape "
                "or dtype from the first run (is the function "
                "deterministic in its structure?)"
            )
        roots, gos = [], []
        for o, g in zip(outs, grads):
            if g is not None and o.requires_grad:
                roots.append(o)
                gos.append(g)
        wrt = [c for c in copies if c.requires_grad] + list(info["leaves"]) + list(info["outer"])
        n_in = len(copies) + len(info["leaves"]) + len(info["outer"])
        if not roots or not wrt:
            return (None,) * (1 + n_in)
        got = iter(_grad(roots, wrt, gos, create_graph=create_graph, allow_unused=True))
        res = [next(got) if c.requires_grad else None for c in copies]
        res += [next(got) for _ in info["leaves"]]
        res += [next(got) for _ in info["outer"]]
        return (None, *res)


def checkpoint(
    function,
    *args,
    use_reentrant=None,
    context_fn=None,
    determinism_check=None,
    debug=False,
    preserve_rng_state=True,
    **kwargs,
):
    """``function(*args, **kwargs)`` without keeping its activations: the backward runs it
    again (non-reentrant checkpointing, as ``torch.utils.checkpoint.checkpoint`` with
    ``use_reentrant=False``).

    ``preserve_rng_state``: replay the default generators' state of the CPU and of the
    arguments' devices in the recomputation (dropout draws the same mask); the state of
    the surrounding program is restored afterwards. ``context_fn``,
    ``determinism_check`` and ``debug`` are accepted for PyTorch compatibility; only their
    defaults are supported. The function must return a Tensor or a flat tuple/list.
    """
    if use_reentrant:
        raise ArgumentError(
            "checkpoint: use_reentrant=True (the reentrant variant) is not "
            "implemented; use use_reentrant=False"
        )
    if context_fn is not None or determinism_check not in (None, "default") or debug:
        raise ArgumentError(
            "checkpoint: context_fn, determinism_check and debug support only their defaults"
        )
    if not callable(function):
        raise ArgumentError(f"checkpoint: function must be callable, got {type(function).__name__}")
    if not STATE.grad_enabled:
        return function(*args, **kwargs)
    tensor_pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    tensors = [args[i] for i in tensor_pos]
    devices = list(dict.fromkeys([CPU] + [t._device for t in tensors]))
    fork = _RngFork(devices) if preserve_rng_state else None
    copies = [_copy_arg(t) for t in tensors]
    call_args = list(args)
    for pos, c in zip(tensor_pos, copies):
        call_args[pos] = c
    out = function(*call_args, **kwargs)
    outs, rebuild = _outputs(out)
    refs, edges, to_copy, leaves = _boundary(outs, copies)
    values = [Tensor._wrap(o._data, o._dtype, o._device) for o in outs]
    meta = [(tuple(o.shape), o.dtype) for o in outs]
    requires = [o.requires_grad for o in outs]
    del out, outs, copies, call_args
    used_leaves, outer = _outside_inputs(refs, edges, to_copy, leaves)
    del leaves
    outer_ts = [
        Tensor._from_node_output(node.be.full(m[0], 0, m[1].np), node, nr) for node, nr, m in outer
    ]
    info = {
        "function": function,
        "args": args,
        "kwargs": kwargs,
        "tensor_pos": tensor_pos,
        "n_args": len(tensors),
        "rng": fork,
        "autocast": STATE.autocast,
        "meta": meta,
        "requires_grad": requires,
        "leaves": used_leaves,
        "outer": outer_ts,
        "values": values,
    }
    res = _Checkpoint.apply(info, *tensors, *used_leaves, *outer_ts)
    res = (res,) if isinstance(res, Tensor) else tuple(res)
    return rebuild(list(res))


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run the callables ``functions`` (a list or an ``nn.Sequential``-like iterable) in
    order on ``input``, checkpointing ``segments`` nearly equal consecutive chunks (the last
    chunk runs normally, as in PyTorch)."""
    fns = list(functions.children()) if hasattr(functions, "children") else list(functions)
    if segments < 1:
        raise ArgumentError(f"checkpoint_sequential: segments must be positive, got {segments}")
    size = max(1, len(fns) // segments)

    def run(chunk):
        def f(x):
            for fn in chunk:
                x = fn(x)
            return x

        return f

    end = 0
    x = input
    for start in range(0, size * (segments - 1), size):
        end = start + size
        x = checkpoint(run(fns[start:end]), x, use_reentrant=use_reentrant, **kwargs)
    return run(fns[end:])(x)
