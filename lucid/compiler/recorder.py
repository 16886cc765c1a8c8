"""The recorder: one eager run of a function that writes down every array operation it makes.

While a :class:`Recorder` is active, three places that compute on arrays are watched, and
each call made there is written down as one *unit* of the replay (:mod:`.program`):

- every op's ``dispatch`` (its forward kernels), the classes of :mod:`lucid.ops` patched for
  the duration of the run;
- every node's eager backward, :meth:`~lucid.autograd.graph.Node.apply_eager` (the op's one
  gradient formula, summed back to each input's shape);
- every call of a backend method made outside those two (the optimizers' kernels, the
  engine's sums of gradients, ``.grad`` accumulation, in-place writes, creation): each
  backend's kernels are shadowed by recording wrappers for the duration of the run.

A unit names its arrays by *slot*: the output of an earlier unit, or an array that existed
before the run (a parameter, a gradient, an optimizer state, an argument), found through
the tensor holding it (:mod:`.state`) and read from that tensor when a replay starts.
Random kernels name their generator, so each replay draws fresh numbers from its current
state. Whatever cannot be replayed — a host read of a value (``.item()``, ``bool``,
``print``), an op whose output shape depends on values, a backward hook, an array no tensor
holds — is a *graph break*: the run goes on eagerly (or, with ``fullgraph``, raises
:class:`~lucid.errors.CompileError` at that line) and the recording is not used.
"""

from __future__ import annotations

import os
import traceback

from .._device import device as _device_cls
from .._state import STATE
from .._tensor import Tensor
from ..autograd import graph as _graph
from ..autograd.graph import Node
from ..backend.interface.optim import OptimKernels
from ..errors import CompileError
from ..ops.core import base as _base, device as _device_ops
from ..ops.core.base import Op
from .units import CONST, DICT, GEN, HYPER, SEQ, SLOT, BackwardUnit

__all__ = ["Recorder", "ACTIVE"]

#: the recorder of the run in progress, or None (``lucid.compiler.is_compiling``)
ACTIVE: list = [None]

# the optimizers' kernels: a hyperparameter they take is read from its param group at replay
_OPTIM = frozenset(n for n in dir(OptimKernels) if not n.startswith("_"))

# backend methods that only look at an array's layout or answer a policy question from
# shapes and dtypes: run, never recorded
_LAYOUT = frozenset(
    (
        "is_contiguous",
        "is_read_only",
        "has_internal_overlap",
        "partial_overlap",
        "shares_memory",
        "data_ptr",
        "storage_size",
        "storage_nbytes",
        "storage_data_ptr",
        "storage_offset",
        "is_shared",
        "parallel_pieces",
        "prefers_flash_attention",
    )
)
# backend methods that read values to the host or change a generator: graph breaks
_HOST = frozenset(
    (
        "to_numpy",
        "to_list",
        "edge_items",
        "any_nan",
        "to_dlpack",
        "from_dlpack",
        "rng_create",
        "rng_get_state",
        "rng_set_state",
    )
)

# backend methods whose output's shape depends on values: graph breaks
_SHAPED = frozenset(("nonzero_index", "nonzero", "unique", "bincount"))

_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_frame():
    """``file:line`` of the innermost frame outside Lucid (where a graph break happened)."""
    for f in reversed(traceback.extract_stack()):
        if not f.filename.startswith(_PKG):
            return f"{f.filename}:{f.lineno}"
    return "<lucid>"


