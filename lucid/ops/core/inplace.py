"""In-place writes: ``x.add_(y)`` and every ``<op>_`` run the out-of-place op and write the
result into ``x`` (:func:`apply_inplace`), with PyTorch's checks (a leaf that requires grad,
partial memory overlap, a result that cannot be cast to ``x``'s dtype or does not
broadcast to its shape) and the history rebased: ``x`` takes the new node, and a view's base
its view region replaced (the ``view_scatter`` op) so every alias reads the new history.

A recorded call needs ``x``'s old value for the backward only where a node saves it
(``mul_`` does, ``add_`` and ``relu_``, which saves its output, do not). The element-wise
in-place functions (:func:`alias_safe`) read it through an alias of ``x``'s storage marked
:class:`~lucid.autograd.graph.SaveCopy`, copied only when a node saves it; any other
function reads a copy taken before it runs.
"""

from __future__ import annotations

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...autograd.grad_mode import STATE
from ...autograd.graph import SaveCopy, saved_copy, with_history
from ...errors import AutogradError, DTypeError, MemoryOverlapError, ShapeError
from .registry import BATCHING as _BATCHING, get_op
from .base import _multi_view_error, _no_grad_view_error, _refresh_view, broadcast_shapes

__all__ = ["alias_safe", "apply_inplace", "check_writable", "write_result"]

#: The functions :func:`apply_inplace` may hand an alias of the old value (see the module
#: doc): each passes its first argument to ops and views only, and keeps no array of it.
_ALIAS_SAFE: set = set()


def alias_safe(fn):
    """Mark ``fn`` as reading its first argument through ops and views only (the
    element-wise functions' in-place installers mark theirs): a recorded in-place call
    then copies the old value only where a node saves it. Returns ``fn``."""
    _ALIAS_SAFE.add(fn)
    return fn


def apply_inplace(fn, self_t, *args, **kwargs):
    """Run out-of-place ``fn(self_t, *args)`` and write the result into ``self_t``.

    The graph is rebased: ``self_t`` takes the new node as its ``grad_fn``; when it is a
    view, its base is rebased (its view region replaced by the new value) and every other
    view of the base takes the base's new history when next used, so gradients reach the
    right history whichever alias is used afterwards. Under vmap a batched operand takes
    the batching module's in-place rule.
    """
    prof = STATE.profiler
    if prof is not None and prof.idle:  # the call again, inside a range named "<op>_"
        return prof.inplace(apply_inplace, fn, self_t, args, kwargs)
    if STATE.vmap:
        out = _BATCHING[1](fn, self_t, args, kwargs)
        if out is not NotImplemented:
            return out
    name = getattr(fn, "__name__", "op")
    if self_t._base is not None and self_t._view_v != self_t._vc[0]:
        _refresh_view(self_t)
    if self_t._inf and not STATE.inference:
        raise AutogradError(
            f"{name}_: in-place update to an inference tensor outside "
            "inference_mode is not allowed; clone() it first"
        )
    grad = STATE.grad_enabled
    others_grad = False
    for a in (*args, *kwargs.values()) if kwargs else args:
        if isinstance(a, Tensor):
            if a._requires_grad:
                others_grad = True
            _check_overlap(name, self_t, a)
    if grad and self_t._requires_grad and self_t._grad_fn is None:
        raise AutogradError(
            f"{name}_: a leaf Variable that requires grad is being used in an in-place operation."
        )
    base = self_t._base
    if (
        grad
        and base is not None
        and "multi" in self_t._meta
        and (self_t._requires_grad or others_grad)
    ):
        _multi_view_error(self_t._meta["multi"], "is being modified in place")
    if (
        grad
        and base is not None
        and self_t._meta.get("no_grad")
        and (base._requires_grad or others_grad)
    ):
        _no_grad_view_error("is being modified in place")
    if grad and base is not None and base._requires_grad and base._grad_fn is None:
        raise AutogradError(
            f"{name}_: a view of a leaf Variable that requires grad is being "
            "used in an in-place operation."
        )
    record = grad and (self_t._requires_grad or others_grad)
    if record:
        src = _old_value(self_t, fn)  # the old value with the old history, safe to save
        res = fn(src, *args, **kwargs)
        if res._vc.__class__ is SaveCopy and res is not src:  # a view of the old value
            res = saved_copy(res)
    else:  # (no input requires grad, or grad mode is off: nothing is recorded)
        res = fn(self_t, *args, **kwargs)
    write_result(self_t, res, name)
    if record:
        _saved_output_is_self(res, self_t)
        _rebase(self_t, res)
    return self_t


