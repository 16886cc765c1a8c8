"""``F`` in graph mode: Lucid ops under the backend's kernel names and signatures.

An op writes its gradient once, as :meth:`Op.grad` ``(self, F, g, *saved)``. The eager
backward runs it with ``F`` the backend, on arrays; the graph-mode backward runs it with
``F`` this module, on Tensors, so every step is a recorded op and the gradient is itself
differentiable. A formula may use operators (``g * x``, ``x > 0``) and the functions below;
each takes the arguments the backend kernel of the same name takes.

Loaded after every op module, and installed as ``Op.graph_ns`` by :mod:`lucid.ops`.
"""

from __future__ import annotations

import math

from ... import dtypes as _dt
from ..._tensor import Tensor
from ..binary.arith import PowScalarBackward, div as _div, mul as _mul, pow as _pow
from ..binary.functions import maximum, minimum, xlogy
from ..binary.ternary import where as _where
from .base import apply_inplace, scalar_like
from ._formula import const
from ..elementwise.backward_ops import (HardsigmoidBackwardBackward, HardtanhBackwardBackward,
                           LeakyReluBackwardBackward, PowScalarBackwardBackward,
                           ReluBackwardBackward, SigmoidBackwardBackward,
                           TanhBackwardBackward)
from ..elementwise.complex import ComplexBackward, ConjBackward, ViewAsRealBackward, sgn
from ..creation.creation import TrilBackward, TriuBackward
from ..indexing.gather_scatter import ScatterReduceBackward, scatter_add as _scatter_add
from ..indexing.masks import MaskedFillBackward
from ..indexing.subscript import IndexBackward, SliceBackward, _put
from ..shape.joins import _split, cat as _cat, stack as _stack, unbind as _unbind
from ..linalg.einsum import EinsumBackward
from ..linalg.products import CrossBackward, matmul as _matmul
from ..linalg.graph import det, inv, matrix_exp, solve, solve_triangular, svd
from ..reduction.moments import _dof, _inv, _masked_div_t
from ..reduction.scans import DiffBackward, _cumprod_grad_t, _prod_others_t, cumsum as _cumsum
from ..reduction.sums import mean as _mean, sum as _sum
from ..shape.padding import PadBackward, PadGradBackward
from ..shape.permute import FlipBackward, RollBackward
from ..shape.repeats import RepeatInterleaveBackward, SegmentSumBackward
from ..shape.views import (DiagonalBackward, NarrowBackward, SelectBackward, UnfoldBackward,
                           UnfoldGradBackward)
from ..elementwise.sign_magnitude import abs, neg, relu, sign, square
from ..elementwise.exp_log import exp, expm1, log, log1p, reciprocal, rsqrt, sigmoid, sqrt
from ..elementwise.trig import cos, cosh, sin, sinh, tan, tanh
from ..elementwise.erf import erf, erfc
from ..elementwise.fp_classify import isfinite

__all__ = [
    # element-wise
    "abs", "cos", "cosh", "erf", "erfc", "exp", "expm1", "log", "log1p", "neg", "reciprocal",
    "relu", "relu_backward", "hardtanh_backward", "leaky_relu_backward",
    "hardsigmoid_backward", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "square",
    "tan", "tanh",
    "isfinite", "logit_derivative", "sinc_derivative", "maximum", "minimum", "add", "mul",
    "conj", "sgn", "make_complex", "view_as_real",
    "div", "div_floor", "div_trunc", "pow", "pow_scalar", "xlogy", "where",
    # creation, casts, broadcasting
    "zeros_like", "ones_like", "astype", "sum_to", "broadcast_to", "broadcast_copy",
    "reshape", "tril", "triu",
    # reductions and scans
    "sum", "prod_others", "var_backward", "std_backward", "logsumexp_backward",
    "vector_norm_backward", "index_add_along", "reverse_cumsum", "cumprod_backward", "diff",
    # linear algebra
    "matmul", "channel_sum", "sum_rows", "linear_weight_grad", "swapaxes", "einsum", "cross",
    "cdist_backward", "inv", "solve",
    "solve_triangular", "matrix_exp", "svd", "det",
    # shape, joins, views and writes
    "permute", "flip", "roll", "unfold", "unfold_backward", "repeat_interleave",
    "segment_sum", "concatenate", "stack", "split", "unbind", "narrow", "select",
    "diagonal", "basic_index", "assign", "pad", "pad_backward",
    # indexing
    "copy", "index", "index_put_", "masked_fill", "scatter_reduce"]

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
    if p and a._dtype.is_complex and p in (1, math.inf, -math.inf):   # sgn(z): smooth
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
    return ScatterReduceBackward.apply(a, src, index=index, reduce=reduce,
                                       include_self=include_self)


