"""Indexing: ``x[index]``, ``x[index] = value``, gather / scatter, ``index_*``, ``masked_*``,
``take``, ``put``, ``nonzero``.

An index is split the way PyTorch splits it: ints, slices, ``None`` and ``...`` make one
*basic* view (:class:`SliceBackward`, sharing storage and version counter); integer
tensors, lists and bool masks then make an *advanced* index applied to that view, a copy
(:class:`IndexBackward`). Ints are applied first, so they never count as advanced indices
when placing the broadcast dims (``x[:, [0, 1], :, 0]`` keeps its dims in order).

Writes go through :class:`IndexPutBackward` (an out-of-place index-put) inside
``apply_inplace``, so they are recorded like any in-place op. Every gather-like op is an
advanced index (``gather`` indexes with ``arange`` grids, ``index_select`` along one dim,
``take`` the flattened input) and every scatter-like op an index-put, so two mutually
adjoint classes serve them all; ``masked_fill`` (no host sync on the mask) and
``scatter_reduce`` (non-additive reductions) have their own nodes.

Complex tensors index, scatter and fill like any other dtype; ``scatter_reduce`` with
``amax``/``amin`` refuses them (complex numbers are not ordered).
"""

from __future__ import annotations

import numbers
import operator

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...autograd.grad_mode import STATE
from ...errors import (DimError, DTypeError, IndexArgumentError, IndexingError, ShapeError,
                      ValueOverflowError)
from ..core._bind import tensor_method
from ..core.base import (Op, UnaryOp, apply_inplace, check_writable, norm_dim, scalar_like,
                   to_tensor)
from ..core._formula import array_of, const
from ..core.casts import copy_
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ..shape.shape import _SelectViewBackward, broadcast_shapes

_ATOMICS_NOTE = ("On CUDA, repeated indices combine through atomic operations whose order "
                 "varies between runs (floating-point sums may differ in the last bits).")

__all__ = ["gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add",
           "index_copy", "index_fill", "index_put", "masked_fill", "masked_select",
           "masked_scatter", "take", "take_along_dim", "put", "nonzero", "argwhere"]

_FULL = slice(None)
_wrap = Tensor._wrap
_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


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
    schema_v1 = OpSchema("index_put", 1, AmpPolicy.KEEP_INPUT, input_arity=2,
                         deterministic=False, nondeterministic_on=("cuda",),
                         determinism_note=_ATOMICS_NOTE, complex_grad="holomorphic")

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


@register
class MaskedFillBackward(Op):
    r"""Autograd node for :math:`y = \mathrm{mask} \,?\, v : x` (``masked_fill``; the mask
    broadcasts against :math:`x`, :math:`v` is a 0-d tensor).

    Saves nothing: both gradients are the incoming one masked (the mask is a param).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g \odot (1 - \mathrm{mask}), \qquad
              \frac{\partial \mathcal{L}}{\partial v} = \sum g \odot \mathrm{mask}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"masked_fill"``, ``AmpPolicy.KEEP_INPUT``, two tensor inputs.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.where(mask, v, x)``: no host sync on the mask, unlike indexing by it.
    NaN under the mask is replaced like any value.
    """

    __slots__ = ()
    schema_v1 = OpSchema("masked_fill", 1, AmpPolicy.KEEP_INPUT, input_arity=2,
            complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, v, mask):
        return be.masked_fill(x, mask, v)

    def grad(self, F, g, x, v, out):
        mask = self.params["mask"]
        need = self.needs_input_grad
        return (F.masked_fill(g, mask, 0) if need[0] else None,
                F.masked_fill(g, ~mask, 0) if need[1] else None)


