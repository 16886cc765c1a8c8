"""Base classes of ops and the call path every op goes through.

An op is one class: its ``schema_v1``, what it saves, ``dispatch`` (the forward, on backend
arrays), ``grad_formula`` (eager backward, arrays) and ``grad_formula_impl`` (graph-mode
backward, Tensors). The class is also the autograd node: a call that records a graph makes
one instance holding the edges to its inputs and what the backward needs.

The call path (wrapper -> policy -> backend -> Tensor -> node) is the hot path. Each
feature that is off costs one flag read: autocast (``STATE.autocast``), graph recording
(``STATE.grad_enabled`` and an input's ``requires_grad``), anomaly mode.

Base classes:

- :class:`UnaryOp` ``f(x)``; real-valued ops turn integer input into the default float.
- :class:`BinaryOp` ``f(a, b)`` with PyTorch promotion and weak Python scalars; the node
  sums each gradient back over broadcast axes (see :class:`~lucid.autograd.graph.Node`).
- :class:`ReductionOp` ``f(x, dim, keepdim)`` with dims normalised and checked.
- :class:`ViewOp`: the output shares storage and version counter with the input.
- :class:`NaryOp` ``f([t0, t1, ...])`` (cat, stack).
- :class:`MultiOutputOp`: ``dispatch`` returns a tuple; outputs are a tuple.
"""

from __future__ import annotations

import numbers

from .. import dtypes as _dt
from .._tensor import Tensor
from ..autograd.grad_mode import STATE, no_grad
from ..autograd.graph import Node, accumulator_of
from ..errors import (AutogradError, DeterminismError, DeviceMismatchError, DimError,
                      DTypeError)
from .schema import AmpPolicy

__all__ = ["Op", "UnaryOp", "BinaryOp", "ReductionOp", "ViewOp", "NaryOp", "MultiOutputOp",
           "to_tensor", "norm_dim", "norm_dims", "apply_inplace", "scalar_like"]

_BY_NP = _dt._BY_NP
_wrap = Tensor._wrap


class Op(Node):
    """An op: schema, forward dispatch and both backward formulas (see module doc)."""

    __slots__ = ()
    schema_v1 = None
    saves_input = False
    saves_output = False
    _real = False           # mirrors schema_v1.real_valued, read on the hot path
    _diff = True            # mirrors schema_v1.differentiable
    _policy = AmpPolicy.KEEP_INPUT
    _multi = False
    _view = False
    _nondet = False         # mirrors not schema_v1.deterministic

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        s = cls.__dict__.get("schema_v1")
        if s is not None:
            cls._real = s.real_valued
            cls._diff = s.differentiable
            cls._policy = s.amp_policy
            cls._nondet = not s.deterministic
            if s.output_arity != 1:
                cls._multi = True

    @staticmethod
    def dispatch(be, *arrays, **params):
        """The forward: backend arrays in, array (or tuple of arrays) out."""
        raise NotImplementedError  # abstract: every op defines it

    @classmethod
    def apply(cls, *inputs, **params):
        """Run the op on Tensors ``inputs`` with keyword ``params``; record if needed."""
        if STATE.autocast is not None:
            inputs = _autocast(cls, inputs)
        if cls._real:
            inputs = tuple([_to_float(t) for t in inputs])
        if cls._nondet and STATE.deterministic:
            _nondeterministic(cls)
        dev = inputs[0]._device
        arrays = []
        grad = False
        for t in inputs:
            if t._device is not dev:
                _device_mismatch(cls, inputs)
            arrays.append(t._data)
            if t._requires_grad:
                grad = True
        be = dev._backend
        try:
            out = cls.dispatch(be, *arrays, **params)
        except ValueError:
            if len(inputs) > 1:
                _check_broadcast(cls, be, *[a.shape for a in arrays])
            raise
        return _finish(cls, be, dev, out, inputs, params,
                       grad and cls._diff and STATE.grad_enabled)


