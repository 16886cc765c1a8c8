"""Tensor subscripting: ``x[index]``, ``x[index] = value`` and ``index_put``, and the
nodes that every gather and scatter goes through.

An index is split the way PyTorch splits it: ints, slices, ``None`` and ``...`` make one
*basic* view (:class:`SliceBackward`, sharing storage and version counter); integer
tensors, lists and bool masks then make an *advanced* index applied to that view, a copy
(:class:`IndexBackward`). Ints are applied first, so they never count as advanced indices
when placing the broadcast dims (``x[:, [0, 1], :, 0]`` keeps its dims in order).

Writes go through :class:`IndexPutBackward` (an out-of-place index-put) inside
``apply_inplace``, so they are recorded like any in-place op. Every gather-like op of
:mod:`.gather_scatter` and :mod:`.masks` is an advanced index and every scatter-like op an
index-put, so these two mutually adjoint classes serve them all. Complex tensors index
and are written like any other dtype.
"""

from __future__ import annotations

import numbers
import operator

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...autograd.grad_mode import STATE
from ...errors import IndexArgumentError, IndexingError, ShapeError
from ..core._bind import install, tensor_method
from ..core._formula import const
from ..core.base import Op, UnaryOp, scalar_like, to_tensor
from ..core.inplace import apply_inplace, check_writable
from ..core.casts import copy_
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ..shape.reshape import broadcast_shapes
from ..shape.views import _SelectViewBackward
from ._common import _ATOMICS_NOTE, _FULL, _array, _check_range, _complex_into, _inplace

__all__ = ["index_put"]


# -- the nodes --------------------------------------------------------------------------


@register
class SliceBackward(_SelectViewBackward):
    r"""Autograd node for basic indexing :math:`y = x[i, a{:}b{:}s, \mathrm{None}, \ldots]`
    (a view).

    Saves nothing: the view reads distinct elements, so the gradient is zeros of the
    input's shape with the incoming gradient written through the same index. The
    ``index`` param is the normalised index (non-negative ints, slices with explicit
    start, stop and step, None), so ``SliceBackward.apply(base, index=...)`` replays the
    view for in-place writes through it.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_k} =
              \begin{cases} g_j & \text{if view slot } j \text{ reads } x_k \\
              0 & \text{otherwise} \end{cases}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"slice"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``a[index]`` basic indexing, a strided view (no copy). Negative steps are
    rejected by the wrapper, as in PyTorch; out-of-range slice bounds clamp, so a slice
    may be empty.
    """

    __slots__ = ()
    schema_v1 = OpSchema("slice", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, index):
        return be.basic_index(x, index)


@register
class IndexBackward(UnaryOp):
    r"""Autograd node for advanced indexing :math:`y_j = x_{\iota(j)}` by integer arrays.

    Saves nothing: the gradient scatter-adds the incoming one back through the same index
    (an :class:`IndexPutBackward` with ``accumulate``), so repeated indices accumulate.
    Also the node of ``gather``, ``index_select``, ``take``, ``take_along_dim`` and
    ``masked_select``.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_k} = \sum_{j:\ \iota(j) = k} g_j

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"index"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``a[index]`` with an index of full slices and integer arrays, or one bool
    mask (a copy); the backward is ``xp.add.at`` (NumPy) or an atomic scatter-add (CuPy),
    a plain masked add for a mask. Out-of-range indices raise
    :class:`~lucid.errors.IndexingError` naming the dim and its size.
    """

    __slots__ = ()
    schema_v1 = OpSchema("index", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, index):
        return be.index(x, index)

    @classmethod
    def capture_break(cls, arrays, params):
        idx = params["index"]
        for i in idx if idx.__class__ is tuple else (idx,):
            d = getattr(i, "dtype", None)
            if d is not None and d.kind == "b":
                return "index: a boolean mask (the output's shape depends on its values)"
        return None

    def grad(self, F, g, x, out):
        shape, dt = self.in_meta[0]
        z = const(self.be.full(shape, 0, dt.np), g)
        F.index_put_(z, self.params["index"], g, True)
        return z


