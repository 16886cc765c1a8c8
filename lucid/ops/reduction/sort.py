"""Sort and search: sort, argsort, topk, kthvalue, unique, unique_consecutive, searchsorted,
bucketize, histc, bincount.

Sorts are stable everywhere (ties keep input order, NaN counts as the largest value), so
results are deterministic. ``sort``, ``topk`` and ``kthvalue`` return ``(values, indices)``
named tuples and are differentiable in their values: the gradient goes back to the
positions the values were read from. The rest return integer tensors (or, for ``histc``,
counts) and record no graph.
"""

from __future__ import annotations

import math
import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import ArgumentError, DimError, DTypeError, IndexingError, ShapeError, reports_as
from ..core._bind import tensor_method
from ..core.base import MultiOutputOp, Op, UnaryOp, norm_dim, to_tensor
from .extrema import _PickBackward, return_type, return_types
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = [
    "sort",
    "argsort",
    "msort",
    "topk",
    "kthvalue",
    "unique",
    "unique_consecutive",
    "searchsorted",
    "bucketize",
    "histc",
    "bincount",
]


# -- ops whose values are read from the input at computed indices -------------------------


class _IndexedValuesBackward(_PickBackward):
    """``(values, indices)`` with values read from the input at several indices per slice
    (``sort``, ``topk``): the gradient of :class:`_PickBackward`, each value's gradient
    added at its index (a ``scatter_add`` into zeros in graph mode, differentiable in the
    gradient, for double backward)."""

    __slots__ = ()


@register
class SortBackward(_IndexedValuesBackward):
    r"""Autograd node for :math:`(y, i) = \mathrm{sort}(x)` along one dim.

    Saves its outputs: the indices say where each value came from, so the gradient is the
    values' gradient written back through that permutation.

    Math
    ----
    .. math:: y_{\ldots, k, \ldots} = x_{\ldots, i_k, \ldots}, \qquad
              \frac{\partial \mathcal{L}}{\partial x_{\ldots, i_k, \ldots}} =
              g_{\ldots, k, \ldots}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"sort"``, ``AmpPolicy.KEEP_INPUT``; outputs values (input dtype) and int64
        indices.
    saves_input, saves_output : bool
        False, True (the indices).

    Notes
    -----
    Backends: ``xp.argsort(kind="stable")`` then ``take_along_axis``; descending sorts the
    reversed array and reads it backwards, so ties keep input order both ways. NaN is the
    largest value (last ascending, first descending). ``stable=False`` gives the same
    (stable) result. Backward: ``index_add_along`` (eager), ``scatter_add`` into zeros
    (graph).
    """

    __slots__ = ()
    schema_v1 = OpSchema("sort", 1, AmpPolicy.KEEP_INPUT, output_arity=2)

    @staticmethod
    def dispatch(be, x, dim, descending):
        return be.sort(x, dim, descending)


@register
class TopkBackward(_IndexedValuesBackward):
    r"""Autograd node for the ``k`` largest (or smallest) entries along one dim.

    Saves its outputs: the gradient of each selected value goes back to its index; the
    entries not selected get zero.

    Math
    ----
    .. math:: y_{\ldots, m, \ldots} = x_{\ldots, i_m, \ldots},\ m < k, \qquad
              \frac{\partial \mathcal{L}}{\partial x_{\ldots, i_m, \ldots}} =
              g_{\ldots, m, \ldots}, \quad 0 \text{ elsewhere}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"topk"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, True (the indices).

    Notes
    -----
    Backends: the stable sort of :class:`SortBackward`, first ``k`` copied out. Results
    are always sorted; among equal values the lower index comes first (PyTorch leaves the
    order of ties unspecified). NaN counts as the largest value. Backward as for
    :class:`SortBackward`; unselected entries get zero.
    """

    __slots__ = ()
    schema_v1 = OpSchema("topk", 1, AmpPolicy.KEEP_INPUT, output_arity=2)

    @staticmethod
    def dispatch(be, x, k, dim, largest):
        v, i = be.sort(x, dim, largest)
        if x.ndim == 0:
            return v, i
        return be.copy(be.narrow(v, dim, 0, k)), be.copy(be.narrow(i, dim, 0, k))


