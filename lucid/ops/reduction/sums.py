"""Sums and means over dims: ``sum``, ``mean``, ``prod``, ``nansum``, ``nanmean``,
``logsumexp`` and ``trace``.

Each is ``y = f(x, dim, keepdim)`` (:class:`~lucid.ops.core.base.ReductionOp`); the
gradient is the incoming one broadcast back over the reduced dims, times a per-element
factor (:math:`1/N`, the product of the other elements, the non-nan mask, the softmax
:math:`e^{x - y}`). As in PyTorch, a ``dim`` of None or an empty list means every dim,
integer and bool inputs sum and multiply in int64, ``mean`` refuses them unless ``dtype``
is given, and ``logsumexp`` gives them the default float dtype.

Complex: ``sum``, ``mean`` and ``prod`` are holomorphic; ``nansum``, ``nanmean`` and
``logsumexp`` refuse it, as PyTorch.
"""

from __future__ import annotations

import math
import numbers

from ... import dtypes as _dt
from ..._tensor.factory import dtype_arg
from ...errors import ArgumentTypeError, DTypeError, ShapeError
from ..core._bind import tensor_method
from ..core._formula import const
from ..core.base import ReductionOp, to_tensor
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ._common import _acc, _dim_arg, _floating

__all__ = ["sum", "mean", "prod", "nansum", "nanmean", "logsumexp", "trace"]


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


# -- log-sum-exp -------------------------------------------------------------------------


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
            raise DTypeError(
                f"mean(): could not infer output dtype. Optional dtype must be "
                f"either a floating point or complex dtype. Got: {dtype.name}"
            )
        return MeanBackward.call(x, dim, keepdim, dtype=dtype)
    if x._dtype._cat < 2:
        raise DTypeError(
            f"mean(): could not infer output dtype. Input dtype must be either "
            f"a floating point or complex dtype. Got: {x._dtype.name}"
        )
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
        raise ArgumentTypeError(
            f"prod(): argument 'dim' must be an int or None, not {type(dim).__name__} ({dim!r})"
        )
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
        raise DTypeError(
            "trace: not implemented for bool (as PyTorch); cast the input to an "
            "integer or floating dtype first"
        )
    return sum(x.diagonal())


@tensor_method("logsumexp")
def logsumexp(input, dim, keepdim=False):
    r""":math:`\log \sum e^{x}` over ``dim``, computed stably (integers give floats)."""
    if dim is None:  # PyTorch's signature: dim is required
        raise ArgumentTypeError(
            "logsumexp(): argument 'dim' must be an int or a tuple of ints, not None"
        )
    return LogsumexpBackward.call(input, _dim_arg(input, dim, "logsumexp"), keepdim)
