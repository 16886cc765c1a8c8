"""Base classes of ops and the call path every op goes through.

An op is one class: its ``schema_v1``, what it saves, ``dispatch`` (the forward, on backend
arrays) and ``grad`` (its one gradient formula), from which ``grad_formula`` (the eager
backward, on arrays) and ``grad_formula_impl`` (the graph-mode backward, on Tensors) are
derived. The class is also the autograd node: a call that records a graph makes one
instance holding the edges to its inputs and what the backward needs.

:meth:`Op.apply` is the one call pipeline (wrapper -> policy -> backend -> Tensor -> node),
the hot path. Each feature that is off costs one flag read: the profiler
(``STATE.profiler``), autocast (``STATE.autocast``), determinism, graph recording
(``STATE.grad_enabled`` and an input's ``requires_grad``), anomaly mode, vmap
(``STATE.vmap``: the ops' batching rules, :mod:`lucid.func.batching`).
A complex input leaves the hot path through the same per-input dtype check: refused (a
``DTypeError`` naming the op) unless the schema declares ``complex_grad``; a holomorphic
op's one formula then serves complex data too (:meth:`Op.grad_formula`). Views live here too:
a view keeps the chain of view ops from its base and, when the base changed in place
since, replays it to take the base's new history (:func:`_refresh_view`); in-place writes
(:func:`~lucid.ops.core.inplace.apply_inplace`) live in :mod:`.inplace`.

Base classes:

- :class:`UnaryOp` ``f(x)``; real-valued ops turn integer input into the default float.
- :class:`BroadcastOp`: several tensor inputs that broadcast (``where``, ``lerp``).
- :class:`BinaryOp` ``f(a, b)`` with PyTorch promotion and weak Python scalars; the node
  sums each gradient back over broadcast axes (see :class:`~lucid.autograd.graph.Node`).
- :class:`ReductionOp` ``f(x, dim, keepdim)`` with dims normalised and checked.
- :class:`ViewOp`: the output shares storage and version counter with the input.
- :class:`NaryOp` ``f([t0, t1, ...])`` (cat, stack).
- :class:`MultiOutputOp`: ``dispatch`` returns a tuple; outputs are a tuple.
"""

from __future__ import annotations

import numbers
from types import ModuleType
from typing import Any, ClassVar

from ... import dtypes as _dt
from ..._tensor import Tensor
from ..._tensor.factory import tensor as _tensor_of
from ..._tensor.tensor import _VIEW_REFRESH
from ...autograd.grad_mode import STATE
from ...autograd.graph import Node, new_node
from ...errors import (
    ArgumentTypeError,
    AutogradError,
    DeterminismError,
    DeviceMismatchError,
    DimError,
    DTypeError,
    LucidError,
    ShapeError,
    set_op_name,
)
from .registry import BATCHING as _BATCHING, get_op
from .schema import AmpPolicy, OpSchema

__all__ = [
    "Op",
    "UnaryOp",
    "BroadcastOp",
    "BinaryOp",
    "ReductionOp",
    "ViewOp",
    "NaryOp",
    "MultiOutputOp",
    "to_tensor",
    "norm_dim",
    "norm_dims",
    "broadcast_shapes",
    "scalar_like",
]

_BY_NP = _dt._BY_NP
_COMPLEX_NP = frozenset(d.np for d in _dt.COMPLEX)
_wrap = Tensor._wrap


