"""The graph-mode kernels of the core ops: element-wise maths, creation and casts,
reductions and scans, linear algebra, shapes, views, writes and indexing.

Part of :mod:`lucid.ops.core.graph_ns` (``F`` in graph mode).
"""

from __future__ import annotations

import math

from .... import dtypes as _dt
from ...._tensor import Tensor
from ...binary.arith import PowScalarBackward, div as _div, mul as _mul, pow as _pow
from ...binary.functions import maximum, minimum, xlogy
from ...binary.ternary import where as _where
from ..base import scalar_like
from ..inplace import apply_inplace
from .._formula import const
from ...elementwise.backward_ops import (
    HardsigmoidBackwardBackward,
    HardtanhBackwardBackward,
    LeakyReluBackwardBackward,
    ReluBackwardBackward,
)
from ...elementwise.complex import ComplexBackward, ConjBackward, ViewAsRealBackward, sgn
from ...creation.creation import TrilBackward, TriuBackward
from ...indexing.gather_scatter import ScatterReduceBackward, scatter_add as _scatter_add
from ...indexing.masks import MaskedFillBackward
from ...indexing.subscript import IndexBackward, SliceBackward, _put
from ...shape.joins import _split, cat as _cat, stack as _stack, unbind as _unbind
from ...linalg.einsum import EinsumBackward
from ...linalg.products import CrossBackward, matmul as _matmul
from ...linalg.graph import det, inv, matrix_exp, solve, solve_triangular, svd
from ...reduction.moments import _dof, _inv, _masked_div_t
from ...reduction.scans import DiffBackward, _cumprod_grad_t, _prod_others_t, cumsum as _cumsum
from ...reduction.sums import mean as _mean, sum as _sum
from ...shape.padding import PadBackward, PadGradBackward
from ...shape.permute import FlipBackward, RollBackward
from ...shape.repeats import RepeatInterleaveBackward, SegmentSumBackward
from ...shape.views import (
    DiagonalBackward,
    NarrowBackward,
    SelectBackward,
    UnfoldBackward,
    UnfoldGradBackward,
)
from ...elementwise.sign_magnitude import abs, neg, relu, sign, square
from ...elementwise.exp_log import exp, expm1, log, log1p, reciprocal, rsqrt, sigmoid, sqrt
from ...elementwise.trig import cos, cosh, sin, sinh, tan, tanh
from ...elementwise.erf import erf, erfc
from ...elementwise.fp_classify import isfinite

__all__ = [
    # element-wise
    "abs",
    "cos",
    "cosh",
    "erf",
    "erfc",
    "exp",
    "expm1",
    "log",
    "log1p",
    "neg",
    "reciprocal",
    "relu",
    "relu_backward",
    "hardtanh_backward",
    "leaky_relu_backward",
    "hardsigmoid_backward",
    "rsqrt",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "tan",
    "tanh",
    "isfinite",
    "logit_derivative",
    "sinc_derivative",
    "maximum",
    "minimum",
    "add",
    "mul",
    "conj",
    "sgn",
    "make_complex",
    "view_as_real",
    "div",
    "div_floor",
    "div_trunc",
    "pow",
    "pow_scalar",
    "xlogy",
    "where",
    # creation, casts, broadcasting
    "zeros_like",
    "ones_like",
    "astype",
    "sum_to",
    "broadcast_to",
    "broadcast_copy",
    "reshape",
    "tril",
    "triu",
    # reductions and scans
    "sum",
    "prod_others",
    "var_backward",
    "std_backward",
    "logsumexp_backward",
    "vector_norm_backward",
    "index_add_along",
    "reverse_cumsum",
    "cumprod_backward",
    "diff",
    # linear algebra
    "matmul",
    "channel_sum",
    "sum_rows",
    "linear_weight_grad",
    "swapaxes",
    "einsum",
    "cross",
    "cdist_backward",
    "inv",
    "solve",
    "solve_triangular",
    "matrix_exp",
    "svd",
    "det",
    # shape, joins, views and writes
    "permute",
    "flip",
    "roll",
    "unfold",
    "unfold_backward",
    "repeat_interleave",
    "segment_sum",
    "concatenate",
    "stack",
    "split",
    "unbind",
    "narrow",
    "select",
    "diagonal",
    "basic_index",
    "assign",
    "pad",
    "pad_backward",
    # indexing
    "copy",
    "index",
    "index_put_",
    "masked_fill",
    "scatter_reduce",
]

