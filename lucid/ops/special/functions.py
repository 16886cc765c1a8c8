"""Special functions and the fused softmax family.

``lgamma``, ``digamma``, ``polygamma`` (the gamma family, evaluated by the backend's own
series), ``softmax`` and ``log_softmax`` (one fused node each, analytic backward, computed
in float32 under autocast) and ``logcumsumexp`` (a stable running log-add-exp).
"""

from __future__ import annotations

import numbers

from ..._tensor.factory import dtype_arg
from ...errors import ArgumentError, DTypeError
from ..core._bind import install, tensor_method
from ..core.base import UnaryOp, norm_dim, to_tensor
from ..core.inplace import apply_inplace
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = ["lgamma", "digamma", "polygamma", "softmax", "log_softmax", "logcumsumexp"]

_FP32 = AmpPolicy.FORCE_FP32


# == the gamma family ======================================================================


@register
class LgammaBackward(UnaryOp):
    r"""Autograd node for :math:`y = \ln|\Gamma(x)|`.

    Saves the input: the derivative is the digamma function of it.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \psi(x)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"lgamma"``, ``AmpPolicy.FORCE_FP32``, real-valued (integer input gives the default
        float dtype).
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.lgamma``, computed in float64 from a series around the zeros at 1 and 2,
    the recurrence, Stirling's series from 10 on and the reflection formula below 1/2 (no
    SciPy), then rounded to the input dtype. :math:`+\infty` at 0, at the negative integers
    and at :math:`\pm\infty`; overflows to :math:`+\infty` beyond about 2.5e305.
    """

    __slots__ = ()
    schema_v1 = OpSchema("lgamma", 1, _FP32, real_valued=True)
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.lgamma(x)

    def grad(self, F, g, x, out):
        return g * F.digamma(x)


@register
class DigammaBackward(UnaryOp):
    r"""Autograd node for :math:`y = \psi(x) = \frac{d}{dx} \ln\Gamma(x)`.

    Saves the input: the derivative is the trigamma function :math:`\psi^{(1)}` of it.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \psi^{(1)}(x)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"digamma"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.digamma`` (recurrence up to 10, then the asymptotic series; reflection
    below 0), in float64. :math:`-\infty` at :math:`+0` and :math:`+\infty` at :math:`-0` as
    in PyTorch; nan at the negative integers and at :math:`-\infty`. Near the positive root
    (1.4616...) the error is absolute (about 1e-16), not relative.
    """

    __slots__ = ()
    schema_v1 = OpSchema("digamma", 1, _FP32, real_valued=True)
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.digamma(x)

    def grad(self, F, g, x, out):
        return g * F.polygamma(1, x)


@register
class PolygammaBackward(UnaryOp):
    r"""Autograd node for :math:`y = \psi^{(n)}(x)`, :math:`n \ge 1`.

    Saves the input: the derivative is :math:`\psi^{(n+1)}` of it.

    Math
    ----
    .. math:: \psi^{(n)}(x) = (-1)^{n+1} n!\,\zeta(n + 1, x), \qquad
              \frac{\partial \mathcal{L}}{\partial x} = \psi^{(n+1)}(x)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"polygamma"``, ``AmpPolicy.FORCE_FP32``, real-valued; ``n`` is a keyword param.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.polygamma``: the Hurwitz zeta by Euler-Maclaurin after shifting
    :math:`x` past :math:`20 + n` (the shift loops over the array once per unit step, so very
    negative inputs cost in proportion); :math:`n = 1` below 0 uses the reflection
    formula. Poles at 0 and the negative integers give :math:`\pm\infty`; 0 at
    :math:`+\infty`. (``n = 0`` is :func:`digamma`.)
    """

    __slots__ = ()
    schema_v1 = OpSchema("polygamma", 1, _FP32, real_valued=True)
    saves_input = True

    @staticmethod
    def dispatch(be, x, n):
        return be.polygamma(n, x)

    def grad(self, F, g, x, out):
        return g * F.polygamma(self.params["n"] + 1, x)


@tensor_method("lgamma")
def lgamma(input):
    """Element-wise :math:`\\ln|\\Gamma(x)|`."""
    return LgammaBackward.call(input)


@tensor_method("digamma")
def digamma(input):
    """Element-wise digamma :math:`\\psi(x)`, the derivative of :func:`lgamma`."""
    return DigammaBackward.call(input)