@register
class ScatterReduceBackward(Op):
    r"""Autograd node for ``scatter_reduce``: each :math:`y_i` reduces the :math:`s_j`
    scattered onto it (:math:`\iota(j) = i`), and :math:`x_i` when ``include_self``.

    Saves the inputs and the output: ``prod`` divides the output by each factor (zero
    factors handled exactly), ``amax``/``amin`` compare the inputs with the output to find
    the winners; ``sum`` and ``mean`` use only the index.

    Math
    ----
    With :math:`S_i = \{j : \iota(j) = i\}` and :math:`c_i = |S_i| + [\text{include\_self}]`:

    .. math:: \text{sum: } \bar x_i = g_i,\ \ \bar s_j = g_{\iota(j)}; \qquad
              \text{mean: } \bar x_i = \frac{g_i}{c_i},\ \
              \bar s_j = \frac{g_{\iota(j)}}{c_{\iota(j)}}

    .. math:: \text{prod: } \bar x_i = g_i \prod_{j \in S_i} s_j,\ \
              \bar s_j = g_{\iota(j)} \frac{y_{\iota(j)}}{s_j}
              \ \ (\text{the exclusive product when } s_j = 0)

    .. math:: \text{amax, amin: } \bar x_i = \frac{g_i [x_i = y_i]}{n_i},\ \
              \bar s_j = \frac{g_{\iota(j)} [s_j = y_{\iota(j)}]}{n_{\iota(j)}}

    where :math:`n_i` counts the tied winners (the gradient is split evenly). Without
    ``include_self``, :math:`\bar x_i = 0` wherever something was scattered.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"scatter_reduce"``, ``AmpPolicy.KEEP_INPUT``, two tensor inputs.
    saves_input : bool
        True: :math:`x` and :math:`s`.
    saves_output : bool
        True: :math:`y`.

    Notes
    -----
    Backends: ``ufunc.at`` (``add``, ``multiply``, ``maximum``, ``minimum``) on a copy of
    :math:`x` whose scattered elements start from the reduction's identity when
    ``include_self`` is False; ``mean`` divides by the counts (floor division for
    integers, like PyTorch). NaN propagates through ``amax``/``amin``. Unlike PyTorch, an
    excluded self never takes a share of a tied ``amax``/``amin`` gradient. Deterministic
    on the CPU; on CUDA the schema says ``deterministic=False`` (atomics).
    """

    __slots__ = ()
    schema_v1 = OpSchema("scatter_reduce", 1, AmpPolicy.KEEP_INPUT, input_arity=2,
                         deterministic=False, nondeterministic_on=("cuda",),
                         determinism_note=_ATOMICS_NOTE, complex_grad="holomorphic")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x, src, index, reduce, include_self):
        return be.scatter_reduce(x, index, src, reduce, include_self)

    def _excluded(self, F, gx):
        """``gx`` zeroed on the scattered-onto elements when self is excluded."""
        if self.params["include_self"]:
            return gx
        gx = F.copy(gx)
        F.index_put_(gx, self.params["index"], 0, False)
        return gx

    def _inv_count(self, shape, dt):
        """``1 / c`` of the mean (counts of at least 1)."""
        be = self.be
        n = be.scatter_count(shape, self.params["index"], self.params["include_self"], dt)
        return 1 / be.masked_fill(n, n == 0, 1)

    def _winners(self, x, src, out):
        """(self-wins mask, src-wins mask, 1 / number of tied winners) of amax/amin."""
        be, index = self.be, self.params["index"]
        own = self._excluded(be, x == out)
        won = src == be.index(out, index)
        n = be.scatter_reduce(be.astype(own, out.dtype), index, be.astype(won, out.dtype),
                              "sum", True)
        return own, won, 1 / be.masked_fill(n, n == 0, 1)

    def _zero_factors(self, x, src):
        """(src == 0, src is the only zero scattered onto its element) of prod."""
        be, index = self.be, self.params["index"]
        zero = src == 0
        count = be.scatter_reduce(be.full(x.shape, 0, x.dtype), index,
                                  be.astype(zero, x.dtype), "sum", True)
        return zero, zero & (be.index(count, index) == 1)

    def grad(self, F, g, x, src, out):
        p = self.params
        index, red = p["index"], p["reduce"]
        xa = array_of(x)
        if red == "sum":
            return self._excluded(F, g), F.index(g, index)
        if red == "mean":
            w = g * const(self._inv_count(xa.shape, self.in_meta[0][1].np), g)
            return self._excluded(F, w), F.index(w, index)
        if red == "prod":
            others = F.scatter_reduce(const(self.be.full(xa.shape, 1, xa.dtype), x), index,
                                      src, "prod", True)
            zero, single = self._zero_factors(xa, array_of(src))
            excl = F.scatter_reduce(x, index, F.masked_fill(src, single, 1), "prod",
                                    p["include_self"])
            gs = F.masked_fill(F.index(g * out, index) / F.masked_fill(src, zero, 1), single, 0)
            gs = gs + F.masked_fill(F.index(g * excl, index), ~single, 0)
            return self._excluded(F, g * others), gs
        own, won, w = self._winners(xa, array_of(src), array_of(out))
        return g * const(own * w, g), F.index(g * const(w, g), index) * const(won, g)


