"""Reductions over dims (``y = f(x, dim, keepdim)``) and scans along one dim.

Families, each sharing its backward in a base class here:

- sums and means (``sum``, ``mean``, ``prod``, ``nansum``, ``nanmean``): gradients broadcast
  back over the reduced dims;
- extremes with ties (``amax``, ``amin``, ``max()``/``min()``/``median()`` without ``dim``):
  the gradient is split evenly among the elements equal to the result, like PyTorch;
- values picked by index (``max``/``min``/``median``/``mode`` with ``dim``, ``cummax``,
  ``cummin``): multi-output ops returning ``(values, indices)`` as a
  :data:`return_types` named tuple; the gradient goes to the picked index only;
- moments and norms (``var``, ``std``, ``logsumexp``, ``norm``);
- scans (``cumsum``, ``cumprod``, ``diff``) and non-differentiable reductions (``all``,
  ``any``, ``count_nonzero``, ``argmax``, ``argmin``).

As in PyTorch, an empty ``dim`` list means every dim for the reductions that take a list,
integer and bool inputs sum, multiply and scan in int64, and ``mean``/``var``/``std``/
``norm`` refuse them. Graph-mode backwards use Lucid ops; the non-differentiable factors
(tie masks, signs, one-hot index masks) enter them as constants.

Complex: ``sum``, ``mean``, ``prod``, ``cumsum``, ``cumprod`` and ``diff`` are
holomorphic; ``norm``, ``var`` and ``std`` give real results (of :math:`|z|`); ``all``,
``any``, ``count_nonzero`` accept it. The ordering reductions (``max``, ``amax``,
``argmax``, ``median``, ``cummax``, ``logsumexp``, ``nansum``...) refuse it, as PyTorch.
"""

from __future__ import annotations

import builtins as _b
import collections
import math
import numbers
import types

from ... import dtypes as _dt
from ..._tensor import Tensor
from ..._tensor.factory import dtype_arg
from ..._tensor.tensor import Size
from ...errors import (ArgumentError, ArgumentTypeError, DimError, DTypeError, ShapeError,
                      reports_as)
from ..core._bind import tensor_method
from ..core._formula import const
from ..core.base import (MultiOutputOp, Op, ReductionOp, UnaryOp, apply_inplace, norm_dim,
                   norm_dims, to_tensor)
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = ["sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "std",
           "var", "var_mean", "std_mean", "logsumexp", "norm", "all", "any",
           "count_nonzero", "cumsum", "cumprod", "cummax", "cummin", "median", "mode",
           "nansum", "nanmean", "trace", "diff"]

_INF = float("inf")


# -- result types ------------------------------------------------------------------------

def _rt_repr(self):
    return (f"lucid.return_types.{type(self).__name__}(\nvalues={self.values!r},\n"
            f"indices={self.indices!r})")


def return_type(name):
    """A named tuple type ``(values, indices)``, shown as ``lucid.return_types.<name>``."""
    cls = collections.namedtuple(name, ("values", "indices"), module="lucid.return_types")
    cls.__repr__ = _rt_repr
    return cls


#: The ``(values, indices)`` result types, by op name (``lucid.return_types.max``, ...).
return_types = types.SimpleNamespace(**{n: return_type(n) for n in (
    "max", "min", "median", "mode", "cummax", "cummin")})


# -- helpers -----------------------------------------------------------------------------

def _const(arr, like):
    """A constant Tensor (no grad) of backend array ``arr`` on ``like``'s device."""
    return Tensor._wrap(arr, _dt.from_numpy_dtype(arr.dtype), like._device)


def _kept(t, shape, dims, keepdim):
    """Array or Tensor ``t`` reshaped so the reduced ``dims`` of ``shape`` are size 1."""
    if keepdim or not shape:
        return t
    kept = list(shape)
    for d in dims:
        kept[d] = 1
    return t.reshape(kept)


def _all_if_empty(dim):
    """PyTorch reads an empty dim list as every dim."""
    if dim is not None and not isinstance(dim, numbers.Integral) and len(dim) == 0:
        return None
    return dim


def _dim_arg(input, dim, op, empty_means_all=True):
    """A reduction's ``dim`` checked: None, an int or a sequence of ints (else an
    :class:`ArgumentTypeError` naming the argument, as PyTorch's ``TypeError``); an empty
    sequence means every dim. On a 0-d tensor only ``0`` and ``-1`` are valid dims, as in
    PyTorch (``tensor(2.).sum(7)`` is a :class:`DimError`). ``all``/``any`` read an empty
    sequence as no dim (``empty_means_all=False``), as PyTorch does."""
    if dim is None or dim.__class__ is int:
        if dim is not None and dim not in (0, -1) and input.__class__ is Tensor and \
                not input._data.ndim:
            norm_dim(dim, 0, op)
        return dim
    if isinstance(dim, numbers.Integral) and not isinstance(dim, bool):
        return _dim_arg(input, int(dim), op)
    if isinstance(dim, (tuple, list, Size)) and _b.all(
            isinstance(d, numbers.Integral) and not isinstance(d, bool) for d in dim):
        if not dim:
            return None if empty_means_all else ()
        if input.__class__ is Tensor and not input._data.ndim:
            norm_dims(dim, 0, op)
        return dim
    raise ArgumentTypeError(f"{op}(): argument 'dim' must be an int, a tuple of ints or None, "
                            f"not {type(dim).__name__} ({dim!r})")


