"""Graph nodes: the base every op's backward node derives from, and the leaf accumulator.

A node is created by an op call that records a graph. It holds one *edge* per input —
``(node, output_nr)`` of the input's producer, the leaf's :class:`AccumulateGrad`, or
``None`` for an input that needs no gradient — plus the shape and dtype of each input, so
the gradient it returns is summed back over broadcast axes (``sum_to``) and cast back to the
input's dtype here, once, for every op (a complex gradient of a real input keeps its real
part, as in PyTorch).
"""

from __future__ import annotations

from typing import ClassVar

import os
import traceback
import weakref

from .. import dtypes
from .._hooks import RemovableHandle as _RemovableHandle
from .._state import STATE
from .._tensor import Tensor
from ..errors import AutogradError, VersionMismatchError

__all__ = [
    "Node",
    "AccumulateGrad",
    "new_node",
    "accumulator_of",
    "SaveCopy",
    "saved_copy",
    "with_history",
]

#: The ops this layer's own functions call, installed by :mod:`lucid.ops` (the layer above)
#: at import, as it installs the Tensor methods: ``OPS["stack"]`` stacks the rows of
#: ``functional.jacobian`` and the results of batched gradients (``is_grads_batched``).
OPS: dict = {}


class SaveCopy(list):
    """A version counter whose storage is about to be overwritten: that of
    :func:`~lucid.ops.core.inplace.apply_inplace`'s alias of an in-place op's old value
    (and of every view of it). A node that saves such a tensor saves a copy of it
    (:func:`new_node`), so only an op whose backward reads the old value pays for one."""

    __slots__ = ()


