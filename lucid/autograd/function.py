"""Custom differentiable functions: subclass :class:`Function` with ``forward``/``backward``.

``forward(ctx, *args)`` runs without recording a graph; ``backward(ctx, *grad_outputs)``
returns one gradient per forward argument (``None`` for non-tensors or inputs that need
none). Under ``create_graph=True`` the backward runs with graph recording on, so a backward
written with Lucid ops is itself differentiable.
"""

from __future__ import annotations

from ..errors import AutogradError, VersionMismatchError
from .grad_mode import STATE, no_grad
from .graph import Node, accumulator_of

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The ``ctx`` handed to ``forward``/``backward``: what the backward needs."""

    def __init__(self):
        self._saved = ()
        self._saved_versions = ()
        self.needs_input_grad = ()
        self._dirty = ()
        self._non_diff = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        """Keep ``tensors`` for the backward (checked against in-place changes)."""
        self._saved = tensors
        self._saved_versions = tuple(None if t is None else t._vc[0] for t in tensors)

    @property
    def saved_tensors(self):
        for t, v in zip(self._saved, self._saved_versions):
            if t is not None and t._vc[0] != v:
                raise VersionMismatchError(
                    "Function.saved_tensors: a tensor saved with save_for_backward was "
                    f"modified in place (version {t._vc[0]}, expected {v})")
        if self._saved is None:
            raise AutogradError("Function.saved_tensors: the saved tensors were freed after "
                                "a backward; pass retain_graph=True to backward twice")
        return self._saved

    def mark_dirty(self, *tensors):
        """Declare inputs that ``forward`` modified in place."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that get no gradient (e.g. indices)."""
        self._non_diff = tensors

    def set_materialize_grads(self, value: bool):
        """With False, outputs that got no gradient reach ``backward`` as None, not zeros."""
        self.materialize_grads = bool(value)


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
        if not isinstance(grads, tuple):
            grads = (grads,)
        gs = tuple(None if g is None else wrap(g) for g in grads)
        res = self.fn_cls.backward(self.ctx, *gs)
        if not isinstance(res, tuple):
            res = (res,)
        n_args = max(self.arg_slots) + 1
        if len(res) < n_args:
            raise AutogradError(f"{self.name()}: backward returned {len(res)} gradients, "
                                f"expected {n_args} (one per forward argument)")
        return tuple(res[i] for i in self.arg_slots)

    def grad_formula(self, g):
        from .._tensor import Tensor
        from .. import dtypes
        dev = self.ctx._device

        def wrap(a):
            return Tensor._wrap(a, dtypes.from_numpy_dtype(a.dtype), dev)

        with no_grad():
            res = self._call_user(g, wrap)
        return tuple(None if r is None else r._data for r in res)

    def grad_formula_impl(self, g, *unused):
        return self._call_user(g, lambda t: t)


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
        from .._tensor import Tensor
        ctx = FunctionCtx()
        slots = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
        tensors = tuple(args[i] for i in slots)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        has_setup = "setup_context" in vars(cls) or any(
            "setup_context" in vars(k) for k in cls.__mro__[1:-2])
        with no_grad():
            if has_setup:
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        record = STATE.grad_enabled and any(t._requires_grad for t in tensors)
        single = isinstance(out, Tensor)
        outs = (out,) if single else tuple(out)
        if not record:
            return out
        node = object.__new__(_FunctionNode)
        node.ctx, node.fn_cls, node.arg_slots = ctx, cls, slots
        node.next_edges = tuple(
            (t.grad_fn, t._output_nr) if t.grad_fn is not None else
            ((accumulator_of(t), 0) if t._requires_grad else None) for t in tensors)
        node.in_meta = tuple((t._data.shape, t._dtype) for t in tensors)
        node.saved = node.out = node.params = node._versions = None
        node._pre_hooks = node._retain = node._hooks = node._anomaly_trace = None
        node._freed = False
        node._seq = 0
        dev = tensors[0]._device
        node.be = dev._backend
        ctx._device = dev
        tensor_outs = [o for o in outs if isinstance(o, Tensor)]
        node._out_meta = tuple((o._data.shape, o._dtype) for o in tensor_outs) \
            if len(tensor_outs) > 1 else None
        non_diff = {id(t) for t in ctx._non_diff}
        dirty = {id(t) for t in ctx._dirty}
        result, k = [], 0
        for o in outs:
            if not isinstance(o, Tensor):
                result.append(o)
                continue
            if any(o is t for t in tensors) and id(o) not in dirty:
                o = o.detach()                    # an input returned as is: alias it
            if id(o) not in non_diff and o._dtype.is_floating_point:
                o.grad_fn = node
                o._output_nr = k
                o._requires_grad = True
            k += 1
            result.append(o)
        return result[0] if single else tuple(result)


def once_differentiable(fn):
    """Mark a ``backward`` as not differentiable: it runs without recording a graph."""
    import functools

    @functools.wraps(fn)
    def wrapper(ctx, *grads):
        with no_grad():
            return fn(ctx, *grads)
    return wrapper