_wrap = Tensor._wrap


def add(a, b, alpha=1):
    return a + b if alpha == 1 else a + b * alpha


def mul(a, b):
    return _mul(a, b)


def div(a, b):
    return _div(a, b)


def div_floor(a, b):
    return _div(a, b, rounding_mode="floor")


def div_trunc(a, b):
    return _div(a, b, rounding_mode="trunc")


def pow(a, b):
    return _pow(a, b)


def pow_scalar(x, p):
    """``x ** p`` for a Python number ``p``."""
    return PowScalarBackward.call(x, exponent=p)


def where(cond, a, b):
    return _where(cond, a, b)


def conj(a):
    """The conjugate, recorded (a copy for real ``a`` too, as the backend kernel)."""
    return ConjBackward.call(a)


def make_complex(re, im):
    return ComplexBackward.apply(re, im)


def view_as_real(a):
    return ViewAsRealBackward.call(a)


# -- derivative kernels of the unary ops --------------------------------------------------


def logit_derivative(x, eps):
    """``1 / |x (1 - x)|`` inside ``[eps, 1 - eps]``; outside 0 (``eps`` given) or nan
    outside ``[0, 1]`` (``eps`` None). The mask is a constant."""
    lo, hi, fill = (0.0, 1.0, math.nan) if eps is None else (eps, 1.0 - eps, 0.0)
    return _where((x < lo) | (x > hi), fill, reciprocal(abs(x * (1 - x))))


def sinc_derivative(x):
    """``(pi x cos(pi x) - sin(pi x)) / (pi x^2)``, 0 where ``pi x^2`` is 0. The masked
    inputs are replaced by 1 before the formula, so its own derivative there is 0, not
    nan."""
    zero = x * x * math.pi == 0
    xs = _where(zero, 1.0, x)
    y = xs * math.pi
    return _where(zero, 0.0, (y * cos(y) - sin(y)) / (xs * xs * math.pi))


def zeros_like(x):
    """Zeros shaped like ``x``, without history (the gradient of a step)."""
    return _wrap(x._device._backend.zeros_like(x._data), x._dtype, x._device)


def ones_like(x):
    """Ones shaped like ``x``, without history."""
    return _wrap(x._device._backend.ones_like(x._data), x._dtype, x._device)


def astype(x, npdtype):
    """``x`` cast (recorded) to the dtype whose storage type is ``npdtype``."""
    return x.to(_dt.from_numpy_dtype(npdtype))


def sum_to(x, shape):
    """``x`` summed over broadcast axes down to ``shape``."""
    return x.sum_to_size(shape)


def broadcast_to(x, shape):
    return x.expand(shape)


def reshape(x, shape):
    return x.reshape(shape)


def sum(a, axis, keepdims, npdtype=None):
    """Sum over ``axis`` (an int, a tuple, or None for all); ``()`` sums nothing, as the
    backend kernel."""
    if axis == ():
        return a if npdtype is None else astype(a, npdtype)
    dt = None if npdtype is None else _dt.from_numpy_dtype(npdtype)
    return _sum(a, axis, keepdims, dtype=dt)


def broadcast_copy(a, shape):
    return a.expand(shape)


# -- reduction kernels --------------------------------------------------------------------


def prod_others(a, axis):
    """The product of the other elements along ``axis``: exclusive prefix times suffix
    products, differentiable with zeros too."""
    return _prod_others_t(a, axis)