def _finish(cls, be, dev, out, inputs, params, record):
    """Wrap dispatch results into Tensors and, if ``record``, make the node."""
    nd = be.ndarray
    if cls._multi:
        outs = tuple(_wrap(o if o.__class__ is nd else be.asarray(o), None, dev)
                     for o in out)
        for t in outs:
            t._dtype = _BY_NP[t._data.dtype]
        if cls._view:
            for t in outs:
                _link_view(t, inputs[0], cls, params)
        if record:
            node = _make_node(cls, be, inputs, params, tuple(t._data for t in outs), outs)
            node._out_meta = tuple((t._data.shape, t._dtype) for t in outs)
            for i, t in enumerate(outs):
                if t._dtype.is_floating_point:
                    t._requires_grad = True
                    t.grad_fn = node
                    t._output_nr = i
        return outs
    if out.__class__ is not nd:
        out = be.asarray(out)
    t = _wrap(out, _BY_NP[out.dtype], dev)
    if cls._view:
        _link_view(t, inputs[0], cls, params)
    if record and t._dtype.is_floating_point:
        t.grad_fn = _make_node(cls, be, inputs, params, out, (t,))
        t._requires_grad = True
    return t


def _make_node(cls, be, inputs, params, out, out_tensors):
    node = object.__new__(cls)
    edges = []
    meta = []
    for t in inputs:
        fn = t.grad_fn
        if fn is not None:
            edges.append((fn, t._output_nr))
        elif t._requires_grad:
            edges.append((accumulator_of(t), 0))
        else:
            edges.append(None)
        meta.append((t._data.shape, t._dtype))
    node.next_edges = tuple(edges)
    node.in_meta = tuple(meta)
    node.params = params
    node.be = be
    versions = None
    if cls.saves_input:
        node.saved = inputs
        versions = [(t._vc, t._vc[0]) for t in inputs]
    else:
        node.saved = None
    if cls.saves_output:
        node.out = out
        vs = [(t._vc, t._vc[0]) for t in out_tensors]
        versions = vs if versions is None else versions + vs
    else:
        node.out = None
    node._versions = versions
    node._out_meta = node._pre_hooks = node._retain = node._hooks = None
    node._freed = False
    node._seq = 0
    node._anomaly_trace = None
    if STATE.anomaly:
        from ..autograd.engine import record_anomaly_trace
        record_anomaly_trace(node)
    return node


def _device_mismatch(cls, inputs):
    devs = sorted({str(t._device) for t in inputs})
    raise DeviceMismatchError(f"{cls.schema_v1.name}: expected all tensors to be on the same "
                              f"device, but found tensors on {' and '.join(devs)}")


def _nondeterministic(cls):
    s = cls.schema_v1
    msg = (f"{s.name}: does not have a deterministic implementation, but "
           f"use_deterministic_algorithms(True) is set. {s.determinism_note}")
    if STATE.deterministic_warn_only:
        import warnings
        warnings.warn(msg, stacklevel=4)
    else:
        raise DeterminismError(msg)


def _to_float(t):
    if t._dtype.is_floating_point:
        return t
    return _cast(t, _dt.get_default_dtype())


def _cast(t, dt):
    from .core import CastBackward
    return CastBackward.apply(t, dtype=dt)


def _autocast(cls, inputs):
    """Apply the op's AmpPolicy to floating inputs (the cast is recorded in the graph)."""
    policy = cls._policy
    if policy is AmpPolicy.KEEP_INPUT:
        return inputs
    if policy is AmpPolicy.PROMOTE:
        want = STATE.autocast
        return tuple(_cast(t, want) if t._dtype.is_floating_point and t._dtype is not want
                     else t for t in inputs)
    return tuple(_cast(t, _dt.float32) if t._dtype in (_dt.float16, _dt.bfloat16) else t
                 for t in inputs)


# -- conversion helpers used by wrappers -------------------------------------------------

