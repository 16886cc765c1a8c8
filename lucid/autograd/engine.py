"""The reverse-mode engine: runs the recorded graph backwards, iteratively.

1. Count, for every node reachable from the roots, how many edges lead into it.
2. With ``inputs`` given, mark the nodes from which an input is reachable; only those run.
3. Pop ready nodes (all incoming gradients summed) from a stack; run the tensor hooks of each
   output, keep ``retain_grad`` gradients, call the node's backward — ``grad_formula`` on
   arrays, or ``grad_formula_impl`` on Tensors when ``create_graph`` — and add each input
   gradient into the buffer of the node it came from.

No recursion anywhere, so chains of any length backward; saved tensors are freed as each
node finishes unless ``retain_graph``.
"""

from __future__ import annotations

import sys

from .. import dtypes
from .._state import STATE
from .._tensor import Tensor
from .._tensor.tensor import _device_of
from ..errors import AutogradError, DeviceMismatchError, ShapeError
from .graph import AccumulateGrad, accumulator_of
from .batched import batched_grad

__all__ = ["backward", "grad", "run_backward"]


def _root_edge(i, t, what):
    if t.grad_fn is not None:
        return t.grad_fn, t._output_nr
    if t._requires_grad:
        return accumulator_of(t), 0
    raise AutogradError(
        f"{what}: element {i} of tensors does not require grad and does not have a grad_fn"
    )


def _root_grad(i, t, g, create_graph, what):
    """The starting gradient of root ``t``: ones for a one-element ``t`` when ``g`` is None,
    else ``g`` checked against ``t`` and cast to its dtype (an array unless ``create_graph``)."""
    if g is None:
        if t._data.size != 1:
            raise AutogradError(
                f"{what}: grad can be implicitly created only for scalar "
                f"outputs, got output {i} of shape {tuple(t.shape)}"
            )
        if t._dtype.is_complex:
            raise AutogradError(
                f"{what}: grad can be implicitly created only for real "
                f"scalar outputs, got output {i} of dtype {t._dtype.name}"
            )
        arr = t._device.backend.ones(t._data.shape, t._dtype.np)
        return _to_tensor(arr, t._device) if create_graph else arr
    if not isinstance(g, Tensor):
        raise AutogradError(
            f"{what}: grad_output {i} must be a Tensor or None, got {type(g).__name__}"
        )
    if g._data.shape != t._data.shape:
        raise ShapeError(
            f"{what}: mismatch in shape: grad_output {i} has shape "
            f"{tuple(g.shape)} and output {i} has shape {tuple(t.shape)}"
        )
    if g._device is not t._device:
        raise DeviceMismatchError(
            f"{what}: grad_output {i} is on {g._device} but output {i} is on {t._device}"
        )
    if g._dtype is not t._dtype:
        if not g._dtype._grad:
            raise AutogradError(
                f"{what}: grad_output {i} has dtype {g._dtype.name}, expected "
                f"a floating dtype like output {i} ({t._dtype.name})"
            )
        g = g.to(t._dtype)
    return g if create_graph else g._data


def _to_tensor(a, node_dev_like):
    return Tensor._wrap(a, dtypes.from_numpy_dtype(a.dtype), node_dev_like)