@register
class NonzeroBackward(UnaryOp):
    r"""Op for the coordinates of the non-zero elements of :math:`x`, one row each
    (``nonzero``, ``argwhere``).

    Saves nothing and records no node: the result is integer, not differentiable.

    Math
    ----
    .. math:: y = \big[\, i \;\big|\; x_i \neq 0 \,\big]_{\text{C order}}
              \in \mathbb{Z}^{n \times \mathrm{ndim}(x)}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"nonzero"``, ``AmpPolicy.KEEP_INPUT``, not differentiable.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.argwhere`` as int64 (a host sync for the count on CUDA). NaN counts as
    non-zero; a 0-d input gives shape ``(1, 0)`` or ``(0, 0)``.
    """

    __slots__ = ()
    schema_v1 = OpSchema("nonzero", 1, AmpPolicy.KEEP_INPUT, differentiable=False,
            complex_grad="custom")

    @staticmethod
    def dispatch(be, x):
        return be.nonzero(x)


# -- helpers ----------------------------------------------------------------------------

def _put(x, index, v, accumulate=False):
    """``x`` with ``x[index] = v`` (``+= v`` with ``accumulate``), out of place and
    recorded; named ``index_put`` for ``apply_inplace``'s messages."""
    return IndexPutBackward.apply(x, v, index=index, accumulate=accumulate)


_put.__name__ = "index_put"


def _array(t, x):
    """The backend array of tensor ``t`` on ``x``'s device."""
    if t._device is x._device:
        return t._data
    return x._device._backend.asarray(t._device._backend.to_numpy(t._data))


def _index_arg(op, index, x, long_only=False, empty_ok=False, error=DTypeError):
    """The int32/int64 backend array of ``index`` (a tensor or a sequence): int64 only
    where ``long_only``, any dtype for an empty index where ``empty_ok`` (PyTorch's
    gather and scatters read nothing and check nothing), else ``error``, as PyTorch."""
    if not isinstance(index, Tensor):
        empty = isinstance(index, (list, tuple)) and len(index) == 0
        index = to_tensor(index, x, dtype=_dt.int64 if empty else None)
    if index._dtype is not _dt.int64 and (long_only or index._dtype is not _dt.int32):
        if empty_ok and not index._data.size:
            return x._device._backend.astype(_array(index, x), _dt.int64.np)
        kinds = "an int64" if long_only else "an int64 or int32"
        raise error(f"{op}: expected {kinds} index tensor, got {index._dtype}")
    return _array(index, x)


def _check_range(op, be, a, n, dim, negative):
    """IndexingError unless every index of array ``a`` is in ``[-n, n)`` (``[0, n)``)."""
    be.check_index_bounds(a, -n if negative else 0, n,
                          lambda e: f"{op}: {e} for dimension {dim} with size {n}")


def _same_dtype(op, x, src, what="src"):
    if src._dtype is not x._dtype:
        raise DTypeError(f"{op}: expected self and {what} to have the same dtype, but got "
                         f"{x._dtype} and {src._dtype}")


def _broadcast(op, a, b, what="mask"):
    """The broadcast of shapes ``a`` (input) and ``b``, or a ShapeError naming ``op``."""
    try:
        return tuple(broadcast_shapes(a, b))
    except ShapeError:
        raise ShapeError(f"{op}: {what} of shape {list(b)} cannot be broadcast with the "
                         f"input of shape {list(a)}") from None


def _fits(vs, shape):
    """Whether shape ``vs`` broadcasts to ``shape``."""
    if len(vs) > len(shape):
        return False
    return all(a == 1 or a == b for a, b in zip(reversed(vs), reversed(shape)))


def _fill_value(op, value, x):
    """``value`` (a number or 0-d tensor) as a 0-d tensor of ``x``'s dtype and device; a
    complex value for a real ``x`` is refused (PyTorch: it cannot be converted)."""
    if isinstance(value, Tensor) and value._dtype.is_complex:
        _complex_into(op, x)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise ShapeError(f"{op}: only supports a 0-dimensional value tensor, but got "
                             f"tensor with {value._data.ndim} dimension(s)")
        if value._device is not x._device:
            value = value.to(x._device)
        return value if value._dtype is x._dtype else value.to(x._dtype)
    if not isinstance(value, numbers.Number):
        raise DTypeError(f"{op}: value must be a number or a 0-d tensor, got "
                         f"{type(value).__name__}")
    if isinstance(value, complex):
        _complex_into(op, x)
    if x._dtype._cat == 1 and not isinstance(value, bool):
        info = _dt.iinfo(x._dtype)      # PyTorch's scalar rule: unsigned wraps down to -max
        if not (-info.max if info.min == 0 else info.min) <= value <= info.max:
            raise ValueOverflowError(f"{op}: value {value} cannot be converted to "
                                     f"{x._dtype.name} without overflow")
    return scalar_like(value, x._dtype, x)


def _complex_into(op, x):
    """Refuse a complex value for a real ``x`` (PyTorch: it cannot be converted)."""
    if not x._dtype.is_complex:
        raise DTypeError(f"{op}: a complex value cannot be converted to the {x._dtype.name} "
                         "tensor")