def to_tensor(x, like=None, dtype=None):
    """``x`` if it is a Tensor, else a tensor of it on ``like``'s device."""
    if x.__class__ is Tensor or isinstance(x, Tensor):
        return x
    from .._tensor.factory import tensor
    dev = like._device if like is not None else None
    return tensor(x, dtype=dtype, device=dev)


def scalar_like(value, dt, like):
    """A 0-d tensor of ``value`` in dtype ``dt`` on ``like``'s device (wraps like a C cast)."""
    be = like._device._backend
    try:
        arr = be.asarray(value, dt.np)
    except (OverflowError, ValueError):     # out of the dtype's range: wrap like a C cast
        arr = be.astype(be.asarray(value), dt.np)
    return _wrap(arr, dt, like._device)


def norm_dim(dim, ndim, op):
    """``dim`` as a non-negative int, or a DimError naming ``op`` and the valid range."""
    if dim.__class__ is int and 0 <= dim < ndim:
        return dim
    if not isinstance(dim, numbers.Integral):
        raise DimError(f"{op}: dim must be an int, got {type(dim).__name__}")
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise DimError(f"{op}: dimension out of range (expected to be in range of [{-n}, "
                       f"{n - 1}], but got {dim})")
    return dim % n if ndim else 0


def norm_dims(dim, ndim, op):
    """``dim`` (None, int or sequence) as a sorted tuple of distinct non-negative ints."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, numbers.Integral):
        return (norm_dim(dim, ndim, op),) if ndim else ()
    dims = tuple(norm_dim(d, ndim, op) for d in dim)
    if len(set(dims)) != len(dims):
        raise DimError(f"{op}: dim {tuple(dim)} appears multiple times in the list of dims")
    return tuple(sorted(dims)) if ndim else ()


# -- op kinds ----------------------------------------------------------------------------

class UnaryOp(Op):
    """``y = f(x)``, element-wise unless the op says otherwise."""

    __slots__ = ()

    @classmethod
    def call(cls, x, **params):
        if x.__class__ is not Tensor:
            x = to_tensor(x)
        if cls._real and not x._dtype.is_floating_point:
            x = _to_float(x)
        if STATE.autocast is not None:
            x = _autocast(cls, (x,))[0]
        dev = x._device
        be = dev._backend
        out = cls.dispatch(be, x._data, **params)
        if out.__class__ is not be.ndarray:
            out = be.asarray(out)
        t = _wrap(out, _BY_NP[out.dtype], dev)
        if x._requires_grad and STATE.grad_enabled and cls._diff:
            if cls._view:
                _link_view(t, x, cls, params)
            if t._dtype.is_floating_point:
                t.grad_fn = _make_node(cls, be, (x,), params, out, (t,))
                t._requires_grad = True
        elif cls._view:
            _link_view(t, x, cls, params)
        return t


class BinaryOp(Op):
    """``y = f(a, b)`` with broadcasting and PyTorch type promotion.

    Python scalars are weak (``float32 * 2.0`` is float32); real-valued ops (true division)
    compute integer inputs in the default float dtype. The node reduces each gradient to
    its input's shape, so ``grad_formula`` may return broadcast-shaped gradients.
    """

    __slots__ = ()

    @classmethod
    def call(cls, a, b, **params):
        ta = a.__class__ is Tensor or isinstance(a, Tensor)
        tb = b.__class__ is Tensor or isinstance(b, Tensor)
        if ta and tb:
            if a._device is not b._device:
                _device_mismatch(cls, (a, b))
            rd = a._dtype if a._dtype is b._dtype else _dt.result_type(a, b)
        elif ta:
            rd = _scalar_result(cls, a._dtype, b)
            if cls._real and not rd.is_floating_point:
                rd = _dt.get_default_dtype()
            b = scalar_like(b, rd, a)
        elif tb:
            rd = _scalar_result(cls, b._dtype, a)
            if cls._real and not rd.is_floating_point:
                rd = _dt.get_default_dtype()
            a = scalar_like(a, rd, b)
        else:
            a = to_tensor(a)
            return cls.call(a, b, **params)
        if cls._real and not rd.is_floating_point:
            rd = _dt.get_default_dtype()
        cdt = cls.compute_dtype(rd)
        if STATE.autocast is not None and cdt.is_floating_point:
            if cls._policy is AmpPolicy.FORCE_FP32 and cdt in (_dt.float16, _dt.bfloat16):
                cdt = _dt.float32
            elif cls._policy is AmpPolicy.PROMOTE:
                cdt = STATE.autocast
        if a._dtype is not cdt:
            a = _cast(a, cdt) if a._requires_grad else _wrap(
                a._device._backend.astype(a._data, cdt.np), cdt, a._device)
        if b._dtype is not cdt:
            b = _cast(b, cdt) if b._requires_grad else _wrap(
                b._device._backend.astype(b._data, cdt.np), cdt, b._device)
        dev = a._device
        be = dev._backend
        try:
            out = cls.dispatch(be, a._data, b._data, **params)
        except ValueError:
            _check_broadcast(cls, be, a._data.shape, b._data.shape)
            raise
        if out.__class__ is not be.ndarray:
            out = be.asarray(out)
        t = _wrap(out, _BY_NP[out.dtype], dev)
        if (a._requires_grad or b._requires_grad) and STATE.grad_enabled and cls._diff and \
                t._dtype.is_floating_point:
            t.grad_fn = _make_node(cls, be, (a, b), params, out, (t,))
            t._requires_grad = True
        return t

    @classmethod
    def compute_dtype(cls, rd):
        """The dtype both inputs are cast to before dispatch (the promoted dtype)."""
        return rd


def _check_broadcast(cls, be, *shapes):
    """Raise a ShapeError naming the op and shapes when ``shapes`` cannot broadcast."""
    try:
        be.xp.broadcast_shapes(*shapes)
    except ValueError:
        from ..errors import ShapeError
        raise ShapeError(f"{cls.schema_v1.name}: shapes "
                         f"{', '.join(str(tuple(s)) for s in shapes)} cannot be broadcast "
                         "together") from None


def _scalar_result(cls, dt, s):
    """Promotion of a tensor of dtype ``dt`` with a weak Python scalar ``s``."""
    k = s.__class__
    if k is float:
        return dt if dt._cat == 2 else _dt.get_default_dtype()
    if k is int:
        return _dt.int64 if dt is _dt.bool else dt
    if k is bool:
        return dt
    return _dt._combine(dt, _dt.scalar_dtype(_check_scalar(cls, s)))


def _check_scalar(cls, s):
    if isinstance(s, (numbers.Number, bool)) and not isinstance(s, complex):
        return s
    raise DTypeError(f"{cls.schema_v1.name}: expected a Tensor or a real number, got "
                     f"{type(s).__name__}")


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

    unreduce_t = unreduce


class ViewOp(UnaryOp):
    """An op whose output is a view: it shares the input's storage and version counter."""

    __slots__ = ()
    _view = True