@register
class IndexPutBackward(Op):
    r"""Autograd node for :math:`y = x` with :math:`y[\iota] = v` (:math:`\mathrel{+}= v`
    with ``accumulate``): the out-of-place index-put behind ``x[i] = v``.

    Saves nothing: the gradient to :math:`x` is the incoming one (zeroed where
    overwritten, unless accumulating), to :math:`v` the incoming one read back through
    the index (the node sums it over :math:`v`'s broadcast dims). Also the node of
    ``scatter``, ``scatter_add``, ``index_add``, ``index_copy``, ``index_fill``,
    ``masked_scatter``, ``put`` and ``index_put``.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g \odot (1 - M_\iota)
              \ \ (g \text{ with accumulate}), \qquad
              \frac{\partial \mathcal{L}}{\partial v} = g[\iota]

    where :math:`M_\iota` is 1 on the indexed elements.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"index_put"``, ``AmpPolicy.KEEP_INPUT``, two tensor inputs.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: a copy of ``x``, then ``out[index] = v`` or ``xp.add.at`` (every repeated
    index adds). Without accumulate, which of several writes to one element wins is
    unspecified (the last on NumPy), as in PyTorch. Deterministic on the CPU; on CUDA the
    schema says ``deterministic=False`` (atomics), so ``use_deterministic_algorithms``
    refuses it there.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "index_put",
        1,
        AmpPolicy.KEEP_INPUT,
        input_arity=2,
        deterministic=False,
        nondeterministic_on=("cuda",),
        determinism_note=_ATOMICS_NOTE,
        complex_grad="holomorphic",
    )

    @staticmethod
    def dispatch(be, x, v, index, accumulate):
        out = be.copy(x)
        be.index_put_(out, index, v, accumulate)
        return out

    def grad(self, F, g, x, v, out):
        index, e = self.params["index"], self.next_edges
        gx = None
        if e[0] is not None:
            gx = g
            if not self.params["accumulate"]:
                gx = F.copy(g)
                F.index_put_(gx, index, 0, False)
        return gx, (F.index(g, index) if e[1] is not None else None)


def _put(x, index, v, accumulate=False):
    """``x`` with ``x[index] = v`` (``+= v`` with ``accumulate``), out of place and
    recorded; named ``index_put`` for ``apply_inplace``'s messages."""
    return IndexPutBackward.apply(x, v, index=index, accumulate=accumulate)


_put.__name__ = "index_put"


def _fits(vs, shape):
    """Whether shape ``vs`` broadcasts to ``shape``."""
    if len(vs) > len(shape):
        return False
    return all(a == 1 or a == b for a, b in zip(reversed(vs), reversed(shape)))


# -- parsing an index -------------------------------------------------------------------

_INT, _SLICE, _NONE, _ELLIPSIS, _ARRAY, _MASK, _BOOL = range(7)


def _classify(op, x, it, select_0d):
    """``(kind, payload)`` of an index entry that is not an int, a slice or None."""
    k = it.__class__
    if it is Ellipsis:
        return _ELLIPSIS, None
    if k is bool:
        return _BOOL, it
    if not isinstance(it, Tensor):
        if isinstance(it, numbers.Integral):
            return _INT, operator.index(it)
        if isinstance(it, (float, complex, str)):
            raise IndexingError(
                f"{op}: only integers, slices (`:`), ellipsis (`...`), None "
                f"and integer or bool tensors are valid indices (got "
                f"{type(it).__name__})"
            )
        if (k is list or k is tuple) and all(e.__class__ is int for e in it):
            return _ARRAY, x._device._backend.asarray(it, _dt.int64.np)  # the common case
        try:
            it = to_tensor(it, x)
        except (TypeError, ValueError):
            raise IndexingError(
                f"{op}: could not convert the index entry {it!r} to an integer or bool tensor"
            ) from None
    dt = it._dtype
    if dt is _dt.bool or dt is _dt.uint8:
        a = _array(it, x)
        if dt is _dt.uint8:
            a = x._device._backend.astype(a, _dt.bool.np)
        return (_BOOL, bool(a)) if a.ndim == 0 else (_MASK, a)
    if dt is _dt.int64 or dt is _dt.int32:
        if it._data.ndim == 0 and select_0d:
            return _INT, int(it.item())
        return _ARRAY, _array(it, x)
    raise IndexingError(
        f"{op}: tensors used as indices must be int64, int32, uint8 or bool tensors, got {dt}"
    )