def _acc(x, dtype):
    """The NumPy dtype to accumulate in: ``dtype`` if given, int64 for integers/bool."""
    if dtype is not None:
        return dtype.np
    return None if _dt._BY_NP[x.dtype]._cat >= 2 else _dt.int64.np


def _floating(x, op, dtype=None, complex_ok=False):
    """``x`` (cast to ``dtype`` when given); a DTypeError unless it is floating (or, where
    ``complex_ok``, complex)."""
    x = to_tensor(x)
    if dtype is not None:
        dtype = dtype_arg(dtype, op)
        if x._dtype is not dtype:
            x = x.to(dtype)
    if not (x._dtype.is_floating_point or complex_ok and x._dtype.is_complex):
        raise DTypeError(f"{op}(): expected a floating point input, got {x._dtype.name}; "
                         "pass dtype= or cast the input first")
    return x


def _nonempty(x, dims, op, dim_given):
    """DimError when reducing a dim of size 0 (max, min, argmax... have no identity)."""
    shape = x._data.shape
    if x._data.size:
        return
    if not dim_given:
        raise DimError(f"{op}(): Expected reduction dim to be specified for input.numel() "
                       "== 0. Specify the reduction dim with the 'dim' argument.")
    for d in dims:
        if shape[d] == 0:
            raise DimError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def _dof(shape, dims, correction):
    return _b.max(0.0, math.prod(shape[d] for d in dims) - correction)


def _inv(n):
    return 1.0 / n if n else _INF


def _on_scalar(fn, x, dim, *args):
    """``fn(x, dim, *args)``, with a 0-d ``x`` seen as 1-d (results back to 0-d)."""
    if x.ndim:
        return fn(x, dim, *args)
    out = fn(x.reshape(1), 0, *args)
    if out.__class__ is tuple:
        return tuple(o.reshape(()) for o in out)
    return out.reshape(())


# -- sums and means ----------------------------------------------------------------------

@register
class SumBackward(ReductionOp):
    r"""Autograd node for :math:`y = \sum_{i \in D} x_i` over dims :math:`D`.

    Saves nothing: the gradient is the incoming one broadcast back over the reduced dims.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_i} = g_{\pi(i)}

    where :math:`\pi` drops the reduced coordinates.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"sum"``, ``AmpPolicy.FORCE_FP32``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.sum`` (pairwise summation on NumPy; half inputs accumulate in float32).
    Integer and bool inputs sum in int64, like PyTorch; an empty reduction gives 0.
    """

    __slots__ = ()
    schema_v1 = OpSchema("sum", 1, AmpPolicy.FORCE_FP32, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, dim, keepdim, dtype=None):
        return be.sum(x, dim, keepdim, _acc(x, dtype))

    def grad(self, F, g, x, out):
        return F.broadcast_copy(self.unreduce(g), self.in_meta[0][0])


@register
class MeanBackward(ReductionOp):
    r"""Autograd node for :math:`y = \frac{1}{N} \sum_{i \in D} x_i`, :math:`N = |D|`.

    Saves nothing: the gradient is the incoming one over :math:`N`, broadcast back.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_i} = \frac{g_{\pi(i)}}{N}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"mean"``, ``AmpPolicy.FORCE_FP32``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.mean`` (in ``dtype`` when given). Integer input needs ``dtype``, as in
    PyTorch; an empty reduction gives nan.
    """

    __slots__ = ()
    schema_v1 = OpSchema("mean", 1, AmpPolicy.FORCE_FP32, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, dim, keepdim, dtype=None):
        return be.mean(x, dim, keepdim, None if dtype is None else dtype.np)

    def _scale(self):
        shape = self.in_meta[0][0]
        n = math.prod(shape[d] for d in self.params["dim"])
        return 1.0 / n if n else 0.0

    def grad(self, F, g, x, out):
        return F.broadcast_copy(self.unreduce(g) * self._scale(), self.in_meta[0][0])


