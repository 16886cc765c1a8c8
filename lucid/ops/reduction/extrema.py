"""Extremes and order statistics over dims: ``amax``, ``amin``, ``max``, ``min``, ``argmax``,
``argmin``, ``median``, ``mode``, and the ``(values, indices)`` result types
(:data:`return_types`, shown as ``lucid.return_types.<name>``).

Two gradient rules, each shared in a base class here:

- without ``dim`` (``amax``, ``amin``, ``max()``/``min()``/``median()``) the gradient is
  split evenly among the elements equal to the result, like PyTorch;
- with ``dim`` (``max``, ``min``, ``median``, ``mode``) the ops are multi-output, return
  ``(values, indices)`` as a :data:`return_types` named tuple, and the gradient goes to the
  picked index only (:class:`_PickBackward`, also the base of ``cummax``/``cummin`` and
  ``sort``).

``argmax`` and ``argmin`` are not differentiable. A reduction over an empty dim raises (no
identity). These ordering reductions refuse complex input, as PyTorch.
"""

from __future__ import annotations

import collections
import types

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import DimError, DTypeError, reports_as
from ..core._bind import tensor_method
from ..core._formula import const
from ..core.base import MultiOutputOp, Op, ReductionOp, norm_dim, norm_dims, to_tensor
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ._common import _BOOL_DOC, _dim_arg, _nonempty, _on_scalar
from ..binary import functions as _binary

__all__ = ["max", "min", "amax", "amin", "argmax", "argmin", "median", "mode"]


# -- result types ------------------------------------------------------------------------


def _rt_repr(self):
    return (
        f"lucid.return_types.{type(self).__name__}(\nvalues={self.values!r},\n"
        f"indices={self.indices!r})"
    )


def return_type(name):
    """A named tuple type ``(values, indices)``, shown as ``lucid.return_types.<name>``."""
    cls = collections.namedtuple(name, ("values", "indices"), module="lucid.return_types")
    cls.__repr__ = _rt_repr
    return cls


#: The ``(values, indices)`` result types, by op name (``lucid.return_types.max``, ...).
return_types = types.SimpleNamespace(
    **{n: return_type(n) for n in ("max", "min", "median", "mode", "cummax", "cummin")}
)


# -- extremes with ties split evenly -----------------------------------------------------


class _EvenBackward(ReductionOp):
    """Shared backward of amax / amin / median without dim: ties share the gradient."""

    __slots__ = ()
    saves_input = True
    saves_output = True

    def _weights(self):
        x = self.saved[0]._data
        out = self.unreduce(self.out)
        tie = (x == out) | ((x != x) & (out != out))
        return self.be.even_weights(tie, self.params["dim"], x.dtype)

    def grad(self, F, g, x, out):
        return self.unreduce(g) * const(self._weights(), g)


_EVEN_DOC = r"""Autograd node for :math:`y = \{op}_{{i \in D}} x_i` (also ``{name}()`` without
    dim).

    Saves input and output: the gradient goes to the elements equal to :math:`y`, split
    evenly among ties (PyTorch's rule).

    Math
    ----
    .. math:: \frac{{\partial \mathcal{{L}}}}{{\partial x_i}} = g\,
              \frac{{[x_i = y]}}{{\#\{{j \in D : x_j = y\}}}}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"a{name}"``, ``AmpPolicy.KEEP_INPUT`` (exact in any dtype).
    saves_input, saves_output : bool
        True, True.

    Notes
    -----
    Backends: ``xp.a{name}``. nan propagates (and takes the gradient); a reduction over an
    empty dim raises (checked by the wrapper, no identity).
    """


@register
class AmaxBackward(_EvenBackward):
    __doc__ = _EVEN_DOC.format(op="max", name="max")
    __slots__ = ()
    schema_v1 = OpSchema("amax", 1, AmpPolicy.KEEP_INPUT)

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return be.amax(x, dim, keepdim)


@register
class AminBackward(_EvenBackward):
    __doc__ = _EVEN_DOC.format(op="min", name="min")
    __slots__ = ()
    schema_v1 = OpSchema("amin", 1, AmpPolicy.KEEP_INPUT)

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return be.amin(x, dim, keepdim)


@register
class MedianAllBackward(_EvenBackward):
    r"""Autograd node for ``median(x)``: the lower median of all elements.

    Saves input and output: the gradient goes to the elements equal to the median, split
    evenly among ties (PyTorch's rule for ``median()`` without dim).

    Math
    ----
    .. math:: y = x_{(\lfloor (n-1)/2 \rfloor)}, \qquad
              \frac{\partial \mathcal{L}}{\partial x_i} = g\,\frac{[x_i = y]}{\#\{j : x_j = y\}}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"median_all"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----
    Backends: ``median_dim`` of the flattened input (a stable sort). nan if any element is
    nan; nan for an empty input.
    """

    __slots__ = ()
    schema_v1 = OpSchema("median_all", 1, AmpPolicy.KEEP_INPUT)

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        if x.size == 0:
            return be.full((), float("nan"), x.dtype)
        return be.median_dim(x.reshape(-1), 0, False)[0]