def _parse(x, index, op, select_0d=True, shape=False, check=False):
    """Split ``index`` into the basic view and the advanced index applied to it.

    Returns ``(basic, adv, out_shape)``: ``basic`` is a tuple of non-negative ints,
    normalised slices and None (None when the view would be ``x`` itself and there is an
    advanced part); ``adv`` a tuple of full slices and int arrays indexing the view (None
    without arrays), where a bool mask that is the only advanced entry stays a mask
    (cheaper than its ``nonzero`` arrays); ``out_shape`` the advanced result's shape,
    computed with ``shape`` or ``check``. Index arrays are range-checked only with
    ``check``: the backend raises ``IndexError`` for them, and :func:`_out_of_range`
    then parses again with the check, for the message.
    """
    if index.__class__ is not tuple:
        index = (index,)
    xshape = x._data.shape
    nd = len(xshape)
    items = []
    used = n_adv = 0
    ellipsis = False
    for v in index:
        k = v.__class__
        kind = (
            _SLICE
            if k is slice
            else _INT
            if k is int
            else _NONE
            if v is None
            else _classify(op, x, v, select_0d)
        )
        if kind.__class__ is tuple:
            kind, v = kind
        if kind is _ELLIPSIS:
            if ellipsis:
                raise IndexingError(f"{op}: an index can only have a single ellipsis ('...')")
            ellipsis = True
        elif kind is _INT or kind is _SLICE:
            used += 1
        elif kind is not _NONE:
            n_adv += 1
            used += v.ndim if kind is _MASK else kind is _ARRAY
        items.append((kind, v))
    if used > nd:
        raise IndexingError(
            f"{op}: invalid index of a 0-dim tensor; use tensor.item()"
            if nd == 0
            else f"{op}: too many indices for tensor of dimension {nd}"
        )
    be = x._device._backend
    basic = []
    adv = []  # (view dim, number of view dims, array)
    plain = True  # the basic part keeps every dim whole
    d = o = 0  # dim of x, dim of the view
    for kind, v in items:
        if kind is _SLICE:
            n = xshape[d]
            if v.step is not None and operator.index(v.step) <= 0:
                raise IndexArgumentError(
                    f"{op}: step must be greater than zero, got {operator.index(v.step)}"
                )
            v = slice(*v.indices(n))
            if plain and (v.start or v.stop != n or v.step != 1):
                plain = False
            basic.append(v)
            d += 1
            o += 1
        elif kind is _INT:
            n = xshape[d]
            if not -n <= v < n:
                raise IndexingError(
                    f"{op}: index {v} is out of bounds for dimension {d} with size {n}"
                )
            basic.append(v + n if v < 0 else v)
            plain = False
            d += 1
        elif kind is _NONE:
            basic.append(None)
            plain = False
            o += 1
        elif kind is _ELLIPSIS:
            k = nd - used
            basic.extend((_FULL,) * k)
            d += k
            o += k
        elif kind is _ARRAY:
            if check:
                _check_range(op, be, v, xshape[d], d, True)
            adv.append((o, 1, v))
            basic.append(_FULL)
            d += 1
            o += 1
        elif kind is _MASK:
            k = v.ndim
            for j in range(k):
                if v.shape[j] != xshape[d + j]:
                    raise IndexingError(
                        f"{op}: the shape of the mask {list(v.shape)} at "
                        f"index {j} does not match the shape of the indexed "
                        f"tensor {list(xshape)} at index {d + j}"
                    )
            if n_adv == 1:
                adv.append((o, k, v))
            else:
                adv.extend((o + j, 1, a) for j, a in enumerate(be.nonzero_index(v)))
            basic.extend((_FULL,) * k)
            d += k
            o += k
        else:  # a bool scalar: a new dim of size 1 or 0
            adv.append((o, 1, be.asarray([0] if v else [], _dt.int64.np)))
            basic.append(None)
            plain = False
            o += 1
    if not adv:
        return tuple(basic), None, None
    basic = None if plain else tuple(basic)
    if len(adv) == 1:  # one array, or one mask of k dims
        idx = (_FULL,) * adv[0][0] + (adv[0][2],)
    else:
        idx = [_FULL] * (adv[-1][0] + 1)
        for p, _, a in adv:
            idx[p] = a
        idx = tuple(idx)
    return basic, idx, _adv_shape(op, be, x, basic, adv) if shape or check else None


def _adv_shape(op, be, x, basic, adv):
    """The shape of the view ``x[basic]`` indexed by the advanced entries ``adv``."""
    vshape = x._data.shape if basic is None else be.basic_index(x._data, basic).shape
    p, k, a = adv[0]
    if a.dtype == bool:  # the only entry: a k-dim mask
        return vshape[:p] + (be.count_true(a),) + vshape[p + k :]
    arrays = [a for _, _, a in adv]
    try:
        bshape = (
            arrays[0].shape
            if len(arrays) == 1
            else tuple(broadcast_shapes(*(a.shape for a in arrays)))
        )
    except ShapeError:
        raise IndexingError(
            f"{op}: shape mismatch: indexing tensors could not be broadcast "
            f"together with shapes "
            f"{', '.join(str(list(a.shape)) for a in arrays)}"
        ) from None
    pos = [p for p, _, _ in adv]
    if pos[-1] - pos[0] + 1 == len(pos):
        return vshape[: pos[0]] + bshape + vshape[pos[-1] + 1 :]
    return bshape + tuple(n for i, n in enumerate(vshape) if i not in pos)


