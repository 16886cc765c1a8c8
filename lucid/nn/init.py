"""``lucid.nn.init``: in-place initialisers with PyTorch's fan and gain rules.

Every initialiser fills its tensor in place under ``no_grad`` (so it works on parameters
that require grad), draws from ``generator`` when given (else the default generator of the
tensor's device, :mod:`lucid.random`), and returns the tensor. For a weight of shape
``(out, in, *kernel)``: :math:`\\text{fan\\_in} = \\text{in} \\cdot \\prod \\text{kernel}`,
:math:`\\text{fan\\_out} = \\text{out} \\cdot \\prod \\text{kernel}`.
"""

from __future__ import annotations

import math
import numbers
import warnings

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..errors import ArgumentError, ShapeError
from ..ops import arange, rand

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "trunc_normal_",
    "constant_",
    "ones_",
    "zeros_",
    "eye_",
    "dirac_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "sparse_",
]

_LINEAR = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
)


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for ``nonlinearity``: 1 for linear/conv/sigmoid, 5/3 for tanh,
    :math:`\\sqrt 2` for relu, :math:`\\sqrt{2 / (1 + s^2)}` for leaky_relu with negative
    slope ``param`` (default 0.01), 3/4 for selu."""
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, numbers.Real) and not isinstance(param, bool):
            slope = param
        else:
            raise ArgumentError(f"calculate_gain: negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ArgumentError(f"calculate_gain: unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """``(fan_in, fan_out)`` of a weight ``(out, in, *kernel)`` (at least 2-D)."""
    if tensor.dim() < 2:
        raise ShapeError(
            "Fan in and fan out can not be computed for tensor with fewer than "
            f"2 dimensions (got shape {tuple(tensor.shape)})"
        )
    shape = tensor.shape
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ArgumentError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with :math:`\\mathcal U(a, b)`."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with :math:`\\mathcal N(\\text{mean}, \\text{std}^2)`."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with :math:`\\mathcal N(\\text{mean}, \\text{std}^2)` truncated to
    :math:`[a, b]`, by inverse transform: :math:`u \\sim \\mathcal U(2\\Phi(\\alpha) - 1,
    2\\Phi(\\beta) - 1)`, :math:`x = \\text{mean} + \\text{std}\\sqrt 2\\,
    \\operatorname{erf}^{-1}(u)` with :math:`\\alpha, \\beta` the standardised bounds, then
    clamped to :math:`[a, b]` against rounding."""

    def cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
            "distribution of values may be incorrect.",
            stacklevel=2,
        )
    lo, hi = cdf((a - mean) / std), cdf((b - mean) / std)
    with no_grad():
        tensor.uniform_(2 * lo - 1, 2 * hi - 1, generator=generator)
        tensor.erfinv_()
        tensor.mul_(std * math.sqrt(2.0))
        tensor.add_(mean)
        tensor.clamp_(min=a, max=b)
    return tensor


def constant_(tensor, val):
    """Fill with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fill with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fill with zeros."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fill a 2-D tensor with the identity (ones on the main diagonal of a possibly
    rectangular matrix), preserving the identity of the inputs in a linear layer."""
    if tensor.dim() != 2:
        raise ShapeError(
            f"eye_: only tensors with 2 dimensions are supported, got shape {tuple(tensor.shape)}"
        )
    with no_grad():
        tensor.zero_()
        tensor.fill_diagonal_(1)
    return tensor


def dirac_(tensor, groups=1):
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta: each of the first
    ``min(out // groups, in)`` output channels of every group copies one input channel at
    the kernel's centre, preserving the identity of the inputs in a convolution."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ShapeError(
            f"dirac_: only tensors with 3, 4, or 5 dimensions are supported, "
            f"got shape {tuple(tensor.shape)}"
        )
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ArgumentError(
            f"dirac_: dim 0 must be divisible by groups, got size {sizes[0]} and groups={groups}"
        )
    per_group = sizes[0] // groups
    n = min(per_group, sizes[1])
    centre = tuple(k // 2 for k in sizes[2:])
    with no_grad():
        tensor.zero_()
        if n:
            d = arange(n, device=tensor.device)
            rows = arange(groups, device=tensor.device).unsqueeze(1) * per_group + d
            tensor[(rows.reshape(-1), d.repeat(groups)) + centre] = 1
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot uniform: :math:`\\mathcal U(-a, a)`, :math:`a = \\text{gain}
    \\sqrt{6 / (\\text{fan\\_in} + \\text{fan\\_out})}`."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal: :math:`\\mathcal N(0, \\sigma^2)`, :math:`\\sigma = \\text{gain}
    \\sqrt{2 / (\\text{fan\\_in} + \\text{fan\\_out})}`."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He uniform: :math:`\\mathcal U(-b, b)`, :math:`b = \\text{gain} \\sqrt{3 /
    \\text{fan}}` with ``fan`` chosen by ``mode`` and the gain of ``nonlinearity`` (``a``:
    leaky_relu's negative slope). A zero-element tensor is left as is (with a warning)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal: :math:`\\mathcal N(0, \\sigma^2)`, :math:`\\sigma = \\text{gain} /
    \\sqrt{\\text{fan}}` (arguments as :func:`kaiming_uniform_`)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix times ``gain``, over the tensor viewed as
    ``(size(0), numel / size(0))``: the Q of the QR factorisation of a standard normal
    matrix, its columns' signs fixed by :math:`\\operatorname{sign}(\\operatorname{diag} R)`
    so that Q is Haar distributed."""
    if tensor.dim() < 2:
        raise ShapeError(
            f"orthogonal_: only tensors with 2 or more dimensions are "
            f"supported, got shape {tuple(tensor.shape)}"
        )
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
        if rows < cols:
            flat = flat.t()
        be = tensor.device.backend
        q, r = be.qr(flat._data)
        q = Tensor._wrap(q, flat.dtype, flat.device)
        d = Tensor._wrap(r, flat.dtype, flat.device).diagonal()
        q = q * d.sign()
        if rows < cols:
            q = q.t()
        tensor.copy_(q.reshape(tensor.shape))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill a 2-D tensor with :math:`\\mathcal N(0, \\text{std}^2)`, then zero
    :math:`\\lceil \\text{sparsity} \\cdot \\text{rows} \\rceil` randomly chosen rows in each
    column."""
    if tensor.dim() != 2:
        raise ShapeError(
            f"sparse_: only tensors with 2 dimensions are supported, got shape "
            f"{tuple(tensor.shape)}"
        )
    rows, cols = tensor.shape
    n_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        if n_zeros:
            keys = rand(rows, cols, generator=generator, device=tensor.device)
            idx = keys.argsort(dim=0)[:n_zeros]  # a random permutation per column
            tensor.scatter_(0, idx, 0.0)
    return tensor


def _deprecated(init):
    """PyTorch's old name of ``init`` (``uniform`` for ``uniform_``): the same function,
    with a ``FutureWarning`` naming the new one."""
    new = init.__name__
    old = new[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(
            f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new}`.",
            FutureWarning,
            stacklevel=2,
        )
        return init(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old
    deprecated_init.__doc__ = f"Deprecated: use :func:`{new}` (same arguments)."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
