"""Scans and differences along one dim: ``cumsum`` and ``cumprod`` (and in place),
``cummax``, ``cummin`` and ``diff``.

As in PyTorch, integer and bool inputs scan in int64 and a 0-d input is seen as 1-d.
``cummax``/``cummin`` return ``(values, indices)`` as a
:data:`~lucid.ops.reduction.extrema.return_types` named tuple and route each value's
gradient to its index (:class:`~lucid.ops.reduction.extrema._PickBackward`). Here too are
the zero-safe graph-mode gradients of ``prod`` and ``cumprod`` (exclusive prefix times
suffix products), used by :mod:`lucid.ops.core.graph_ns`.

Complex: ``cumsum``, ``cumprod`` and ``diff`` are holomorphic; ``cummax``/``cummin``
refuse it.
"""

from __future__ import annotations

import numbers

from ... import dtypes as _dt
from ..._tensor.factory import dtype_arg
from ...errors import DTypeError, ShapeError
from ..core._bind import tensor_method
from ..core._formula import const
from ..core.base import UnaryOp, norm_dim, to_tensor
from ..core.inplace import apply_inplace
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ._common import _acc, _const, _on_scalar
from .extrema import _PickBackward, return_types
from .sums import sum as _sum
from ..shape.joins import cat
from ..shape.padding import pad

__all__ = ["cumsum", "cumprod", "cummax", "cummin", "diff"]


# -- running extremes --------------------------------------------------------------------


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


# -- zero-safe graph-mode gradients of prod and cumprod ----------------------------------


def _prod_others_t(x, d):
    r"""Tensor of :math:`\prod_{j \ne i} x_j` along ``d`` (differentiable, zero-safe)."""
    tail = (0, 0) * (x.ndim - 1 - d)
    left = cumprod(pad(x, tail + (1, -1), value=1), d)
    right = cumprod(pad(x, tail + (-1, 1), value=1).flip(d), d).flip(d)
    return left * right


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
        step = _const(first, g) + _const(after, g) * _sum(x * _const(first, g), d, True)
        coef = step if coef is None else coef * step
        x = x * _const(1 - first, g) + _const(first, g)
        out = cumprod(x, d)


# -- differences -------------------------------------------------------------------------


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
        if n > shape[d]:  # empty output: nothing flows back
            return const(self.be.full(shape, 0, dt.np), g)
        r = F.diff(F.pad(g, self._pads(), "constant", 0), n, d)
        return -r if n % 2 else r


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
    if n == 0:  # PyTorch: the input itself, dim, prepend, append unread
        return x
    d = norm_dim(dim, nd, "diff")
    if prepend is not None or append is not None:
        x = _diff_join(x, d, prepend, append)
    return DiffBackward.call(x, n=int(n), dim=d)


def _diff_join(x, d, prepend, append):
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
            raise ShapeError(
                f"diff: expects prepend or append to be the same dimension as "
                f"input ({x._data.ndim}), got {t._data.ndim}"
            )
        parts.append(t)
    return cat(parts, d)
