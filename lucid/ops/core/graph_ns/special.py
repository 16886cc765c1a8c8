"""The graph-mode kernels of the special functions and of softmax, log-softmax and
logcumsumexp, and the one-node backwards of tanh, sigmoid and the scalar power.

Part of :mod:`lucid.ops.core.graph_ns` (``F`` in graph mode).
"""

from __future__ import annotations


from ...elementwise.backward_ops import (
    PowScalarBackwardBackward,
    SigmoidBackwardBackward,
    TanhBackwardBackward,
)
from ...reduction.scans import cumsum as _cumsum
from ...special.functions import digamma, polygamma
from ...elementwise.exp_log import exp2
from ...special.functions import lgamma
from ...special.gaussian import erfcx
from ...special.bessel import (
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    i0,
    i0e,
    i1,
    i1e,
    modified_bessel_k0,
    modified_bessel_k1,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
)
from ...special.entropy import xlog1py
from ...special.gamma_zeta import zeta

__all__ = [
    "digamma",
    "polygamma",
    "exp2",
    "softmax_backward",
    "log_softmax_backward",
    "logcumsumexp_backward",
    "lgamma",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "erfcx",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "xlog1py",
    "zeta",
    "tanh_backward",
    "sigmoid_backward",
    "pow_scalar_backward",
]


# -- the special-function area (lucid.ops.special.functions, lucid.ops.elementwise.numeric) --


# -- lucid.special's own ops (lucid.ops.special.gaussian, .bessel, .entropy, .gamma_zeta) -----


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
