"""Custom differentiable functions: subclass :class:`Function` with ``forward``/``backward``.

``forward(ctx, *args)`` runs without recording a graph; ``backward(ctx, *grad_outputs)``
returns one gradient per forward argument (``None`` for non-tensors or inputs that need
none). Under ``create_graph=True`` the backward runs with graph recording on, so a backward
written with Lucid ops is itself differentiable.
"""

from __future__ import annotations

import functools
import weakref

from .. import dtypes
from .._tensor import Tensor
from ..errors import AutogradError, ShapeError, VersionMismatchError
from .grad_mode import STATE, no_grad
from .graph import Node, new_node

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The ``ctx`` handed to ``forward``/``backward``: what the backward needs."""

    def __init__(self):
        self._saved = ()
        self._saved_versions = ()
        self.needs_input_grad = ()
        self._dirty = ()
        self._non_diff = ()
        self._n_args = 0
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        """Keep ``tensors`` for the backward (checked against in-place changes)."""
        self._saved = tensors
        self._saved_versions = tuple(None if t is None else t._vc[0] for t in tensors)

    @property
    def saved_tensors(self):
        """The tensors given to :meth:`save_for_backward`; raises once they were freed or
        when one was modified in place since."""
        if self._saved is None:
            raise AutogradError(
                "Function.saved_tensors: the saved tensors were freed after "
                "a backward; pass retain_graph=True to backward twice"
            )
        for k, (t, v) in enumerate(zip(self._saved, self._saved_versions)):
            if t is not None and t._vc[0] != v:
                raise VersionMismatchError(
                    f"Function.saved_tensors: saved tensor {k} of shape {tuple(t.shape)} was "
                    f"modified by an in-place operation: it is at version {t._vc[0]}, "
                    f"expected version {v}"
                )
        return tuple(t.unpack() if t.__class__ is _SavedOutput else t for t in self._saved)

    def _weaken_saved_outputs(self, node):
        """Replace saved outputs of ``node`` by :class:`_SavedOutput` (no reference cycle
        output -> node -> ctx -> output, so an unused graph is freed at once)."""
        if self._saved and any(t is not None and t.grad_fn is node for t in self._saved):
            ref = weakref.ref(node)
            self._saved = tuple(
                _SavedOutput(t, ref) if t is not None and t.grad_fn is node else t
                for t in self._saved
            )

    def mark_dirty(self, *tensors):
        """Declare inputs that ``forward`` modified in place (they must be returned)."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that get no gradient (e.g. indices)."""
        self._non_diff = tensors

    def set_materialize_grads(self, value: bool):
        """With False, outputs that got no gradient reach ``backward`` as None, not zeros."""
        self.materialize_grads = bool(value)


class _SavedOutput:
    """An output of a Function saved for its backward: the data and version counter are kept,
    the link to the node weakly; :meth:`unpack` rebuilds the output tensor (with its
    ``grad_fn``, so a backward using it is differentiable)."""

    __slots__ = ("t", "output_nr", "node")

    def __init__(self, t, node_ref):
        a = type(t)._wrap(t._data, t._dtype, t._device)  # t's storage, without its history
        a._vc = t._vc
        self.t, self.output_nr, self.node = a, t._output_nr, node_ref

    @property
    def _vc(self):
        return self.t._vc

    @property
    def shape(self):
        return self.t.shape

    def unpack(self):
        a = self.t
        t = type(a)._wrap(a._data, a._dtype, a._device)
        t._vc = a._vc
        t._grad_fn, t._output_nr, t._requires_grad = self.node(), self.output_nr, True
        return t


class _FunctionNode(Node):
    """The graph node of one ``Function.apply`` call."""

    __slots__ = ("ctx", "fn_cls", "arg_slots")

    def name(self):
        return f"{self.fn_cls.__name__}Backward"

    @property
    def materialize_grads(self):
        return self.ctx.materialize_grads

    def release(self):
        if self.ctx._saved:
            self.ctx._saved = None
            self._freed = True

    def _call_user(self, grads, wrap):
        """Run the user's backward on wrapped gradients; return one checked gradient
        Tensor (or None) per tensor input."""
        if not isinstance(grads, tuple):
            grads = (grads,)
        gs = tuple(None if g is None else wrap(g) for g in grads)
        res = self.fn_cls.backward(self.ctx, *gs)
        if not isinstance(res, tuple):
            res = (res,)
        n_args = self.ctx._n_args
        if len(res) != n_args and not (len(res) > n_args and all(r is None for r in res[n_args:])):
            raise AutogradError(
                f"{self.name()}: backward returned {len(res)} gradients, "
                f"expected {n_args} (one per forward argument)"
            )
        out = []
        for i, (shape, _) in zip(self.arg_slots, self.in_meta):
            r = res[i]
            if r is not None:
                if not isinstance(r, Tensor):
                    raise AutogradError(
                        f"{self.name()}: backward returned "
                        f"{type(r).__name__} for argument {i}, expected a "
                        "Tensor or None"
                    )
                if r._data.shape != shape and not _expandable(shape, r._data.shape):
                    raise ShapeError(
                        f"{self.name()}: backward returned a gradient of shape "
                        f"{tuple(r.shape)} for argument {i} of shape "
                        f"{tuple(shape)}"
                    )
            out.append(r)
        return tuple(out)

    def grad_formula(self, g):
        dev = self.ctx._device

        def wrap(a):
            return Tensor._wrap(a, dtypes.from_numpy_dtype(a.dtype), dev)

        with no_grad():
            res = self._call_user(g, wrap)
        return tuple(None if r is None else r._data for r in res)

    def grad_formula_impl(self, g, *unused):
        return self._call_user(g, lambda t: t)