def pad(a, pads, mode, value):
    return PadBackward.call(a, pads=pads, mode=mode, value=value)


def pad_backward(g, pads, mode):
    """The adjoint of :func:`pad`: for constant padding, a crop (padding by minus the
    widths); for the other modes the op whose own gradient is padding again."""
    if mode == "constant":
        return PadBackward.call(g, pads=tuple((-a, -b) for a, b in pads), mode=mode, value=0)
    return PadGradBackward.call(g, pads=pads, mode=mode)


# -- the special-function area (lucid.ops.special.functions, lucid.ops.elementwise.numeric) --------------------

from ..special.functions import digamma, polygamma  # noqa: E402  (loaded before this module)
from ..elementwise.exp_log import exp2  # noqa: E402

__all__ += ["digamma", "polygamma", "exp2", "softmax_backward", "log_softmax_backward",
            "logcumsumexp_backward"]


# -- lucid.special's own ops (lucid.ops.special.gaussian, .bessel, .entropy, .gamma_zeta) -----

from ..special.functions import lgamma  # noqa: E402
from ..special.gaussian import erfcx  # noqa: E402
from ..special.bessel import (bessel_j0, bessel_j1, bessel_y0, bessel_y1, i0,  # noqa: E402
                              i0e, i1, i1e, modified_bessel_k0, modified_bessel_k1,
                              scaled_modified_bessel_k0, scaled_modified_bessel_k1)
from ..special.entropy import xlog1py  # noqa: E402
from ..special.gamma_zeta import zeta  # noqa: E402

__all__ += ["lgamma", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "erfcx", "i0", "i0e",
            "i1", "i1e", "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
            "scaled_modified_bessel_k1", "xlog1py", "zeta"]


def softmax_backward(out, g, axis):
    """:math:`y \\odot (g - \\sum_j g_j y_j)` along ``axis``, ``out`` = :math:`y`."""
    return out * (g - (g * out).sum(axis, keepdim=True))


def log_softmax_backward(out, g, axis):
    """:math:`g - e^{y} \\sum_j g_j` along ``axis``, ``out`` = :math:`y`."""
    return g - out.exp() * g.sum(axis, keepdim=True)


def logcumsumexp_backward(a, out, g, axis):
    """:math:`\\sum_{j \\ge k} g_j e^{a_k - y_j}` as :math:`e^{a - s}\\,
    \\mathrm{revcumsum}(g\\,e^{s - y})` with :math:`s` the last :math:`y` of each slice (a
    constant): exact, but it overflows when a slice of ``y`` spans more than about 700."""
    if not out.ndim or not out.numel():
        return g * (a - out).exp()
    n = out.shape[axis]
    s = out.detach().narrow(axis, n - 1, 1)
    w = _cumsum((g * (s - out).exp()).flip(axis), axis).flip(axis)
    return (a - s).exp() * w


def tanh_backward(g, y):
    """``g * (1 - y * y)`` as one recorded op (its own gradient: ``TanhBackwardBackward``)."""
    return TanhBackwardBackward.apply(g, y)


def sigmoid_backward(g, y):
    """``g * (1 - y) * y`` as one recorded op."""
    return SigmoidBackwardBackward.apply(g, y)


def pow_scalar_backward(g, x, p):
    """``g * (p * x ** (p - 1))`` (zeros for ``p == 0``) as one recorded op."""
    return PowScalarBackwardBackward.apply(g, x, exponent=p)


# == nn: convolution and pooling (graph-mode forms of lucid/backend/interface/conv.py) ====

from ..nn import conv as _conv, pooling as _pooling  # noqa: E402

__all__ += ["conv_forward", "conv_backward_input", "conv_backward_weight", "im2col",
            "col2im", "max_pool_backward", "pool_scatter", "pool_gather", "avg_pool_backward"]


def conv_forward(x, w, b, stride, padding, dilation, groups):
    """The convolution op (its gradients are convolutions again)."""
    args = (x, w) if b is None else (x, w, b)
    return _conv.ConvolutionBackward.apply(*args, stride=stride, padding=padding,
                                           dilation=dilation, groups=groups)