def _mask_arg(op, mask, x):
    """The bool backend array of ``mask``."""
    mask = to_tensor(mask, x)
    if mask._dtype is not _dt.bool:
        raise DTypeError(f"{op}: expected a bool mask, got a mask of dtype {mask._dtype}")
    return _array(mask, x)


def _vec(t):
    """A 0-d tensor as shape ``(1,)`` (ops along a dim treat a scalar as a vector)."""
    return t.reshape(1) if t._data.ndim == 0 else t


def _unvec(out, like):
    return out.reshape(()) if like._data.ndim == 0 else out


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
            raise IndexingError(f"{op}: only integers, slices (`:`), ellipsis (`...`), None "
                                f"and integer or bool tensors are valid indices (got "
                                f"{type(it).__name__})")
        if (k is list or k is tuple) and all(e.__class__ is int for e in it):
            return _ARRAY, x._device._backend.asarray(it, _dt.int64.np)   # the common case
        try:
            it = to_tensor(it, x)
        except (TypeError, ValueError):
            raise IndexingError(f"{op}: could not convert the index entry {it!r} to an "
                                "integer or bool tensor") from None
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
    raise IndexingError(f"{op}: tensors used as indices must be int64, int32, uint8 or bool "
                        f"tensors, got {dt}")


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
        kind = _SLICE if k is slice else _INT if k is int else _NONE if v is None else \
            _classify(op, x, v, select_0d)
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
        raise IndexingError(f"{op}: invalid index of a 0-dim tensor; use tensor.item()" if
                            nd == 0 else f"{op}: too many indices for tensor of dimension {nd}")
    be = x._device._backend
    basic = []
    adv = []            # (view dim, number of view dims, array)
    plain = True        # the basic part keeps every dim whole
    d = o = 0           # dim of x, dim of the view
    for kind, v in items:
        if kind is _SLICE:
            n = xshape[d]
            if v.step is not None and operator.index(v.step) <= 0:
                raise IndexArgumentError(f"{op}: step must be greater than zero, got "
                                         f"{operator.index(v.step)}")
            v = slice(*v.indices(n))
            if plain and (v.start or v.stop != n or v.step != 1):
                plain = False
            basic.append(v)
            d += 1
            o += 1
        elif kind is _INT:
            n = xshape[d]
            if not -n <= v < n:
                raise IndexingError(f"{op}: index {v} is out of bounds for dimension {d} "
                                    f"with size {n}")
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
                    raise IndexingError(f"{op}: the shape of the mask {list(v.shape)} at "
                                        f"index {j} does not match the shape of the indexed "
                                        f"tensor {list(xshape)} at index {d + j}")
            if n_adv == 1:
                adv.append((o, k, v))
            else:
                adv.extend((o + j, 1, a) for j, a in enumerate(be.nonzero_index(v)))
            basic.extend((_FULL,) * k)
            d += k
            o += k
        else:                                   # a bool scalar: a new dim of size 1 or 0
            adv.append((o, 1, be.asarray([0] if v else [], _dt.int64.np)))
            basic.append(None)
            plain = False
            o += 1
    if not adv:
        return tuple(basic), None, None
    basic = None if plain else tuple(basic)
    if len(adv) == 1:                           # one array, or one mask of k dims
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
    if a.dtype == bool:                         # the only entry: a k-dim mask
        return vshape[:p] + (be.count_true(a),) + vshape[p + k:]
    arrays = [a for _, _, a in adv]
    try:
        bshape = arrays[0].shape if len(arrays) == 1 else \
            tuple(broadcast_shapes(*(a.shape for a in arrays)))
    except ShapeError:
        raise IndexingError(f"{op}: shape mismatch: indexing tensors could not be broadcast "
                            f"together with shapes "
                            f"{', '.join(str(list(a.shape)) for a in arrays)}") from None
    pos = [p for p, _, _ in adv]
    if pos[-1] - pos[0] + 1 == len(pos):
        return vshape[:pos[0]] + bshape + vshape[pos[-1] + 1:]
    return bshape + tuple(n for i, n in enumerate(vshape) if i not in pos)


def _out_of_range(x, index, op):
    """Raise the IndexingError naming the dim and size of the index the backend rejected."""
    _parse(x, index, op, check=True)
    raise IndexingError(f"{op}: index out of range")


def _getitem(self, index):
    """``self[index]``: a view for ints, slices, None and ``...``; a copy with integer
    tensors, lists or bool masks (PyTorch's rules)."""
    if index.__class__ is int:                  # the common case, x[i]
        shape = self._data.shape
        if shape and -shape[0] <= index < shape[0]:
            return SliceBackward.call(self, index=(index % shape[0],))
    basic, adv, _ = _parse(self, index, "__getitem__")
    out = self if basic is None else SliceBackward.call(self, index=basic)
    if adv is None:
        return out
    try:
        return IndexBackward.call(out, index=adv)
    except IndexingError:                           # the backend's: name the bad index
        _out_of_range(self, index, "__getitem__")


