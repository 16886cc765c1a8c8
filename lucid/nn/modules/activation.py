"""Activation layers: each holds its options (and PReLU its slopes); ``forward`` is one call
of :mod:`lucid.nn.functional`. ``extra_repr`` reads as PyTorch's."""

from __future__ import annotations

from typing import Any

from ...errors import ArgumentError, ShapeError
from ...ops import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .attention import MultiheadAttention  # noqa: F401  (PyTorch's path for it)
from .module import Module

__all__ = [
    "ReLU",
    "ReLU6",
    "LeakyReLU",
    "PReLU",
    "RReLU",
    "ELU",
    "SELU",
    "CELU",
    "GELU",
    "SiLU",
    "Mish",
    "Sigmoid",
    "Tanh",
    "Softplus",
    "Softsign",
    "Hardtanh",
    "Hardsigmoid",
    "Hardswish",
    "Hardshrink",
    "Softshrink",
    "Tanhshrink",
    "Threshold",
    "GLU",
    "LogSigmoid",
    "Softmax",
    "Softmin",
    "LogSoftmax",
    "Softmax2d",
]


def _inplace(inplace, lead=""):
    return f"{lead}inplace=True" if inplace else ""


class _Inplace(Module):
    """An activation whose only option is ``inplace``."""

    _fn: Any = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace(self.inplace)


class _Plain(Module):
    """An activation without options."""

    _fn: Any = None

    def forward(self, input):
        return type(self)._fn(input)


class ReLU(_Inplace):
    """:func:`~lucid.nn.functional.relu`."""

    _fn = staticmethod(F.relu)


class SELU(_Inplace):
    """:func:`~lucid.nn.functional.selu`."""

    _fn = staticmethod(F.selu)


class SiLU(_Inplace):
    """:func:`~lucid.nn.functional.silu`."""

    _fn = staticmethod(F.silu)


class Mish(_Inplace):
    """:func:`~lucid.nn.functional.mish`."""

    _fn = staticmethod(F.mish)


class Hardsigmoid(_Inplace):
    """:func:`~lucid.nn.functional.hardsigmoid`."""

    _fn = staticmethod(F.hardsigmoid)

    def extra_repr(self):
        return ""


class Hardswish(_Inplace):
    """:func:`~lucid.nn.functional.hardswish`."""

    _fn = staticmethod(F.hardswish)

    def extra_repr(self):
        return ""


class Sigmoid(_Plain):
    """:func:`~lucid.nn.functional.sigmoid`."""

    _fn = staticmethod(F.sigmoid)


class Tanh(_Plain):
    """:func:`~lucid.nn.functional.tanh`."""

    _fn = staticmethod(F.tanh)


class Softsign(_Plain):
    """:func:`~lucid.nn.functional.softsign`."""

    _fn = staticmethod(F.softsign)


class Tanhshrink(_Plain):
    """:func:`~lucid.nn.functional.tanhshrink`."""

    _fn = staticmethod(F.tanhshrink)


class LogSigmoid(_Plain):
    """:func:`~lucid.nn.functional.logsigmoid`."""

    _fn = staticmethod(F.logsigmoid)


class Hardtanh(Module):
    """:func:`~lucid.nn.functional.hardtanh` with ``min_val`` and ``max_val``."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if max_val <= min_val:
            raise ArgumentError(
                f"Hardtanh: max_val ({max_val}) must be greater than min_val ({min_val})"
            )

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace(self.inplace, ', ')}"


class ReLU6(Hardtanh):
    """:func:`~lucid.nn.functional.relu6` (``Hardtanh(0, 6)``)."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace(self.inplace)


class LeakyReLU(Module):
    """:func:`~lucid.nn.functional.leaky_relu` with ``negative_slope``."""

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_inplace(self.inplace, ', ')}"


class PReLU(Module):
    """:func:`~lucid.nn.functional.prelu` with learnable slopes ``weight``
    (``num_parameters``: 1, or the number of channels), all starting at ``init``."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """:func:`~lucid.nn.functional.rrelu`: random slopes in training, their mean in
    evaluation."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_inplace(self.inplace, ', ')}"


class ELU(Module):
    """:func:`~lucid.nn.functional.elu` with ``alpha``."""

    _fn = staticmethod(F.elu)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace(self.inplace, ', ')}"


class CELU(ELU):
    """:func:`~lucid.nn.functional.celu` with ``alpha``."""

    _fn = staticmethod(F.celu)


class GELU(Module):
    """:func:`~lucid.nn.functional.gelu`, exact (``"none"``) or ``"tanh"``."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    """:func:`~lucid.nn.functional.softplus` with ``beta`` and ``threshold``."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardshrink(Module):
    """:func:`~lucid.nn.functional.hardshrink` with ``lambd``."""

    _fn = staticmethod(F.hardshrink)

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return type(self)._fn(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """:func:`~lucid.nn.functional.softshrink` with ``lambd``."""

    _fn = staticmethod(F.softshrink)


class Threshold(Module):
    """:func:`~lucid.nn.functional.threshold`: ``value`` where the input is at most
    ``threshold``."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_inplace(self.inplace, ', ')}"


class GLU(Module):
    """:func:`~lucid.nn.functional.glu` along ``dim``."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(Module):
    """:func:`~lucid.nn.functional.softmax` along ``dim``."""

    _fn = staticmethod(F.softmax)

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return type(self)._fn(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmin(Softmax):
    """:func:`~lucid.nn.functional.softmin` along ``dim``."""

    _fn = staticmethod(F.softmin)


class LogSoftmax(Softmax):
    """:func:`~lucid.nn.functional.log_softmax` along ``dim``."""

    _fn = staticmethod(F.log_softmax)


class Softmax2d(Module):
    """Softmax over the channels of ``(N, C, H, W)`` or ``(C, H, W)`` input (dim -3)."""

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ShapeError(
                f"Softmax2d: expected a 3-D or 4-D input (C, H, W) or "
                f"(N, C, H, W), got {input.ndim}-D"
            )
        return F.softmax(input, -3, _stacklevel=5)