def _expandable(shape, to):
    """Whether ``shape`` broadcasts to ``to`` (so a gradient of shape ``to`` sums back)."""
    return len(shape) <= len(to) and all(
        s == 1 or s == t for s, t in zip(reversed(shape), reversed(to))
    )


class Function:
    """Base of user-defined differentiable functions; call them with ``MyFn.apply(...)``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError  # abstract: subclasses define the forward

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError  # abstract: subclasses define the backward

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        slots = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
        tensors = tuple(args[i] for i in slots)
        grad_on = STATE.grad_enabled
        ctx.needs_input_grad = tuple(
            grad_on and isinstance(a, Tensor) and a.requires_grad for a in args
        )
        ctx._n_args = len(args)
        with no_grad():
            if _has_setup_context(cls):
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        single = isinstance(out, Tensor)
        outs = (out,) if single else tuple(out)
        _check_dirty(cls, ctx, tensors, outs)
        if not (grad_on and any(t.requires_grad for t in tensors)):
            return out
        dev = tensors[0]._device
        node = new_node(_FunctionNode, dev._backend, tensors)
        node.ctx, node.fn_cls, node.arg_slots = ctx, cls, slots
        ctx._device = dev
        tensor_outs = [o for o in outs if isinstance(o, Tensor)]
        node._out_meta = (
            tuple((o._data.shape, o._dtype) for o in tensor_outs) if len(tensor_outs) > 1 else None
        )
        non_diff = {id(t) for t in ctx._non_diff}
        dirty = {id(t) for t in ctx._dirty}
        result, k = [], 0
        for o in outs:
            if not isinstance(o, Tensor):
                result.append(o)
                continue
            if any(o is t for t in tensors) and id(o) not in dirty:
                o = o.detach()  # an input returned as is: alias it
            if id(o) not in non_diff and o._dtype.is_floating_point:
                o.grad_fn = node
                o._output_nr = k
                o._requires_grad = True
            k += 1
            result.append(o)
        ctx._weaken_saved_outputs(node)
        return result[0] if single else tuple(result)


def _has_setup_context(cls):
    """Whether ``cls`` uses the ``forward(*args)`` + ``setup_context(ctx, ...)`` style."""
    return getattr(cls, "setup_context", None) is not None


def _check_dirty(cls, ctx, inputs, outs):
    """Tensors marked dirty must be inputs returned as outputs, and not leaves requiring
    grad (modifying those in place would lose their gradient)."""
    name = cls.__name__
    for t in ctx._dirty:
        if not any(t is o for o in outs):
            raise AutogradError(
                f"{name}: a tensor marked dirty in forward was not returned as an output"
            )
        if not any(t is i for i in inputs):
            raise AutogradError(f"{name}: mark_dirty got a tensor that is not an input")
        if STATE.grad_enabled:
            leaf = t if t._base is None else t._base
            if leaf._requires_grad and leaf.grad_fn is None:
                what = "a leaf" if leaf is t else "a view of a leaf"
                raise AutogradError(
                    f"{name}: {what} Variable that requires grad has been "
                    "used in an in-place operation (mark_dirty)."
                )


def once_differentiable(fn):
    """Mark a ``backward`` as not differentiable: it runs without recording a graph, and
    differentiating its results (``create_graph=True``, then a second backward) raises."""

    @functools.wraps(fn)
    def wrapper(ctx, *grads):
        with no_grad():
            res = fn(ctx, *grads)
        if not STATE.grad_enabled or not any(g is not None and g._requires_grad for g in grads):
            return res
        single = not isinstance(res, tuple)
        res = tuple(
            r
            if r is None or not r._dtype.is_floating_point
            else _DelayedError.apply(r.detach().requires_grad_(), fn.__qualname__)
            for r in ((res,) if single else res)
        )
        return res[0] if single else res

    return wrapper


class _DelayedError(Function):
    """Passes its input through; differentiating it raises (see once_differentiable)."""

    @staticmethod
    def forward(ctx, x, name):
        ctx.name = name
        return x.detach()

    @staticmethod
    def backward(ctx, g):
        raise AutogradError(
            f"{ctx.name}: trying to differentiate twice a function that was "
            "marked with @once_differentiable"
        )