@register
class KthvalueBackward(_PickBackward):
    r"""Autograd node for the ``k``-th smallest entry along one dim (1-based).

    Saves its outputs: the gradient goes to the index the value was read from.

    Math
    ----
    .. math:: y = x_{\ldots, i, \ldots} \text{ with } x_{\ldots, i, \ldots} \text{ the
              } k\text{-th smallest}, \qquad
              \frac{\partial \mathcal{L}}{\partial x_{\ldots, i, \ldots}} = g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"kthvalue"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, True (the indices).

    Notes
    -----
    Backends: the stable ascending sort, position ``k - 1`` copied out. Among equal values
    the one at the lowest index of the stable order is returned. Backward: the shared
    one of the reductions' picks (``index_add_along``; ``scatter_add`` into zeros in graph
    mode).
    """

    __slots__ = ()
    schema_v1 = OpSchema("kthvalue", 1, AmpPolicy.KEEP_INPUT, output_arity=2)

    @staticmethod
    def dispatch(be, x, k, dim, keepdim):
        v, i = be.sort(x, dim, False)
        if x.ndim == 0:
            return v, i
        v, i = be.narrow(v, dim, k - 1, 1), be.narrow(i, dim, k - 1, 1)
        if not keepdim:
            shape = v.shape[:dim] + v.shape[dim + 1 :]
            return be.reshape(v, shape), be.reshape(i, shape)
        return be.copy(v), be.copy(i)


for _name in ("sort", "topk", "kthvalue"):  # lucid.return_types.sort, ...
    setattr(return_types, _name, return_type(_name))


@tensor_method("sort")
def sort(input, dim=-1, descending=False, *, stable=False):
    """``(values, indices)`` of ``input`` sorted along ``dim`` (stable)."""
    input = to_tensor(input)
    d = norm_dim(dim, input._data.ndim, "sort")
    return return_types.sort(*SortBackward.apply(input, dim=d, descending=bool(descending)))


@tensor_method("argsort")
@reports_as("argsort")
def argsort(input, dim=-1, descending=False, *, stable=False):
    """The indices that sort ``input`` along ``dim`` (stable)."""
    return sort(input, dim, descending).indices


@tensor_method("msort")
@reports_as("msort")
def msort(input):
    """``input`` sorted along its first dim."""
    return sort(input, 0).values


def _not_bool(input, op):
    """PyTorch's CPU topk and kthvalue have no bool kernel ("not implemented for 'Bool'");
    its kthvalue of a 0-d input needs none (it is its own result)."""
    if input._dtype is _dt.bool and (input._data.ndim or op == "topk"):
        raise DTypeError(f"{op}: not implemented for bool tensors")


def _dim_size(input, dim, op):
    shape = input._data.shape
    d = norm_dim(dim, len(shape), op)
    return d, (shape[d] if shape else 1)


@tensor_method("topk")
def topk(input, k, dim=-1, largest=True, sorted=True):
    """``(values, indices)`` of the ``k`` largest (``largest=False``: smallest) entries of
    ``input`` along ``dim``, in sorted order."""
    input = to_tensor(input)
    d, n = _dim_size(input, dim, "topk")
    _not_bool(input, "topk")
    if not isinstance(k, numbers.Integral) or not 0 <= k <= n:
        raise IndexingError(
            f"topk: selected index k out of range (got k={k} for a dim of "
            f"size {n}; expected 0 <= k <= {n})"
        )
    return return_types.topk(*TopkBackward.apply(input, k=int(k), dim=d, largest=bool(largest)))