class Recorder:
    """The units of one run, the slots they read and write, and why it cannot replay.

    ``sources`` lists ``(slot, source)`` for the arrays that existed before the run
    (:class:`~lucid.compiler.state.Snapshot` names each by the tensor that holds it);
    ``gens`` maps each live generator's backend state to its :class:`~lucid.Generator`.
    """

    def __init__(self, snapshot, fullgraph):
        self.snapshot = snapshot
        self.fullgraph = fullgraph
        self.slots: dict = {}  # id(array) -> slot
        self.keep: list = []  # every array with a slot (their ids stay unique)
        self.units: list = []  # (fn, arg specs, kw specs, out spec)
        self.sources: list = []  # (slot, source) read when a replay starts
        self.breaks: list = []  # (reason, file:line)
        self.depth = 0  # > 0 inside a recorded unit: its inner calls are not units
        self.nodes: set = set()  # the nodes the run created
        self.gens = snapshot.generators
        # id(hyperparameter value) -> (param group, key, index in a tuple or None), and the
        # (id(group), key, index) an optimizer kernel took as they are (read at replay)
        self.hypers: dict = {}
        self.bound: set = set()

    # -- graph breaks ---------------------------------------------------------------------

    def graph_break(self, reason):
        """Mark the recording unusable (``reason`` at the user's line); raise under
        ``fullgraph``."""
        where = user_frame()
        self.breaks.append((reason, where))
        if self.fullgraph:
            raise CompileError(
                f"lucid.compile(fullgraph=True): graph break at {where}: {reason}; the "
                "recording of a whole graph cannot contain it (run without fullgraph=True "
                "to fall back to eager for such calls)"
            )

    # -- slots and specs ------------------------------------------------------------------

    def new_slot(self, a):
        k = len(self.keep)
        self.keep.append(a)
        self.slots[id(a)] = k
        return k

    def slot_of(self, a):
        """The slot of array ``a`` read by a unit: an earlier unit's output, or an array of a
        tensor that existed before the run (a new source)."""
        k = self.slots.get(id(a))
        if k is not None:
            return k
        src = self.snapshot.source_of(a)
        k = self.new_slot(a)
        if src is None:
            self.graph_break(
                f"an array of shape {tuple(a.shape)} that no tensor held before the call and "
                "no recorded operation made"
            )
        else:
            self.sources.append((k, src))
        return k

    def spec(self, x, types):
        """How argument ``x`` is found at replay: a slot, a generator, a constant, or a
        list / tuple / dict of those."""
        if isinstance(x, types):
            return (SLOT, self.slot_of(x))
        c = x.__class__
        if c is tuple or c is list:
            subs = [self.spec(v, types) for v in x]
            if all(s[0] == CONST for s in subs):
                return (CONST, x)
            return (SEQ, c, subs)
        if c is dict:
            subs = {k: self.spec(v, types) for k, v in x.items()}
            if all(s[0] == CONST for s in subs.values()):
                return (CONST, x)
            return (DICT, subs)
        g = self.gens.get(id(x))
        if g is not None:
            return (GEN, g)
        if isinstance(x, Tensor):
            self.graph_break("a Tensor passed to a kernel (its value is read when recorded)")
        return (CONST, x)

    def out_spec(self, out, types):
        """Slots for what a unit returned (arrays, None, lists and tuples of them); a host
        value is a graph break."""
        if isinstance(out, types):
            return (SLOT, self.new_slot(out))
        c = out.__class__
        if out is None:
            return (CONST, None)
        if c is tuple or c is list:
            return (SEQ, c, [self.out_spec(v, types) for v in out])
        self.graph_break(f"a kernel returned a host value ({type(out).__name__})")
        return (CONST, out)

    def hyper_spec(self, x, types):
        """:meth:`spec` of an optimizer kernel's keyword: a float that is a param group's
        value itself (``lr=float(group["lr"])``) is read from the group at replay, so a
        learning-rate schedule needs no new recording."""
        if x.__class__ is float:
            h = self.hypers.get(id(x))
            if h is not None:
                self.bound.add((id(h[0]), h[1], h[2]))
                return (HYPER,) + h
        return self.spec(x, types)

    def record(self, fn, args, kwargs, out, types, hyper=False):
        kw = None
        if kwargs:
            sp = self.hyper_spec if hyper else self.spec
            kw = {k: sp(v, types) for k, v in kwargs.items()}
        self.units.append((fn, [self.spec(a, types) for a in args], kw, self.out_spec(out, types)))

    def record_constant(self, upload, args, kwargs, out, types):
        """``asarray`` of a host constant: the replay uploads a private copy of it, into a
        new array each time (the tensor made from it may be written in place)."""
        data = args[0].copy()

        def fresh(*a, **k):
            arr = upload(data, *a, **k)
            return arr.copy() if arr is data else arr

        self.record(fresh, args[1:], kwargs, out, types)

    # -- the patches ----------------------------------------------------------------------

    def __enter__(self):
        ACTIVE[0] = self
        STATE.compile_held = self.slots  # (``keep`` holds each array of a slot once)
        self._patched = []
        self._devices = []
        for cls in _op_classes():
            sm = cls.__dict__["dispatch"]
            self._patched.append((cls, "dispatch", sm))
            cls.dispatch = staticmethod(_dispatch_wrapper(self, cls, sm.__func__))
        for mod in (_base, _device_ops, _graph):
            made = mod.new_node
            self._patched.append((mod, "new_node", made))
            mod.new_node = _node_maker(self, made)
        orig = Node.__dict__["apply_eager"]
        self._patched.append((Node, "apply_eager", orig))
        Node.apply_eager = _backward_wrapper(self, orig)
        for be in {id(d._backend): d._backend for d in _device_cls._interned.values()}.values():
            if be is not None:
                self._devices.append((be, _wrap_backend(self, be)))
        return self

    def __exit__(self, *exc):
        for cls, name, orig in reversed(self._patched):
            setattr(cls, name, orig)
        for be, names in self._devices:
            for name in names:
                delattr(be, name)
        ACTIVE[0] = None
        STATE.compile_held = None
        return False