def _has_dims(value):
    """Whether ``value`` may need a shape check (not a number or a 0-d tensor)."""
    return not (isinstance(value, numbers.Number) or
                (isinstance(value, Tensor) and value._data.ndim == 0))


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
        raise ShapeError(f"{op}: shape mismatch: value tensor of shape {list(vs)} cannot be "
                         f"broadcast to indexing result of shape {list(shape)}")
    return value.reshape(vs[k:]) if k else value


def _setitem(self, index, value):
    """``self[index] = value`` in place: the value is cast to ``self``'s dtype and
    broadcast; recorded for autograd (the overwritten elements get zero gradient)."""
    basic, adv, shape = _parse(self, index, "__setitem__", shape=_has_dims(value))
    try:
        if STATE.grad_enabled and (self._requires_grad or (
                isinstance(value, Tensor) and value._requires_grad)):
            target = self if basic is None else SliceBackward.call(self, index=basic)
            v = _value("__setitem__", value, self,
                       target._data.shape if adv is None else shape)
            if adv is None:
                copy_(target, v)
            else:
                apply_inplace(_put, target, adv, v)
            return
        be = self._device._backend                  # nothing to record: write directly
        dst = self._data if basic is None else be.basic_index(self._data, basic)
        v = _value("__setitem__", value, self, dst.shape if adv is None else shape)._data
        check_writable(be, dst, "__setitem__")
        if adv is None:
            be.assign(dst, v)
        else:
            be.index_put_(dst, adv, v, False)
        self._vc[0] += 1
    except IndexingError:                           # the backend's: name the bad index
        if adv is None:
            raise
        _out_of_range(self, index, "__setitem__")


Tensor.__getitem__ = _getitem
Tensor.__setitem__ = _setitem


# -- gather and scatter -----------------------------------------------------------------

def _grid(op, input, dim, idx, src=None):
    """Validate the gather/scatter index array ``idx`` along ``dim`` (0-d counts as 1-d).

    Returns ``(x, grid, src, shape)``: ``input`` as at least 1-d, the advanced index of
    ``grid_index``, ``src`` (a tensor, optional) as at least 1-d and cut to the index's
    shape, and that shape.
    """
    be = input._device._backend
    x = _vec(input)
    if idx.ndim == 0:
        idx = be.reshape(idx, (1,))
    shape = x._data.shape
    nd = len(shape)
    d = norm_dim(dim, nd, op)
    if idx.ndim != nd:
        raise ShapeError(f"{op}: index tensor must have the same number of dimensions as "
                         f"the input tensor ({idx.ndim} vs {nd})")
    sshape = None
    if src is not None:
        src = _vec(src)
        sshape = src._data.shape
        if len(sshape) != nd:
            raise ShapeError(f"{op}: src tensor must have the same number of dimensions as "
                             f"the input tensor ({len(sshape)} vs {nd})")
    for i, n in enumerate(idx.shape):
        if (i != d and n > shape[i]) or (sshape is not None and n > sshape[i]):
            raise ShapeError(f"{op}: expected index {list(idx.shape)} to be no larger than "
                             f"self {list(shape)} apart from dimension {d}" +
                             ("" if sshape is None else
                              f" and to be no larger than src {list(sshape)}"))
    _check_range(op, be, idx, shape[d], d, False)
    if src is not None and sshape != idx.shape:
        src = SliceBackward.call(src, index=tuple(slice(0, n, 1) for n in idx.shape))
    return x, be.grid_index(idx, d), src, idx.shape


def _gather(op, input, dim, index):
    norm_dim(dim, max(input._data.ndim, 1), op)        # the dim first, as PyTorch
    idx = _index_arg(op, index, input, empty_ok=True)
    x, grid, _, _ = _grid(op, input, dim, idx)
    out = IndexBackward.call(x, index=grid)
    return out.reshape(()) if idx.ndim == 0 else out


@tensor_method("gather")
def gather(input, dim, index, *, sparse_grad=False):
    """``out[i][j] = input[index[i][j]][j]`` (``dim=0``) or ``input[i][index[i][j]]``
    (``dim=1``): ``index`` has ``input``'s number of dims and is no larger apart from
    ``dim``; the result has its shape."""
    return _gather("gather", input, dim, index)