def run_backward(
    roots,
    root_grads,
    retain_graph,
    create_graph,
    inputs=None,
    accumulate=True,
    allow_unused=False,
    what="backward",
):
    """Run the graph from ``roots``; return the gradients captured for ``inputs`` (or None)."""
    if retain_graph is None:
        retain_graph = create_graph
    if len(roots) == 1:  # the common case, without the generators
        edges = [_root_edge(0, roots[0], what)]
        grads0 = [_root_grad(0, roots[0], root_grads[0], create_graph, what)]
    else:
        edges = [_root_edge(i, t, what) for i, t in enumerate(roots)]
        grads0 = [
            _root_grad(i, t, g, create_graph, what)
            for i, (t, g) in enumerate(zip(roots, root_grads))
        ]

    # 1. capture targets (inputs of grad / backward(inputs=...))
    targets = needed = parents = None
    if inputs is not None:
        targets = {}
        for i, t in enumerate(inputs):
            if t.grad_fn is not None:
                key = (t.grad_fn, t._output_nr)
            elif t._requires_grad:
                key = (accumulator_of(t), 0)
            else:
                raise AutogradError(f"{what}: input {i} does not require grad")
            targets.setdefault(key, []).append(i)
        parents = {}

    # 2. dependency counts over every reachable node (and, with targets, each node's parents)
    deps = {}
    stack = [edges[0][0]] if len(edges) == 1 else list(dict.fromkeys(n for n, _ in edges))
    seen = set(stack)
    while stack:
        node = stack.pop()
        for e in node.next_edges:
            if e is not None:
                child = e if e.__class__ is not tuple else e[0]
                deps[child] = deps.get(child, 0) + 1
                if parents is not None:
                    parents.setdefault(child, []).append(node)
                if child not in seen:
                    seen.add(child)
                    stack.append(child)

    # 3. with targets, only the nodes with a target strictly below them must run
    if targets is not None:
        needed = set()
        stack = list({k[0] for k in targets})
        while stack:
            for p in parents.get(stack.pop(), ()):
                if p not in needed:
                    needed.add(p)
                    stack.append(p)

    captured = [None] * (len(inputs) if inputs is not None else 0)
    buffers = {}
    for (node, nr), g in zip(edges, grads0):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * _n_outputs(node)
        buf[nr] = g if buf[nr] is None else _add(node, buf[nr], g, create_graph)
    ready = [n for n in buffers if deps.get(n, 0) == 0]
    dev = roots[0]._device

    prev_mode = STATE.grad_enabled
    STATE.grad_enabled = create_graph
    try:
        while ready:
            node = ready.pop()
            grads = buffers.pop(node)
            for g in grads:
                if g is not None:
                    break
            else:
                grads = None
            in_grads = None
            if grads is not None:
                if node._pre_hooks is not None or node._retain is not None:
                    grads = _run_pre_hooks(node, grads, create_graph, dev)
                if node.__class__ is AccumulateGrad:
                    g = None  # _leaf takes the gradient out of grads (see there)
                    if STATE.profiler is None:
                        _leaf(node, grads, create_graph, targets, captured, accumulate)
                    else:
                        STATE.profiler.call(
                            "AccumulateGrad", "node", dev, _leaf,
                            node, grads, create_graph, targets, captured, accumulate,
                        )  # fmt: skip
                    continue
                if targets is not None:
                    for nr, g in enumerate(grads):
                        for i in targets.get((node, nr), ()):
                            captured[i] = g
                if needed is None or node in needed:
                    if (
                        node._out_meta is None
                        and node._hooks is None
                        and not STATE.anomaly
                        and STATE.profiler is None
                    ):
                        in_grads = (
                            node.apply_graph(grads) if create_graph else node.apply_eager(grads)
                        )
                    else:
                        in_grads = _call_node(node, grads, create_graph)
                    if not retain_graph:
                        node.release()
            i = -1
            for e in node.next_edges:
                i += 1
                if e is None:
                    continue
                if e.__class__ is tuple:
                    child, nr = e
                else:
                    child, nr = e, 0
                buf = buffers.get(child)
                if buf is None:
                    buf = buffers[child] = [None] * _n_outputs(child)
                if in_grads is not None:
                    g = in_grads[i]
                    if g is not None:
                        old = buf[nr]
                        buf[nr] = g if old is None else _add(child, old, g, create_graph)
                left = deps[child] - 1
                deps[child] = left
                if left == 0:
                    ready.append(child)
    finally:
        STATE.grad_enabled = prev_mode

    if inputs is None:
        return None
    for i, g in enumerate(captured):
        if g is None and not allow_unused:
            raise AutogradError(
                f"{what}: one of the differentiated tensors (input {i}) "
                "appears to not have been used in the graph; set "
                "allow_unused=True if this is the desired behavior"
            )
    return captured


def _add(node, a, b, create_graph):
    """Two gradients of one output summed: a recorded op on Tensors under ``create_graph``,
    else the backend's ``add`` on arrays (every array operation of the engine goes through
    the backend, so that ``lucid.compile`` records it)."""
    return a + b if create_graph else node.be.add(a, b)


def _n_outputs(node):
    meta = node._out_meta
    return 1 if meta is None else len(meta)


def _call_node(node, grads, create_graph):
    meta = node._out_meta
    if meta is not None and node.materialize_grads and any(g is None for g in grads):
        grads = list(grads)
        be = node.be
        diff = getattr(node, "_diff_outputs", None)  # outputs without gradients stay None
        for i, g in enumerate(grads):
            if g is None and (diff is None or i in diff):
                shape, dt = meta[i]
                z = be.full(shape, 0, dt.np)
                grads[i] = _to_tensor(z, _dev(node)) if create_graph else z
    try:
        prof = STATE.profiler
        if prof is None:
            out = node.apply_graph(grads) if create_graph else node.apply_eager(grads)
        else:
            out = prof.node(node, grads, create_graph, _dev(node))
    except Exception as e:
        if STATE.anomaly and node._anomaly_trace:
            e.add_note(
                f"Error detected in {node.name()}. Forward call that created it:\n"
                + "".join(node._anomaly_trace)
            )
        raise
    if STATE.anomaly:
        _check_anomaly(node, out)
    if node._hooks:
        out = _run_post_hooks(node, out, grads, create_graph)
    return out