@register
class ProdBackward(ReductionOp):
    r"""Autograd node for :math:`y = \prod_{i \in D} x_i` (one dim, or all).

    Saves the input: each element's gradient is the product of the *other* elements, which
    is computed exactly even where some are zero (``y / x`` would give nan there).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_i} = g \prod_{j \ne i} x_j
              = g \, L_i R_i

    with :math:`L_i, R_i` the exclusive prefix and suffix products.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"prod"``, ``AmpPolicy.FORCE_FP32``.
    saves_input : bool
        True.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.prod``; the eager backward is ``prod_others`` (``y / x`` when no element
    is zero, prefix times suffix ``cumprod`` otherwise); the graph-mode backward always
    uses the prefix/suffix products, so it is twice differentiable with zeros too. Integer
    and bool inputs multiply in int64; an empty reduction gives 1.
    """

    __slots__ = ()
    schema_v1 = OpSchema("prod", 1, AmpPolicy.FORCE_FP32, complex_grad="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x, dim, keepdim, dtype=None):
        return be.prod(x, dim, keepdim, _acc(x, dtype))

    def grad(self, F, g, x, out):
        dims, shape = self.params["dim"], self.in_meta[0][0]
        g = self.unreduce(g)
        if not dims or 0 in shape:
            return F.broadcast_copy(g, shape)
        if len(dims) == 1:
            return g * F.prod_others(x, dims[0])
        return g * F.reshape(F.prod_others(F.reshape(x, (-1,)), 0), shape)


def _prod_others_t(x, d):
    r"""Tensor of :math:`\prod_{j \ne i} x_j` along ``d`` (differentiable, zero-safe)."""
    from ..shape.shape import pad
    tail = (0, 0) * (x.ndim - 1 - d)
    left = cumprod(pad(x, tail + (1, -1), value=1), d)
    right = cumprod(pad(x, tail + (-1, 1), value=1).flip(d), d).flip(d)
    return left * right


class _NanBackward(ReductionOp):
    """Shared backward of nansum / nanmean: the gradient skips the nan inputs."""

    __slots__ = ()
    saves_input = True

    def _weights(self):
        """Per-element factor: 1 (nansum) or 1/count (nanmean) where not nan, else 0."""
        raise NotImplementedError  # abstract: each op defines it

    def grad(self, F, g, x, out):
        return self.unreduce(g) * const(self._weights(), g)


@register
class NansumBackward(_NanBackward):
    r"""Autograd node for :math:`y = \sum_{i \in D,\, x_i \ne \mathrm{nan}} x_i`.

    Saves the input: the gradient is masked where it is nan.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_i} = g\,[x_i \ne \mathrm{nan}]

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"nansum"``, ``AmpPolicy.FORCE_FP32``.
    saves_input : bool
        True.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.sum`` of ``where(isnan(x), 0, x)``. Integers sum in int64.
    """

    __slots__ = ()
    schema_v1 = OpSchema("nansum", 1, AmpPolicy.FORCE_FP32)

    @staticmethod
    def dispatch(be, x, dim, keepdim, dtype=None):
        return be.nansum(x, dim, keepdim, _acc(x, dtype))

    def _weights(self):
        x = self.saved[0]._data
        return self.be.astype(x == x, x.dtype)


@register
class NanmeanBackward(_NanBackward):
    r"""Autograd node for the mean of the non-nan elements over :math:`D`.

    Saves the input: the gradient goes evenly to the non-nan elements.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_i} = \frac{g\,[x_i \ne \mathrm{nan}]}
              {\#\{j \in D : x_j \ne \mathrm{nan}\}}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"nanmean"``, ``AmpPolicy.FORCE_FP32``.
    saves_input : bool
        True.
    saves_output : bool
        False.

    Notes
    -----
    Backends: a masked sum over the count of non-nan elements. An all-nan slice gives nan
    (and nan gradients, like PyTorch).
    """

    __slots__ = ()
    schema_v1 = OpSchema("nanmean", 1, AmpPolicy.FORCE_FP32)

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return be.nanmean(x, dim, keepdim)

    def _weights(self):
        x = self.saved[0]._data
        return self.be.even_weights(x == x, self.params["dim"], x.dtype)


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
        name="max", what="maximum", how="``xp.argmax`` then ``take_along_axis``",
        edge="Ties take the first index; nan wins (and its first index).")
    __slots__ = ()
    schema_v1 = OpSchema("max", 1, AmpPolicy.KEEP_INPUT, output_arity=2)

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return _on_scalar(be.max_dim, x, dim, keepdim)


@register
class MinBackward(_PickBackward):
    __doc__ = _PICK_DOC.format(
        name="min", what="minimum", how="``xp.argmin`` then ``take_along_axis``",
        edge="Ties take the first index; nan wins (and its first index).")
    __slots__ = ()
    schema_v1 = OpSchema("min", 1, AmpPolicy.KEEP_INPUT, output_arity=2)

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return _on_scalar(be.min_dim, x, dim, keepdim)


@register
class MedianBackward(_PickBackward):
    __doc__ = _PICK_DOC.format(
        name="median", what="lower median (rank :math:`\\lfloor (n-1)/2 \\rfloor`)",
        how="a stable ``xp.argsort``",
        edge="Ties take the index of the stable sort; a slice with nan gives nan and the "
             "first nan's index.")
    __slots__ = ()
    schema_v1 = OpSchema("median", 1, AmpPolicy.KEEP_INPUT, output_arity=2)

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return _on_scalar(be.median_dim, x, dim, keepdim)


@register
class ModeBackward(_PickBackward):
    __doc__ = _PICK_DOC.format(
        name="mode", what="most frequent value", how="``xp.sort`` and run lengths",
        edge="Equal counts take the smallest value; the index is its last occurrence.")
    __slots__ = ()
    schema_v1 = OpSchema("mode", 1, AmpPolicy.KEEP_INPUT, output_arity=2)

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return _on_scalar(be.mode, x, dim, keepdim)


class _CumPickBackward(_PickBackward):
    """Shared backward of cummax / cummin: gradients of a run add up at its index."""

    __slots__ = ()


_CUM_DOC = r"""Autograd node for ``{name}(x, dim)``: the running {what} along ``dim`` and
    the index where each was attained.

    Saves the output: the indices route each value's gradient back to its element.

    Math
    ----
    .. math:: y_k = x_{{i_k}},\ i_k = \arg\{what}_{{j \le k}} x_j, \qquad
              \frac{{\partial \mathcal{{L}}}}{{\partial x_j}} = \sum_{{k : i_k = j}} g_k

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
    Backends: ``xp.{ufunc}.accumulate``; an equal or nan element takes over the index
    (PyTorch's rule). The backward adds the gradients at the indices (``index_add_along``;
    ``scatter_add`` in graph mode).
    """