# -- values picked by index --------------------------------------------------------------


def _kept(t, shape, dims, keepdim):
    """Array or Tensor ``t`` reshaped so the reduced ``dims`` of ``shape`` are size 1."""
    if keepdim or not shape:
        return t
    kept = list(shape)
    for d in dims:
        kept[d] = 1
    return t.reshape(kept)


class _PickBackward(MultiOutputOp):
    """Shared backward of (values, indices) ops: each value's gradient goes to its index."""

    __slots__ = ()
    saves_output = True

    def _kept_t(self, t):
        """Array or Tensor ``t`` with the reduced dim kept (scans keep every dim)."""
        p = self.params
        return _kept(t, self.in_meta[0][0], (p["dim"],), p.get("keepdim", True))

    def grad(self, F, g, x, out):
        shape = self.in_meta[0][0]
        if not shape:
            return g[0]
        d = self.params["dim"]
        return F.index_add_along(self._kept_t(g[0]), self._kept_t(out[1]), d, shape[d])


_PICK_DOC = r"""Autograd node for ``{name}(x, dim)``: ``(values, indices)`` of the
    {what} along ``dim``.

    Saves the output: the indices route each value's gradient back to its element.

    Math
    ----
    .. math:: y_k = x_{{k, i_k}}, \qquad
              \frac{{\partial \mathcal{{L}}}}{{\partial x_{{k,j}}}} = g_k\,[j = i_k]

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"{name}"``, ``AmpPolicy.KEEP_INPUT``, two outputs (indices are int64, no grad).
    saves_input : bool
        False.
    saves_output : bool
        True: the indices.

    Notes
    -----
    Backends: {how}. The backward adds the gradient at the indices
    (``index_add_along``; in graph mode a ``scatter_add`` into zeros).
    {edge}
    """


@register
class MaxBackward(_PickBackward):
    __doc__ = _PICK_DOC.format(
        name="max",
        what="maximum",
        how="``xp.argmax`` then ``take_along_axis``",
        edge="Ties take the first index; nan wins (and its first index).",
    )
    __slots__ = ()
    schema_v1 = OpSchema("max", 1, AmpPolicy.KEEP_INPUT, output_arity=2)

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return _on_scalar(be.max_dim, x, dim, keepdim)


@register
class MinBackward(_PickBackward):
    __doc__ = _PICK_DOC.format(
        name="min",
        what="minimum",
        how="``xp.argmin`` then ``take_along_axis``",
        edge="Ties take the first index; nan wins (and its first index).",
    )
    __slots__ = ()
    schema_v1 = OpSchema("min", 1, AmpPolicy.KEEP_INPUT, output_arity=2)

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return _on_scalar(be.min_dim, x, dim, keepdim)


@register
class MedianBackward(_PickBackward):
    __doc__ = _PICK_DOC.format(
        name="median",
        what="lower median (rank :math:`\\lfloor (n-1)/2 \\rfloor`)",
        how="a stable ``xp.argsort``",
        edge="Ties take the index of the stable sort; a slice with nan gives nan and the "
        "first nan's index.",
    )
    __slots__ = ()
    schema_v1 = OpSchema("median", 1, AmpPolicy.KEEP_INPUT, output_arity=2)

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return _on_scalar(be.median_dim, x, dim, keepdim)


@register
class ModeBackward(_PickBackward):
    __doc__ = _PICK_DOC.format(
        name="mode",
        what="most frequent value",
        how="``xp.sort`` and run lengths",
        edge="Equal counts take the smallest value; the index is its last occurrence.",
    )
    __slots__ = ()
    schema_v1 = OpSchema("mode", 1, AmpPolicy.KEEP_INPUT, output_arity=2)

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return _on_scalar(be.mode, x, dim, keepdim)


# -- indices of the extremes (not differentiable) ----------------------------------------


@register
class ArgmaxBackward(Op):
    __doc__ = _BOOL_DOC.format(
        summary="Node of ``argmax``: the index of the first maximum along a dim.",
        result="an int64 index",
        name="argmax",
        math=r"y = \min \arg\max_i x_i",
        notes="Backends: ``xp.argmax``; ``dim=None`` indexes the flattened input. nan "
        "counts as the maximum.",
    )
    __slots__ = ()
    schema_v1 = OpSchema("argmax", 1, AmpPolicy.KEEP_INPUT, differentiable=False)

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return be.argmax(x, dim, keepdim)