def conv_backward_input(g, w, in_spatial, stride, padding, dilation, groups):
    """The input gradient of a convolution: the transposed convolution op of ``g``."""
    return _conv.ConvTransposeBackward.apply(g, w, out_spatial=tuple(in_spatial),
                                             stride=stride, padding=padding,
                                             dilation=dilation, groups=groups)


def conv_backward_weight(g, x, kernel, stride, padding, dilation, groups):
    """The weight gradient as a convolution op: the input's channels of a group become a
    batch of ``C_in/G`` images with ``G N`` channels, the output gradient a kernel
    ``(C_out, N, *O)``; stride and dilation exchange roles, and the result is cropped to
    the kernel shape."""
    n, co = g.shape[:2]
    c = x.shape[1]
    sp = x.ndim - 2
    cg, cog = c // groups, co // groups
    rest = tuple(range(3, 3 + sp))
    xs = x.reshape((n, groups, cg) + tuple(x.shape[2:])).permute((2, 1, 0) + rest)
    xs = xs.reshape((cg, groups * n) + tuple(x.shape[2:]))
    gs = g.reshape((n, groups, cog) + tuple(g.shape[2:])).permute((1, 2, 0) + rest)
    gs = gs.reshape((co, n) + tuple(g.shape[2:]))
    r = _conv.ConvolutionBackward.apply(xs, gs, stride=tuple(dilation), padding=padding,
                                        dilation=tuple(stride), groups=groups)
    r = r[(slice(None), slice(None)) + tuple(slice(0, k) for k in kernel)]
    return r.permute((1, 0) + tuple(range(2, 2 + sp)))


def im2col(x, kernel, stride, padding, dilation):
    return _conv.Im2colBackward.apply(x, kernel=tuple(kernel), stride=stride,
                                      padding=padding, dilation=dilation)


def col2im(col, in_spatial, stride, padding, dilation):
    return _conv.Col2imBackward.apply(col, in_spatial=tuple(in_spatial), stride=stride,
                                      padding=padding, dilation=dilation)


def max_pool_backward(g, argmax, in_spatial, kernel, stride, padding, dilation):
    """``col2im`` (the op) of ``g`` times the one-hot of ``argmax`` over the kernel (a
    constant)."""
    sp = len(kernel)
    lead = tuple(g.shape[:2])
    k = 1
    for n in kernel:
        k *= n
    be = g._device._backend
    hot = be.reshape(argmax._data, lead + (1,) + tuple(argmax.shape[2:])) == \
        be.reshape(be.arange(0, 1, k, argmax._dtype.np), (1, 1, k) + (1,) * sp)
    hot = const(be.astype(hot, g._dtype.np), g)
    col = (g.reshape(lead + (1,) + tuple(g.shape[2:])) * hot)
    col = col.reshape(lead + tuple(kernel) + tuple(g.shape[2:]))
    return col2im(col, in_spatial, stride, padding, dilation)


def pool_scatter(g, indices, out_spatial, accumulate):
    """``g`` put at flat spatial ``indices``: the max-unpool op (its gradient a gather)."""
    return _pooling.MaxUnpoolBackward.apply(g, indices, out_spatial=tuple(out_spatial),
                                            accumulate=accumulate)


def pool_gather(x, indices):
    """``x`` read at flat spatial ``indices`` (``gather`` over the flattened spatial dims)."""
    n, c = x.shape[:2]
    flat = x.reshape((n, c, -1)).gather(2, indices.reshape((n, c, -1)))
    return flat.reshape(tuple(indices.shape))


def avg_pool_backward(g, in_spatial, kernel, stride, padding, divisor):
    """``col2im`` (the op) of :math:`g / D` broadcast over the kernel; ``divisor`` (an array
    or a number) is a constant."""
    if not isinstance(divisor, (int, float)):
        divisor = const(g._device._backend.astype(divisor, g._dtype.np), g)
    gd = g / divisor
    sp = len(kernel)
    col = gd.reshape(tuple(g.shape[:2]) + (1,) * sp + tuple(g.shape[2:]))
    col = col.expand(tuple(g.shape[:2]) + tuple(kernel) + tuple(g.shape[2:]))
    return col2im(col, in_spatial, stride, padding, (1,) * sp)


# == nn: normalisation, attention, embedding, dropout (interface/norm.py) ================

# -- normalisation, dropout, embedding (interface/norm.py) ------------------------------

__all__ += ["norm_backward"]


