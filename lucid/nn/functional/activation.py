"""Activation functions (relu family, gelu, silu, softmax family, glu, ...).

GELU and SiLU are fused ops (:mod:`lucid.ops.elementwise.activation`), softmax and log-softmax
those of :mod:`lucid.ops.special.functions`; the rest are short compositions of Lucid ops
whose gradients match PyTorch's (where a branch could overflow, it is evaluated on a clamped
input so that no inf reaches a masked-out gradient). ``inplace=True`` writes the result into
the input through :func:`lucid.ops.apply_inplace`, as PyTorch's in-place forms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numbers
import warnings

from ... import ops as _ops
from ...errors import ArgumentError, DTypeError, ShapeError
from ...ops.elementwise.activation import (
    GeluBackward,
    HardsigmoidBackward,
    HardtanhBackward,
    LeakyReluBackward,
    SiluBackward,
)
from ...ops.core.base import norm_dim, to_tensor
from ...ops.core.inplace import alias_safe, apply_inplace

if TYPE_CHECKING:
    from ..._tensor import Tensor

__all__ = [
    "relu",
    "relu_",
    "relu6",
    "leaky_relu",
    "leaky_relu_",
    "prelu",
    "rrelu",
    "rrelu_",
    "elu",
    "elu_",
    "selu",
    "selu_",
    "celu",
    "celu_",
    "gelu",
    "silu",
    "mish",
    "sigmoid",
    "tanh",
    "softplus",
    "softsign",
    "hardtanh",
    "hardtanh_",
    "hardsigmoid",
    "hardswish",
    "hardshrink",
    "softshrink",
    "tanhshrink",
    "threshold",
    "threshold_",
    "glu",
    "logsigmoid",
    "softmax",
    "softmin",
    "log_softmax",
    "gumbel_softmax",
]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _float_input(input, op):
    x = to_tensor(input)
    if not x.dtype.is_floating_point:
        raise DTypeError(f"{op}: expected a floating point input, got {x.dtype}")
    return x


def _maybe_inplace(fn, input, inplace, *args):
    if inplace:
        return apply_inplace(fn, input, *args)
    return fn(input, *args)


# -- the relu family -----------------------------------------------------------------------


@alias_safe
def _relu(x):
    return _ops.relu(x)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """:math:`\\max(0, x)`."""
    return _maybe_inplace(_relu, to_tensor(input), inplace)


def relu_(input):
    """In-place :func:`relu`."""
    return relu(input, inplace=True)


@alias_safe
def _hardtanh(x, min_val, max_val):
    return HardtanhBackward.call(x, min_val=min_val, max_val=max_val)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """:math:`\\min(\\max(x, \\text{min\\_val}), \\text{max\\_val})`; gradient 1 strictly
    inside, 0 elsewhere (as PyTorch)."""
    if min_val > max_val:
        raise ArgumentError(
            f"hardtanh: min_val ({min_val}) cannot be greater than max_val ({max_val})"
        )
    return _maybe_inplace(_hardtanh, _float_input(input, "hardtanh"), inplace, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place :func:`hardtanh`."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    """:math:`\\min(\\max(0, x), 6)`."""
    return hardtanh(input, 0.0, 6.0, inplace)


@alias_safe
def _leaky_relu(x, negative_slope):
    return LeakyReluBackward.call(x, negative_slope=negative_slope)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """:math:`x` for :math:`x > 0`, else :math:`\\text{negative\\_slope} \\cdot x`."""
    return _maybe_inplace(_leaky_relu, _float_input(input, "leaky_relu"), inplace, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """In-place :func:`leaky_relu`."""
    return leaky_relu(input, negative_slope, inplace=True)


def prelu(input, weight):
    """:math:`x` for :math:`x > 0`, else :math:`a_c x` with the learnable slopes ``weight``
    (one, or one per channel: dim 1 of ``input``)."""
    x = _float_input(input, "prelu")
    w = to_tensor(weight, x)
    n = w.numel()
    if w.ndim > 1:
        raise ShapeError(f"prelu: weight must be 0-d or 1-d, got shape {tuple(w.shape)}")
    channels = x.shape[1] if x.ndim >= 2 else 1
    if n != 1 and n != channels:
        raise ShapeError(
            f"prelu: mismatch of parameter numbers and input channel size: "
            f"weight has {n} elements, input has {channels} channels "
            f"(input shape {tuple(x.shape)})"
        )
    if n != 1 and x.ndim >= 2:
        w = w.reshape((n,) + (1,) * (x.ndim - 2))
    elif n == 1:
        w = w.reshape(())
    return _ops.where(x > 0, x, w * x)


@alias_safe
def _rrelu(x, lower, upper, training):
    if not training:
        return _leaky_relu(x, (lower + upper) / 2)
    a = _ops.rand_like(x.detach()) * (upper - lower) + lower
    return _ops.where(x >= 0, x, a * x)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky relu: in training, slopes drawn uniformly from
    :math:`[\\text{lower}, \\text{upper})` per element (Lucid's RNG); in evaluation the mean
    slope :math:`(\\text{lower} + \\text{upper}) / 2`."""
    if lower > upper:
        raise ArgumentError(
            f"rrelu: lower bound ({lower}) should be less than or equal to "
            f"the upper bound ({upper})"
        )
    return _maybe_inplace(_rrelu, _float_input(input, "rrelu"), inplace, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place :func:`rrelu`."""
    return rrelu(input, lower, upper, training, inplace=True)


@alias_safe
def _elu(x, alpha, scale=1.0, input_scale=1.0):
    # the negative branch sees min(x, 0): no exp overflow behind the mask
    neg = _ops.expm1(_ops.clamp(x, max=0.0) * input_scale) * (alpha * scale)
    pos = x if scale == 1.0 else x * scale
    return _ops.where(x > 0, pos, neg)


def elu(input, alpha=1.0, inplace=False):
    """:math:`x` for :math:`x > 0`, else :math:`\\alpha (e^x - 1)`."""
    return _maybe_inplace(_elu, _float_input(input, "elu"), inplace, alpha)


def elu_(input, alpha=1.0):
    """In-place :func:`elu`."""
    return elu(input, alpha, inplace=True)


def selu(input, inplace=False):
    """:math:`\\lambda\\,\\mathrm{elu}(x, \\alpha)` with :math:`\\alpha \\approx 1.6733`,
    :math:`\\lambda \\approx 1.0507`."""
    return _maybe_inplace(_elu, _float_input(input, "selu"), inplace, _SELU_ALPHA, _SELU_SCALE)


def selu_(input):
    """In-place :func:`selu`."""
    return selu(input, inplace=True)


def celu(input, alpha=1.0, inplace=False):
    """:math:`\\max(0, x) + \\min(0, \\alpha (e^{x/\\alpha} - 1))`."""
    if alpha == 0:
        raise ArgumentError("celu: ZeroDivisionError: alpha cannot be 0 for CELU")
    return _maybe_inplace(_elu, _float_input(input, "celu"), inplace, alpha, 1.0, 1.0 / alpha)


def celu_(input, alpha=1.0):
    """In-place :func:`celu`."""
    return celu(input, alpha, inplace=True)


@alias_safe
def _threshold(x, threshold, value):
    # replaced where x <= threshold, so nan is kept (as PyTorch)
    return _ops.where(x <= threshold, _ops.full_like(x.detach(), value), x)


def threshold(input, threshold, value, inplace=False):
    """``value`` where :math:`x \\le \\text{threshold}`, else :math:`x` (nan is kept)."""
    return _maybe_inplace(_threshold, to_tensor(input), inplace, threshold, value)


def threshold_(input, threshold, value):
    """In-place :func:`threshold`."""
    return _maybe_inplace(_threshold, to_tensor(input), True, threshold, value)


# -- smooth activations --------------------------------------------------------------------


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """:math:`x\\,\\Phi(x)` (``approximate="none"``) or its tanh approximation
    (``"tanh"``); one fused op."""
    if approximate not in ("none", "tanh"):
        raise ArgumentError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return GeluBackward.call(_float_input(input, "gelu"), approximate=approximate)


@alias_safe
def _silu(x):
    return SiluBackward.call(x)


def silu(input, inplace=False):
    """:math:`x\\,\\sigma(x)`; one fused op."""
    return _maybe_inplace(_silu, _float_input(input, "silu"), inplace)


def _softplus(x, beta, threshold):
    bx = x * beta if beta != 1 else x
    soft = _ops.logaddexp(bx, _ops.zeros_like(bx.detach()))
    if beta != 1:
        soft = soft / beta
    return _ops.where(bx > threshold, x, soft)


def softplus(input, beta=1.0, threshold=20.0):
    """:math:`\\frac{1}{\\beta}\\ln(1 + e^{\\beta x})`, and :math:`x` where
    :math:`\\beta x > \\text{threshold}` (the linear regime, as PyTorch)."""
    return _softplus(_float_input(input, "softplus"), beta, threshold)


@alias_safe
def _mish(x):
    return x * _ops.tanh(_softplus(x, 1.0, 20.0))


def mish(input, inplace=False):
    """:math:`x \\tanh(\\mathrm{softplus}(x))`."""
    return _maybe_inplace(_mish, _float_input(input, "mish"), inplace)


def sigmoid(input):
    """:math:`1 / (1 + e^{-x})`."""
    return _ops.sigmoid(input)


def tanh(input):
    """:math:`\\tanh x`."""
    return _ops.tanh(input)


def softsign(input):
    """:math:`x / (1 + |x|)`."""
    x = to_tensor(input)
    return x / (_ops.abs(x) + 1)


def logsigmoid(input):
    """:math:`\\ln \\sigma(x) = -\\ln(1 + e^{-x})`, stable for large :math:`|x|`."""
    x = _float_input(input, "logsigmoid")
    return -_ops.logaddexp(-x, _ops.zeros_like(x.detach()))


@alias_safe
def _hardsigmoid(x):
    return HardsigmoidBackward.call(x)


def hardsigmoid(input, inplace=False):
    """:math:`\\mathrm{relu6}(x + 3) / 6`; gradient :math:`1/6` strictly inside
    :math:`(-3, 3)`."""
    return _maybe_inplace(_hardsigmoid, _float_input(input, "hardsigmoid"), inplace)


@alias_safe
def _hardswish(x):
    # composed with clamp, not hardsigmoid, whose gradient has no derivative (PyTorch's
    # hardswish has a second derivative); the mask makes the gradient 0 at +-3 like
    # PyTorch's, where clamp's passes
    inside = (x > -3.0) & (x < 3.0)
    hs = _ops.where(inside, x + 3.0, _ops.clamp(x.detach() + 3.0, 0.0, 6.0)) / 6.0
    return x * hs


def hardswish(input, inplace=False):
    """:math:`x\\,\\mathrm{relu6}(x + 3) / 6`."""
    return _maybe_inplace(_hardswish, _float_input(input, "hardswish"), inplace)


def hardshrink(input, lambd=0.5):
    """:math:`x` where :math:`|x| > \\lambda`, else 0."""
    x = _float_input(input, "hardshrink")
    return _ops.where((x > lambd) | (x < -lambd), x, 0.0)


def softshrink(input, lambd=0.5):
    """:math:`x - \\lambda` above :math:`\\lambda`, :math:`x + \\lambda` below
    :math:`-\\lambda`, else 0."""
    if lambd < 0:
        raise ArgumentError(
            f"softshrink: lambda must be greater or equal to 0, but found to be {lambd}"
        )
    x = _float_input(input, "softshrink")
    return _ops.where(x > lambd, x - lambd, _ops.where(x < -lambd, x + lambd, 0.0))


def tanhshrink(input):
    """:math:`x - \\tanh x`."""
    x = to_tensor(input)
    return x - _ops.tanh(x)


def glu(input, dim=-1):
    """:math:`a \\odot \\sigma(b)` with :math:`a, b` the halves of ``input`` along
    ``dim``."""
    x = to_tensor(input)
    if x.ndim == 0:
        raise ShapeError("glu: does not support scalars because halving size must be even")
    d = norm_dim(dim, x.ndim, "glu")
    n = x.shape[d]
    if n % 2:
        raise ShapeError(f"glu: halving dimension must be even, but dimension {d} is size {n}")
    a, b = x.split(n // 2, d)
    return a * _ops.sigmoid(b)


# -- the softmax family --------------------------------------------------------------------


def _softmax_dim(name, ndim, stacklevel):
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the "
        "call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """:math:`e^{x_i} / \\sum_j e^{x_j}` along ``dim`` (None: PyTorch's implicit choice,
    with its deprecation warning); ``dtype`` casts the input first."""
    x = to_tensor(input)
    if dim is None:
        dim = _softmax_dim("softmax", x.ndim, _stacklevel)
    return _ops.softmax(x, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """:math:`\\mathrm{softmax}(-x)` along ``dim``."""
    x = to_tensor(input)
    if dim is None:
        dim = _softmax_dim("softmin", x.ndim, _stacklevel)
    if dtype is not None:
        x = x.to(dtype)
    return _ops.softmax(-x, dim)


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """:math:`x_i - \\ln\\sum_j e^{x_j}` along ``dim``; ``dtype`` casts the input first."""
    x = to_tensor(input)
    if dim is None:
        dim = _softmax_dim("log_softmax", x.ndim, _stacklevel)
    return _ops.log_softmax(x, dim, dtype=dtype)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax distribution:
    :math:`\\mathrm{softmax}((\\text{logits} + G) / \\tau)` with :math:`G = -\\ln E`,
    :math:`E \\sim \\mathrm{Exp}(1)` (Lucid's RNG). ``hard``: the one-hot of the argmax in
    the forward, the soft sample's gradient in the backward (straight-through). ``eps`` is
    accepted and ignored, with PyTorch's deprecation warning."""
    x = _float_input(logits, "gumbel_softmax")
    if eps != 1e-10:
        warnings.warn(
            "gumbel_softmax: the eps parameter is deprecated and has no effect", stacklevel=2
        )
    if not isinstance(tau, numbers.Real) or tau <= 0:
        raise ArgumentError(f"gumbel_softmax: tau must be a positive number, got {tau!r}")
    d = norm_dim(dim, x.ndim, "gumbel_softmax")
    gumbels = -_ops.empty_like(x.detach()).exponential_().log()
    y = _ops.softmax((x + gumbels) / tau, d)
    if not hard:
        return y
    index = y.detach().argmax(d, keepdim=True)
    y_hard = _ops.zeros_like(y.detach()).scatter_(d, index, 1.0)
    return y_hard - y.detach() + y