@register
class ArgminBackward(Op):
    __doc__ = _BOOL_DOC.format(
        summary="Node of ``argmin``: the index of the first minimum along a dim.",
        result="an int64 index",
        name="argmin",
        math=r"y = \min \arg\min_i x_i",
        notes="Backends: ``xp.argmin``; ``dim=None`` indexes the flattened input. nan "
        "counts as the minimum.",
    )
    __slots__ = ()
    schema_v1 = OpSchema("argmin", 1, AmpPolicy.KEEP_INPUT, differentiable=False)

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return be.argmin(x, dim, keepdim)


# -- wrappers: extremes ------------------------------------------------------------------


def _even(cls, input, dim, keepdim, op):
    x = to_tensor(input)
    dims = norm_dims(dim, x._data.ndim, op)
    _nonempty(x, dims, op, dim is not None)
    return cls.apply(x, dim=dims, keepdim=bool(keepdim))


@tensor_method("amax")
def amax(input, dim=(), keepdim=False):
    """Maximum over ``dim`` (all dims when empty); ties share the gradient evenly."""
    return _even(AmaxBackward, input, _dim_arg(input, dim, "amax"), keepdim, "amax")


@tensor_method("amin")
def amin(input, dim=(), keepdim=False):
    """Minimum over ``dim`` (all dims when empty); ties share the gradient evenly."""
    return _even(AminBackward, input, _dim_arg(input, dim, "amin"), keepdim, "amin")


def _picked(cls, input, dim, keepdim, op):
    """``(values, indices)`` of ``cls`` along one ``dim``, as ``return_types.<op>``."""
    x = to_tensor(input)
    d = norm_dim(dim, x._data.ndim, op)
    if x._data.ndim:
        _nonempty(x, (d,), op, True)
    return getattr(return_types, op)(*cls.apply(x, dim=d, keepdim=bool(keepdim)))


def _extreme(input, dim, keepdim, other, even_cls, pick_cls, op, binary):
    if other is None and isinstance(dim, Tensor):
        other = dim
    if other is not None:
        return getattr(_binary, binary)(input, other)
    if dim is None:
        return _even(even_cls, input, None, False, op)
    return _picked(pick_cls, input, dim, keepdim, op)


@tensor_method("max")
@reports_as("max")
def max(input, dim=None, keepdim=False, *, other=None):
    """``max(x)``: the maximum; ``max(x, dim)``: ``(values, indices)`` along ``dim``;
    ``max(x, other)``: the element-wise :func:`maximum`."""
    return _extreme(input, dim, keepdim, other, AmaxBackward, MaxBackward, "max", "maximum")


@tensor_method("min")
@reports_as("min")
def min(input, dim=None, keepdim=False, *, other=None):
    """``min(x)``: the minimum; ``min(x, dim)``: ``(values, indices)`` along ``dim``;
    ``min(x, other)``: the element-wise :func:`minimum`."""
    return _extreme(input, dim, keepdim, other, AminBackward, MinBackward, "min", "minimum")


def _arg(cls, input, dim, keepdim, op):
    x = to_tensor(input)
    if x._dtype is _dt.bool:
        raise DTypeError(f"{op}(): does not support bool input")
    nd = x._data.ndim
    d = None if dim is None else norm_dim(dim, nd, op)
    _nonempty(x, () if d is None else (d,), op, d is not None)
    return cls.apply(x, dim=d if nd else None, keepdim=bool(keepdim))


@tensor_method("argmax")
def argmax(input, dim=None, keepdim=False):
    """Index of the first maximum along ``dim`` (of the flattened input when None)."""
    return _arg(ArgmaxBackward, input, dim, keepdim, "argmax")


@tensor_method("argmin")
def argmin(input, dim=None, keepdim=False):
    """Index of the first minimum along ``dim`` (of the flattened input when None)."""
    return _arg(ArgminBackward, input, dim, keepdim, "argmin")


@tensor_method("median")
def median(input, dim=None, keepdim=False):
    """``median(x)``: the lower median of all elements; ``median(x, dim)``:
    ``(values, indices)`` of the lower median along ``dim``."""
    x = to_tensor(input)
    if dim is not None:  # PyTorch checks the dim before the dtype
        d = norm_dim(dim, x._data.ndim, "median")
        if x._data.ndim:
            _nonempty(x, (d,), "median", True)
    if x._dtype is _dt.bool:
        raise DTypeError("median(): not implemented for bool input")
    if dim is None:
        if not x._data.size and not x._dtype.is_floating_point:
            raise DimError("median(): cannot take the median of an empty integer tensor")
        return MedianAllBackward.call(x)
    return _picked(MedianBackward, x, dim, keepdim, "median")


@tensor_method("mode")
def mode(input, dim=-1, keepdim=False):
    """``(values, indices)`` of the most frequent value along ``dim`` (smallest on ties,
    index of its last occurrence)."""
    return _picked(ModeBackward, input, dim, keepdim, "mode")