def var_backward(a, g, axis, correction):
    return (a - _mean(a, axis, True)) * (g * (2.0 * _inv(_dof(a.shape, axis, correction))))


def std_backward(a, out, g, axis, correction):
    """``(a - mean) * g / (dof * out)``, 0 where ``out`` is 0 (a constant mask)."""
    scale = _masked_div_t(a._device._backend, g, out, out._data)
    return (a - _mean(a, axis, True)) * (scale * _inv(_dof(a.shape, axis, correction)))


def logsumexp_backward(a, out, g):
    return g * exp(a - out)


def vector_norm_backward(a, out, g, p, axis):
    """The gradient of the ``p``-norm: piecewise-constant factors (``p`` 0, 1, ±inf; for
    complex ``a`` only the ±inf tie weights, ``sgn(a)`` being smooth) and the masks where
    ``out`` (or, for ``p < 1``, ``a``) is 0 are constants."""
    be, arr, y = a._device._backend, a._data, out._data
    if p and a._dtype.is_complex and p in (1, math.inf, -math.inf):  # sgn(z): smooth
        w = 1 if p == 1 else const(be.even_weights(be.abs(arr) == y, axis, arr.dtype), g)
        return g * sgn(a) * w
    if p in (0, 1, math.inf, -math.inf):
        return g * const(be.vector_norm_backward(arr, y, be.ones((), arr.dtype), p, axis), g)
    scale = _masked_div_t(be, g, out, y, p - 1)
    if p >= 2:
        return a * scale if p == 2 else a * abs(a) ** (p - 2) * scale
    nz = be.astype(arr != 0, arr.dtype)
    safe = a * const(nz, g) + const(1 - nz, g)
    return sgn(a) * abs(safe) ** (p - 1) * scale


def index_add_along(g, idx, axis, size):
    """Zeros with ``g`` added at ``idx`` along ``axis`` (of length ``size``)."""
    shape = list(g.shape)
    shape[axis] = size
    z = const(g._device._backend.full(tuple(shape), 0, g._dtype.np), g)
    return _scatter_add(z, axis, idx, g)


def reverse_cumsum(a, axis):
    return _cumsum(a.flip(axis), axis).flip(axis)


def cumprod_backward(a, out, g, axis):
    return _cumprod_grad_t(a._device._backend, a, out, g, axis)


def diff(a, n, axis):
    return DiffBackward.call(a, n=n, dim=axis)


# -- linear algebra kernels ---------------------------------------------------------------


def matmul(a, b):
    return _matmul(a, b)


def relu_backward(y, g):
    """0 where ``y <= 0``, else ``g``, as one recorded op (its gradient for ``y`` is 0)."""
    return ReluBackwardBackward.apply(g, y)


def hardtanh_backward(g, x, lo, hi):
    return HardtanhBackwardBackward.apply(g, x, min_val=lo, max_val=hi)


def leaky_relu_backward(g, x, slope):
    return LeakyReluBackwardBackward.apply(g, x, negative_slope=slope)


def hardsigmoid_backward(g, x):
    return HardsigmoidBackwardBackward.apply(g, x)


def channel_sum(g):
    return sum(sum(g, (0,), False), tuple(range(1, g.ndim - 1)), False)


def sum_rows(a):
    return _sum(a, 0)


def linear_weight_grad(g, x, npdtype=None):
    """In ``g``'s dtype whatever ``npdtype`` (the node casts each gradient to its input's
    dtype, recorded)."""
    return _matmul(g.transpose(0, 1), x), sum_rows(g)


def swapaxes(a, d0, d1):
    return a.transpose(d0, d1)


def einsum(equation, *operands):
    return EinsumBackward.apply(*operands, equation=equation)


def cross(a, b, axis):
    return CrossBackward.apply(a, b, dim=axis)