def norm_backward(g, x, w, mean, rstd, axes, paxes, eps, stats_grad, need):
    """The norms' gradients (see ``NormKernels.norm_backward``) in Lucid ops. Statistics
    taken from ``x`` (``stats_grad``) are recomputed from it, so the second derivative
    sees their dependence on ``x``; running statistics (``mean``/``rstd`` arrays) are
    constants."""
    if stats_grad:
        xc = x - x.mean(axes, keepdim=True) if mean is not None else x
        rstd = rsqrt((xc * xc).mean(axes, keepdim=True) + eps)
    else:
        xc = x - const(mean, x) if mean is not None else x
        rstd = const(rstd, x)
    xhat = xc * rstd
    gx = gw = gb = None
    if need[1]:
        gw = (g * xhat).sum(paxes, keepdim=True)
    if need[2]:
        gb = g.sum(paxes, keepdim=True)
    if need[0]:
        gh = g if w is None else g * w
        if stats_grad:
            gx = gh - xhat * (gh * xhat).mean(axes, keepdim=True)
            if mean is not None:
                gx = gx - gh.mean(axes, keepdim=True)
            gx = gx * rstd
        else:
            gx = gh * rstd
    return gx, gw, gb


__all__ += ["embedding_backward"]


def embedding_backward(g, idx, num_weights, padding_idx, scale_grad_by_freq):
    """The embedding weight's gradient (see ``NormKernels.embedding_backward``):
    ``scatter_add`` of ``g``'s rows into zeros; the frequency scale and the padding row's
    mask are constants."""
    be = g._device._backend
    flat = idx._data.reshape(-1)
    d = tuple(g.shape[idx.ndim:])
    g2 = g.reshape((flat.shape[0],) + d)
    if scale_grad_by_freq:
        counts = be.astype(be.bincount(flat, None, num_weights, flat.dtype), g._dtype.np)
        g2 = g2 * const(be.reshape(1 / be.index(counts, (flat,)), (-1,) + (1,) * len(d)), g)
    pos = be.broadcast_copy(be.reshape(flat, (-1,) + (1,) * len(d)), g2.shape)
    zeros = const(be.full((num_weights,) + d, 0, g._dtype.np), g)
    gw = _scatter_add(zeros, 0, const(pos, g), g2)
    if padding_idx is not None:
        keep = be.ones((num_weights,) + (1,) * len(d), g._dtype.np)
        be.index_put_(keep, (padding_idx,), 0, False)
        gw = gw * const(keep, g)
    return gw


__all__ += ["embedding_bag_backward"]


def embedding_bag_backward(g, weight, idx, bag, num_weights, mode, psw, aux,
                           scale_grad_by_freq, need):
    """The gradients of a bag of embeddings (see ``NormKernels.embedding_bag_backward``)
    in Lucid ops: ``g`` gathered by bag (scaled by the constant bag sizes, or times the
    per-sample weights) and scatter-added into the weight rows; for max, each element of
    ``g`` scatter-added to its maximum's row."""
    be = g._device._backend
    kpos = be.nonzero_index(bag >= 0)[0]
    iv, bv = be.index(idx._data, (kpos,)), be.index(bag, (kpos,))
    d = g.shape[1]
    gw = gpsw = None
    if need[0]:
        if mode == "max":
            rows = be.reshape(aux, (-1,))
            hit = be.nonzero_index(rows >= 0)[0]
            cols = be.broadcast_copy(be.arange(0, 1, d, rows.dtype), aux.shape)
            tgt = be.index(rows * d + be.reshape(cols, (-1,)), (hit,))
            zeros = const(be.full((num_weights * d,), 0, g._dtype.np), g)
            gw = _scatter_add(zeros, 0, const(tgt, g), index(g.reshape(-1), (hit,)))
            gw = gw.reshape(num_weights, d)
        else:
            eg = index(g, (bv,))
            if mode == "mean":
                size = be.index(be.maximum(aux, be.ones((), aux.dtype)), (bv,))
                eg = eg * const(be.astype(be.reshape(1 / size, (-1, 1)), g._dtype.np), g)
            elif psw is not None:
                eg = eg * index(psw, (kpos,)).unsqueeze(1)
            gw = embedding_backward(eg, const(iv, g), num_weights, None, scale_grad_by_freq)
    if need[1]:
        vals = (index(g, (bv,)) * index(weight, (iv,))).sum(1)
        gpsw = index_add_along(vals, kpos, 0, idx.shape[0])
    return gw, gpsw

# -- attention (interface/attention.py) -------------------------------------------------