class Op(Node):
    """An op: schema, forward dispatch and its gradient (see module doc)."""

    __slots__ = ()
    schema_v1: ClassVar[OpSchema]  # every registered op declares its own
    # saves_input (Node's): True, all inputs; per input, the inputs its gradient needs;
    # "others"
    # names of intermediates ``dispatch`` returns after the outputs (a single-output op
    # may return its output alone: no extras)
    saves_extra: ClassVar[tuple[str, ...]] = ()
    graph_ns: ClassVar[ModuleType | None] = None  # F in graph mode (lucid.ops.core.graph_ns)
    _real = False  # mirrors schema_v1.real_valued, read on the hot path
    _diff = True  # mirrors schema_v1.differentiable
    _diff_outputs: ClassVar[tuple[int, ...] | None] = None  # schema_v1.differentiable_outputs
    _policy = AmpPolicy.KEEP_INPUT
    _multi = False
    _view = False
    _broadcast = False  # inputs broadcast against each other
    _nondet = False  # mirrors not schema_v1.deterministic
    _tuple_out = False  # dispatch returns a tuple (several outputs or saves_extra)
    _holomorphic = False  # schema_v1.complex_grad == "holomorphic"
    # per input dtype category (bool, integer, floating, complex): whether an input of it
    # leaves the hot path (real-valued cast of integers, complex refused or handled)
    _slow_cat = (False, False, False, True)

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        s = cls.__dict__.get("schema_v1")
        if s is not None:
            cls._holomorphic = s.complex_grad == "holomorphic"
            cls._slow_cat = (s.real_valued, s.real_valued, False, s.complex_grad is None)
            cls._real = s.real_valued
            cls._diff = s.differentiable
            cls._policy = s.amp_policy
            cls._nondet = not s.deterministic
            cls._diff_outputs = s.differentiable_outputs
            if s.output_arity != 1:
                cls._multi = True
        cls._tuple_out = cls._multi or bool(cls.saves_extra)

    @staticmethod
    def dispatch(be, *arrays, **params):
        """The forward: backend arrays in, array (or tuple of arrays) out."""
        raise NotImplementedError  # abstract: every op defines it

    @classmethod
    def capture_break(cls, arrays, params):
        """Why this call cannot be replayed by ``lucid.compile`` (its output's shape
        depends on values), or None; the schema's ``capturable`` says it for every call."""
        return None

    # -- the gradient, written once -------------------------------------------------------

    def grad(self, F, g, *args):
        """The op's one gradient formula: ``args`` are the saved inputs (``None`` where not
        saved) and the saved output, ``F`` the namespace the formula calls — the backend
        on arrays for the eager backward, :attr:`graph_ns` on Tensors for graph mode."""
        raise AutogradError(f"{self.name()} is not differentiable")

    def grad_formula(self, grad):
        r"""The eager backward: :meth:`grad` on backend arrays with ``F`` the backend.

        A holomorphic op (``complex_grad="holomorphic"``) on complex data runs its real
        formula ``g f'(z)`` as ``conj(grad(conj(g)))`` = :math:`g\,\overline{f'(z)}`, the
        gradient with respect to :math:`\bar z` PyTorch's convention asks for."""
        if self._holomorphic and (
            grad.dtype in _COMPLEX_NP if grad.__class__ is not tuple else _complex_grad(grad)
        ):
            return _conj_each(self.be, self._grad_eager(_conj_each(self.be, grad)))
        return self._grad_eager(grad)

    def _grad_eager(self, grad):
        saved = self.saved
        if saved is None:
            return self.grad(self.be, grad, *(None,) * len(self.in_meta), self.out)
        if len(saved) == 1:  # fixed arities without building a list (hot path)
            x = saved[0]
            return self.grad(self.be, grad, None if x is None else x._data, self.out)
        return self.grad(self.be, grad, *[None if t is None else t._data for t in saved], self.out)

    def grad_formula_impl(self, grad, *args):
        """The graph-mode backward: :meth:`grad` on Tensors with ``F`` the Lucid ops, so
        the gradient is itself recorded (double backward); complex data as in
        :meth:`grad_formula`, through the recorded ``conj`` op."""
        if self._holomorphic and (
            grad._dtype._cat == 3 if grad.__class__ is not tuple else _complex_grad(grad)
        ):
            F = self.graph_ns
            return _conj_each(F, self.grad(F, _conj_each(F, grad), *args))
        return self.grad(self.graph_ns, grad, *args)

    # -- the call pipeline ----------------------------------------------------------------

    @classmethod
    def apply(cls, *inputs, **params):
        """Run the op on Tensors ``inputs`` with keyword ``params``; record if needed.

        The one call pipeline of every op: the AmpPolicy under autocast and the
        determinism switch (one flag read each when off), then per input the device check,
        a stale view's history and the real-valued cast (integers to the default float,
        before autocast: the call restarts with float inputs), the broadcast check,
        ``dispatch``, the outputs and, when some input requires grad and grad mode is on,
        the node. Under vmap an op with a batched input runs its batching rule instead.
        """
        prof = STATE.profiler
        if prof is not None and prof.idle:  # the call again, inside the op's timed range
            return prof.op(cls, inputs, params)
        if STATE.vmap:
            out = _BATCHING[0](cls, inputs, params)
            if out is not NotImplemented:
                return out
        try:
            if STATE.autocast is not None or cls._nondet:
                inputs = _prepare(cls, inputs)
            dev = inputs[0]._device
            grad = False
            for t in inputs:
                if t._device is not dev:
                    _device_mismatch(cls, inputs)
                if t._base is not None and t._view_v != t._vc[0]:
                    _refresh_view(t)
                if t._requires_grad:
                    grad = True
                if t._dtype._cat != 2 and cls._slow_cat[t._dtype._cat]:
                    return _non_float_inputs(cls, inputs, params)
        except AttributeError:  # a number or array among the inputs: make it a Tensor
            if all(isinstance(t, Tensor) for t in inputs):
                raise
            try:
                inputs = [to_tensor(t, _first_tensor(inputs)) for t in inputs]
            except LucidError as e:
                set_op_name(e, cls.schema_v1.name)
                raise
            return cls.apply(*inputs, **params)
        be = dev._backend
        n = len(inputs)  # fixed arities without building a list (hot path)
        if n == 1:
            out = (
                cls.dispatch(be, inputs[0]._data, **params)
                if params
                else cls.dispatch(be, inputs[0]._data)
            )
        elif n == 2:
            a, b = inputs[0]._data, inputs[1]._data
            if cls._broadcast and a.shape != b.shape and a.shape and b.shape:
                _check_broadcast(cls, inputs)
            out = cls.dispatch(be, a, b, **params) if params else cls.dispatch(be, a, b)
        else:
            if cls._broadcast:
                _check_broadcast(cls, inputs)
            out = cls.dispatch(be, *[t._data for t in inputs], **params)
        record = grad and cls._diff and STATE.grad_enabled
        if cls._tuple_out and (cls._multi or out.__class__ is tuple):
            return _finish_tuple(cls, be, dev, out, inputs, params, record)
        if out.__class__ is not be.ndarray:
            out = be.asarray(out)
        t = _wrap(out, _BY_NP[out.dtype], dev)
        if cls._view:
            _link_view(t, inputs[0], cls, params)
        if record and t._dtype._grad:
            t._grad_fn = new_node(cls, be, inputs, params, out, (t,))
            t._requires_grad = True
        return t