@register
class CummaxBackward(_CumPickBackward):
    __doc__ = _CUM_DOC.format(name="cummax", what="max", ufunc="maximum")
    __slots__ = ()
    schema_v1 = OpSchema("cummax", 1, AmpPolicy.KEEP_INPUT, output_arity=2)

    @staticmethod
    def dispatch(be, x, dim):
        return _on_scalar(be.cummax, x, dim)


@register
class CumminBackward(_CumPickBackward):
    __doc__ = _CUM_DOC.format(name="cummin", what="min", ufunc="minimum")
    __slots__ = ()
    schema_v1 = OpSchema("cummin", 1, AmpPolicy.KEEP_INPUT, output_arity=2)

    @staticmethod
    def dispatch(be, x, dim):
        return _on_scalar(be.cummin, x, dim)


# -- moments and norms -------------------------------------------------------------------

@register
class VarBackward(ReductionOp):
    r"""Autograd node for :math:`y = \frac{1}{\max(0, N - c)} \sum_{i \in D} (x_i - \bar x)^2`.

    Saves the input: the gradient needs the deviations from the mean (recomputed in the
    backward rather than kept, halving what the graph holds).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_i} = g\,\frac{2 (x_i - \bar x)}{N - c}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"var"``, ``AmpPolicy.FORCE_FP32``.
    saves_input : bool
        True.
    saves_output : bool
        False.

    Notes
    -----
    Backends: two passes (mean, then the sum of squared deviations). :math:`N - c \le 0`
    gives inf (nan for constant input), like PyTorch, silently; the gradient there is the
    formula's limit, :math:`\pm\infty` with the sign of :math:`g (x_i - \bar x)` (PyTorch
    gives :math:`+\infty` everywhere, whatever the sign).
    """

    __slots__ = ()
    schema_v1 = OpSchema("var", 1, AmpPolicy.FORCE_FP32, complex_grad="custom")
    saves_input = True

    @staticmethod
    def dispatch(be, x, dim, keepdim, correction):
        return be.var(x, dim, keepdim, correction)

    def grad(self, F, g, x, out):
        p = self.params
        return F.var_backward(x, self.unreduce(g), p["dim"], p["correction"])


@register
class StdBackward(ReductionOp):
    r"""Autograd node for :math:`y = \sigma = \sqrt{\mathrm{var}(x)}` over :math:`D`.

    Saves input and output: the gradient needs the deviations and divides by :math:`\sigma`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_i} = g\,\frac{x_i - \bar x}{(N - c)\,\sigma}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"std"``, ``AmpPolicy.FORCE_FP32``.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----
    Backends: ``be.std``, the variance kernel's sum of squared deviations rooted before the
    cast back: half types accumulate and root in float32 and keep their dtype, as PyTorch
    (float16 ``std([300, -300])`` is 424.25 although its variance overflows float16).
    Where :math:`\sigma = 0` (a constant slice) the gradient is 0, not 0/0, like PyTorch.
    """

    __slots__ = ()
    schema_v1 = OpSchema("std", 1, AmpPolicy.FORCE_FP32, complex_grad="custom")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x, dim, keepdim, correction):
        return be.std(x, dim, keepdim, correction)

    def grad(self, F, g, x, out):
        p = self.params
        return F.std_backward(x, self.unreduce(out), self.unreduce(g), p["dim"],
                              p["correction"])


@register
class LogsumexpBackward(ReductionOp):
    r"""Autograd node for :math:`y = \log \sum_{i \in D} e^{x_i}`, computed stably.

    Saves input and output: the gradient is the softmax :math:`e^{x - y}`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_i} = g\,e^{x_i - y}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"logsumexp"``, ``AmpPolicy.FORCE_FP32``, real-valued (integer input gives the
        default float dtype).
    saves_input, saves_output : bool
        True, True.

    Notes
    -----
    Backends: :math:`m + \log \sum e^{x - m}` with :math:`m` the max (0 where infinite), so
    large inputs do not overflow; all :math:`-\infty` gives :math:`-\infty`; an empty
    reduction gives :math:`-\infty`.
    """

    __slots__ = ()
    schema_v1 = OpSchema("logsumexp", 1, AmpPolicy.FORCE_FP32, real_valued=True)
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return be.logsumexp(x, dim, keepdim)

    def grad(self, F, g, x, out):
        return F.logsumexp_backward(x, self.unreduce(out), self.unreduce(g))


@register
class NormBackward(ReductionOp):
    r"""Autograd node for the vector :math:`p`-norm :math:`y = (\sum_{i \in D} |x_i|^p)^{1/p}`.

    Saves input and output: the gradient scales :math:`\mathrm{sign}(x)|x|^{p-1}` by
    :math:`y^{1-p}`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_i} =
              g\,\frac{\mathrm{sign}(x_i)\,|x_i|^{p-1}}{y^{p-1}}

    :math:`p = \pm\infty`: :math:`g\,\mathrm{sign}(x_i)` split evenly among the elements
    of extreme magnitude; :math:`p = 0` (the count of non-zeros): 0. For complex :math:`x`
    the norm (real) is that of :math:`|x_i|` and :math:`\mathrm{sign}(x_i)` is
    :math:`x_i/|x_i|` (PyTorch's ``sgn``), the gradient of :math:`|x_i|`.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"norm"``, ``AmpPolicy.FORCE_FP32``, ``complex_grad="custom"`` (a real result).
    saves_input, saves_output : bool
        True, True.

    Notes
    -----
    Backends: ``sqrt(sum(x*x))`` for :math:`p = 2`, ``sum(|x|)``, ``amax(|x|)``, and
    ``sum(|x|**p)**(1/p)`` otherwise. As in PyTorch the gradient is 0 where :math:`y = 0`
    (and, for :math:`p < 1`, where :math:`x = 0`) instead of nan. An inf norm over an
    empty dim raises (no identity).
    """

    __slots__ = ()
    schema_v1 = OpSchema("norm", 1, AmpPolicy.FORCE_FP32, complex_grad="custom")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x, dim, keepdim, p):
        return be.vector_norm(x, p, dim, keepdim)

    def grad(self, F, g, x, out):
        p = self.params
        return F.vector_norm_backward(x, self.unreduce(out), self.unreduce(g), p["p"],
                                      p["dim"])