def _out_of_range(x, index, op):
    """Raise the IndexingError naming the dim and size of the index the backend rejected."""
    _parse(x, index, op, check=True)
    raise IndexingError(f"{op}: index out of range")


# -- x[index] and x[index] = value ------------------------------------------------------


def _getitem(self, index):
    """``self[index]``: a view for ints, slices, None and ``...``; a copy with integer
    tensors, lists or bool masks (PyTorch's rules)."""
    if index.__class__ is int:  # the common case, x[i]
        shape = self._data.shape
        if shape and -shape[0] <= index < shape[0]:
            return SliceBackward.call(self, index=(index % shape[0],))
    basic, adv, _ = _parse(self, index, "__getitem__")
    out = self if basic is None else SliceBackward.call(self, index=basic)
    if adv is None:
        return out
    try:
        return IndexBackward.call(out, index=adv)
    except IndexingError:  # the backend's: name the bad index
        _out_of_range(self, index, "__getitem__")


def _has_dims(value):
    """Whether ``value`` may need a shape check (not a number or a 0-d tensor)."""
    return not (
        isinstance(value, numbers.Number) or (isinstance(value, Tensor) and value._data.ndim == 0)
    )


def _value(op, value, x, shape):
    """``value`` as a tensor of ``x``'s dtype and device that broadcasts to ``shape``
    (leading size-1 dims dropped, as PyTorch does)."""
    if isinstance(value, Tensor):
        if value._device is not x._device:
            value = value.to(x._device)
        if value._dtype is not x._dtype:
            value = value.to(x._dtype)
    elif isinstance(value, numbers.Number):
        if isinstance(value, complex):
            _complex_into(op, x)
        return scalar_like(value, x._dtype, x)
    else:
        value = to_tensor(value, x, dtype=x._dtype)
    vs = value._data.shape
    if not vs:
        return value
    k = 0
    while len(vs) - k > len(shape) and vs[k] == 1:
        k += 1
    if not _fits(vs[k:], shape):
        raise ShapeError(
            f"{op}: shape mismatch: value tensor of shape {list(vs)} cannot be "
            f"broadcast to indexing result of shape {list(shape)}"
        )
    return value.reshape(vs[k:]) if k else value


def _setitem(self, index, value):
    """``self[index] = value`` in place: the value is cast to ``self``'s dtype and
    broadcast; recorded for autograd (the overwritten elements get zero gradient)."""
    basic, adv, shape = _parse(self, index, "__setitem__", shape=_has_dims(value))
    try:
        if STATE.grad_enabled and (
            self._requires_grad or (isinstance(value, Tensor) and value._requires_grad)
        ):
            target = self if basic is None else SliceBackward.call(self, index=basic)
            v = _value("__setitem__", value, self, target._data.shape if adv is None else shape)
            if adv is None:
                copy_(target, v)
            else:
                apply_inplace(_put, target, adv, v)
            return
        be = self._device._backend  # nothing to record: write directly
        dst = self._data if basic is None else be.basic_index(self._data, basic)
        v = _value("__setitem__", value, self, dst.shape if adv is None else shape)._data
        check_writable(be, dst, "__setitem__")
        if adv is None:
            be.assign(dst, v)
        else:
            be.index_put_(dst, adv, v, False)
        self._vc[0] += 1
    except IndexingError:  # the backend's: name the bad index
        if adv is None:
            raise
        _out_of_range(self, index, "__setitem__")


install(
    __getitem__=_getitem,
    __setitem__=_setitem,
)


# -- index_put --------------------------------------------------------------------------


@tensor_method("index_put")
def index_put(input, indices, values, accumulate=False):
    """A copy of ``input`` with ``out[indices] = values`` (``+=`` with ``accumulate``),
    ``indices`` a tuple of integer or bool tensors indexing the leading dims."""
    if (
        not isinstance(indices, (tuple, list))
        or not indices
        or not all(isinstance(t, (Tensor, list, tuple)) for t in indices)
    ):
        raise IndexingError("index_put: indices must be a non-empty tuple of tensors")
    basic, adv, shape = _parse(input, tuple(indices), "index_put", select_0d=False, check=True)
    if basic is not None:
        raise IndexingError("index_put: 0-d bool index tensors are not supported")
    return _put(input, adv, _value("index_put", values, input, shape), bool(accumulate))


_inplace(index_put)