def _first_tensor(inputs):
    for t in inputs:
        if isinstance(t, Tensor):
            return t
    return None


def _prepare(cls, inputs):
    """Autocast (the op's AmpPolicy) and the determinism switch, when either is on."""
    if cls._nondet and STATE.deterministic:
        _nondeterministic(cls, inputs)
    if STATE.autocast is not None:
        inputs = _autocast(cls, inputs)
    return inputs


def _finish_tuple(cls, be, dev, out, inputs, params, record):
    """The outputs of an op whose ``dispatch`` returns a tuple: several outputs, and/or the
    intermediates of ``saves_extra`` after them (kept on the node, never returned)."""
    extra = None
    if cls.saves_extra:
        k = len(cls.saves_extra)
        extra = dict(zip(cls.saves_extra, out[-k:]))
        out = out[:-k]
        if not cls._multi:
            t = _wrap(out[0], _BY_NP[out[0].dtype], dev)
            if cls._view:
                _link_view(t, inputs[0], cls, params)
            if record and t._dtype._grad:
                t._grad_fn = new_node(cls, be, inputs, params, out[0], (t,), extra)
                t._requires_grad = True
            return t
    nd = be.ndarray
    outs = tuple(_wrap(o if o.__class__ is nd else be.asarray(o), None, dev) for o in out)
    for t in outs:
        t._dtype = _BY_NP[t._data.dtype]
    if cls._view:
        for t in outs:
            _link_view(t, inputs[0], cls, params)
    if record:
        node = new_node(cls, be, inputs, params, tuple(t._data for t in outs), outs, extra)
        node._out_meta = tuple((t._data.shape, t._dtype) for t in outs)
        which = cls._diff_outputs
        for i, t in enumerate(outs):
            if t._dtype._grad and (which is None or i in which):
                t._requires_grad = True
                t._grad_fn = node
                t._output_nr = i
    return outs