@tensor_method("kthvalue")
def kthvalue(input, k, dim=-1, keepdim=False):
    """``(values, indices)`` of the ``k``-th smallest entry (1-based) along ``dim``."""
    input = to_tensor(input)
    d, n = _dim_size(input, dim, "kthvalue")
    if n == 0:  # PyTorch checks this before the dtype and k
        raise DimError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    _not_bool(input, "kthvalue")
    if not isinstance(k, numbers.Integral) or not 1 <= k <= n:
        raise IndexingError(
            f"kthvalue: selected number k out of range (got k={k} for a dim "
            f"of size {n}; expected 1 <= k <= {n})"
        )
    return return_types.kthvalue(
        *KthvalueBackward.apply(input, k=int(k), dim=d, keepdim=bool(keepdim))
    )


# -- unique ------------------------------------------------------------------------------


@register
class UniqueBackward(MultiOutputOp):
    r"""Node of ``unique``: sorted distinct elements (or slices along ``dim``), inverse
    indices and counts. Records no graph (integer-valued selection).

    Math
    ----
    .. math:: u = \mathrm{sort}(\{x_i\}), \qquad u_{\mathrm{inv}_i} = x_i, \qquad
              c_j = |\{i : x_i = u_j\}|

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"unique"``, not differentiable; three outputs (values, inverse, counts).
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.unique(return_inverse=True, return_counts=True, equal_nan=False)``
    (lexicographic sort of the slices when ``dim`` is given). The result is sorted whatever
    ``sorted`` says, as with PyTorch's CPU ``unique``.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "unique", 1, AmpPolicy.KEEP_INPUT, output_arity=3, differentiable=False, capturable=False
    )

    @staticmethod
    def dispatch(be, x, dim):
        return be.unique(x, dim)


@register
class UniqueConsecutiveBackward(MultiOutputOp):
    r"""Node of ``unique_consecutive``: one element (or slice along ``dim``) per run of
    equal neighbours, with inverse indices and run lengths. Records no graph.

    Math
    ----
    .. math:: u_j = x_{s_j}, \qquad s_0 = 0,\ s_{j+1} = \min\{i > s_j : x_i \ne x_{i-1}\},
              \qquad c_j = s_{j+1} - s_j

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"unique_consecutive"``, not differentiable; three outputs.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: a run-start mask ``x[1:] != x[:-1]`` (any over the other dims of a slice),
    its cumulative sum for the inverse and the gaps between starts for the counts.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "unique_consecutive",
        1,
        AmpPolicy.KEEP_INPUT,
        output_arity=3,
        differentiable=False,
        capturable=False,
    )

    @staticmethod
    def dispatch(be, x, dim):
        return be.unique_consecutive(x, dim)


def _unique(cls, input, return_inverse, return_counts, dim, op):
    input = to_tensor(input)
    shape = input._data.shape
    if dim is not None:
        if not shape:
            raise DimError(f"{op}: dimension specified as {dim} but tensor has no dimensions")
        dim = norm_dim(dim, len(shape), op)
        if any(n == 0 for i, n in enumerate(shape) if i != dim):
            raise ShapeError(
                f"{op}: there are 0 sized dimensions in shape {tuple(shape)} "
                f"other than dim {dim}, so unique cannot be applied"
            )
    values, inverse, counts = cls.apply(input, dim=dim)
    if not (return_inverse or return_counts):
        return values
    return (values,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())


@tensor_method("unique")
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """Sorted distinct elements of ``input`` (flattened, or slices along ``dim``), plus the
    inverse indices and/or counts when asked."""
    return _unique(UniqueBackward, input, return_inverse, return_counts, dim, "unique")


@tensor_method("unique_consecutive")
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """One element (or slice along ``dim``) per run of equal consecutive ones, plus the
    inverse indices and/or run lengths when asked."""
    return _unique(
        UniqueConsecutiveBackward, input, return_inverse, return_counts, dim, "unique_consecutive"
    )


# -- searching and counting --------------------------------------------------------------