def _scatter_src(op, input, dim, index, src):
    """``(x, grid, src)`` of a scatter; ``src`` a tensor of ``input``'s dtype."""
    src = to_tensor(src, input)
    norm_dim(dim, max(input._data.ndim, 1), op)        # the dim first, as PyTorch
    idx = _index_arg(op, index, input, empty_ok=True)
    _same_dtype(op, input, src)
    x, grid, src, _ = _grid(op, input, dim, idx, src)
    return x, grid, src


@tensor_method("scatter")
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """A copy of ``input`` with ``out[index[i][j]][j] = src[i][j]`` (``dim=0``), or the
    number ``value`` written there; ``reduce='add'``/``'multiply'`` combine instead."""
    s = src if src is not None else value
    if s is None:
        raise DTypeError("scatter: expected a src tensor or a value")
    if isinstance(s, Tensor):
        x, grid, v = _scatter_src("scatter", input, dim, index, s)
    else:
        norm_dim(dim, max(input._data.ndim, 1), "scatter")
        x, grid, _, ishape = _grid("scatter", input, dim,
                                   _index_arg("scatter", index, input, empty_ok=True))
        v = _fill_value("scatter", s, input)
        if reduce == "multiply":
            v = v.expand(ishape)
    if reduce is None or reduce == "add":
        out = _put(x, grid, v, reduce == "add")
    elif reduce == "multiply":
        out = ScatterReduceBackward.apply(x, v, index=grid, reduce="prod", include_self=True)
    else:
        raise IndexArgumentError(f"scatter: reduce argument must be either 'add' or "
                                 f"'multiply', got {reduce!r}")
    return _unvec(out, input)


@tensor_method("scatter_add")
def scatter_add(input, dim, index, src):
    """A copy of ``input`` with ``out[index[i][j]][j] += src[i][j]`` (``dim=0``); repeated
    indices accumulate."""
    x, grid, v = _scatter_src("scatter_add", input, dim, index, src)
    return _unvec(_put(x, grid, v, True), input)