from ..special.functions import softmax as _softmax  # noqa: E402

__all__ += ["attention_probs"]


def attention_probs(q, k, bias, allowed, scale, causal):
    """``softmax(scale * q k^T + bias)`` over the allowed keys (``allowed`` a bool array or
    None, ``causal`` top-left), recorded; a row with no finite score gives zeros (its
    scores are replaced by 0 before the softmax, so the gradient there is 0, not nan)."""
    s = _matmul(q, k.transpose(-1, -2)) * scale
    if bias is not None:
        s = s + bias
    be = q._device._backend
    if causal:
        tri = be.tril(be.full(tuple(s.shape[-2:]), True, _dt.bool.np), 0)
        allowed = tri if allowed is None else allowed & tri
    if allowed is not None:
        s = _where(const(allowed, q), s, -math.inf)
    if bias is None and allowed is None or not s.shape[-1]:
        return _softmax(s, -1)
    dead = s.detach().amax(-1, keepdim=True) == -math.inf
    return _where(dead, 0.0, _softmax(_where(dead, 0.0, s), -1))


# == nn: activations and losses (interface/loss.py) ========================================

from ..special.functions import softmax as _softmax_ce  # noqa: E402

__all__ += ["gelu_backward", "silu_backward", "cross_entropy_backward", "nll_loss_backward"]


def gelu_backward(a, g, approximate):
    """``g * GELU'(a)`` (see ``LossKernels.gelu_backward``) in Lucid ops."""
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        t = tanh(k * (a + 0.044715 * a * a * a))
        return g * (0.5 * (1 + t) + 0.5 * a * (1 - t * t) * (k * (1 + 0.134145 * a * a)))
    cdf = 0.5 * (1 + erf(a * math.sqrt(0.5)))
    return g * (cdf + a * exp(-0.5 * a * a) * (1.0 / math.sqrt(2.0 * math.pi)))


def silu_backward(a, g):
    s = sigmoid(a)
    return g * (s * (1 + a * (1 - s)))


def _class_loss_terms(be, target, weight, n_cls, ignore_index, reduction, g, npdtype):
    """The constants of a class-index loss gradient: the target weights ``wt``, the safe
    target, and the scale :math:`s_n` (``g`` over :math:`W` for a mean) shaped to
    broadcast over the class axis."""
    wt, safe = be.nll_target_weights(target, weight, n_cls, ignore_index, npdtype)
    s = g
    if reduction == "mean":
        w = float(wt.sum())
        s = g * (0.0 if w == 0 else 1.0 / w)
    elif reduction == "none":
        s = g.unsqueeze(1)
    return wt, safe, s


def cross_entropy_backward(a, lse, g, target, weight, ignore_index, reduction,
                           label_smoothing):
    """:math:`s_n (p_n \\sum_k q_{nk} - q_n)` with :math:`p` the softmax op of ``a``
    (recorded, so the Hessian is exact; ``lse`` is unused) and :math:`q` a constant."""
    be, npdt, n_cls = a._device._backend, a._dtype.np, a.shape[1]
    wt, safe, s = _class_loss_terms(be, target, weight, n_cls, ignore_index, reduction, g,
                                    npdt)
    q = be.class_onehot(safe, n_cls, npdt) * be.reshape(wt * (1.0 - label_smoothing),
                                                         (wt.shape[0], 1) + wt.shape[1:])
    if label_smoothing:
        valid = be.astype(target != ignore_index, npdt)
        wc = be.ones((n_cls,), npdt) if weight is None else be.astype(weight, npdt)
        q = q + be.reshape(valid, (wt.shape[0], 1) + wt.shape[1:]) * be.reshape(
            wc * (label_smoothing / n_cls), (1, n_cls) + (1,) * (wt.ndim - 1))
    q = const(q, a)
    return s * (_softmax_ce(a, 1) * q.sum(1, keepdim=True) - q)


def nll_loss_backward(g, target, weight, ignore_index, reduction, shape):
    """:math:`-s_n w_{y_n}` at the targets: ``g`` times a constant one-hot."""
    be, npdt = g._device._backend, g._dtype.np
    wt, safe, s = _class_loss_terms(be, target, weight, shape[1], ignore_index, reduction, g,
                                    npdt)
    hot = be.class_onehot(safe, shape[1], npdt) * be.reshape(wt, (wt.shape[0], 1) + wt.shape[1:])
    return -(s * const(hot, g))


# == nn: vision (interface/vision.py) ======================================================

