"""Gather and scatter: ``gather``, ``scatter``, ``scatter_add``, ``scatter_reduce``; along
one dim, ``index_select``, ``index_add``, ``index_copy``, ``index_fill``; on the flattened
input, ``take``, ``take_along_dim``, ``put``; and their in-place variants.

Each is an advanced index or an index-put of :mod:`.subscript` (``gather`` indexes with
``arange`` grids, ``index_select`` along one dim, ``take`` the flattened input), so the
gradients come from those nodes; only ``scatter_reduce`` (non-additive reductions) has a
node of its own. Indices are checked as PyTorch checks them (their dtype, their shape,
their range with the dim and its size named); a 0-d input counts as 1-d. Complex tensors
gather and scatter like any other dtype; ``scatter_reduce`` with ``amax``/``amin`` refuses
them (complex numbers are not ordered).
"""

from __future__ import annotations

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import DimError, DTypeError, IndexArgumentError, IndexingError, ShapeError
from ..core._bind import tensor_method
from ..core._formula import array_of, const
from ..core.base import Op, norm_dim, to_tensor
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ._common import (
    _ATOMICS_NOTE,
    _FULL,
    _array,
    _broadcast,
    _check_range,
    _fill_value,
    _inplace,
    _same_dtype,
    _unvec,
    _vec,
)
from .subscript import IndexBackward, SliceBackward, _put

__all__ = [
    "gather",
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "index_select",
    "index_add",
    "index_copy",
    "index_fill",
    "take",
    "take_along_dim",
    "put",
]

_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


# -- the node of scatter_reduce ---------------------------------------------------------


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
    schema_v1 = OpSchema(
        "scatter_reduce",
        1,
        AmpPolicy.KEEP_INPUT,
        input_arity=2,
        deterministic=False,
        nondeterministic_on=("cuda",),
        determinism_note=_ATOMICS_NOTE,
        complex_grad="holomorphic",
    )
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
        n = be.scatter_reduce(
            be.astype(own, out.dtype), index, be.astype(won, out.dtype), "sum", True
        )
        return own, won, 1 / be.masked_fill(n, n == 0, 1)

    def _zero_factors(self, x, src):
        """(src == 0, src is the only zero scattered onto its element) of prod."""
        be, index = self.be, self.params["index"]
        zero = src == 0
        count = be.scatter_reduce(
            be.full(x.shape, 0, x.dtype), index, be.astype(zero, x.dtype), "sum", True
        )
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
            others = F.scatter_reduce(
                const(self.be.full(xa.shape, 1, xa.dtype), x), index, src, "prod", True
            )
            zero, single = self._zero_factors(xa, array_of(src))
            excl = F.scatter_reduce(
                x, index, F.masked_fill(src, single, 1), "prod", p["include_self"]
            )
            gs = F.masked_fill(F.index(g * out, index) / F.masked_fill(src, zero, 1), single, 0)
            gs = gs + F.masked_fill(F.index(g * excl, index), ~single, 0)
            return self._excluded(F, g * others), gs
        own, won, w = self._winners(xa, array_of(src), array_of(out))
        return g * const(own * w, g), F.index(g * const(w, g), index) * const(won, g)


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
        raise ShapeError(
            f"{op}: index tensor must have the same number of dimensions as "
            f"the input tensor ({idx.ndim} vs {nd})"
        )
    sshape = None
    if src is not None:
        src = _vec(src)
        sshape = src._data.shape
        if len(sshape) != nd:
            raise ShapeError(
                f"{op}: src tensor must have the same number of dimensions as "
                f"the input tensor ({len(sshape)} vs {nd})"
            )
    for i, n in enumerate(idx.shape):
        if (i != d and n > shape[i]) or (sshape is not None and n > sshape[i]):
            raise ShapeError(
                f"{op}: expected index {list(idx.shape)} to be no larger than "
                f"self {list(shape)} apart from dimension {d}"
                + ("" if sshape is None else f" and to be no larger than src {list(sshape)}")
            )
    _check_range(op, be, idx, shape[d], d, False)
    if src is not None and sshape != idx.shape:
        src = SliceBackward.call(src, index=tuple(slice(0, n, 1) for n in idx.shape))
    return x, be.grid_index(idx, d), src, idx.shape