# -- non-differentiable reductions -------------------------------------------------------

_BOOL_DOC = r"""{summary}

    Saves nothing: the result is {result}, not differentiable.

    Math
    ----
    .. math:: {math}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"{name}"``, ``AmpPolicy.KEEP_INPUT``, not differentiable.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    {notes}
    """


@register
class AllBackward(ReductionOp):
    __doc__ = _BOOL_DOC.format(
        summary="Node of ``all``: whether every element over the dims is non-zero.",
        result="boolean", name="all", math=r"y = \bigwedge_{i \in D} [x_i \ne 0]",
        notes="Backends: ``xp.all``. uint8 input gives uint8, like PyTorch; an empty "
              "reduction gives True.")
    __slots__ = ()
    schema_v1 = OpSchema("all", 1, AmpPolicy.KEEP_INPUT, differentiable=False,
            complex_grad="custom")

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        r = be.all(x, dim, keepdim)
        return be.astype(r, x.dtype) if _dt._BY_NP[x.dtype] is _dt.uint8 else r


@register
class AnyBackward(ReductionOp):
    __doc__ = _BOOL_DOC.format(
        summary="Node of ``any``: whether some element over the dims is non-zero.",
        result="boolean", name="any", math=r"y = \bigvee_{i \in D} [x_i \ne 0]",
        notes="Backends: ``xp.any``. uint8 input gives uint8, like PyTorch; an empty "
              "reduction gives False.")
    __slots__ = ()
    schema_v1 = OpSchema("any", 1, AmpPolicy.KEEP_INPUT, differentiable=False,
            complex_grad="custom")

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        r = be.any(x, dim, keepdim)
        return be.astype(r, x.dtype) if _dt._BY_NP[x.dtype] is _dt.uint8 else r


@register
class CountNonzeroBackward(ReductionOp):
    __doc__ = _BOOL_DOC.format(
        summary="Node of ``count_nonzero``: the number of non-zero elements over the dims.",
        result="an int64 count", name="count_nonzero",
        math=r"y = \sum_{i \in D} [x_i \ne 0]",
        notes="Backends: ``xp.sum(x != 0)``; nan counts as non-zero.")
    __slots__ = ()
    schema_v1 = OpSchema("count_nonzero", 1, AmpPolicy.KEEP_INPUT, differentiable=False,
            complex_grad="custom")

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return be.count_nonzero(x, dim)


@register
class ArgmaxBackward(Op):
    __doc__ = _BOOL_DOC.format(
        summary="Node of ``argmax``: the index of the first maximum along a dim.",
        result="an int64 index", name="argmax", math=r"y = \min \arg\max_i x_i",
        notes="Backends: ``xp.argmax``; ``dim=None`` indexes the flattened input. nan "
              "counts as the maximum.")
    __slots__ = ()
    schema_v1 = OpSchema("argmax", 1, AmpPolicy.KEEP_INPUT, differentiable=False)

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return be.argmax(x, dim, keepdim)


@register
class ArgminBackward(Op):
    __doc__ = _BOOL_DOC.format(
        summary="Node of ``argmin``: the index of the first minimum along a dim.",
        result="an int64 index", name="argmin", math=r"y = \min \arg\min_i x_i",
        notes="Backends: ``xp.argmin``; ``dim=None`` indexes the flattened input. nan "
              "counts as the minimum.")
    __slots__ = ()
    schema_v1 = OpSchema("argmin", 1, AmpPolicy.KEEP_INPUT, differentiable=False)

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return be.argmin(x, dim, keepdim)


# -- scans -------------------------------------------------------------------------------

@register
class CumsumBackward(UnaryOp):
    r"""Autograd node for the prefix sums :math:`y_k = \sum_{j \le k} x_j` along ``dim``.

    Saves nothing: the gradient is the suffix sum of the incoming gradient.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_j} = \sum_{k \ge j} g_k

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"cumsum"``, ``AmpPolicy.FORCE_FP32``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.cumsum`` (the backward flips, scans and flips back). Integer and bool
    inputs scan in int64, like PyTorch.
    """

    __slots__ = ()
    schema_v1 = OpSchema("cumsum", 1, AmpPolicy.FORCE_FP32, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, dim, dtype=None):
        return _on_scalar(be.cumsum, x, dim, _acc(x, dtype))

    def grad(self, F, g, x, out):
        return _on_scalar(F.reverse_cumsum, g, self.params["dim"])