def _link_view(out, src, cls, params):
    base = src._base if src._base is not None else src
    out._base = base
    out._vc = src._vc
    chain = src._meta.get("view") if src._meta is not None and src._base is not None else ()
    out._meta = {"view": (chain or ()) + ((cls, params),)}


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


# -- in place ----------------------------------------------------------------------------

def apply_inplace(fn, self_t, *args, **kwargs):
    """Run out-of-place ``fn(self_t, *args)`` and write the result into ``self_t``.

    The graph is rebased: ``self_t`` takes the new node as its ``grad_fn``; when it is a
    view of a base that requires grad, the base is rebased too (its view region replaced by
    the new value), so gradients reach the base's history correctly.
    """
    name = getattr(fn, "__name__", "op")
    grad = STATE.grad_enabled
    others_grad = any(isinstance(a, Tensor) and a._requires_grad for a in args)
    if grad and self_t._requires_grad and self_t.grad_fn is None:
        raise AutogradError(f"{name}_: a leaf Variable that requires grad is being used in an "
                            "in-place operation.")
    base = self_t._base
    if grad and base is not None and base._requires_grad and base.grad_fn is None:
        raise AutogradError(f"{name}_: a view of a leaf Variable that requires grad is being "
                            "used in an in-place operation.")
    record = grad and (self_t._requires_grad or others_grad)
    src = self_t
    if record and self_t._requires_grad:
        src = _snapshot(self_t)   # the old value, with the old history
    res = fn(src, *args, **kwargs) if record else _no_grad_call(fn, self_t, args, kwargs)
    write_result(self_t, res, name)
    if record:
        _rebase(self_t, res)
    return self_t


