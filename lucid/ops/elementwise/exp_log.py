r"""Exponentials, logarithms, roots and the logistic pair: ``exp``, ``exp2``, ``expm1``,
``log``, ``log2``, ``log10``, ``log1p``, ``sqrt``, ``rsqrt``, ``reciprocal``, ``sigmoid``,
``logit`` and their in-place forms.

All are real-valued (integer and bool inputs compute in the default float dtype) and
compute in float32 under autocast (``AmpPolicy.FORCE_FP32``). Where the derivative is a
function of the result (:math:`e^x`, :math:`\sqrt x`, :math:`\sigma(x)`) the op saves its
output rather than its input. Complex input: all but ``logit`` are holomorphic (principal
branches, as NumPy and PyTorch); ``logit`` refuses it, as in PyTorch.
"""

from __future__ import annotations

import math
import numbers

from ...errors import DTypeError
from ..core._bind import tensor_method
from ..core.base import UnaryOp
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ._common import _FP32, _inplace, _schema, _unary

__all__ = [
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sqrt",
    "rsqrt",
    "reciprocal",
    "sigmoid",
    "logit",
    "exp_",
    "exp2_",
    "expm1_",
    "log_",
    "log2_",
    "log10_",
    "log1p_",
    "sqrt_",
    "rsqrt_",
    "reciprocal_",
    "sigmoid_",
    "logit_",
]

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