@register
class CumprodBackward(UnaryOp):
    r"""Autograd node for the prefix products :math:`y_k = \prod_{j \le k} x_j`.

    Saves input and output: the gradient is the suffix sum of :math:`g\,y` over :math:`x`,
    with the first zero of each slice handled exactly (the products after it are zero).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_j} = \sum_{k \ge j} g_k
              \prod_{i \le k,\, i \ne j} x_i

    before the first zero :math:`z`: :math:`\frac{1}{x_j}\sum_{k \ge j} g_k y_k`; at
    :math:`z`: :math:`\sum_{k \ge z} g_k y'_k` (:math:`y'`: the products with :math:`x_z`
    replaced by 1); after :math:`z`: 0.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"cumprod"``, ``AmpPolicy.FORCE_FP32``.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----
    Backends: ``xp.cumprod``; the eager backward is one fused kernel
    (``cumprod_backward``). The graph-mode backward applies the rule above to
    :math:`x'` again for :math:`k > z`, so it stays twice differentiable with zeros.
    Integer and bool inputs scan in int64.
    """

    __slots__ = ()
    schema_v1 = OpSchema("cumprod", 1, AmpPolicy.FORCE_FP32, complex_grad="holomorphic")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x, dim, dtype=None):
        return _on_scalar(be.cumprod, x, dim, _acc(x, dtype))

    def grad(self, F, g, x, out):
        if not x.ndim:
            return g
        return F.cumprod_backward(x, out, g, self.params["dim"])


def _masked_div_t(be, g, y, y_arr, power=1):
    r"""Tensor :math:`g / y^{power}`, 0 where :math:`y = 0` (``y_arr``: ``y``'s array),
    differentiable in both without a nan from the masked entries."""
    zero = y_arr == 0
    den = y + _const(be.astype(zero, y_arr.dtype), g)
    return g * _const(be.astype(~zero, y_arr.dtype), g) / (den if power == 1 else den ** power)


def _cumprod_grad_t(be, x, out, g, d):
    r"""Graph-mode cumprod gradient, differentiable with zeros: with :math:`z` the first
    zero, :math:`x'` = :math:`x` with :math:`x_z` set to 1, :math:`G(x)` the gradient,
    :math:`G_k = \frac{1}{x_k} \sum_{i \ge k} g_i y_i` for :math:`k < z`, and
    :math:`G_k(x) = c_k\,G_k(x')` for :math:`k \ge z` (:math:`c_z = 1`, :math:`c_k = x_z`
    after). Unrolled over the zeros of each slice."""

    def suffix(t):
        return cumsum(t.flip(d), d).flip(d)

    total, coef = None, None
    while True:
        a = x._data
        zero = a == 0
        if not bool(zero.any()):
            part = suffix(g * out) / x
            return part if coef is None else total + coef * part
        seen = be.cumsum(zero, d)
        before = be.astype(seen == 0, a.dtype)
        first = be.astype(zero & (seen == 1), a.dtype)
        after = 1 - before - first
        safe = x * _const(before, g) + _const(1 - before, g)
        part = suffix(g * out) / safe * _const(before, g)
        total = part if coef is None else total + coef * part
        step = _const(first, g) + _const(after, g) * sum(x * _const(first, g), d, True)
        coef = step if coef is None else coef * step
        x = x * _const(1 - first, g) + _const(first, g)
        out = cumprod(x, d)


@register
class DiffBackward(UnaryOp):
    r"""Autograd node for the :math:`n`-th forward difference along ``dim``.

    Saves nothing: the op is linear; its adjoint is :math:`(-1)^n` times the :math:`n`-th
    difference of the gradient zero-padded by :math:`n` on both sides.

    Math
    ----
    .. math:: y_k = x_{k+1} - x_k, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = (-1)^n\,\Delta^n
              \mathrm{pad}_{n,n}(g)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"diff"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.diff`` (``!=`` for bool, like PyTorch's xor). ``n`` beyond the length
    gives an empty result. ``prepend``/``append`` are concatenated by the wrapper first.
    """

    __slots__ = ()
    schema_v1 = OpSchema("diff", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, n, dim):
        return be.diff(x, n, dim)

    def _pads(self):
        n, d = self.params["n"], self.params["dim"]
        pads = [(0, 0)] * len(self.in_meta[0][0])
        pads[d] = (n, n)
        return tuple(pads)

    def grad(self, F, g, x, out):
        n, d = self.params["n"], self.params["dim"]
        shape, dt = self.in_meta[0]
        if n > shape[d]:                    # empty output: nothing flows back
            return const(self.be.full(shape, 0, dt.np), g)
        r = F.diff(F.pad(g, self._pads(), "constant", 0), n, d)
        return -r if n % 2 else r


# -- wrappers: sums and means ------------------------------------------------------------

@tensor_method("sum")
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum of elements over ``dim`` (all dims when None or empty); integers sum in int64."""
    dim = _dim_arg(input, dim, "sum")
    if dtype is not None:
        return SumBackward.call(input, dim, keepdim, dtype=dtype_arg(dtype, "sum"))
    return SumBackward.call(input, dim, keepdim)


@tensor_method("nansum")
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` treating nan as 0."""
    dim = _dim_arg(input, dim, "nansum")
    if dtype is not None:
        return NansumBackward.call(input, dim, keepdim, dtype=dtype_arg(dtype, "nansum"))
    return NansumBackward.call(input, dim, keepdim)