from ..creation.creation import zeros as _zeros  # noqa: E402
from ..nn.vision import InterpolateBackward, InterpolateGradBackward  # noqa: E402

__all__ += ["interpolate", "interpolate_backward", "grid_sample_backward"]


def interpolate(x, size, mode, align_corners, scales):
    return InterpolateBackward.call(x, size=tuple(size), mode=mode,
                                    align_corners=align_corners, scales=scales)


def interpolate_backward(g, in_size, mode, align_corners, scales):
    """The adjoint of :func:`interpolate`, as the op whose own gradient is the forward."""
    return InterpolateGradBackward.call(g, in_size=tuple(in_size), mode=mode,
                                        align_corners=align_corners, scales=scales)


def _tap_weights(t, mode):
    """One axis' tap weights at fractional positions ``t`` and their derivatives in ``t``
    (linear; Keys' cubic with A = -0.75; nearest 1)."""
    if mode == "nearest":
        return (1,), (0,)
    if mode == "bilinear":
        return (1 - t, t), (-1, 1)
    a = -0.75

    def near(s):
        return ((a + 2) * s - (a + 3)) * s * s + 1, (3 * (a + 2) * s - 2 * (a + 3)) * s

    def far(s):
        return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a, (3 * a * s - 10 * a) * s + 8 * a

    (w0, d0), (w1, d1), (w2, d2), (w3, d3) = far(t + 1), near(t), near(1 - t), far(2 - t)
    return (w0, w1, w2, w3), (d0, d1, -d2, -d3)


def grid_sample_backward(g, x, grid, mode, padding_mode, align_corners, input_grad,
                         grid_grad):
    """The gradients of ``grid_sample`` composed from Lucid ops: the tap positions of
    ``be.grid_sample_plan`` are constants, the weights are recomputed from ``grid``,
    ``index_select`` / ``index_add`` read and scatter channels-last rows. ``None`` for a
    gradient not asked for."""
    n, ch = x.shape[:2]
    sp = tuple(x.shape[2:])
    d, p = len(sp), math.prod(sp)
    q = math.prod(grid.shape[1:-1])
    like = dict(dtype=g.dtype, device=g.device)
    gx = _zeros(n * p + 1, ch, **like)
    gc = [_zeros(n * q, **like) for _ in range(d)]
    axes = ()
    if g.numel() and x.numel():
        axes, taps = g._device._backend.grid_sample_plan(grid._data, sp, mode, padding_mode,
                                                         align_corners)
        flat = grid.reshape(n * q, d)
        ws = [_tap_weights(flat[:, d - 1 - a] * const(du, g) + const(b, g), mode)
              for a, (du, b) in enumerate(axes)]
        grows = g.reshape(n, ch, q).transpose(1, 2).reshape(n * q, ch)
        xrows = _cat([x.reshape(n, ch, p).transpose(1, 2).reshape(n * p, ch),
                      _zeros(1, ch, **like)], 0)
        for row, ks in taps:
            r = const(row, g)
            w = [ws[a][0][k] for a, k in enumerate(ks)]
            if input_grad:
                wk = math.prod(w)
                gx = gx.index_add(0, r, grows if isinstance(wk, int) else
                                  grows * wk.unsqueeze(1))
            if grid_grad and mode != "nearest":
                gv = (grows * xrows.index_select(0, r)).sum(1)
                for a, k in enumerate(ks):
                    gc[a] = gc[a] + gv * (ws[a][1][k] * math.prod(w[:a] + w[a + 1:]))
    gx = gx[:n * p].reshape(n, p, ch).transpose(1, 2).reshape(tuple(x.shape))
    if axes:
        gc = [gc[a] * const(axes[a][0], g) for a in range(d)]
    gg = _stack(gc[::-1], -1).reshape(tuple(grid.shape))
    return gx if input_grad else None, gg if grid_grad else None


# -- Fourier transforms ------------------------------------------------------------------------

from ..signal.fft import FftC2cBackward, FftC2rBackward, FftR2cBackward  # noqa: E402

__all__ += ["fft_c2c", "fft_r2c", "fft_c2r"]


def fft_c2c(a, axes, norm, forward):
    return FftC2cBackward.apply(a, axes=axes, norm=norm, forward=forward)


def fft_r2c(a, axes, norm):
    return FftR2cBackward.apply(a, axes=axes, norm=norm)


def fft_c2r(a, axes, norm, last):
    return FftC2rBackward.apply(a, axes=axes, norm=norm, last=last)
