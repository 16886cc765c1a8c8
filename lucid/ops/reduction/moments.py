r"""Moments and norms over dims: ``var``, ``std``, ``var_mean``, ``std_mean`` and the
vector norm (:func:`vector_norm`, with :func:`norm_input` the checks that
``lucid.linalg.vector_norm``, ``matrix_norm`` and ``torch.norm`` (:mod:`.norm`) share).

``correction`` is the degrees-of-freedom correction (default 1, Bessel's): the divisor is
:math:`\max(0, N - c)`. The backwards recompute the deviations from the mean rather than
keep them; the graph-mode ones (in :mod:`lucid.ops.core.graph_ns`) use :func:`_dof`,
:func:`_inv` and :func:`_masked_div_t` from here. As in PyTorch these refuse integer
input, and complex input gives real results (of :math:`|z|`).
"""

from __future__ import annotations

import builtins as _b
import math
import numbers

from ... import dtypes as _dt
from ..._tensor.factory import dtype_arg
from ...errors import ArgumentTypeError, DTypeError, reports_as
from ..core._bind import tensor_method
from ..core.base import ReductionOp, norm_dims, to_tensor
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ._common import _const, _dim_arg, _floating, _nonempty
from .sums import mean

__all__ = ["var", "std", "var_mean", "std_mean"]

_INF = float("inf")


# -- helpers, also of the graph-mode backwards -------------------------------------------


def _dof(shape, dims, correction):
    return _b.max(0.0, math.prod(shape[d] for d in dims) - correction)


def _inv(n):
    return 1.0 / n if n else _INF


def _masked_div_t(be, g, y, y_arr, power=1):
    r"""Tensor :math:`g / y^{power}`, 0 where :math:`y = 0` (``y_arr``: ``y``'s array),
    differentiable in both without a nan from the masked entries."""
    zero = y_arr == 0
    den = y + _const(be.astype(zero, y_arr.dtype), g)
    return g * _const(be.astype(~zero, y_arr.dtype), g) / (den if power == 1 else den**power)


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
        return F.std_backward(x, self.unreduce(out), self.unreduce(g), p["dim"], p["correction"])


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
        return F.vector_norm_backward(x, self.unreduce(out), self.unreduce(g), p["p"], p["dim"])


# -- wrappers: moments and norms ---------------------------------------------------------


def _moment(cls, input, dim, unbiased, keepdim, correction, op):
    if isinstance(dim, bool):  # legacy var(x, unbiased)
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


def norm_input(input, dtype, op):
    """The input of a norm, PyTorch's checks: floating or complex, cast to ``dtype`` (if
    given) only where that widens it."""
    x = to_tensor(input)
    if not (x._dtype.is_floating_point or x._dtype.is_complex):
        raise DTypeError(f"{op}(): expected a floating point or complex input, got {x._dtype.name}")
    if dtype is None:
        return x
    dtype = dtype_arg(dtype, op)
    if (
        not (dtype.is_floating_point or dtype.is_complex)
        or _dt.promote_types(x._dtype, dtype) is not dtype
    ):
        raise DTypeError(
            f"{op}(): the input's dtype {x._dtype.name} cannot be cast without "
            f"narrowing to dtype={dtype.name}"
        )
    return x if x._dtype is dtype else x.to(dtype)


def vector_norm(input, ord, dim, keepdim, dtype, op):
    """The vector ``ord``-norm with PyTorch's checks (``linalg.vector_norm``'s): a
    floating or complex input, a ``dtype`` it widens to, a number ``ord`` (bool counts as
    0 / 1), and no negative or infinite order over an empty dim (no identity)."""
    x = norm_input(input, dtype, op)
    if not isinstance(ord, numbers.Real):
        raise ArgumentTypeError(
            f"{op}(): argument 'ord' must be a number, not {type(ord).__name__}"
        )
    dim = _dim_arg(x, dim, op)
    if isinstance(dim, numbers.Integral):
        dim = (dim,)
    p = float(ord)
    if p < 0 or p == _INF:  # no identity: nothing to reduce over is an error
        _nonempty(x, () if dim is None else norm_dims(dim, x._data.ndim, op), op, dim is not None)
    return NormBackward.call(x, dim, keepdim, p=p)