@tensor_method("mean")
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over ``dim`` (all dims when None or empty); integer input needs ``dtype``."""
    x = to_tensor(input)
    dim = _dim_arg(x, dim, "mean")
    if dtype is not None:
        dtype = dtype_arg(dtype, "mean")
        if dtype._cat < 2:
            raise DTypeError(f"mean(): could not infer output dtype. Optional dtype must be "
                             f"either a floating point or complex dtype. Got: {dtype.name}")
        return MeanBackward.call(x, dim, keepdim, dtype=dtype)
    if x._dtype._cat < 2:
        raise DTypeError(f"mean(): could not infer output dtype. Input dtype must be either "
                         f"a floating point or complex dtype. Got: {x._dtype.name}")
    return MeanBackward.call(x, dim, keepdim)


@tensor_method("nanmean")
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean of the non-nan elements over ``dim``."""
    x = _floating(input, "nanmean", dtype)
    return NanmeanBackward.call(x, _dim_arg(x, dim, "nanmean"), keepdim)


@tensor_method("prod")
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product of elements over one ``dim`` (all when None); integers multiply in int64."""
    x = to_tensor(input)
    if dim is not None and not isinstance(dim, numbers.Integral):
        raise ArgumentTypeError(f"prod(): argument 'dim' must be an int or None, not "
                                f"{type(dim).__name__} ({dim!r})")
    dim = _dim_arg(x, dim, "prod")
    if dtype is not None:
        return ProdBackward.call(x, dim, keepdim, dtype=dtype_arg(dtype, "prod"))
    return ProdBackward.call(x, dim, keepdim)


@tensor_method("trace")
def trace(input):
    """Sum of the main diagonal of a 2-d tensor."""
    x = to_tensor(input)
    if x._data.ndim != 2:
        raise ShapeError(f"trace: expected a matrix, but got tensor with dim {x._data.ndim}")
    if x._dtype is _dt.bool:
        raise DTypeError("trace: not implemented for bool (as PyTorch); cast the input to an "
                         "integer or floating dtype first")
    return sum(x.diagonal())


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
        from ..binary import binary as _binary
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
    if dim is not None:                         # PyTorch checks the dim before the dtype
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


# -- wrappers: moments and norms ---------------------------------------------------------

def _moment(cls, input, dim, unbiased, keepdim, correction, op):
    if isinstance(dim, bool):                   # legacy var(x, unbiased)
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise DTypeError(f"{op}(): pass either unbiased or correction, not both")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    x = _floating(input, op, complex_ok=True)
    return cls.call(x, _dim_arg(x, dim, op), keepdim, correction=correction)


@tensor_method("var")
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance over ``dim`` with ``correction`` (default 1, Bessel's; ``unbiased=False``
    means 0)."""
    return _moment(VarBackward, input, dim, unbiased, keepdim, correction, "var")


@tensor_method("std")
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation over ``dim`` with ``correction`` (see :func:`var`)."""
    return _moment(StdBackward, input, dim, unbiased, keepdim, correction, "std")


@reports_as("var_mean")
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` over ``dim``. The mean is :func:`mean`'s (``inf`` for ``[inf, 0]``,
    where PyTorch's one-pass kernel gives nan)."""
    v = var(input, dim, unbiased, keepdim, correction=correction)
    if isinstance(dim, bool):
        dim = None
    return v, mean(input, dim, keepdim)