def _device_mismatch(cls, inputs):
    devs = sorted({str(t._device) for t in inputs})
    raise DeviceMismatchError(
        f"{cls.schema_v1.name}: expected all tensors to be on the same "
        f"device, but found tensors on {' and '.join(devs)}"
    )


def _nondeterministic(cls, inputs):
    s = cls.schema_v1
    if inputs[0]._device.type not in s.nondeterministic_on:
        return
    msg = (
        f"{s.name}: does not have a deterministic implementation, but "
        f"use_deterministic_algorithms(True) is set. {s.determinism_note}"
    )
    if STATE.deterministic_warn_only:
        import warnings

        warnings.warn(msg, stacklevel=4)
    else:
        raise DeterminismError(msg)


def _to_float(t):
    if t._dtype._cat >= 2:  # floating or complex: kept
        return t
    return _cast(t, _dt.get_default_dtype())


def _non_float_inputs(cls, inputs, params):
    """The pipeline's slow path for a non-floating input: a complex one is refused by an op
    that does not declare ``complex_grad`` (PyTorch's ``relu``, ``max``, ``lt`` refuse it
    too: never a silent wrong answer); a real-valued op computes integer and bool inputs in
    the default float dtype (the call restarts with them cast)."""
    if cls._slow_cat[3]:
        for t in inputs:
            if t._dtype._cat == 3:
                raise DTypeError(
                    f"{cls.schema_v1.name}: does not support complex input "
                    f"(got {t._dtype.name}); expected a real dtype"
                )
    return cls.apply(*[_to_float(t) for t in inputs], **params)


def _complex_grad(g):
    """Whether gradient ``g`` (array or Tensor; a tuple of them for several outputs) is
    complex."""
    if g.__class__ is tuple:
        g = next((x for x in g if x is not None), None)
        if g is None:
            return False
    d = g.dtype
    return (d if d.__class__ is _dt.dtype else _BY_NP[d])._cat == 3


def _conj_each(F, g):
    """``conj`` of a gradient or of each of a tuple of them (None stays None)."""
    if g.__class__ is tuple:
        return tuple(None if x is None else F.conj(x) for x in g)
    return None if g is None else F.conj(g)


def _cast(t, dt):
    """``t`` cast to ``dt`` by the cast op (``casts.py``, a module above: found by its
    registered name)."""
    return get_op("cast").apply(t, dtype=dt)


_HALF = (_dt.float16, _dt.bfloat16)
_PROMOTABLE = (_dt.float32, _dt.float16, _dt.bfloat16)


def _autocast(cls, inputs):
    """Apply the op's AmpPolicy to floating inputs when autocast is on for their device
    type (``STATE.autocast``: device type -> dtype); the cast is recorded in the graph.
    PROMOTE casts float32/float16/bfloat16 (not float64, as PyTorch) to the autocast dtype,
    PROMOTE_FIRST only the first input; FORCE_FP32 casts float16/bfloat16 to float32."""
    policy = cls._policy
    if policy is AmpPolicy.KEEP_INPUT:
        return inputs
    want = STATE.autocast.get(inputs[0]._device.type)
    if want is None:
        return inputs
    if policy is AmpPolicy.PROMOTE_FIRST:
        t = inputs[0]
        if t._dtype in _PROMOTABLE and t._dtype is not want:
            return (_cast(t, want),) + tuple(inputs[1:])
        return inputs
    if policy is AmpPolicy.PROMOTE:
        return tuple(
            _cast(t, want) if t._dtype in _PROMOTABLE and t._dtype is not want else t
            for t in inputs
        )
    return tuple(_cast(t, _dt.float32) if t._dtype in _HALF else t for t in inputs)


# -- conversion helpers used by wrappers -------------------------------------------------