def cdist_backward(g, x1, x2, out, p):
    """The gradients of the pairwise ``p``-norm distances ``out`` to ``x1`` and ``x2``,
    through the difference tensor; where a distance or a difference is 0 the factor is
    taken as 0 (its masks are comparisons, without history)."""
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    if p == 0:
        w = diff * 0
    else:
        w = g.unsqueeze(-1) * sign(diff)
        if p == math.inf:
            w = w * (abs(diff) == out.unsqueeze(-1))
        elif p != 1:
            a, d = abs(diff), out.unsqueeze(-1)
            w = w * ((a + (a == 0)) / (d + (d == 0))) ** (p - 1)
    return w.sum(-2), -w.sum(-3)


def tril(a, k):
    return TrilBackward.call(a, diagonal=k)


def triu(a, k):
    return TriuBackward.call(a, diagonal=k)


# -- shape kernels ------------------------------------------------------------------------


def permute(a, axes):
    return a.permute(axes)


def flip(a, axes):
    return FlipBackward.call(a, dims=axes)


def roll(a, shifts, axes):
    return RollBackward.call(a, shifts=shifts, dims=axes)


def unfold(a, dim, size, step):
    return UnfoldBackward.call(a, dim=dim, size=size, step=step)


def unfold_backward(g, shape, dim, size, step):
    return UnfoldGradBackward.call(g, shape=shape, dim=dim, size=size, step=step)


def repeat_interleave(a, repeats, axis):
    return RepeatInterleaveBackward.call(a, repeats=repeats, dim=axis)


def segment_sum(a, counts, axis):
    return SegmentSumBackward.call(a, counts=counts, dim=axis)


def concatenate(arrays, axis):
    return _cat(list(arrays), axis)


def stack(arrays, axis):
    return _stack(list(arrays), axis)


def split(a, dim, sizes):
    """Views of ``a`` along ``dim`` of lengths ``sizes``, linked to ``a`` as views."""
    return _split(a, dim, sizes)


def unbind(a, dim):
    return _unbind(a, dim)


# -- views and writes ---------------------------------------------------------------------


def narrow(a, dim, start, length):
    return NarrowBackward.apply(a, dim=dim, start=start, length=length)


def select(a, dim, index):
    return SelectBackward.apply(a, dim=dim, index=index)


def diagonal(a, offset, dim1, dim2):
    return DiagonalBackward.apply(a, offset=offset, dim1=dim1, dim2=dim2)


def basic_index(a, index):
    return SliceBackward.apply(a, index=index)


def assign(dst, src):
    """In place ``dst[...] = src`` (``src`` broadcast), recorded: through a view, the
    write reaches the view's base."""
    dst.copy_(src)


# -- indexing kernels ---------------------------------------------------------------------


def copy(a):
    return a.clone()


def index(a, index):
    return IndexBackward.call(a, index=index)


def index_put_(a, index, v, accumulate):
    """In place ``a[index] = v`` (``+=`` with ``accumulate``), recorded like any in-place
    op; ``v`` a Tensor or a number."""
    if not isinstance(v, Tensor):
        v = scalar_like(v, a._dtype, a)
    apply_inplace(_put, a, index, v, accumulate)


def masked_fill(a, mask, v):
    """``a`` with the number ``v`` where ``mask`` (a constant: an array or a tensor without
    history) is true."""
    m = mask._data if isinstance(mask, Tensor) else mask
    return MaskedFillBackward.apply(a, scalar_like(v, a._dtype, a), mask=m)


def scatter_reduce(a, index, src, reduce, include_self):
    return ScatterReduceBackward.apply(
        a, src, index=index, reduce=reduce, include_self=include_self
    )


def pad(a, pads, mode, value):
    return PadBackward.call(a, pads=pads, mode=mode, value=value)


def pad_backward(g, pads, mode):
    """The adjoint of :func:`pad`: for constant padding, a crop (padding by minus the
    widths); for the other modes the op whose own gradient is padding again."""
    if mode == "constant":
        return PadBackward.call(g, pads=tuple((-a, -b) for a, b in pads), mode=mode, value=0)
    return PadGradBackward.call(g, pads=pads, mode=mode)