@register
class ExpBackward(UnaryOp):
    r"""Autograd node for element-wise exponential :math:`y = e^x`.

    Saves the output :math:`y` rather than the input because the backward is
    :math:`\partial y / \partial x = e^x = y`: reusing it avoids a second ``exp`` pass.

    Math
    ----
    .. math:: \frac{\partial y}{\partial x} = e^x = y, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = y \, \frac{\partial \mathcal{L}}{\partial y}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"exp"``, ``AmpPolicy.FORCE_FP32`` (half inputs computed in float32), real-valued
        (integer input gives the default float dtype).
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y = e^x`.

    Notes
    -----
    Backends: ``xp.exp`` (NumPy on the CPU, CuPy on the GPU). Large positive inputs
    overflow to ``+inf``; large negative inputs flush to 0; ``exp(nan)`` is nan.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "exp",
        1,
        AmpPolicy.FORCE_FP32,
        deterministic=True,
        real_valued=True,
        complex_grad="holomorphic",
    )
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.exp(x)

    def grad(self, F, g, x, out):
        return g * out


@register
class Exp2Backward(UnaryOp):
    r"""Autograd node for :math:`y = 2^x`.

    Saves the output: the derivative is :math:`y \ln 2`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = y \ln 2 \; g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"exp2"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y = 2^x`.

    Notes
    -----
    Backends: ``xp.exp2``. Overflows to ``inf`` above the dtype's max exponent; flushes to 0
    far below.
    """

    __slots__ = ()
    schema_v1 = _schema("exp2", _FP32, real=True, cx="holomorphic")
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.exp2(x)

    def grad(self, F, g, x, out):
        return g * out * _LN2


@register
class Expm1Backward(UnaryOp):
    r"""Autograd node for :math:`y = e^x - 1`.

    Saves the output: the derivative is :math:`e^x = y + 1`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = (y + 1)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"expm1"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y = e^x - 1`.

    Notes
    -----
    Backends: ``xp.expm1``, accurate for small :math:`|x|` where ``exp(x) - 1`` cancels.
    ``expm1(-inf)`` is -1; large inputs overflow to ``inf``.
    """

    __slots__ = ()
    schema_v1 = _schema("expm1", _FP32, real=True, cx="holomorphic")
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.expm1(x)

    def grad(self, F, g, x, out):
        return g * (out + 1)


@register
class LogBackward(UnaryOp):
    r"""Autograd node for :math:`y = \ln x`.

    Saves the input: the derivative is :math:`1/x`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{g}{x}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"log"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.log``. ``log(0)`` is ``-inf`` (gradient ``inf``), negative inputs give
    nan; both silently, like PyTorch.
    """

    __slots__ = ()
    schema_v1 = _schema("log", _FP32, real=True, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.log(x)

    def grad(self, F, g, x, out):
        return g / x


@register
class Log2Backward(UnaryOp):
    r"""Autograd node for :math:`y = \log_2 x`.

    Saves the input: the derivative is :math:`1/(x \ln 2)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{g}{x \ln 2}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"log2"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.log2`` (exact at powers of two). ``-inf`` at 0, nan below.
    """

    __slots__ = ()
    schema_v1 = _schema("log2", _FP32, real=True, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.log2(x)

    def grad(self, F, g, x, out):
        return g / (x * _LN2)


@register
class Log10Backward(UnaryOp):
    r"""Autograd node for :math:`y = \log_{10} x`.

    Saves the input: the derivative is :math:`1/(x \ln 10)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{g}{x \ln 10}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"log10"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.log10``. ``-inf`` at 0, nan below.
    """

    __slots__ = ()
    schema_v1 = _schema("log10", _FP32, real=True, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.log10(x)

    def grad(self, F, g, x, out):
        return g / (x * _LN10)


@register
class Log1pBackward(UnaryOp):
    r"""Autograd node for :math:`y = \ln(1 + x)`.

    Saves the input: the derivative is :math:`1/(1 + x)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{g}{1 + x}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"log1p"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.log1p``, accurate for small :math:`|x|`. ``-inf`` at -1, nan below.
    """

    __slots__ = ()
    schema_v1 = _schema("log1p", _FP32, real=True, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.log1p(x)

    def grad(self, F, g, x, out):
        return g / (x + 1)


@register
class SqrtBackward(UnaryOp):
    r"""Autograd node for :math:`y = \sqrt{x}`.

    Saves the output: the derivative :math:`1 / (2\sqrt{x})` is :math:`1/(2y)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{g}{2y}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"sqrt"``, ``AmpPolicy.FORCE_FP32`` (a power), real-valued.
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y = \sqrt{x}`.

    Notes
    -----
    Backends: ``xp.sqrt`` (correctly rounded). ``sqrt(-1)`` is nan; at 0 the gradient is
    ``inf``.
    """

    __slots__ = ()
    schema_v1 = _schema("sqrt", _FP32, real=True, cx="holomorphic")
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.sqrt(x)

    def grad(self, F, g, x, out):
        return g / (out * 2)


@register
class RsqrtBackward(UnaryOp):
    r"""Autograd node for :math:`y = 1/\sqrt{x}`.

    Saves the output: the derivative :math:`-\tfrac12 x^{-3/2}` is :math:`-\tfrac12 y^3`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = -\tfrac12\, y^3\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"rsqrt"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y = x^{-1/2}`.

    Notes
    -----
    Backends: ``1 / xp.sqrt(x)`` (half inputs in float32). ``inf`` at 0, nan below 0.
    """

    __slots__ = ()
    schema_v1 = _schema("rsqrt", _FP32, real=True, cx="holomorphic")
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.rsqrt(x)

    def grad(self, F, g, x, out):
        return g * (out * out * out) * -0.5


@register
class ReciprocalBackward(UnaryOp):
    r"""Autograd node for :math:`y = 1/x`.

    Saves the output: the derivative :math:`-1/x^2` is :math:`-y^2`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = -y^2\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"reciprocal"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y = 1/x`.

    Notes
    -----
    Backends: ``xp.reciprocal``. ``1/0`` is ``inf`` (signed by the zero), ``1/inf`` is 0.
    Integer inputs compute in the default float dtype.
    """

    __slots__ = ()
    schema_v1 = _schema("reciprocal", _FP32, real=True, cx="holomorphic")
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.reciprocal(x)

    def grad(self, F, g, x, out):
        return -g * (out * out)


@register
class SigmoidBackward(UnaryOp):
    r"""Autograd node for the logistic function :math:`y = \sigma(x) = 1/(1 + e^{-x})`.

    Saves the output: the derivative is :math:`y (1 - y)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = y\,(1 - y)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"sigmoid"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y = \sigma(x)`.

    Notes
    -----
    Backends: ``1 / (1 + xp.exp(-x))`` (half inputs in float32). For very negative
    :math:`x`, :math:`e^{-x}` overflows to ``inf`` and :math:`y` is exactly 0 (no nan).
    The gradient is the ``sigmoid_backward`` kernel, in graph mode one op with its own
    gradient (:class:`~lucid.ops.elementwise.backward_ops.SigmoidBackwardBackward`).
    """

    __slots__ = ()
    schema_v1 = _schema("sigmoid", _FP32, real=True, cx="holomorphic")
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.sigmoid(x)

    def grad(self, F, g, x, out):
        return F.sigmoid_backward(g, out)


@register
class LogitBackward(UnaryOp):
    r"""Autograd node for :math:`y = \ln\frac{z}{1 - z}`, :math:`z = \mathrm{clamp}(x,
    \epsilon, 1 - \epsilon)` (:math:`z = x` when ``eps`` is None).

    Saves the input: the derivative depends on where :math:`x` lies.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{g}{x (1 - x)}

    inside :math:`[\epsilon, 1 - \epsilon]`; outside it is 0 (clamped) or, without
    ``eps``, nan outside :math:`[0, 1]` (PyTorch's ``logit_backward``).

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"logit"``, ``AmpPolicy.FORCE_FP32``, real-valued; ``params["eps"]``.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.log(z / (1 - z))`` (half inputs in float32). ``logit(0)`` is ``-inf``,
    ``logit(1)`` is ``inf``; outside :math:`[0, 1]` nan.

    The gradient at the ends of the domain is ``+inf`` at :math:`x = \pm 0` and at
    :math:`x = 1`, whatever the sign of the zero: :math:`-0` equals :math:`0`, which lies in
    the domain, and the derivative is positive throughout it, so the one-sided derivative
    from inside the domain is the value (the kernel divides by :math:`|x (1 - x)|`, which
    differs from :math:`x (1 - x)` only in the sign of a zero there). PyTorch's value at
    :math:`-0` depends on the CPU's SIMD path (``-inf`` or ``+inf``); Lucid's does not.
    """

    __slots__ = ()
    schema_v1 = _schema("logit", _FP32, real=True)
    saves_input = True

    @staticmethod
    def dispatch(be, x, eps=None):
        return be.logit(x, eps)

    def grad(self, F, g, x, out):
        return g * F.logit_derivative(x, self.params.get("eps"))


exp2 = _unary(Exp2Backward, "exp2", "Element-wise :math:`2^x`.")
expm1 = _unary(Expm1Backward, "expm1", "Element-wise :math:`e^x - 1`.")
log = _unary(LogBackward, "log", r"Element-wise natural logarithm :math:`\ln x`.")
log2 = _unary(Log2Backward, "log2", r"Element-wise :math:`\log_2 x`.")
log10 = _unary(Log10Backward, "log10", r"Element-wise :math:`\log_{10} x`.")
log1p = _unary(Log1pBackward, "log1p", r"Element-wise :math:`\ln(1 + x)`.")
sqrt = _unary(SqrtBackward, "sqrt", r"Element-wise :math:`\sqrt{x}`.")
rsqrt = _unary(RsqrtBackward, "rsqrt", r"Element-wise :math:`1/\sqrt{x}`.")
reciprocal = _unary(ReciprocalBackward, "reciprocal", "Element-wise :math:`1/x`.")
sigmoid = _unary(SigmoidBackward, "sigmoid", r"Element-wise :math:`1/(1 + e^{-x})`.")


@tensor_method("exp")
def exp(input):
    """Element-wise :math:`e^x`."""
    return ExpBackward.call(input)


@tensor_method("logit")
def logit(input, eps=None):
    r"""Element-wise :math:`\ln(z/(1-z))`, :math:`z` = ``input`` clamped to
    :math:`[\epsilon, 1-\epsilon]` when ``eps`` is given."""
    if eps is not None:
        if not isinstance(eps, numbers.Real):
            raise DTypeError(f"logit: eps must be a float or None, got {type(eps).__name__}")
        eps = float(eps)
        if eps < 0:  # PyTorch treats a negative eps as None
            eps = None
    return LogitBackward.call(input, eps=eps)


# -- in-place variants -------------------------------------------------------------------

exp_ = _inplace(exp)
exp2_ = _inplace(exp2)
expm1_ = _inplace(expm1)
log_ = _inplace(log)
log2_ = _inplace(log2)
log10_ = _inplace(log10)
log1p_ = _inplace(log1p)
sqrt_ = _inplace(sqrt)
rsqrt_ = _inplace(rsqrt)
reciprocal_ = _inplace(reciprocal)
sigmoid_ = _inplace(sigmoid)
logit_ = _inplace(logit)