def _dev(node):
    return _device_of(node)


def _check_anomaly(node, grads):
    if not STATE.anomaly_nan:
        return
    for i, g in enumerate(grads):
        if g is None:
            continue
        a = g._data if hasattr(g, "_data") else g
        if dtypes._BY_NP[a.dtype]._grad and node.be.any_nan(a):
            trace = "".join(node._anomaly_trace or ())
            raise AutogradError(
                f"Function '{node.name()}' returned nan values in its "
                f"{i}th output.\nForward call that created it:\n{trace}"
            )


def _wrap_for_hook(g, dev, create_graph):
    return g if create_graph else _to_tensor(g, dev)


def _unwrap_from_hook(g, create_graph):
    return g if create_graph else g._data


def _run_tensor_hooks(hooks, g, dev, create_graph):
    """Run tensor hooks in order on gradient ``g``; a non-None return replaces it."""
    t = _wrap_for_hook(g, dev, create_graph)
    for h in list(hooks):
        r = h(t)
        if r is None:
            continue
        if not isinstance(r, Tensor):
            raise AutogradError(
                f"hook {_hook_name(h)} returned {type(r).__name__}, expected a Tensor or None"
            )
        if r._data.shape != t._data.shape:
            raise ShapeError(
                f"hook {_hook_name(h)} changed the shape of the gradient from "
                f"{tuple(t.shape)} to {tuple(r.shape)}"
            )
        t = r
    return _unwrap_from_hook(t, create_graph)


def _hook_name(h):
    return repr(getattr(h, "__name__", type(h).__name__))


def _run_pre_hooks(node, grads, create_graph, dev):
    grads = list(grads)
    pre = node._pre_hooks or {}
    for nr, g in enumerate(grads):
        hooks = pre.get(nr)
        if hooks and g is not None:
            grads[nr] = _run_tensor_hooks(hooks, g, dev, create_graph)
    whole = pre.get(-1)
    if whole:
        ts = tuple(None if g is None else _wrap_for_hook(g, dev, create_graph) for g in grads)
        for h in list(whole):
            r = h(ts)
            if r is not None:
                ts = tuple(r)
        grads = [None if t is None else _unwrap_from_hook(t, create_graph) for t in ts]
    if node._retain:
        for nr, ref in node._retain.items():
            t = ref()
            g = grads[nr]
            if t is not None and g is not None:
                gt = g.clone() if create_graph else _to_tensor(node.be.copy(g), dev)
                t._grad = gt if t._grad is None else t._grad + gt
    return grads


def _run_post_hooks(node, in_grads, out_grads, create_graph):
    dev = _dev(node)
    ins = tuple(None if g is None else _wrap_for_hook(g, dev, create_graph) for g in in_grads)
    outs = tuple(None if g is None else _wrap_for_hook(g, dev, create_graph) for g in out_grads)
    for h in list(node._hooks):
        r = h(ins, outs)
        if r is not None:
            ins = tuple(r)
    return [None if t is None else _unwrap_from_hook(t, create_graph) for t in ins]


def _leaf(node, grads, create_graph, targets, captured, accumulate):
    """At a leaf's accumulator: run the leaf's tensor hooks, capture the gradient when the
    leaf is an input of ``grad``/``backward(inputs=...)``, accumulate into ``.grad`` (then
    the post-accumulate hooks) when this backward accumulates into it.

    The gradient is taken out of the one-element list ``grads`` (the engine keeps no other
    reference), so that, when it reaches the accumulator, the local ``g`` here is its only
    reference unless something else holds it: another leaf's pending gradient (``x + y``
    hands the same array to both), a captured input gradient, a hook's Tensor, a saved
    tensor, a view of it. Only then may ``.grad`` take the array itself (see
    :meth:`AccumulateGrad.accumulate`)."""
    g = grads[0]
    grads[0] = None
    var = node._var()
    if var is None:
        return
    meta = var._meta
    if meta is not None and meta.get("hooks"):
        g = _run_tensor_hooks(meta["hooks"], g, var._device, create_graph)
    if targets is not None:
        slots = targets.get((node, 0))
        if slots is None:
            return
        for i in slots:
            captured[i] = g
    if not accumulate:
        return
    held = STATE.compile_held  # a recording's own reference is not another holder
    owned = (
        not create_graph
        and _SOLE_REF is not None
        and sys.getrefcount(g) == _SOLE_REF + (held is not None and id(g) in held)
        and _whole(g, held)
    )  # counted before g is pushed below
    node.accumulate(g, create_graph, owned)
    if meta is not None and meta.get("post_accumulate"):
        for h in list(meta["post_accumulate"]):
            h(var)