def to_tensor(x, like=None, dtype=None):
    """``x`` if it is a Tensor, else a tensor of it on ``like``'s device."""
    if x.__class__ is Tensor or isinstance(x, Tensor):
        return x
    dev = like._device if like is not None else None
    return _tensor_of(x, dtype=dtype, device=dev)


def scalar_like(value, dt, like):
    """A 0-d tensor of ``value`` in dtype ``dt`` on ``like``'s device (wraps like a C cast)."""
    be = like._device._backend
    try:
        arr = be.asarray(value, dt.np)
    except (OverflowError, ValueError):  # out of the dtype's range: wrap like a C cast
        arr = be.astype(be.asarray(value), dt.np)
    return _wrap(arr, dt, like._device)


def norm_dim(dim, ndim, op):
    """``dim`` as a non-negative int, or a DimError naming ``op`` and the valid range."""
    if dim.__class__ is int and 0 <= dim < ndim:
        return dim
    if not isinstance(dim, numbers.Integral):
        raise ArgumentTypeError(f"{op}(): argument 'dim' must be int, not {type(dim).__name__}")
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise DimError(
            f"{op}: dimension out of range (expected to be in range of [{-n}, "
            f"{n - 1}], but got {dim})"
        )
    return dim % n if ndim else 0


def norm_dims(dim, ndim, op):
    """``dim`` (None, int or sequence) as a sorted tuple of distinct non-negative ints."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, numbers.Integral):
        d = norm_dim(dim, ndim, op)  # checked on a 0-d input too ([-1, 0])
        return (d,) if ndim else ()
    dims = tuple(norm_dim(d, ndim, op) for d in dim)
    if len(set(dims)) != len(dims):
        raise DimError(f"{op}: dim {tuple(dim)} appears multiple times in the list of dims")
    return tuple(sorted(dims)) if ndim else ()


# -- op kinds ----------------------------------------------------------------------------


class UnaryOp(Op):
    """``y = f(x)``, element-wise unless the op says otherwise."""

    __slots__ = ()

    call = Op.__dict__["apply"]  # the pipeline itself makes a Tensor of a number


class BroadcastOp(Op):
    """An element-wise op over several tensors that broadcast against each other (``where``,
    ``lerp``, ``addcmul``): the pipeline checks their shapes before dispatch."""

    __slots__ = ()
    _broadcast = True


class BinaryOp(BroadcastOp):
    """``y = f(a, b)`` with broadcasting and PyTorch type promotion.

    Python scalars are weak (``float32 * 2.0`` is float32); real-valued ops (true division)
    compute integer inputs in the default float dtype. The node reduces each gradient to
    its input's shape, so a gradient formula may return broadcast-shaped gradients.
    """

    __slots__ = ()
    _scalar_op: Any = None  # the one-input op for (tensor, Python number), if any
    _rscalar_op: Any = None  # and for (Python number, tensor)

    @classmethod
    def call(cls, a, b, **params):
        """Promote ``a`` and ``b`` (Tensors or Python scalars) to the compute dtype, then
        run the pipeline; a floating tensor with a Python number takes the op's
        ``_scalar_op`` (:mod:`lucid.ops.binary.scalar_ops`)."""
        ta = a.__class__ is Tensor or isinstance(a, Tensor)
        tb = b.__class__ is Tensor or isinstance(b, Tensor)
        if ta and tb:
            rd = a._dtype if a._dtype is b._dtype else _dt.result_type(a, b)
        elif ta or tb:  # a tensor and a number (or an array)
            t, s = (a, b) if ta else (b, a)
            fast = cls._scalar_op if ta else cls._rscalar_op
            k = s.__class__
            if (
                (k is float or k is int and -_I64 <= s < _I64)
                and fast is not None
                and (
                    t._dtype in _WEAK_SCALAR_DTYPES
                    or k is int
                    and not params
                    and t._dtype is _dt.int64
                    and fast.keeps_int64
                )
            ):
                return fast.apply(t, other=s, **params)
            try:
                rd = _scalar_result(cls, t._dtype, s)
            except DTypeError as e:  # an array operand becomes a tensor, as in PyTorch
                s = _array_operand(s, t, e)
                return cls.call(t, s, **params) if ta else cls.call(s, t, **params)
            if cls._real and rd._cat < 2:
                rd = _dt.get_default_dtype()
            s = scalar_like(s, rd, t)
            a, b = (t, s) if ta else (s, t)
        else:
            return cls.call(to_tensor(a), b, **params)
        if cls._real and rd._cat < 2:
            rd = _dt.get_default_dtype()
        cdt = cls.compute_dtype(rd)
        if a._dtype is not cdt:
            a = _promote(a, cdt)
        if b._dtype is not cdt:
            b = _promote(b, cdt)
        return cls.apply(a, b, **params)

    @classmethod
    def compute_dtype(cls, rd):
        """The dtype both inputs are cast to before dispatch (the promoted dtype)."""
        return rd


def _array_operand(x, like, err):
    """An operand exposing the array protocol (NumPy, CuPy) as a tensor on ``like``'s
    device, in its own dtype; raises ``err`` for anything else."""
    if not (hasattr(x, "__array__") and hasattr(x, "dtype") and hasattr(x, "shape")):
        raise err
    return _tensor_of(x, device=like._device)


# where a Python number takes the tensor's dtype in the backend as in PyTorch (ml_dtypes'
# bfloat16 promotes a Python float to float32, so it takes the general path); an int64
# tensor with a Python int does too, in the ops whose ``keeps_int64`` says so
_WEAK_SCALAR_DTYPES = frozenset((_dt.float16, _dt.float32, _dt.float64))
_I64 = 2**63  # Python ints outside int64 take the general path, which refuses them


def _promote(t, dt):
    """``t`` in dtype ``dt``: a recorded cast if it requires grad (or under vmap, where
    ``t`` may be batched: the cast op has a batching rule), else a plain copy."""
    if t._requires_grad or STATE.vmap:
        return _cast(t, dt)
    return _wrap(t._device._backend.astype(t._data, dt.np), dt, t._device)


def _check_broadcast(cls, inputs):
    """Raise a ShapeError naming the op when the inputs' shapes cannot broadcast."""
    s0 = None
    for t in inputs:
        s = t._data.shape
        if s and s != s0:  # 0-d inputs broadcast against anything
            if s0 is not None:
                broadcast_shapes(*[t._data.shape for t in inputs], op=cls.schema_v1.name)
                return
            s0 = s