@register
class SearchsortedBackward(Op):
    r"""Node of ``searchsorted`` (and ``bucketize``): insertion points of values into a
    sorted sequence. Records no graph (integer result).

    Math
    ----
    .. math:: \mathrm{left}: i = \min\{i : v \le s_i\}, \qquad
              \mathrm{right}: i = \min\{i : v < s_i\}

    (``len(s)`` when there is none), per row of an N-d ``s``.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"searchsorted"``, not differentiable; inputs ``sorted_sequence``, ``values``
        and optionally ``sorter``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.searchsorted`` for a 1-d sequence; a binary search vectorised over the
    rows (``log2(n)`` gathers) for N-d sequences. The sequence is not checked for being
    sorted (as in PyTorch); the result is then unspecified.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "searchsorted", 1, AmpPolicy.KEEP_INPUT, input_arity=-1, differentiable=False
    )

    @staticmethod
    def dispatch(be, seq, values, *sorter, right, out_int32):
        out = be.searchsorted(seq, values, right, sorter[0] if sorter else None)
        return be.astype(out, _dt.int32.np) if out_int32 else out


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """Indices where ``input`` would be inserted into the innermost dim of
    ``sorted_sequence`` to keep it sorted (``right``/``side='right'``: after equal ones)."""
    op = "searchsorted"
    seq = to_tensor(sorted_sequence)
    scalar = not isinstance(input, Tensor)
    values = to_tensor(input, seq)
    if side is not None:
        if side not in ("left", "right"):
            raise ArgumentError(f"{op}: side can only be 'left' or 'right', but got {side!r}")
        if right and side == "left":
            raise ArgumentError(
                f"{op}: side and right can't be set to opposites, got side of "
                "left while right was True"
            )
        right = side == "right"
    sshape, vshape = tuple(seq._data.shape), tuple(values._data.shape)
    if not sshape:
        raise ShapeError(
            f"{op}: boundaries tensor should be 1 dimension or more, but got a 0-d tensor"
        )
    if len(sshape) > 1 and (scalar or sshape[:-1] != vshape[:-1]):
        raise ShapeError(
            f"{op}: boundaries tensor should be 1 dimension or the first N-1 "
            f"dimensions of boundaries tensor and input value tensor must "
            f"match, but got boundaries tensor {list(sshape)} and input value "
            f"tensor {list(vshape)}"
        )
    for t, what in ((seq, "boundaries"), (values, "input value")):
        if t._dtype is _dt.bool:
            raise DTypeError(f"{op}: {what} tensor must be numeric, got bool")
    extra = ()
    if sorter is not None:
        sorter = to_tensor(sorter, seq)
        if sorter._dtype is not _dt.int64:
            raise DTypeError(
                f"{op}: sorter must be a tensor of long dtype but got dtype {sorter._dtype.name}"
            )
        if tuple(sorter._data.shape) != sshape:
            raise ShapeError(
                f"{op}: boundary and sorter must have the same size, but got "
                f"boundary tensor {list(sshape)} and sorter tensor "
                f"{list(sorter._data.shape)}"
            )
        if sorter._data.size and not bool(
            (sorter._data >= 0).all() and (sorter._data < sshape[-1]).all()
        ):
            raise IndexingError(
                f"{op}: sorter index out of range (expected values in [0, {sshape[-1]}))"
            )
        extra = (sorter,)
    return SearchsortedBackward.apply(
        seq, values, *extra, right=bool(right), out_int32=bool(out_int32)
    )


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each element of ``input`` among 1-d ``boundaries``:
    ``boundaries[i-1] < x <= boundaries[i]`` (``right``: ``boundaries[i-1] <= x <
    boundaries[i]``)."""
    b = to_tensor(boundaries)
    if b._data.ndim != 1:
        raise ShapeError(
            f"bucketize: boundaries tensor must be 1 dimension, but got dim({b._data.ndim})"
        )
    return searchsorted(b, input, out_int32=out_int32, right=right)