def _op_classes():
    """Every op class that defines its own ``dispatch``."""
    out = []
    stack = [Op]
    seen = set()
    while stack:
        c = stack.pop()
        if "dispatch" in c.__dict__ and c is not Op:
            out.append(c)
        for s in c.__subclasses__():
            if s not in seen:
                seen.add(s)
                stack.append(s)
    return out


def _dispatch_wrapper(rec, cls, fn):
    """``cls.dispatch`` recorded as one unit (the kernels it calls are not units)."""
    schema = getattr(cls, "schema_v1", None)
    capturable = schema is None or schema.capturable

    def dispatch(be, *arrays, **params):
        if rec.depth:
            return fn(be, *arrays, **params)
        if not capturable:
            rec.graph_break(f"{schema.name}: its output's shape depends on its input's values")
        else:
            why = cls.capture_break(arrays, params)
            if why is not None:
                rec.graph_break(why)
        rec.depth += 1
        try:
            out = fn(be, *arrays, **params)
        finally:
            rec.depth -= 1
        rec.record(_bound(fn, be), arrays, params, out, be.value_types)
        return out

    return dispatch


def _bound(fn, be):
    def call(*arrays, **params):
        return fn(be, *arrays, **params)

    call.__qualname__ = getattr(fn, "__qualname__", "dispatch")
    return call


def _node_maker(rec, made):
    """``new_node`` that remembers the nodes the recorded run creates."""

    def new_node(*args, **kwargs):
        node = made(*args, **kwargs)
        rec.nodes.add(node)
        return node

    return new_node


def _backward_wrapper(rec, orig):
    """``Node.apply_eager`` recorded as one unit, over a copy of the node whose saved
    arrays a replay rebinds (:class:`~lucid.compiler.program.BackwardUnit`)."""

    def apply_eager(node, grads):
        if rec.depth:
            return orig(node, grads)
        if not isinstance(node, Op):
            rec.graph_break(f"the backward of {node.name()} (a custom autograd.Function)")
        elif node._hooks or node._pre_hooks or node._retain:
            rec.graph_break(f"a hook (or retain_grad) on the backward of {node.name()}")
        elif node not in rec.nodes:
            rec.graph_break(f"the backward of {node.name()}, recorded before the call")
        be = node.be
        unit = BackwardUnit(node)
        saved = [None if t is None else t._data for t in node.saved or ()]
        rec.depth += 1
        try:
            res = orig(node, grads)
        finally:
            rec.depth -= 1
        rec.record(
            unit, (list(grads), saved, node.out, node.extra, node.params), None, res, be.value_types
        )
        return res

    return apply_eager


def _wrap_backend(rec, be):
    """Shadow each public kernel of backend ``be`` with an instance attribute that records
    a call made outside a recorded unit (layout queries pass through; host reads are
    breaks). Every holder of ``be`` (devices, nodes) sees the wrappers until
    :func:`_unwrap_backend`. Returns the names shadowed."""
    names = []
    types = be.value_types
    for name in dir(type(be)):
        if name.startswith("_") or name in _LAYOUT:
            continue
        attr = getattr(be, name)
        if not callable(attr) or isinstance(attr, type):
            continue
        setattr(be, name, _kernel_wrapper(rec, name, attr, types))
        names.append(name)
    return names


def _host_constant(rec, a, types):
    """Whether ``a``, given to ``asarray``, is a constant made on the host from Python
    data (``lucid.tensor(2.0)``): an array no unit made and no tensor holds."""
    return isinstance(a, types) and id(a) not in rec.slots and rec.snapshot.source_of(a) is None


def _kernel_wrapper(rec, name, attr, types):
    host = name in _HOST
    shaped = name in _SHAPED
    optim = name in _OPTIM

    def kernel(*args, **kwargs):
        if rec.depth:
            return attr(*args, **kwargs)
        if host:
            rec.graph_break(f"a read of a tensor's value on the host ({name})")
        elif shaped:
            rec.graph_break(f"{name}: its output's shape depends on its input's values")
        rec.depth += 1
        try:
            out = attr(*args, **kwargs)
        finally:
            rec.depth -= 1
        if host:
            return out
        if name == "asarray" and _host_constant(rec, args[0], types):
            rec.record_constant(attr, args, kwargs, out, types)
        else:
            rec.record(attr, args, kwargs, out, types, optim)
        return out

    kernel.__qualname__ = name
    return kernel