def broadcast_shapes(*shapes, op="broadcast_shapes"):
    """The shape that ``shapes`` broadcast to (NumPy/PyTorch rules), or a ShapeError."""
    n = max(len(s) for s in shapes)
    out = [1] * n
    for s in shapes:
        for i, d in enumerate(s, n - len(s)):
            if d != out[i]:
                if out[i] == 1:
                    out[i] = d
                elif d != 1:
                    raise ShapeError(
                        f"{op}: shapes {', '.join(str(tuple(s)) for s in shapes)} cannot be "
                        "broadcast together"
                    )
    return tuple(out)


def _scalar_result(cls, dt, s):
    """Promotion of a tensor of dtype ``dt`` with a weak Python scalar ``s``."""
    k = s.__class__
    if k is float:
        return dt if dt._cat >= 2 else _dt.get_default_dtype()
    if k is int:
        return _dt.int64 if dt is _dt.bool else dt
    if k is bool:
        return dt
    return _dt._combine(dt, _dt.scalar_dtype(_check_scalar(cls, s)))


def _check_scalar(cls, s):
    if isinstance(s, (numbers.Number, bool)):
        return s
    raise DTypeError(f"{cls.schema_v1.name}: expected a Tensor or a number, got {type(s).__name__}")


class ReductionOp(Op):
    """``y = f(x)`` reduced over ``dim`` (None: all dims), optionally keeping them.

    ``params['dim']`` reaches ``dispatch`` as a tuple of non-negative ints;
    :meth:`unreduce` reshapes a gradient back so it broadcasts
    against the input.
    """

    __slots__ = ()

    @classmethod
    def call(cls, x, dim=None, keepdim=False, **params):
        x = to_tensor(x)
        dims = norm_dims(dim, x._data.ndim, cls.schema_v1.name)
        return cls.apply(x, dim=dims, keepdim=bool(keepdim), **params)

    def unreduce(self, g):
        """``g`` (a backend array, or a Tensor in graph mode: both have ``reshape``)
        reshaped to keep the reduced dims as size 1, so it broadcasts against the input."""
        if self.params["keepdim"]:
            return g
        shape = list(self.in_meta[0][0])
        for d in self.params["dim"]:
            shape[d] = 1
        return g.reshape(shape)