def _no_grad_call(fn, x, args, kwargs):
    with no_grad():
        return fn(x, *args, **kwargs)


def write_result(self_t, res, name):
    """Copy ``res`` into ``self_t``'s storage (dtype rules of PyTorch) and bump the version."""
    if res._dtype is not self_t._dtype and not _dt.can_cast(res._dtype, self_t._dtype):
        raise DTypeError(f"{name}_: result type {res._dtype.name} can't be cast to the "
                         f"desired output type {self_t._dtype.name}")
    if res._data.shape != self_t._data.shape:
        from ..errors import ShapeError
        try:
            shape = self_t._device._backend.xp.broadcast_shapes(res._data.shape,
                                                                self_t._data.shape)
        except ValueError:
            shape = None
        if shape != self_t._data.shape:
            raise ShapeError(f"{name}_: output with shape {tuple(self_t._data.shape)} doesn't "
                             f"match the broadcast shape {tuple(res._data.shape)}")
    if not self_t._data.flags.writeable:
        raise AutogradError(f"{name}_: unsupported operation: the tensor is a broadcast "
                            "(expanded) view whose elements share memory; clone() it before "
                            "writing in place")
    self_t._device._backend.assign(self_t._data, res._data)
    self_t._vc[0] += 1


def _snapshot(t):
    s = _wrap(t._device._backend.copy(t._data), t._dtype, t._device)
    s._requires_grad = t._requires_grad
    s.grad_fn = t.grad_fn
    s._output_nr = t._output_nr
    s._accum = t._accum
    return s


def _rebase(self_t, res):
    """Give ``self_t`` (and its base, for a view) the history of new value ``res``."""
    if res._data.shape != self_t._data.shape:
        res = res.expand(self_t._data.shape)
    if res._dtype is not self_t._dtype:
        res = res.to(self_t._dtype)
    base = self_t._base
    chain = self_t._meta.get("view") if self_t._meta is not None else None
    if base is not None and chain and (base._requires_grad or res._requires_grad):
        from .core import ViewScatterBackward
        scattered = ViewScatterBackward.apply(_snapshot_meta(base), res, chain=chain)
        base.grad_fn = scattered.grad_fn
        base._output_nr = 0
        base._requires_grad = True
        v = base                      # the view now reads from the rebased base
        for cls, params in chain:
            v = cls.apply(v, **params)
        self_t.grad_fn = v.grad_fn
        self_t._output_nr = v._output_nr
        self_t._requires_grad = True
        return
    self_t.grad_fn = res.grad_fn
    self_t._output_nr = res._output_nr
    self_t._requires_grad = res._requires_grad


def _snapshot_meta(t):
    """A tensor with ``t``'s history and metadata (its data is never read by the scatter)."""
    s = _wrap(t._data, t._dtype, t._device)
    s._requires_grad = t._requires_grad
    s.grad_fn = t.grad_fn
    s._output_nr = t._output_nr
    s._accum = t._accum
    return s