def polygamma(n, input):
    """Element-wise :math:`\\psi^{(n)}(x)`, the ``n``-th derivative of :func:`digamma`
    (``n = 0`` is digamma)."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise ArgumentError(f"polygamma: n must be an int, got {type(n).__name__}")
    if n < 0:
        raise ArgumentError(f"polygamma: n must be non-negative, got {n}")
    if n == 0:
        return digamma(input)
    return PolygammaBackward.call(input, n=int(n))


install(
    polygamma=lambda self, n: polygamma(n, self),
    lgamma_=lambda self: apply_inplace(lgamma, self),
    digamma_=lambda self: apply_inplace(digamma, self),
    polygamma_=lambda self, n: apply_inplace(lambda x: polygamma(n, x), self),
)


# == the softmax family ====================================================================


@register
class SoftmaxBackward(UnaryOp):
    r"""Autograd node for :math:`y = \mathrm{softmax}(x)` along ``dim``, one fused op.

    Saves the output: the Jacobian-vector product needs only :math:`y`.

    Math
    ----
    .. math:: y_i = \frac{e^{x_i}}{\sum_j e^{x_j}}, \qquad
              \frac{\partial \mathcal{L}}{\partial x_i} = y_i \Big(g_i - \sum_j g_j y_j\Big)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"softmax"``, ``AmpPolicy.FORCE_FP32``: half inputs are computed in float32 under
        autocast (exponentials overflow early in half).
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y`.

    Notes
    -----
    Backends: ``be.softmax`` subtracts the max along ``dim`` before exponentiating, so large
    inputs do not overflow; a slice of all :math:`-\infty` gives nan (PyTorch); an empty
    ``dim`` gives an empty result. Half inputs compute in float32 and round back. The
    backward is ``be.softmax_backward``, one fused kernel.
    """

    __slots__ = ()
    schema_v1 = OpSchema("softmax", 1, _FP32)
    saves_output = True

    @staticmethod
    def dispatch(be, x, dim):
        return be.softmax(x, dim)

    def grad(self, F, g, x, out):
        return F.softmax_backward(out, g, self.params["dim"])


@register
class LogSoftmaxBackward(UnaryOp):
    r"""Autograd node for :math:`y = \log\mathrm{softmax}(x)` along ``dim``, one fused op.

    Saves the output: :math:`e^y` is the softmax the backward needs.

    Math
    ----
    .. math:: y_i = x_i - \ln\sum_j e^{x_j}, \qquad
              \frac{\partial \mathcal{L}}{\partial x_i} = g_i - e^{y_i} \sum_j g_j

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"log_softmax"``, ``AmpPolicy.FORCE_FP32``.
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y`.

    Notes
    -----
    Backends: ``be.log_softmax``: :math:`(x - m) - \ln\sum e^{x - m}` with :math:`m` the max
    (0 where it is infinite), so it neither overflows nor loses small probabilities to
    :math:`\ln 0`; half inputs compute in float32. Backward: ``be.log_softmax_backward``.
    """

    __slots__ = ()
    schema_v1 = OpSchema("log_softmax", 1, _FP32)
    saves_output = True

    @staticmethod
    def dispatch(be, x, dim):
        return be.log_softmax(x, dim)

    def grad(self, F, g, x, out):
        return F.log_softmax_backward(out, g, self.params["dim"])


@register
class LogcumsumexpBackward(UnaryOp):
    r"""Autograd node for :math:`y_k = \ln\sum_{j \le k} e^{x_j}` along ``dim``.

    Saves input and output: the gradient weighs each :math:`g_j` by :math:`e^{x_k - y_j}`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_k} = \sum_{j \ge k} g_j\, e^{x_k - y_j}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"logcumsumexp"``, ``AmpPolicy.FORCE_FP32``.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----
    Backends: ``be.logcumsumexp``, a running ``logaddexp`` (``logaddexp.accumulate`` on
    NumPy), stable for large and widely spread inputs (``[-1000, 0]`` gives ``[-1000, 0]``).
    The gradient is one formula, ``F.logcumsumexp_backward``: the backend kernel (eager)
    works in log space on the positive and negative parts of ``g`` separately, as PyTorch
    does; its graph-mode counterpart (``graph_ns``) is
    :math:`e^{x - s} \cdot \mathrm{revcumsum}(g\,e^{s - y})` with :math:`s` the last
    :math:`y` of each slice (a constant): exact and twice differentiable, but it overflows
    when a slice of ``y`` spans more than about 700 (float64).
    """

    __slots__ = ()
    schema_v1 = OpSchema("logcumsumexp", 1, _FP32)
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x, dim):
        return be.logcumsumexp(x, dim)

    def grad(self, F, g, x, out):
        return F.logcumsumexp_backward(x, out, g, self.params["dim"])


def _softmax_input(input, dim, dtype, op):
    x = to_tensor(input)
    if dtype is not None:
        dt = dtype_arg(dtype, op)
        if x._dtype is not dt:
            x = x.to(dt)
    if not x._dtype.is_floating_point:
        raise DTypeError(
            f"{op}: not implemented for {x._dtype.name} input; expected a "
            "floating point tensor (or pass dtype=)"
        )
    if dim is None:
        raise ArgumentError(
            f"{op}: dim must be given (implicit dim selection is "
            "deprecated in PyTorch and not supported)"
        )
    return x, norm_dim(dim, x._data.ndim, op)


@tensor_method("softmax")
def softmax(input, dim=None, dtype=None):
    """:math:`e^{x_i} / \\sum_j e^{x_j}` along ``dim`` (``dtype``: cast the input first)."""
    x, d = _softmax_input(input, dim, dtype, "softmax")
    return SoftmaxBackward.call(x, dim=d)


@tensor_method("log_softmax")
def log_softmax(input, dim=None, dtype=None):
    """:math:`x_i - \\ln\\sum_j e^{x_j}` along ``dim`` (``dtype``: cast the input first)."""
    x, d = _softmax_input(input, dim, dtype, "log_softmax")
    return LogSoftmaxBackward.call(x, dim=d)


@tensor_method("logcumsumexp")
def logcumsumexp(input, dim):
    """:math:`y_k = \\ln\\sum_{j \\le k} e^{x_j}` along ``dim``."""
    x = to_tensor(input)
    d = norm_dim(dim, x._data.ndim, "logcumsumexp")
    if not x._dtype.is_floating_point:
        raise DTypeError(
            f"logcumsumexp: not implemented for {x._dtype.name} input; "
            "expected a floating point tensor"
        )
    return LogcumsumexpBackward.call(x, dim=d)