def _gather(op, input, dim, index):
    norm_dim(dim, max(input._data.ndim, 1), op)  # the dim first, as PyTorch
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
    norm_dim(dim, max(input._data.ndim, 1), op)  # the dim first, as PyTorch
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
        x, grid, _, ishape = _grid(
            "scatter", input, dim, _index_arg("scatter", index, input, empty_ok=True)
        )
        v = _fill_value("scatter", s, input)
        if reduce == "multiply":
            v = v.expand(ishape)
    if reduce is None or reduce == "add":
        out = _put(x, grid, v, reduce == "add")
    elif reduce == "multiply":
        out = ScatterReduceBackward.apply(x, v, index=grid, reduce="prod", include_self=True)
    else:
        raise IndexArgumentError(
            f"scatter: reduce argument must be either 'add' or 'multiply', got {reduce!r}"
        )
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
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # PyTorch takes these too
    if reduce not in _REDUCTIONS:
        raise IndexArgumentError(
            f"scatter_reduce: reduce argument must be one of "
            f"{', '.join(_REDUCTIONS)}, got {reduce!r}"
        )
    if reduce == "mean" and to_tensor(input)._dtype is _dt.bool:
        # PyTorch's kernel refuses it after the argument checks, before the bounds check
        norm_dim(dim, max(input._data.ndim, 1), "scatter_reduce")
        _index_arg("scatter_reduce", index, input, empty_ok=True)
        raise DTypeError("scatter_reduce: reduce='mean' is not implemented for bool")
    x, grid, v = _scatter_src("scatter_reduce", input, dim, index, src)
    if reduce in ("amax", "amin") and x._dtype.is_complex:
        raise DTypeError(
            f"scatter_reduce: reduce={reduce!r} does not support complex input "
            f"(got {x._dtype.name}); complex numbers are not ordered"
        )
    out = ScatterReduceBackward.apply(
        x, v, index=grid, reduce=reduce, include_self=bool(include_self)
    )
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
        raise IndexingError(f"{op}: index is supposed to be a vector, got shape {list(idx.shape)}")
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
    if src._data.shape != shape[:d] + (k,) + shape[d + 1 :]:
        raise ShapeError(
            f"{op}: source tensor shape must match self tensor shape, excluding "
            f"the specified dimension, with {k} indices along it. Got "
            f"self.shape = {list(input.shape)} source.shape = "
            f"{list(src.shape)}"
        )
    return src


@tensor_method("index_select")
def index_select(input, dim, index):
    """The entries of ``input`` at positions ``index`` (a vector) along ``dim``."""
    x = _vec(input)
    _, ix, k = _along("index_select", x, dim, index, False)
    if input._data.ndim == 0 and k != 1:
        raise IndexingError(f"index_select: index to a 0-dim tensor can have only 1 value, got {k}")
    return _unvec(IndexBackward.call(x, index=ix), input)


def _index_write(op, input, dim, index, source, accumulate, alpha=1):
    x = _vec(input)
    if input._data.ndim == 0:
        k = (index if isinstance(index, Tensor) else to_tensor(index, input))._data.size
        if k != 1:
            raise IndexingError(f"{op}: the index of a 0-d tensor should have one element, got {k}")
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
    d, ix, _ = _along("index_fill", x, dim, index, True, long_only=True, error=IndexingError)
    be = x._device._backend
    mask = be.full(x._data.shape[d : d + 1], False, _dt.bool.np)
    be.index_put_(mask, ix[d:], True, False)  # a mask: each position filled once
    return _unvec(_put(x, ix[:d] + (mask,), _fill_value("index_fill", value, input)), input)


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
        raise DimError(f"take_along_dim: dimension specified as {dim} but tensor has no dimensions")
    if indices._data.ndim != nd:
        raise ShapeError(
            f"take_along_dim: input and indices should have the same number of "
            f"dimensions, but got {nd} dimensions for input, and "
            f"{indices._data.ndim} dimensions for indices"
        )
    d = norm_dim(dim, nd, "take_along_dim")
    xs, js = input._data.shape, indices._data.shape
    b = _broadcast(
        "take_along_dim", xs[:d] + (1,) + xs[d + 1 :], js[:d] + (1,) + js[d + 1 :], "indices"
    )
    if indices._data.size:  # PyTorch takes the indices modulo the dim's size
        if not xs[d]:
            raise IndexingError(f"take_along_dim: cannot take indices along the empty dim {d}")
        indices = indices.remainder(xs[d])
    return _gather(
        "take_along_dim",
        input.expand(b[:d] + xs[d : d + 1] + b[d + 1 :]),
        d,
        indices.expand(b[:d] + js[d : d + 1] + b[d + 1 :]),
    )


@tensor_method("put")
def put(input, index, source, accumulate=False):
    """A copy of ``input`` with the flattened positions ``index`` set to (or, with
    ``accumulate``, increased by) the elements of ``source``."""
    be = input._device._backend
    idx = _index_arg("put", index, input)
    src = to_tensor(source, input)
    _same_dtype("put", input, src, "source")
    if idx.size != src._data.size:
        raise ShapeError(
            f"put: expected source and index to have the same number of "
            f"elements, but got source.numel() = {src._data.size}, "
            f"index.numel() = {idx.size}"
        )
    flat = input.reshape(-1)
    _check_range("put", be, idx, flat._data.shape[0], 0, True)
    out = _put(flat, (be.reshape(idx, (-1,)),), src.reshape(-1), bool(accumulate))
    return out.reshape(input._data.shape)


# -- in place ---------------------------------------------------------------------------

for _fn in (scatter, scatter_add, scatter_reduce, index_add, index_copy, index_fill, put):
    _inplace(_fn)