@register
class HistcBackward(UnaryOp):
    r"""Node of ``histc``: counts of elements in equal-width bins. Records no graph
    (the counts are piecewise constant in the input; PyTorch has no derivative either).

    Math
    ----
    .. math:: h_b = |\{i : lo \le x_i \le hi,\ \min(\lfloor (x_i - lo)\, n / (hi - lo)
              \rfloor, n - 1) = b\}|

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"histc"``, not differentiable; the counts have the input's (floating) dtype.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: the bin index computed in the input dtype (PyTorch's formula, so edge
    values land in the same bin), then ``xp.bincount``. ``min == max == 0`` uses the
    data's range; an empty range is widened by 0.5 each side. NaN and values outside
    ``[min, max]`` are not counted.
    """

    __slots__ = ()
    schema_v1 = OpSchema("histc", 1, AmpPolicy.KEEP_INPUT, differentiable=False)

    @staticmethod
    def dispatch(be, x, bins, lo, hi):
        return be.histc(x, bins, lo, hi)


@tensor_method("histc")
def histc(input, bins=100, min=0, max=0):
    """Histogram of ``input`` with ``bins`` equal bins over ``[min, max]`` (the data's
    range when both are 0); elements outside are ignored."""
    input = to_tensor(input)
    if not input._dtype.is_floating_point:
        raise DTypeError(f"histc: expected a floating point input, got {input._dtype.name}")
    if not isinstance(bins, numbers.Integral) or bins <= 0:
        raise ArgumentError(f"histc: bins must be > 0, but got {bins}")
    lo, hi = float(min), float(max)
    if lo > hi:
        raise ArgumentError(f"histc: max must be larger than min, got min={lo}, max={hi}")
    if lo == hi == 0 and input._data.size:
        lo, hi = float(input._data.min()), float(input._data.max())
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ArgumentError(f"histc: range of [{lo}, {hi}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return HistcBackward.apply(input, bins=int(bins), lo=lo, hi=hi)


@register
class BincountBackward(Op):
    r"""Node of ``bincount``: occurrences (or summed weights) of each non-negative
    integer. Records no graph (PyTorch has no derivative for it either).

    Math
    ----
    .. math:: c_v = \sum_{i : x_i = v} w_i \quad (w_i = 1 \text{ without weights}),
              \qquad 0 \le v < \max(\max_i x_i + 1, \mathrm{minlength})

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"bincount"``, not differentiable; inputs ``x`` and optional ``weights``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.bincount``. The result is int64 without weights, float32 for float32
    weights and float64 for any other weights (PyTorch's rule).
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "bincount",
        1,
        AmpPolicy.KEEP_INPUT,
        input_arity=-1,
        differentiable=False,
        capturable=False,
    )

    @staticmethod
    def dispatch(be, x, *weights, minlength, dtype):
        return be.bincount(x, weights[0] if weights else None, minlength, dtype.np)


@tensor_method("bincount")
def bincount(input, weights=None, minlength=0):
    """Count of each value of the 1-d non-negative integer ``input`` (or the sum of the
    ``weights`` at its positions)."""
    input = to_tensor(input)
    a = input._data
    if input._dtype._cat != 1:
        raise DTypeError(f"bincount: only supports integral inputs, got {input._dtype.name}")
    if not isinstance(minlength, numbers.Integral) or minlength < 0:
        raise ArgumentError(f"bincount: minlength should be >= 0, got {minlength}")
    if a.ndim != 1:
        raise ShapeError(f"bincount: only supports 1-d inputs, got shape {tuple(a.shape)}")
    if a.size and bool((a < 0).any()):
        raise ArgumentError("bincount: only supports non-negative inputs, got a negative value")
    if weights is None or not a.size:  # no input: int64 zeros, the weights unread (PyTorch)
        return BincountBackward.apply(input, minlength=int(minlength), dtype=_dt.int64)
    weights = to_tensor(weights, input)
    if tuple(weights._data.shape) != tuple(a.shape):
        raise ShapeError(
            f"bincount: weights should be 1-d and have the same length as "
            f"input, got shapes {tuple(weights._data.shape)} and {tuple(a.shape)}"
        )
    dt = _dt.float32 if weights._dtype is _dt.float32 else _dt.float64
    return BincountBackward.apply(input, weights, minlength=int(minlength), dtype=dt)