@reports_as("std_mean")
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` over ``dim``. The mean is :func:`mean`'s (``inf`` for ``[inf, 0]``,
    where PyTorch's one-pass kernel gives nan)."""
    s = std(input, dim, unbiased, keepdim, correction=correction)
    if isinstance(dim, bool):
        dim = None
    return s, mean(input, dim, keepdim)


@tensor_method("logsumexp")
def logsumexp(input, dim, keepdim=False):
    r""":math:`\log \sum e^{x}` over ``dim``, computed stably (integers give floats)."""
    if dim is None:                 # PyTorch's signature: dim is required
        raise ArgumentTypeError("logsumexp(): argument 'dim' must be an int or a tuple of "
                                "ints, not None")
    return LogsumexpBackward.call(input, _dim_arg(input, dim, "logsumexp"), keepdim)


@tensor_method("norm")
@reports_as("norm")
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """PyTorch's ``torch.norm``: the vector ``p``-norm over ``dim`` (all dims when None;
    ``p=None`` and ``p='fro'`` over at most two dims are the 2-norm), or, for ``'nuc'`` and
    a ``'fro'`` over more dims, ``lucid.linalg.matrix_norm`` over ``dim`` (all dims when
    None), whose checks refuse what it cannot do."""
    if isinstance(dim, numbers.Integral) and not isinstance(dim, bool):
        dim = (dim,)
    if not isinstance(p, str):
        return vector_norm(input, 2 if p is None else p, dim, keepdim, dtype, "norm")
    if p == "fro" and (dim is None or not isinstance(dim, (tuple, list, Size)) or
                       len(dim) <= 2):
        return vector_norm(input, 2, dim, keepdim, dtype, "norm")
    from ..linalg.matrix_fns import matrix_norm
    if dim is None:
        dim = tuple(range(to_tensor(input)._data.ndim))
    return matrix_norm(input, p, dim, keepdim, dtype=dtype)


def norm_input(input, dtype, op):
    """The input of a norm, PyTorch's checks: floating or complex, cast to ``dtype`` (if
    given) only where that widens it."""
    x = to_tensor(input)
    if not (x._dtype.is_floating_point or x._dtype.is_complex):
        raise DTypeError(f"{op}(): expected a floating point or complex input, got "
                         f"{x._dtype.name}")
    if dtype is None:
        return x
    dtype = dtype_arg(dtype, op)
    if not (dtype.is_floating_point or dtype.is_complex) or \
            _dt.promote_types(x._dtype, dtype) is not dtype:
        raise DTypeError(f"{op}(): the input's dtype {x._dtype.name} cannot be cast without "
                         f"narrowing to dtype={dtype.name}")
    return x if x._dtype is dtype else x.to(dtype)


def vector_norm(input, ord, dim, keepdim, dtype, op):
    """The vector ``ord``-norm with PyTorch's checks (``linalg.vector_norm``'s): a
    floating or complex input, a ``dtype`` it widens to, a number ``ord`` (bool counts as
    0 / 1), and no negative or infinite order over an empty dim (no identity)."""
    x = norm_input(input, dtype, op)
    if not isinstance(ord, numbers.Real):
        raise ArgumentTypeError(f"{op}(): argument 'ord' must be a number, not "
                                f"{type(ord).__name__}")
    dim = _dim_arg(x, dim, op)
    if isinstance(dim, numbers.Integral):
        dim = (dim,)
    p = float(ord)
    if p < 0 or p == _INF:              # no identity: nothing to reduce over is an error
        _nonempty(x, () if dim is None else norm_dims(dim, x._data.ndim, op), op,
                  dim is not None)
    return NormBackward.call(x, dim, keepdim, p=p)


# -- wrappers: logic and counting --------------------------------------------------------

@tensor_method("all")
def all(input, dim=None, keepdim=False):
    """Whether every element over ``dim`` is non-zero (bool; uint8 for uint8 input)."""
    return AllBackward.call(input, _dim_arg(input, dim, "all", False), keepdim)


@tensor_method("any")
def any(input, dim=None, keepdim=False):
    """Whether any element over ``dim`` is non-zero (bool; uint8 for uint8 input)."""
    return AnyBackward.call(input, _dim_arg(input, dim, "any", False), keepdim)


@tensor_method("count_nonzero")
def count_nonzero(input, dim=None):
    """The number of non-zero elements over ``dim`` (int64)."""
    return CountNonzeroBackward.call(input, _dim_arg(input, dim, "count_nonzero"), False)


# -- wrappers: scans ---------------------------------------------------------------------

def _scan(cls, input, dim, dtype, op):
    x = to_tensor(input)
    d = norm_dim(dim, x._data.ndim, op)
    if dtype is not None:
        dtype = dtype_arg(dtype, op)
        if dtype is _dt.bool and x._data.ndim and x._data.size:
            # PyTorch has no bool scan kernel (a 0-d or empty input runs none)
            raise DTypeError(f"{op}: not implemented for dtype=bool")
        return cls.call(x, dim=d, dtype=dtype)
    return cls.call(x, dim=d)


@tensor_method("cumsum")
def cumsum(input, dim, *, dtype=None):
    """Prefix sums along ``dim`` (integers scan in int64)."""
    return _scan(CumsumBackward, input, dim, dtype, "cumsum")


@tensor_method("cumprod")
def cumprod(input, dim, *, dtype=None):
    """Prefix products along ``dim`` (integers scan in int64)."""
    return _scan(CumprodBackward, input, dim, dtype, "cumprod")


@tensor_method("cumsum_")
def cumsum_(input, dim, *, dtype=None):
    """In-place :func:`cumsum`."""
    return apply_inplace(cumsum, input, dim, dtype=dtype)


@tensor_method("cumprod_")
def cumprod_(input, dim, *, dtype=None):
    """In-place :func:`cumprod`."""
    return apply_inplace(cumprod, input, dim, dtype=dtype)


def _cum_picked(cls, input, dim, op):
    x = to_tensor(input)
    d = norm_dim(dim, x._data.ndim, op)
    return getattr(return_types, op)(*cls.apply(x, dim=d))


@tensor_method("cummax")
def cummax(input, dim):
    """``(values, indices)`` of the running maximum along ``dim``."""
    return _cum_picked(CummaxBackward, input, dim, "cummax")


@tensor_method("cummin")
def cummin(input, dim):
    """``(values, indices)`` of the running minimum along ``dim``."""
    return _cum_picked(CumminBackward, input, dim, "cummin")


@tensor_method("diff")
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim``, after concatenating ``prepend`` and
    ``append`` (tensors or numbers) on either side; ``n=0`` returns the input unchanged
    (``prepend``/``append`` unused), as PyTorch does."""
    x = to_tensor(input)
    nd = x._data.ndim
    if nd == 0:
        raise ShapeError("diff: expects input to be at least one-dimensional")
    if not isinstance(n, numbers.Integral) or n < 0:
        raise ShapeError(f"diff: order must be a non-negative int but got {n!r}")
    if n == 0:                  # PyTorch: the input itself, dim, prepend, append unread
        return x
    d = norm_dim(dim, nd, "diff")
    if prepend is not None or append is not None:
        x = _diff_join(x, d, prepend, append)
    return DiffBackward.call(x, n=int(n), dim=d)


def _diff_join(x, d, prepend, append):
    from ..shape.joins import cat
    parts = []
    for t in (prepend, x, append):
        if t is None:
            continue
        t = to_tensor(t, x)
        if t._data.ndim == 0:
            shape = list(x._data.shape)
            shape[d] = 1
            t = t.expand(shape)
        elif t._data.ndim != x._data.ndim:
            raise ShapeError(f"diff: expects prepend or append to be the same dimension as "
                             f"input ({x._data.ndim}), got {t._data.ndim}")
        parts.append(t)
    return cat(parts, d)