class Node:
    """A recorded op in the autograd graph.

    Attributes: ``next_edges`` (one edge per input: the producing node where the input is
    its output 0, a ``(node, output_nr)`` pair for a later output, ``None`` where no
    gradient is needed; :func:`edge` reads one as a pair), ``in_meta`` (``(shape, dtype)``
    per input), ``saved`` (input Tensors kept for the backward, ``None`` in the place of an
    input that is not needed, or ``None``), ``out`` (the output array kept for the
    backward, or ``None``), ``extra`` (backend intermediates the forward kept for the
    backward by name, such as a norm's mean and rstd, or ``None``), ``params`` (the op's
    keyword arguments), ``be`` (the backend that ran the forward). Every node is made by
    :func:`new_node`, the one place its slots are set and its edges built.
    """

    __slots__ = (
        "next_edges",
        "in_meta",
        "saved",
        "out",
        "extra",
        "params",
        "be",
        "_versions",
        "_out_meta",
        "_pre_hooks",
        "_retain",
        "_hooks",
        "_freed",
        "_anomaly_trace",
        "_metadata",
        "__weakref__",
    )

    # what a node keeps for its backward (an op refines these: lucid.ops.core.base.Op)
    saves_input: ClassVar[bool | str | tuple[tuple[int, ...], ...]] = False
    saves_output: ClassVar[bool] = False
    materialize_grads = True  # fill outputs that got no gradient with zeros

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self):
        return f"<{self.name()} object at {id(self):#x}>"

    @property
    def needs_input_grad(self):
        """One bool per input: whether a gradient is wanted for it."""
        return tuple(e is not None for e in self.next_edges)

    @property
    def next_functions(self):
        """``((node, output_nr), ...)`` with ``(None, 0)`` for inputs that need no grad."""
        return tuple(edge(e) if e is not None else (None, 0) for e in self.next_edges)

    @property
    def metadata(self):
        """A dict kept on this node for the user's own annotations."""
        try:
            return self._metadata
        except AttributeError:
            self._metadata = {}
            return self._metadata

    def register_hook(self, fn):
        """Run ``fn(grad_inputs, grad_outputs)`` after this node computes its gradients."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        return _RemovableHandle(self._hooks, fn)

    def register_prehook(self, fn):
        """Run ``fn(grad_outputs)`` before this node; a non-None return replaces them."""
        return self._add_pre_hook(-1, fn)

    def _add_pre_hook(self, output_nr, fn):
        if self._pre_hooks is None:
            self._pre_hooks = {}
        hooks = self._pre_hooks.setdefault(output_nr, [])
        hooks.append(fn)
        return _RemovableHandle(hooks, fn)

    # -- saved state -----------------------------------------------------------------

    def _check_saved(self):
        if self._freed:
            raise AutogradError(
                f"{self.name()}: trying to backward through the graph a second time (or to "
                "use saved tensors after they were freed). Pass retain_graph=True to the first "
                "backward() or autograd.grad() call if you need to backward twice."
            )
        versions = self._versions
        if versions is not None:
            n_in = len(self.in_meta)
            for j in range(0, len(versions), 3):
                k, vc, expect = versions[j], versions[j + 1], versions[j + 2]
                if vc[0] != expect:
                    what = (
                        f"input {k} of shape {tuple(self.in_meta[k][0])}"
                        if k < n_in
                        else f"output {k - n_in}"
                    )
                    raise VersionMismatchError(
                        f"{self.name()}: one of the tensors needed for gradient computation "
                        f"({what}) has been modified by an in-place operation: it is at "
                        f"version {vc[0]}, expected version {expect}. Use a copy (clone()) "
                        "instead of modifying it in place."
                    )

    def release(self):
        """Free what was saved for the backward (called unless ``retain_graph``)."""
        if self.saved is not None or self.out is not None or self.extra is not None:
            self.saved = self.out = self.extra = None
            self._freed = True

    # -- backward --------------------------------------------------------------------

    def apply_eager(self, grads):
        """Gradients (arrays) for each input from those of each output, via ``grad_formula``."""
        if self._versions is not None or self._freed:
            self._check_saved()
        res = self.grad_formula(grads[0] if self._out_meta is None else tuple(grads))
        out = list(res) if res.__class__ is tuple else [res]
        edges = self.next_edges
        i = -1
        for shape, dt in self.in_meta:
            i += 1
            g = out[i]
            if g is None:
                continue
            if edges[i] is None:
                out[i] = None
                continue
            if g.shape != shape:
                g = (
                    self.be.sum_to(g, shape)
                    if g.ndim >= len(shape)
                    else self.be.broadcast_to(g, shape)
                )
            npd = dt.np
            if g.dtype is not npd and g.dtype != npd:
                if dt._cat < 3 and dtypes._BY_NP[g.dtype]._cat == 3:
                    g = g.real  # a real input's gradient: the real part (PyTorch)
                g = self.be.astype(g, npd)
            out[i] = g
        return out

    def apply_graph(self, grads):
        """Like :meth:`apply_eager` on Tensors via ``grad_formula_impl``, recording a graph."""
        self._check_saved()
        n = len(self.next_edges)
        inputs = self.saved if self.saved is not None else (None,) * n
        g = grads[0] if self._out_meta is None else tuple(grads)
        res = self.grad_formula_impl(g, *inputs, self._saved_output())
        if res.__class__ is not tuple:
            res = (res,)
        out = []
        for g, meta, e in zip(res, self.in_meta, self.next_edges):
            if g is None or e is None:
                out.append(None)
                continue
            shape, dt = meta
            if g.shape != shape:
                g = g.sum_to_size(shape) if g.ndim >= len(shape) else g.expand(shape)
            if g._dtype is not dt:
                if g._dtype.is_complex and not dt.is_complex:
                    g = g.real
                if g._dtype is not dt:
                    g = g.to(dt)
            out.append(g)
        return out

    def _saved_output(self):
        """The saved output as a Tensor whose ``grad_fn`` is this node (for graph mode)."""
        out = self.out
        if out is None:
            return None
        if out.__class__ is tuple:
            return tuple(Tensor._from_node_output(o, self, i) for i, o in enumerate(out))
        return Tensor._from_node_output(out, self, 0)

    def grad_formula(self, grad):
        """The eager backward on backend arrays; ops override it."""
        raise AutogradError(f"{self.name()} is not differentiable")

    def grad_formula_impl(self, grad, *args):
        """The graph-mode backward on Tensors; ops override it."""
        raise AutogradError(f"{self.name()} does not support double backward")


class AccumulateGrad(Node):
    """The sink of a leaf: adds the incoming gradient into ``variable.grad``.

    The first gradient becomes ``.grad`` without a copy when the engine vouches that
    nothing else references the array (``owned``, as PyTorch steals a gradient whose use
    count is 1) and it owns its memory, C-contiguous and writable; otherwise it is copied
    (a differentiable ``clone`` under ``create_graph``). Either way ``.grad`` never aliases
    another tensor.
    """

    __slots__ = ("_var",)

    def name(self):
        return "AccumulateGrad"

    @property
    def variable(self):
        """The leaf (held weakly: the leaf owns its accumulator, not the other way round)."""
        return self._var()

    def accumulate(self, grad, graph_mode, owned=False):
        """Add ``grad`` into ``.grad``: in place when it exists (references to ``.grad``
        stay valid, like PyTorch), out of place with a graph under ``create_graph``.
        ``owned``: the caller holds the only reference to the array ``grad`` and to its
        memory (the engine's ``_leaf`` checks), so the first gradient may be kept as it
        is."""
        var = self._var()
        if var is None:  # the leaf is gone: nothing to accumulate into
            return
        old = var._grad
        if graph_mode:
            var._grad = grad.clone() if old is None else old + grad
        elif old is None:
            be = self.be
            if not (owned and be.is_contiguous(grad) and not be.is_read_only(grad)):
                grad = be.copy(grad)
            var._grad = Tensor._wrap(grad, var._dtype, var._device)
        else:
            be = self.be
            if be.is_read_only(old._data):  # a read-only (broadcast) array the user assigned
                var._grad = Tensor._wrap(be.add(old._data, grad), old._dtype, old._device)
                return
            be.add_into(old._data, grad)
            old._vc[0] += 1


def accumulator_of(t):
    """The AccumulateGrad node of leaf ``t``, made once and kept by the leaf."""
    node = t._accum
    if node is None:
        node = t._accum = new_node(AccumulateGrad, t._device._backend, ())
        node._var = weakref.ref(t)
    return node


def edge(e):
    """Edge ``e`` of a node's ``next_edges`` (not None) as ``(node, output_nr)``."""
    return e if e.__class__ is tuple else (e, 0)


def new_node(cls, be, inputs, params=None, out=None, out_tensors=(), extra=None):
    """A node of class ``cls`` for a forward on backend ``be`` over Tensors ``inputs``.

    The one constructor of every node. Builds one edge per input — ``(grad_fn,
    output_nr)`` of its producer, the leaf's accumulator, or ``None`` when it needs no
    gradient — and the ``(shape, dtype)`` of each input; keeps the op's ``params``, what
    the backward needs — the inputs ``cls.saves_input`` names (True: all; or per input,
    the inputs its gradient needs, so only those of inputs that need a gradient are kept),
    the output array ``out`` if ``cls.saves_output``, the intermediates ``extra`` — and the
    version of each saved tensor, checked at backward.
    """
    node = object.__new__(cls)
    edges = []
    meta = []
    mask = 0  # bit i: input i needs a gradient
    bit = 1
    for t in inputs:
        fn = t._grad_fn
        if fn is not None:
            nr = t._output_nr
            edges.append(fn if nr == 0 else (fn, nr))  # (no pair object for output 0)
            mask |= bit
        elif t._requires_grad:
            edges.append(accumulator_of(t))
            mask |= bit
        else:
            edges.append(None)
        m = (t._data.shape, t._dtype)
        meta.append(_META.setdefault(m, m))
        bit <<= 1
    node.next_edges = tuple(edges)
    meta = tuple(meta)
    node.in_meta = _META.setdefault(meta, meta)
    if len(_META) > _META_MAX:
        _META.clear()
    node.be = be
    node.params = params
    node.extra = extra
    node.saved = node.out = node._versions = None
    node._out_meta = node._pre_hooks = node._retain = node._hooks = None
    node._anomaly_trace = None
    node._freed = False
    versions = None  # flat: (slot, version counter, version at save) per saved tensor
    want = cls.saves_input
    if want:
        keep = (
            None
            if want is True
            else (_PLANS.get((cls, mask, len(inputs))) or _save_plan(cls, want, mask, len(inputs)))
        )
        saved = []
        versions = []
        k = 0
        for t in inputs:
            if keep is None or keep[k]:
                if t._inf:
                    _inference_saved(cls)
                if t._vc.__class__ is SaveCopy:
                    t = saved_copy(t)
                saved.append(t)
                versions += (k, t._vc, t._vc[0])
            else:
                saved.append(None)
            k += 1
        node.saved = tuple(saved)
    if cls.saves_output:
        node.out = out
        k = len(inputs)
        if versions is None:
            versions = []
        for t in out_tensors:
            versions += (k, t._vc, t._vc[0])
            k += 1
    if versions:
        node._versions = versions
    if STATE.anomaly:
        record_anomaly_trace(node)
    return node


def with_history(t, data):
    """A plain tensor (no view, a version counter of its own) around array ``data``, with
    ``t``'s dtype, device and history."""
    s = Tensor._wrap(data, t._dtype, t._device)
    s._requires_grad = t._requires_grad
    s._grad_fn = t._grad_fn
    s._output_nr = t._output_nr
    s._accum = t._accum
    return s


def saved_copy(t):
    """A copy of ``t``'s value with ``t``'s history: what a node saves of a
    :class:`SaveCopy` tensor, and an in-place op's old value where it is not known in
    advance which of its nodes save it."""
    return with_history(t, t._device._backend.copy(t._data))


_PLANS: dict = {}
# The (shape, dtype) pairs of nodes' inputs and their tuples, one object per distinct
# value. A training step makes thousands of nodes over a few shapes; each pair kept apart
# would be two more objects (with its shape) for Python's cyclic garbage collector, whose
# collections run by the count of live container objects: benchmarks/gpt2.py's bf16 step
# spent about a quarter of its host time in them. Emptied past _META_MAX entries.
_META: dict = {}
_META_MAX = 4096


def _save_plan(cls, want, mask, n):
    """Which of the ``n`` inputs to keep (a bool per input) when the inputs in ``mask`` need
    a gradient and input ``i``'s gradient needs the inputs ``want[i]`` (``"others"``: every
    input but ``i``, for ops of any arity); memoised per op, mask and arity."""
    key = (cls, mask, n)
    plan = _PLANS.get(key)
    if plan is None:
        if want == "others":
            want = [tuple(j for j in range(n) if j != i) for i in range(n)]
        need = set()
        for i, needs in enumerate(want):
            if mask >> i & 1:
                need.update(needs)
        plan = _PLANS[key] = tuple(i in need for i in range(n))
    return plan


def _inference_saved(cls):
    raise AutogradError(
        f"{cls.schema_v1.name}: inference tensors cannot be saved for "
        "backward. Tensors made under inference_mode cannot be used in "
        "computation that autograd records; clone() one outside "
        "inference_mode, or use no_grad() instead of inference_mode()."
    )


_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def record_anomaly_trace(node):
    """Keep the stack of the forward call that made ``node``, without Lucid's own frames."""
    frames = [f for f in traceback.extract_stack() if not f.filename.startswith(_PKG)]
    node._anomaly_trace = traceback.format_list(frames)