def _saved_output_is_self(res, self_t):
    """The in-place result *is* ``self_t``: where the node saved it as its output, it keeps
    ``self_t``'s storage (so a write that bumps no version, through ``.data``, is what the
    backward reads, as in PyTorch) and checks ``self_t``'s version at backward, so a later
    recorded write to ``self_t`` is caught (PyTorch)."""
    node = res._grad_fn
    if node is not None and node._versions is not None and node.out is not None:
        if node.out is res._data and res._dtype is self_t._dtype:
            node.out = self_t._data
        vs = node._versions
        for j in range(1, len(vs), 3):
            if vs[j] is res._vc:
                vs[j], vs[j + 1] = self_t._vc, self_t._vc[0]


def _check_overlap(name, dst, src):
    """Refuse a write whose source partly overlaps the destination (PyTorch's rule: the
    same elements in the same layout are fine, a transposed alias is not)."""
    if (
        dst._data is not src._data
        and dst._device is src._device
        and dst._device._backend.partial_overlap(dst._data, src._data)
    ):
        raise MemoryOverlapError(
            f"{name}_: unsupported operation: some elements of the input tensor and the "
            "written-to tensor refer to a single memory location; clone() the input first"
        )


def write_result(self_t, res, name):
    """Copy ``res`` into ``self_t``'s storage (dtype rules of PyTorch) and bump the version."""
    if res._dtype is not self_t._dtype and not _dt.can_cast(res._dtype, self_t._dtype):
        raise DTypeError(
            f"{name}_: result type {res._dtype.name} can't be cast to the "
            f"desired output type {self_t._dtype.name}"
        )
    shape = self_t._data.shape
    if res._data.shape != shape:
        try:
            ok = broadcast_shapes(res._data.shape, shape) == shape
        except ShapeError:
            ok = False
        if not ok:
            raise ShapeError(
                f"{name}_: output with shape {tuple(shape)} doesn't match the "
                f"broadcast shape {tuple(res._data.shape)}"
            )
    be = self_t._device._backend
    check_writable(be, self_t._data, name + "_")
    be.assign(self_t._data, res._data)
    self_t._vc[0] += 1


def check_writable(be, a, name):
    """Refuse to write into array ``a``: read-only memory, or several elements in one
    memory location (an expanded view), as PyTorch does."""
    if be.is_read_only(a):
        raise MemoryOverlapError(
            f"{name}: unsupported operation: the tensor is read-only "
            "(from a read-only NumPy array); copy it before writing"
        )
    if be.has_internal_overlap(a):
        raise MemoryOverlapError(
            f"{name}: unsupported operation: more than one element of "
            "the written-to tensor refers to a single memory location "
            "(an expanded view); clone() it before writing in place"
        )


def _old_value(t, fn):
    """``t``'s value and history before ``fn`` overwrites it: an alias marked
    :class:`SaveCopy` for an :func:`alias_safe` ``fn``, else a copy."""
    if fn not in _ALIAS_SAFE:
        return saved_copy(t)
    s = with_history(t, t._data)
    s._vc = SaveCopy(s._vc)
    return s


def _rebase(self_t, res):
    """Give ``self_t`` (and its base, for a view) the history of new value ``res``."""
    if res._data.shape != self_t._data.shape:
        res = res.expand(self_t._data.shape)
    if res._dtype is not self_t._dtype:
        res = res.to(self_t._dtype)
    base = self_t._base
    if base is not None:
        if base._requires_grad or res._requires_grad:
            scattered = get_op("view_scatter").apply(  # (base's data is never read)
                with_history(base, base._data), res, chain=self_t._meta["view"]
            )
            base._grad_fn = scattered._grad_fn
            base._output_nr = 0
            base._requires_grad = True
        self_t._view_v = -1  # the view now reads from the rebased base
        _refresh_view(self_t)
        return
    self_t._grad_fn = res._grad_fn
    self_t._output_nr = res._output_nr
    self_t._requires_grad = res._requires_grad