@tensor_method("scatter_reduce")
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """A copy of ``input`` where each element reduces (``"sum"``, ``"prod"``, ``"mean"``,
    ``"amax"``, ``"amin"``) the ``src`` values scattered onto it, and itself when
    ``include_self``."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)     # PyTorch takes these too
    if reduce not in _REDUCTIONS:
        raise IndexArgumentError(f"scatter_reduce: reduce argument must be one of "
                                 f"{', '.join(_REDUCTIONS)}, got {reduce!r}")
    if reduce == "mean" and to_tensor(input)._dtype is _dt.bool:
        # PyTorch's kernel refuses it after the argument checks, before the bounds check
        norm_dim(dim, max(input._data.ndim, 1), "scatter_reduce")
        _index_arg("scatter_reduce", index, input, empty_ok=True)
        raise DTypeError("scatter_reduce: reduce='mean' is not implemented for bool")
    x, grid, v = _scatter_src("scatter_reduce", input, dim, index, src)
    if reduce in ("amax", "amin") and x._dtype.is_complex:
        raise DTypeError(f"scatter_reduce: reduce={reduce!r} does not support complex input "
                         f"(got {x._dtype.name}); complex numbers are not ordered")
    out = ScatterReduceBackward.apply(x, v, index=grid, reduce=reduce,
                                      include_self=bool(include_self))
    return _unvec(out, input)


# -- along one dim ----------------------------------------------------------------------

def _along(op, x, dim, index, negative, **index_kw):
    """Validate a vector ``index`` along ``dim`` of the (at least 1-d) ``x``
    (``index_kw``: :func:`_index_arg`'s dtype rules).

    Returns ``(dim, advanced index, number of indices)``.
    """
    be = x._device._backend
    d = norm_dim(dim, x._data.ndim, op)
    idx = _index_arg(op, index, x, **index_kw)
    if idx.ndim > 1:
        raise IndexingError(f"{op}: index is supposed to be a vector, got shape "
                            f"{list(idx.shape)}")
    if idx.ndim == 0:
        idx = be.reshape(idx, (1,))
    _check_range(op, be, idx, x._data.shape[d], d, negative)
    return d, (_FULL,) * d + (idx,), idx.shape[0]


def _source(op, input, x, d, k, source):
    """``source`` checked against ``x``'s shape with ``k`` entries along ``d``."""
    src = to_tensor(source, input)
    _same_dtype(op, input, src, "source")
    if input._data.ndim == 0:
        src = _vec(src)
    shape = x._data.shape
    if src._data.shape != shape[:d] + (k,) + shape[d + 1:]:
        raise ShapeError(f"{op}: source tensor shape must match self tensor shape, excluding "
                         f"the specified dimension, with {k} indices along it. Got "
                         f"self.shape = {list(input.shape)} source.shape = "
                         f"{list(src.shape)}")
    return src


@tensor_method("index_select")
def index_select(input, dim, index):
    """The entries of ``input`` at positions ``index`` (a vector) along ``dim``."""
    x = _vec(input)
    _, ix, k = _along("index_select", x, dim, index, False)
    if input._data.ndim == 0 and k != 1:
        raise IndexingError(f"index_select: index to a 0-dim tensor can have only 1 value, "
                            f"got {k}")
    return _unvec(IndexBackward.call(x, index=ix), input)


def _index_write(op, input, dim, index, source, accumulate, alpha=1):
    x = _vec(input)
    if input._data.ndim == 0:
        k = (index if isinstance(index, Tensor) else to_tensor(index, input))._data.size
        if k != 1:
            raise IndexingError(f"{op}: the index of a 0-d tensor should have one element, "
                                f"got {k}")
    # PyTorch's index_copy takes int64 indices only, index_add int32 too
    d, ix, k = _along(op, x, dim, index, False, long_only=not accumulate)
    src = _source(op, input, x, d, k, source)
    if alpha != 1:
        src = src * alpha
    return _unvec(_put(x, ix, src, accumulate), input)


@tensor_method("index_add")
def index_add(input, dim, index, source, *, alpha=1):
    """A copy of ``input`` with ``alpha * source[..., i, ...]`` added at position
    ``index[i]`` along ``dim``; repeated indices accumulate."""
    return _index_write("index_add", input, dim, index, source, True, alpha)


@tensor_method("index_copy")
def index_copy(input, dim, index, source):
    """A copy of ``input`` with ``source[..., i, ...]`` written at position ``index[i]``
    along ``dim``."""
    return _index_write("index_copy", input, dim, index, source, False)


@tensor_method("index_fill")
def index_fill(input, dim, index, value):
    """A copy of ``input`` with ``value`` (a number or 0-d tensor) at positions ``index``
    along ``dim`` (negative positions count from the end)."""
    x = _vec(input)
    d, ix, _ = _along("index_fill", x, dim, index, True, long_only=True,
                      error=IndexingError)
    be = x._device._backend
    mask = be.full(x._data.shape[d:d + 1], False, _dt.bool.np)
    be.index_put_(mask, ix[d:], True, False)    # a mask: each position filled once
    return _unvec(_put(x, ix[:d] + (mask,), _fill_value("index_fill", value, input)), input)


@tensor_method("index_put")
def index_put(input, indices, values, accumulate=False):
    """A copy of ``input`` with ``out[indices] = values`` (``+=`` with ``accumulate``),
    ``indices`` a tuple of integer or bool tensors indexing the leading dims."""
    if not isinstance(indices, (tuple, list)) or not indices or \
            not all(isinstance(t, (Tensor, list, tuple)) for t in indices):
        raise IndexingError("index_put: indices must be a non-empty tuple of tensors")
    basic, adv, shape = _parse(input, tuple(indices), "index_put", select_0d=False,
                               check=True)
    if basic is not None:
        raise IndexingError("index_put: 0-d bool index tensors are not supported")
    return _put(input, adv, _value("index_put", values, input, shape), bool(accumulate))


# -- masks ------------------------------------------------------------------------------

def _masked(op, input, mask):
    """``(input expanded, mask array expanded, shape)`` to the broadcast shape, 0-d as 1-d."""
    m = _mask_arg(op, mask, input)
    shape = _broadcast(op, input._data.shape, m.shape)
    be = input._device._backend
    x = input.expand(shape)
    if m.shape != shape:
        m = be.broadcast_to(m, shape)
    if not shape:
        return x.reshape(1), be.reshape(m, (1,)), shape
    return x, m, shape


@tensor_method("masked_fill")
def masked_fill(input, mask, value):
    """``input`` with ``value`` (a number or 0-d tensor) where the bool ``mask`` (broadcast)
    is true."""
    m = _mask_arg("masked_fill", mask, input)
    _broadcast("masked_fill", input._data.shape, m.shape)
    return MaskedFillBackward.apply(input, _fill_value("masked_fill", value, input), mask=m)


@tensor_method("masked_select")
def masked_select(input, mask):
    """The 1-d tensor of the elements of ``input`` where ``mask`` is true (both broadcast)."""
    x, m, _ = _masked("masked_select", input, mask)
    return IndexBackward.call(x, index=x._device._backend.nonzero_index(m))


@tensor_method("masked_scatter")
def masked_scatter(input, mask, source):
    """A copy of ``input`` (broadcast with ``mask``) whose masked elements take the
    leading elements of ``source`` in order."""
    src = to_tensor(source, input)
    _same_dtype("masked_scatter", input, src, "source")
    x, m, shape = _masked("masked_scatter", input, mask)
    ix = x._device._backend.nonzero_index(m)
    k = ix[0].shape[0]
    if src._data.size < k:
        raise ShapeError(f"masked_scatter: number of elements of source ({src._data.size}) "
                         f"< number of ones in mask ({k})")
    v = SliceBackward.call(src.reshape(-1), index=(slice(0, k, 1),))
    out = _put(x, ix, v)
    return out if shape else out.reshape(())


# -- flat -------------------------------------------------------------------------------

@tensor_method("take")
def take(input, index):
    """The elements of the flattened ``input`` at ``index`` (any shape; negative indices
    count from the end); the result has ``index``'s shape."""
    idx = _index_arg("take", index, input, long_only=True)
    flat = input.reshape(-1)
    _check_range("take", input._device._backend, idx, flat._data.shape[0], 0, True)
    return IndexBackward.call(flat, index=(idx,))


@tensor_method("take_along_dim")
def take_along_dim(input, indices, dim=None):
    """``gather`` along ``dim`` after broadcasting ``input`` and ``indices`` over the other
    dims (int64 indices, taken modulo the dim's size, as PyTorch 2.13 does); with
    ``dim=None``, over the flattened input (gather's indices, checked)."""
    indices = indices if isinstance(indices, Tensor) else to_tensor(indices, input)
    if dim is None:
        return _gather("take_along_dim", input.reshape(-1), 0, indices.reshape(-1))
    _index_arg("take_along_dim", indices, input, long_only=True)
    nd = input._data.ndim
    if not nd:
        raise DimError(f"take_along_dim: dimension specified as {dim} but tensor has no "
                       "dimensions")
    if indices._data.ndim != nd:
        raise ShapeError(f"take_along_dim: input and indices should have the same number of "
                         f"dimensions, but got {nd} dimensions for input, and "
                         f"{indices._data.ndim} dimensions for indices")
    d = norm_dim(dim, nd, "take_along_dim")
    xs, js = input._data.shape, indices._data.shape
    b = _broadcast("take_along_dim", xs[:d] + (1,) + xs[d + 1:],
                   js[:d] + (1,) + js[d + 1:], "indices")
    if indices._data.size:             # PyTorch takes the indices modulo the dim's size
        if not xs[d]:
            raise IndexingError(f"take_along_dim: cannot take indices along the empty dim "
                                f"{d}")
        indices = indices.remainder(xs[d])
    return _gather("take_along_dim", input.expand(b[:d] + xs[d:d + 1] + b[d + 1:]), d,
                   indices.expand(b[:d] + js[d:d + 1] + b[d + 1:]))


@tensor_method("put")
def put(input, index, source, accumulate=False):
    """A copy of ``input`` with the flattened positions ``index`` set to (or, with
    ``accumulate``, increased by) the elements of ``source``."""
    be = input._device._backend
    idx = _index_arg("put", index, input)
    src = to_tensor(source, input)
    _same_dtype("put", input, src, "source")
    if idx.size != src._data.size:
        raise ShapeError(f"put: expected source and index to have the same number of "
                         f"elements, but got source.numel() = {src._data.size}, "
                         f"index.numel() = {idx.size}")
    flat = input.reshape(-1)
    _check_range("put", be, idx, flat._data.shape[0], 0, True)
    out = _put(flat, (be.reshape(idx, (-1,)),), src.reshape(-1), bool(accumulate))
    return out.reshape(input._data.shape)


# -- nonzero ----------------------------------------------------------------------------

@tensor_method("nonzero")
def nonzero(input, *, as_tuple=False):
    """The ``(n, ndim)`` int64 coordinates of the non-zero elements, or with ``as_tuple``
    one 1-d tensor per dim (a 0-d input counts as 1-d)."""
    if not as_tuple:
        return NonzeroBackward.call(input)
    m = NonzeroBackward.call(_vec(input))
    n, k = m._data.shape
    return tuple(SliceBackward.call(m, index=(slice(0, n, 1), i)) for i in range(k))


@tensor_method("argwhere")
def argwhere(input):
    """The ``(n, ndim)`` int64 coordinates of the non-zero elements."""
    return NonzeroBackward.call(input)


# -- in place ---------------------------------------------------------------------------

def _inplace(fn):
    def method(self, *args, **kwargs):
        return apply_inplace(fn, self, *args, **kwargs)
    method.__name__ = fn.__name__ + "_"
    method.__doc__ = f"In-place :func:`{fn.__name__}`."
    setattr(Tensor, method.__name__, method)


for _fn in (scatter, scatter_add, scatter_reduce, index_add, index_copy, index_fill,
            index_put, masked_fill, masked_scatter, put):
    _inplace(_fn)