def _whole(g, held):
    """Whether array ``g`` owns its memory, or is a view of the whole of an array that
    nothing but ``g`` (and a recording, ``held``) holds (a reshaped product): either way
    ``.grad`` may keep it."""
    b = g.base
    if b is None:
        return True
    return (
        type(b) is type(g)
        and b.base is None
        and b.size == g.size
        and sys.getrefcount(b) == _SOLE_REF + 1 + (held is not None and id(b) in held)
    )  # the view's reference and ``b``'s


def _sole_ref_count():
    """What ``sys.getrefcount`` of an object referenced by one local variable alone returns
    (2 on CPython 3.11: the variable and the call's argument), measured at import in the
    same pattern as ``_leaf`` rather than assumed; None without ``sys.getrefcount`` (not
    CPython): gradients are then always copied."""
    if not hasattr(sys, "getrefcount"):
        return None
    a = object()
    return sys.getrefcount(a)


_SOLE_REF = _sole_ref_count()


def _as_tuple(x):
    if x is None:
        return None
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves.

    ``grad_tensors`` gives d(loss)/d(tensor) for non-scalar tensors; with ``inputs`` only
    those tensors' ``.grad`` are accumulated.
    """
    tensors = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) or (None,) * len(tensors)
    if len(grads) != len(tensors):
        raise AutogradError(f"backward: got {len(grads)} gradients for {len(tensors)} tensors")
    inputs = _as_tuple(inputs)
    if inputs is not None and len(inputs) == 0:
        raise AutogradError("backward: inputs argument must not be empty")
    captured = run_backward(
        tensors,
        grads,
        retain_graph,
        create_graph,
        inputs=inputs,
        accumulate=True,
        allow_unused=True,
    )
    if inputs is None:
        return
    for t, g in zip(inputs, captured):  # non-leaf inputs get .grad like leaves
        if t.grad_fn is not None and g is not None:
            g = (
                g.clone()
                if create_graph
                else Tensor._wrap(t._device.backend.copy(g), t._dtype, t._device)
            )
            t._grad = g if t._grad is None else t._grad + g


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    allow_unused=None,
    is_grads_batched=False,
    materialize_grads=False,
):
    """The gradients of ``outputs`` with respect to ``inputs``, without touching ``.grad``.

    Returns a tuple with one entry per input; with ``allow_unused`` an input the outputs do
    not depend on gets ``None`` (or zeros with ``materialize_grads``). With
    ``is_grads_batched`` each grad_output has a leading batch dim and so has each result
    (see :mod:`lucid.autograd.batched`).
    """
    if is_grads_batched:
        if allow_unused is None:
            allow_unused = materialize_grads
        return batched_grad(
            grad,
            outputs,
            inputs,
            grad_outputs,
            retain_graph,
            create_graph,
            allow_unused,
            materialize_grads,
        )
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    grads = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise AutogradError(f"grad: got {len(grads)} grad_outputs for {len(outputs)} outputs")
    if allow_unused is None:
        allow_unused = materialize_grads
    res = run_backward(
        outputs,
        grads,
        retain_graph,
        create_graph,
        inputs=inputs,
        accumulate=False,
        allow_unused=allow_unused,
        what="grad",
    )
    out = []
    for t, g in zip(inputs, res):
        if g is None:
            if materialize_grads:
                g = Tensor._wrap(
                    t._device.backend.full(t._data.shape, 0, t._dtype.np), t._dtype, t._device
                )
            out.append(g)
        elif create_graph:
            out.append(g)
        else:
            out.append(Tensor._wrap(g, t._dtype, t._device))
    return tuple(out)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(self)/d(leaf) into each leaf's ``.grad`` (see ``lucid.autograd``)."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


Tensor.backward = _tensor_backward  # type: ignore[attr-defined]  # installed here, above the tensor layer