class ViewOp(UnaryOp):
    """An op whose output is a view: it shares the input's storage and version counter."""

    __slots__ = ()
    _view = True


def _link_view(out, src, cls, params, multi=None):
    """Make ``out`` a view of ``src``'s base: shared version counter, and the chain of view
    ops that makes it from the base (replayed when the base changes in place). ``multi``
    names the output of an op returning several views (``unbind``, ``split``): PyTorch
    forbids writing to those, or using them after their base changed, when they carry
    history."""
    base = src._base
    if base is None:
        base = src
        chain = ()
    else:
        chain = src._meta["view"]
    out._base = base
    out._vc = src._vc
    out._view_v = src._vc[0]
    out._meta = {"view": chain + ((cls, params),)}
    if not STATE.grad_enabled:
        out._meta["no_grad"] = True
    if multi is not None:
        out._meta["multi"] = multi


def _refresh_view(view):
    """Give ``view`` the history of its base's current value, replaying its view chain.

    Called, as PyTorch regenerates a view's ``grad_fn``, when the shared version counter
    moved since the view's history was set (its base, or another view of it, changed in
    place). A view made under ``no_grad`` keeps having no history. Outside grad mode
    nothing can be recorded, so the refresh waits for the next use.
    """
    if not STATE.grad_enabled:
        return
    view._view_v = view._vc[0]
    meta = view._meta
    base = view._base
    if meta.get("no_grad"):
        if base._requires_grad:
            _no_grad_view_error("its base or another view of its base has been modified in place")
        return
    if not base._requires_grad:
        view._grad_fn = None
        view._requires_grad = False
        return
    if "multi" in meta:
        _multi_view_error(
            meta["multi"], "its base or another view of its base has been modified in place"
        )
    v = base
    for cls, params in meta["view"]:
        v = cls.apply(v, **params)
        if v.__class__ is tuple:
            raise AutogradError(f"{cls.schema_v1.name}: a multi-output view cannot be replayed")
    view._grad_fn = v._grad_fn
    view._output_nr = v._output_nr
    view._requires_grad = v._requires_grad


def _no_grad_view_error(what):
    raise AutogradError(
        f"A view was created in no_grad mode and {what} with grad mode "
        "enabled. This use is ambiguous, so it is forbidden (as in "
        "PyTorch): make the view and the in-place write both inside the "
        "no_grad block, or both outside it."
    )


def _multi_view_error(which, what):
    raise AutogradError(
        f"{which} is a view and {what}. This view is the output of a "
        "function that returns multiple views, which does not allow its "
        "outputs to be modified in place; replace the in-place operation "
        "by an out-of-place one."
    )


_VIEW_REFRESH[0] = _refresh_view


class NaryOp(Op):
    """``y = f([t0, t1, ...])``: a variable number of tensor inputs (cat, stack)."""

    __slots__ = ()

    @classmethod
    def call(cls, tensors, **params):
        tensors = tuple(tensors)
        if not tensors:
            raise DTypeError(f"{cls.schema_v1.name}: expected a non-empty sequence of tensors")
        tensors = tuple(to_tensor(t, tensors[0]) for t in tensors)
        rd = tensors[0]._dtype
        for t in tensors[1:]:
            rd = _dt.promote_types(rd, t._dtype)
        tensors = tuple(t if t._dtype is rd else _cast(t, rd) for t in tensors)
        return cls.apply(*tensors, **params)


class MultiOutputOp(Op):
    """An op returning several tensors (``max`` with ``dim``: values and indices)."""

    __slots__ = ()
    _multi = True
