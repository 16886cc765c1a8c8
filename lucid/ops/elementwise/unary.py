r"""Element-wise unary ops: ``y = f(x)``.

Families: sign and magnitude (``neg``, ``abs``, ``sign``, ``square``, ``relu``, ``clamp``),
exponentials and logarithms, trigonometric and hyperbolic functions, the error function,
rounding, and floating-point classification (``isnan``, ...; bool results, not
differentiable).

Real-valued ops (``exp``, ``log``, ``sin``, ``sigmoid``, ``erf``, ...) compute integer and
bool inputs in the default float dtype; ``neg``, ``abs``, ``sign``, ``square``, ``relu``,
the rounding ops and ``clamp`` keep integer dtypes. Gradient formulas follow PyTorch's
``derivatives.yaml`` (masks at ties and domain edges included). Each op writes its gradient
once, as ``grad(self, F, g, x, out)`` (see :meth:`~lucid.ops.core.base.Op.grad`); in graph mode
its masks are comparisons, tensors without history, where PyTorch uses boolean selections,
so the second derivative through a piecewise op is that of the selected branch.

Complex input (``complex_grad`` in the schemas): the exponentials, logarithms, roots,
reciprocal, sigmoid, ``sinc``, ``neg``, ``square`` and the trigonometric and hyperbolic
functions and their inverses are holomorphic (principal branches, as NumPy and PyTorch);
``abs`` gives a real result with the gradient :math:`g\,z/|z|`; ``isnan``/``isinf``/
``isfinite`` test either part and ``nan_to_num`` replaces each part. ``sign``, ``relu``,
``clamp``, the rounding ops, ``erf*``, ``logit`` and ``signbit`` refuse complex input, as
in PyTorch (``sgn`` is :mod:`lucid.ops.elementwise.complex`'s).
"""

from __future__ import annotations

import math
import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import DTypeError, ValueOverflowError, reports_as
from ..core._bind import tensor_method
from ..core.base import UnaryOp, _cast, apply_inplace, to_tensor
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = ["neg", "negative", "positive", "abs", "absolute", "sign", "signbit",
           "square", "relu", "clamp", "clip", "clamp_min", "clamp_max",
           "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
           "reciprocal", "sigmoid", "logit",
           "sin", "cos", "tan", "asin", "acos", "atan", "arcsin", "arccos", "arctan",
           "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "arcsinh", "arccosh",
           "arctanh", "sinc", "erf", "erfc", "erfinv",
           "floor", "ceil", "round", "trunc", "fix", "frac",
           "isnan", "isinf", "isposinf", "isneginf", "isfinite", "nan_to_num"]

_FP32 = AmpPolicy.FORCE_FP32
_KEEP = AmpPolicy.KEEP_INPUT
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = math.sqrt(math.pi) / 2.0


def _schema(name, policy, real=False, cx=None):
    return OpSchema(name, 1, policy, real_valued=real, complex_grad=cx)


class _StepBackward(UnaryOp):
    """A piecewise-constant op: its gradient is 0 wherever it exists (PyTorch's choice at
    the jumps too)."""

    __slots__ = ()

    def grad(self, F, g, x, out):
        return F.zeros_like(g)


# == sign and magnitude ======================================================================

@register
class NegBackward(UnaryOp):
    r"""Autograd node for :math:`y = -x`.

    Saves nothing: the derivative is the constant -1.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = -g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"neg"``, ``AmpPolicy.KEEP_INPUT`` (exact in any dtype).
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.negative``. Integers wrap (``-(-128)`` is -128 in int8, ``-1`` is 255 in
    uint8); bool input is rejected, as in PyTorch.
    """

    __slots__ = ()
    schema_v1 = _schema("neg", _KEEP, cx="holomorphic")

    @staticmethod
    def dispatch(be, x):
        return be.neg(x)

    def grad(self, F, g, x, out):
        return -g


@register
class AbsBackward(UnaryOp):
    r"""Autograd node for :math:`y = |x|`.

    Saves the input: the gradient is its sign.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \operatorname{sgn}(x)\, g

    with :math:`\operatorname{sgn}(0) = \operatorname{sgn}(\mathrm{nan}) = 0` (PyTorch's
    choice); for complex :math:`z` the result :math:`|z|` is real and
    :math:`\operatorname{sgn}(z) = z/|z|`, so the gradient is :math:`g\,z/|z|`.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"abs"``, ``AmpPolicy.KEEP_INPUT``, ``complex_grad="custom"`` (not holomorphic).
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.absolute``. ``abs(-0.)`` is 0; the most negative integer maps to itself;
    bool input is rejected.
    """

    __slots__ = ()
    schema_v1 = _schema("abs", _KEEP, cx="custom")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.abs(x)

    def grad(self, F, g, x, out):
        return g * F.sgn(x)


@register
class SignBackward(_StepBackward):
    r"""Autograd node for :math:`y = \operatorname{sgn}(x) \in \{-1, 0, 1\}`.

    Saves nothing: the derivative is 0 wherever it exists.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = 0

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"sign"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.sign``; integer dtypes are kept, bool input is returned as is (PyTorch).
    ``sign(nan)`` is 0 and ``sign(-0.)`` is 0, like PyTorch.
    """

    __slots__ = ()
    schema_v1 = _schema("sign", _KEEP)

    @staticmethod
    def dispatch(be, x):
        return be.sign(x)


@register
class SquareBackward(UnaryOp):
    r"""Autograd node for :math:`y = x^2`.

    Saves the input: the gradient is linear in it.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = 2x\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"square"``, ``AmpPolicy.FORCE_FP32`` (a power: half inputs above 256 overflow).
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.square``. Integer dtypes are kept (and wrap); bool input gives int64,
    as in PyTorch.
    """

    __slots__ = ()
    schema_v1 = _schema("square", _FP32, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.square(x)

    def grad(self, F, g, x, out):
        return g * (x * 2)


@register
class ReluBackward(UnaryOp):
    r"""Autograd node for :math:`y = \max(x, 0)`.

    Saves the output: the gradient passes where it is positive, which the output tells as
    well as the input, and the output is what the next layer keeps alive anyway.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \begin{cases} 0 & y \le 0 \\
              g & \text{otherwise} \end{cases}

    (a selection, not a product: 0 at :math:`x = 0` even for an infinite :math:`g`, passed
    through at nan, like PyTorch's ``threshold_backward``).

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"relu"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y`.

    Notes
    -----
    Backends: ``xp.maximum(x, 0)``; nan stays nan; integer dtypes are kept, bool input is
    rejected. The backward is ``be.relu_backward`` (one fused kernel on CUDA).
    """

    __slots__ = ()
    schema_v1 = _schema("relu", _KEEP)
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.relu(x)

    def grad(self, F, g, x, out):
        return F.relu_backward(out, g)


@register
class ClampBackward(UnaryOp):
    r"""Autograd node for :math:`y = \min(\max(x, lo), hi)` with number or tensor bounds.

    Saves the input (and tensor bounds, which are inputs too): the gradient is routed by
    comparing :math:`x` with the bounds.

    Math
    ----
    .. math::
        \frac{\partial \mathcal{L}}{\partial x} = \mathbb{1}[lo \le x \le hi]\, g, \quad
        \frac{\partial \mathcal{L}}{\partial lo} = \mathbb{1}[x < lo,\ lo < hi]\, g, \quad
        \frac{\partial \mathcal{L}}{\partial hi} = \mathbb{1}[x > hi \ \lor\ hi < lo]\, g

    A missing bound drops its condition. At :math:`x = lo` or :math:`x = hi` the gradient
    goes to :math:`x` (PyTorch's subgradient); when :math:`lo > hi` the output is
    :math:`hi` and so is the gradient's destination.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"clamp"``, ``AmpPolicy.KEEP_INPUT``, variable arity: ``x`` followed by the
        tensor bounds named in ``params["tensors"]`` (``("min",)``, ``("max",)`` or
        both); number bounds travel in ``params["min"]`` / ``params["max"]``.
    saves_input : bool
        True: :math:`x` and the tensor bounds.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.maximum`` then ``xp.minimum`` (bounds broadcast); nan in :math:`x` or a
    bound gives nan (and a zero gradient). The wrapper promotes :math:`x` and the bounds
    together first (``clamp(int_tensor, min=0.5)`` is float32, like PyTorch).
    """

    __slots__ = ()
    schema_v1 = OpSchema("clamp", 1, _KEEP, input_arity=-1)
    saves_input = True
    _broadcast = True       # tensor bounds broadcast against the input

    @staticmethod
    def dispatch(be, x, *bounds, min=None, max=None, tensors=()):
        for name, b in zip(tensors, bounds):
            if name == "min":
                min = b
            else:
                max = b
        return be.clamp(x, min, max)

    @staticmethod
    def _masks(x, lo, hi):
        """Bool masks (arrays or tensors, as ``x``) routing the gradient to x, lo and hi
        (None where not needed)."""
        if lo is None:
            return x <= hi, None, x > hi
        if hi is None:
            return x >= lo, x < lo, None
        return (x >= lo) & (x <= hi), (x < lo) & (lo < hi), (x > hi) | (hi < lo)

    def grad(self, F, g, x, *bounds_and_out):
        p = self.params
        lo, hi = p.get("min"), p.get("max")
        for name, b in zip(p.get("tensors", ()), bounds_and_out):
            if name == "min":
                lo = b
            else:
                hi = b
        mx, mlo, mhi = self._masks(x, lo, hi)
        out = [g * mx]
        for name in p.get("tensors", ()):
            out.append(g * (mlo if name == "min" else mhi))
        return tuple(out)


# == exponentials and logarithms =============================================================

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
    schema_v1 = OpSchema("exp", 1, AmpPolicy.FORCE_FP32, deterministic=True, real_valued=True,
            complex_grad="holomorphic")
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


# == trigonometric and hyperbolic ============================================================

@register
class SinBackward(UnaryOp):
    r"""Autograd node for :math:`y = \sin x`.

    Saves the input: the derivative is :math:`\cos x`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \cos x \; g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"sin"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.sin``. ``sin(±inf)`` is nan. Large arguments lose relative accuracy
    with the argument reduction of the platform's libm.
    """

    __slots__ = ()
    schema_v1 = _schema("sin", _FP32, real=True, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.sin(x)

    def grad(self, F, g, x, out):
        return g * F.cos(x)


@register
class CosBackward(UnaryOp):
    r"""Autograd node for :math:`y = \cos x`.

    Saves the input: the derivative is :math:`-\sin x`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = -\sin x \; g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"cos"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.cos``. ``cos(±inf)`` is nan.
    """

    __slots__ = ()
    schema_v1 = _schema("cos", _FP32, real=True, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.cos(x)

    def grad(self, F, g, x, out):
        return g * -F.sin(x)


@register
class TanBackward(UnaryOp):
    r"""Autograd node for :math:`y = \tan x`.

    Saves the output: the derivative :math:`\sec^2 x` is :math:`1 + y^2`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = (1 + y^2)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"tan"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y = \tan x`.

    Notes
    -----
    Backends: ``xp.tan``. Near the poles :math:`\pi/2 + k\pi` the result is large and
    finite (the argument is never exactly a pole in floating point).
    """

    __slots__ = ()
    schema_v1 = _schema("tan", _FP32, real=True, cx="holomorphic")
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.tan(x)

    def grad(self, F, g, x, out):
        return g * (1 + out * out)


@register
class AsinBackward(UnaryOp):
    r"""Autograd node for :math:`y = \arcsin x`.

    Saves the input: the derivative is :math:`1/\sqrt{1 - x^2}`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{g}{\sqrt{1 - x^2}}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"asin"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.arcsin``. nan outside :math:`[-1, 1]`; the gradient is ``inf`` at
    :math:`\pm 1`.
    """

    __slots__ = ()
    schema_v1 = _schema("asin", _FP32, real=True, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.asin(x)

    def grad(self, F, g, x, out):
        return g * F.rsqrt(1 - x * x)


@register
class AcosBackward(UnaryOp):
    r"""Autograd node for :math:`y = \arccos x`.

    Saves the input: the derivative is :math:`-1/\sqrt{1 - x^2}`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = -\frac{g}{\sqrt{1 - x^2}}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"acos"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.arccos``. nan outside :math:`[-1, 1]`; the gradient is ``-inf`` at
    :math:`\pm 1`.
    """

    __slots__ = ()
    schema_v1 = _schema("acos", _FP32, real=True, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.acos(x)

    def grad(self, F, g, x, out):
        return -g * F.rsqrt(1 - x * x)


@register
class AtanBackward(UnaryOp):
    r"""Autograd node for :math:`y = \arctan x`.

    Saves the input: the derivative is :math:`1/(1 + x^2)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{g}{1 + x^2}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"atan"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.arctan``; :math:`\pm\pi/2` at :math:`\pm\infty` (gradient 0).
    """

    __slots__ = ()
    schema_v1 = _schema("atan", _FP32, real=True, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.atan(x)

    def grad(self, F, g, x, out):
        return g / (1 + x * x)


@register
class SinhBackward(UnaryOp):
    r"""Autograd node for :math:`y = \sinh x`.

    Saves the input: the derivative is :math:`\cosh x`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \cosh x \; g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"sinh"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.sinh``. Overflows to :math:`\pm\infty` for :math:`|x|` beyond about
    710 (float64) or 89 (float32).
    """

    __slots__ = ()
    schema_v1 = _schema("sinh", _FP32, real=True, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.sinh(x)

    def grad(self, F, g, x, out):
        return g * F.cosh(x)


@register
class CoshBackward(UnaryOp):
    r"""Autograd node for :math:`y = \cosh x`.

    Saves the input: the derivative is :math:`\sinh x`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \sinh x \; g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"cosh"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.cosh``. Overflows to ``inf`` like ``sinh``.
    """

    __slots__ = ()
    schema_v1 = _schema("cosh", _FP32, real=True, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.cosh(x)

    def grad(self, F, g, x, out):
        return g * F.sinh(x)


@register
class TanhBackward(UnaryOp):
    r"""Autograd node for :math:`y = \tanh x`.

    Saves the output: the derivative is :math:`1 - y^2`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = (1 - y^2)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"tanh"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y = \tanh x`.

    Notes
    -----
    Backends: ``xp.tanh``; saturates to :math:`\pm 1` without overflow. The gradient is
    the ``tanh_backward`` kernel, in graph mode one op with its own gradient
    (:class:`~lucid.ops.elementwise.backward_ops.TanhBackwardBackward`).
    """

    __slots__ = ()
    schema_v1 = _schema("tanh", _FP32, real=True, cx="holomorphic")
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.tanh(x)

    def grad(self, F, g, x, out):
        return F.tanh_backward(g, out)


@register
class AsinhBackward(UnaryOp):
    r"""Autograd node for :math:`y = \operatorname{arsinh} x`.

    Saves the input: the derivative is :math:`1/\sqrt{x^2 + 1}`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{g}{\sqrt{x^2 + 1}}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"asinh"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.arcsinh``, defined on all reals.
    """

    __slots__ = ()
    schema_v1 = _schema("asinh", _FP32, real=True, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.asinh(x)

    def grad(self, F, g, x, out):
        return g * F.rsqrt(x * x + 1)


@register
class AcoshBackward(UnaryOp):
    r"""Autograd node for :math:`y = \operatorname{arcosh} x`.

    Saves the input: the derivative is :math:`1/\sqrt{x^2 - 1}`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{g}{\sqrt{x^2 - 1}}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"acosh"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.arccosh``. nan below 1 (``acosh(0.5)``); the gradient is ``inf`` at 1.
    """

    __slots__ = ()
    schema_v1 = _schema("acosh", _FP32, real=True, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.acosh(x)

    def grad(self, F, g, x, out):
        return g * F.rsqrt(x * x - 1)


@register
class AtanhBackward(UnaryOp):
    r"""Autograd node for :math:`y = \operatorname{artanh} x`.

    Saves the input: the derivative is :math:`1/(1 - x^2)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{g}{1 - x^2}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"atanh"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.arctanh``. :math:`\pm\infty` at :math:`\pm 1`, nan outside.
    """

    __slots__ = ()
    schema_v1 = _schema("atanh", _FP32, real=True, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.atanh(x)

    def grad(self, F, g, x, out):
        return g / (1 - x * x)


@register
class SincBackward(UnaryOp):
    r"""Autograd node for the normalised sinc :math:`y = \sin(\pi x) / (\pi x)`
    (:math:`y(0) = 1`).

    Saves the input: the derivative needs :math:`\sin` and :math:`\cos` of :math:`\pi x`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} =
              \frac{\pi x \cos(\pi x) - \sin(\pi x)}{\pi x^2}\, g

    and 0 where :math:`\pi x^2` is 0 (at :math:`x = 0`, the true limit, and where it
    underflows), like PyTorch's ``sinc_backward``.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"sinc"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.sin(pi * x) / (pi * x)`` with 1 selected at 0 (half inputs in float32);
    ``sinc(±inf)`` is nan. Graph mode substitutes 1 for the masked inputs before the
    formula, so the second derivative there is 0 (PyTorch's ``where`` lets nan through).
    """

    __slots__ = ()
    schema_v1 = _schema("sinc", _FP32, real=True, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.sinc(x)

    def grad(self, F, g, x, out):
        return g * F.sinc_derivative(x)


# == error function ==========================================================================

@register
class ErfBackward(UnaryOp):
    r"""Autograd node for the error function :math:`y = \mathrm{erf}(x)`.

    Saves the input: the derivative is the Gaussian :math:`\frac{2}{\sqrt\pi} e^{-x^2}`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{2}{\sqrt\pi} e^{-x^2}\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"erf"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: NumPy has no ``erf``; the array backend evaluates it in float64 from the
    Maclaurin series (:math:`|x| < 2`) and Laplace's continued fraction of ``erfc``
    (beyond), to within a few ulp of float64; ``erf(±inf)`` is :math:`\pm 1`.
    """

    __slots__ = ()
    schema_v1 = _schema("erf", _FP32, real=True)
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.erf(x)

    def grad(self, F, g, x, out):
        return g * F.exp(-(x * x)) * _TWO_OVER_SQRT_PI


@register
class ErfcBackward(UnaryOp):
    r"""Autograd node for the complementary error function :math:`y = 1 - \mathrm{erf}(x)`.

    Saves the input: the derivative is :math:`-\frac{2}{\sqrt\pi} e^{-x^2}`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = -\frac{2}{\sqrt\pi} e^{-x^2}\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"erfc"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: the array backend's float64 ``erfc``: Laplace's continued fraction for
    :math:`x \ge 2`, keeping relative accuracy deep in the tail (``erfc(26)`` is about
    5.7e-296, not 0), and :math:`1 - \mathrm{erf}(x)` below.
    """

    __slots__ = ()
    schema_v1 = _schema("erfc", _FP32, real=True)
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.erfc(x)

    def grad(self, F, g, x, out):
        return g * F.exp(-(x * x)) * -_TWO_OVER_SQRT_PI


@register
class ErfinvBackward(UnaryOp):
    r"""Autograd node for the inverse error function :math:`y = \mathrm{erf}^{-1}(x)`.

    Saves the output: by the inverse-function rule the derivative is
    :math:`\frac{\sqrt\pi}{2} e^{y^2}`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{\sqrt\pi}{2} e^{y^2}\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"erfinv"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y = \mathrm{erf}^{-1}(x)`.

    Notes
    -----
    Backends: the array backend refines a closed-form first guess with two Halley steps on
    ``erf`` in float64. :math:`\pm\infty` at :math:`\pm 1`, nan outside
    :math:`[-1, 1]`.
    """

    __slots__ = ()
    schema_v1 = _schema("erfinv", _FP32, real=True)
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.erfinv(x)

    def grad(self, F, g, x, out):
        return g * F.exp(out * out) * _HALF_SQRT_PI


# == rounding ================================================================================

@register
class FloorBackward(_StepBackward):
    r"""Autograd node for :math:`y = \lfloor x \rfloor`.

    Saves nothing: the gradient is 0.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = 0

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"floor"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.floor``; integer inputs are copied (dtype kept); bool is rejected.
    ``floor(-0.5)`` is -1; nan and :math:`\pm\infty` pass through.
    """

    __slots__ = ()
    schema_v1 = _schema("floor", _KEEP)

    @staticmethod
    def dispatch(be, x):
        return be.floor(x)


@register
class CeilBackward(_StepBackward):
    r"""Autograd node for :math:`y = \lceil x \rceil`.

    Saves nothing: the gradient is 0.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = 0

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"ceil"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.ceil``; integer inputs are copied; bool is rejected. ``ceil(-0.5)`` is
    ``-0.``.
    """

    __slots__ = ()
    schema_v1 = _schema("ceil", _KEEP)

    @staticmethod
    def dispatch(be, x):
        return be.ceil(x)


@register
class RoundBackward(_StepBackward):
    r"""Autograd node for :math:`y = \mathrm{round}(x, d)`: half to even at ``decimals``
    :math:`d` places.

    Saves nothing: the gradient is 0.

    Math
    ----
    .. math:: y = \mathrm{rint}(x\,10^{d}) / 10^{d}, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = 0

    (for :math:`d < 0`, :math:`y = \mathrm{rint}(x / 10^{-d})\,10^{-d}`, like PyTorch).

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"round"``, ``AmpPolicy.KEEP_INPUT``; ``params["decimals"]`` when not 0.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.rint`` (ties to even: ``round(2.5)`` is 2); with decimals the scaling
    runs in float32 for half inputs. Integer inputs are copied (decimals then rejected);
    bool is rejected. Like PyTorch, decimals that push :math:`x 10^d` past the dtype's
    range give ``inf``/nan.
    """

    __slots__ = ()
    schema_v1 = _schema("round", _KEEP)

    @staticmethod
    def dispatch(be, x, decimals=0):
        return be.round(x, decimals)


@register
class TruncBackward(_StepBackward):
    r"""Autograd node for :math:`y = \mathrm{trunc}(x)` (rounding toward zero).

    Saves nothing: the gradient is 0.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = 0

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"trunc"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.trunc``; integer inputs are copied; bool is rejected. Also ``fix``.
    """

    __slots__ = ()
    schema_v1 = _schema("trunc", _KEEP)

    @staticmethod
    def dispatch(be, x):
        return be.trunc(x)


@register
class FracBackward(UnaryOp):
    r"""Autograd node for the fractional part :math:`y = x - \mathrm{trunc}(x)`.

    Saves nothing: the derivative is 1 (the truncation is locally constant).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"frac"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``x - xp.trunc(x)``; the result has the sign of :math:`x`;
    ``frac(±inf)`` is nan. Floating inputs only (PyTorch rejects integers too).
    """

    __slots__ = ()
    schema_v1 = _schema("frac", _KEEP)

    @staticmethod
    def dispatch(be, x):
        return be.frac(x)

    def grad(self, F, g, x, out):
        return g


# == floating-point classification ===========================================================

@register
class NanToNumBackward(UnaryOp):
    r"""Autograd node for :func:`nan_to_num`: nan, :math:`+\infty`, :math:`-\infty` replaced
    by finite numbers.

    Saves the input: the gradient passes only where it was finite.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \mathbb{1}[x \text{ finite}]\, g

    Complex :math:`z`: each part is replaced on its own, so each part of :math:`g` passes
    where that part of :math:`z` is finite (PyTorch has no complex gradient here).

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"nan_to_num"``, ``AmpPolicy.KEEP_INPUT``, ``complex_grad="custom"``; ``params``:
        ``nan``, ``posinf``, ``neginf`` (the wrapper resolves defaults to 0 and the dtype's
        max and min, of the parts' dtype for complex).
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.where`` on ``isnan`` and the infinities; integer and bool inputs are
    copied. A replacement out of the dtype's range becomes :math:`\pm\infty` (half).
    """

    __slots__ = ()
    schema_v1 = _schema("nan_to_num", _KEEP, cx="custom")
    saves_input = True

    @staticmethod
    def dispatch(be, x, nan=0.0, posinf=None, neginf=None):
        return be.nan_to_num(x, nan, posinf, neginf)

    def grad(self, F, g, x, out):
        if self.in_meta[0][1].is_complex:
            return F.make_complex(g.real * F.isfinite(x.real), g.imag * F.isfinite(x.imag))
        return g * F.isfinite(x)


def _predicate_doc(summary, kernel, extra=""):
    return rf"""Element-wise predicate {summary} (bool result).

    Saves nothing: not differentiable.

    Math
    ----
    .. math:: y_i = \mathbb{{1}}[{kernel}]

    Attributes
    ----------
    schema_v1 : OpSchema
        Not differentiable, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Integer and bool inputs are accepted (never nan or infinite). {extra}
    """


def _predicate(name, cx=None):
    return OpSchema(name, 1, _KEEP, differentiable=False, complex_grad=cx)


@register
class IsnanBackward(UnaryOp):
    __doc__ = _predicate_doc(":math:`x \\ne x`", "x \\text{ is nan}",
                             "Backends: ``xp.isnan``.")
    __slots__ = ()
    schema_v1 = _predicate("isnan", cx="custom")

    @staticmethod
    def dispatch(be, x):
        return be.isnan(x)


@register
class IsinfBackward(UnaryOp):
    __doc__ = _predicate_doc(":math:`|x| = \\infty`", "|x| = \\infty",
                             "Backends: ``xp.isinf``.")
    __slots__ = ()
    schema_v1 = _predicate("isinf", cx="custom")

    @staticmethod
    def dispatch(be, x):
        return be.isinf(x)


@register
class IsposinfBackward(UnaryOp):
    __doc__ = _predicate_doc(":math:`x = +\\infty`", "x = +\\infty",
                             "Backends: ``xp.isinf(x) & (x > 0)``.")
    __slots__ = ()
    schema_v1 = _predicate("isposinf")

    @staticmethod
    def dispatch(be, x):
        return be.isposinf(x)


@register
class IsneginfBackward(UnaryOp):
    __doc__ = _predicate_doc(":math:`x = -\\infty`", "x = -\\infty",
                             "Backends: ``xp.isinf(x) & (x < 0)``.")
    __slots__ = ()
    schema_v1 = _predicate("isneginf")

    @staticmethod
    def dispatch(be, x):
        return be.isneginf(x)


@register
class IsfiniteBackward(UnaryOp):
    __doc__ = _predicate_doc("'x is neither nan nor infinite'", "x \\text{ finite}",
                             "Backends: ``xp.isfinite``.")
    __slots__ = ()
    schema_v1 = _predicate("isfinite", cx="custom")

    @staticmethod
    def dispatch(be, x):
        return be.isfinite(x)


@register
class SignbitBackward(UnaryOp):
    __doc__ = _predicate_doc("'the sign bit of x is set'", "\\text{sign bit of } x",
                             "Backends: ``xp.signbit``: true for ``-0.`` and for nan with "
                             "the sign bit set; integers compare with 0.")
    __slots__ = ()
    schema_v1 = _predicate("signbit")

    @staticmethod
    def dispatch(be, x):
        return be.signbit(x)


# == wrappers ================================================================================

_NUMERIC = 1        # dtype category needed: 1 rejects bool, 2 accepts floating only


def _reject(name, dt, need):
    want = "a floating point" if need == 2 else "a numeric (non-bool)"
    raise DTypeError(f"{name}: expected {want} tensor, got dtype {dt.name}")


def _unary(cls, name, doc, need=0, aliases=()):
    """The wrapper ``name(input)`` over ``cls.call``, also ``Tensor.<name>`` and aliases;
    ``need`` (1 or 2) rejects inputs below that dtype category (bool, integer)."""
    call = cls.call
    if need:
        def op(input):
            if input.__class__ is not Tensor:
                input = to_tensor(input)
            if input._dtype._cat < need:
                _reject(name, input._dtype, need)
            return call(input)
    else:
        def op(input):
            return call(input)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    tensor_method(name, *aliases)(op)
    return op


def _inplace(fn, *aliases):
    """``fn_(input, ...)``: :func:`fn` written into ``input``, also as Tensor methods."""
    def op_(input, *args, **kwargs):
        return apply_inplace(fn, input, *args, **kwargs)
    op_.__name__ = op_.__qualname__ = fn.__name__ + "_"
    op_.__doc__ = f"In-place :func:`{fn.__name__}`."
    tensor_method(op_.__name__, *aliases)(op_)
    return op_


neg = _unary(NegBackward, "neg", "Element-wise :math:`-x` (bool rejected: use ``~``).",
             _NUMERIC, ("negative",))
abs = _unary(AbsBackward, "abs", "Element-wise :math:`|x|`.", _NUMERIC, ("absolute",))
sign = _unary(SignBackward, "sign", r"Element-wise sign in :math:`\{-1, 0, 1\}`.")
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
relu = _unary(ReluBackward, "relu", r"Element-wise :math:`\max(x, 0)`.", _NUMERIC)
sin = _unary(SinBackward, "sin", "Element-wise sine.")
cos = _unary(CosBackward, "cos", "Element-wise cosine.")
tan = _unary(TanBackward, "tan", "Element-wise tangent.")
asin = _unary(AsinBackward, "asin", "Element-wise arcsine.", aliases=("arcsin",))
acos = _unary(AcosBackward, "acos", "Element-wise arccosine.", aliases=("arccos",))
atan = _unary(AtanBackward, "atan", "Element-wise arctangent.", aliases=("arctan",))
sinh = _unary(SinhBackward, "sinh", "Element-wise hyperbolic sine.")
cosh = _unary(CoshBackward, "cosh", "Element-wise hyperbolic cosine.")
tanh = _unary(TanhBackward, "tanh", "Element-wise hyperbolic tangent.")
asinh = _unary(AsinhBackward, "asinh", "Element-wise inverse hyperbolic sine.",
               aliases=("arcsinh",))
acosh = _unary(AcoshBackward, "acosh", "Element-wise inverse hyperbolic cosine.",
               aliases=("arccosh",))
atanh = _unary(AtanhBackward, "atanh", "Element-wise inverse hyperbolic tangent.",
               aliases=("arctanh",))
sinc = _unary(SincBackward, "sinc", r"Element-wise :math:`\sin(\pi x)/(\pi x)`, 1 at 0.")
erf = _unary(ErfBackward, "erf", "Element-wise error function.")
erfc = _unary(ErfcBackward, "erfc", "Element-wise complementary error function.")
erfinv = _unary(ErfinvBackward, "erfinv", "Element-wise inverse error function.")
floor = _unary(FloorBackward, "floor", "Element-wise floor (integers unchanged).", _NUMERIC)
ceil = _unary(CeilBackward, "ceil", "Element-wise ceiling (integers unchanged).", _NUMERIC)
trunc = _unary(TruncBackward, "trunc", "Element-wise rounding toward zero.", _NUMERIC,
               ("fix",))
frac = _unary(FracBackward, "frac", r"Element-wise :math:`x - \mathrm{trunc}(x)`.", 2)
isnan = _unary(IsnanBackward, "isnan", "Element-wise bool: is nan.")
isinf = _unary(IsinfBackward, "isinf", r"Element-wise bool: is :math:`\pm\infty`.")
isposinf = _unary(IsposinfBackward, "isposinf", r"Element-wise bool: is :math:`+\infty`.")
isneginf = _unary(IsneginfBackward, "isneginf", r"Element-wise bool: is :math:`-\infty`.")
isfinite = _unary(IsfiniteBackward, "isfinite", "Element-wise bool: is finite.")
signbit = _unary(SignbitBackward, "signbit", "Element-wise bool: the sign bit is set.")

negative, absolute, fix = neg, abs, trunc
arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh


@tensor_method("exp")
def exp(input):
    """Element-wise :math:`e^x`."""
    return ExpBackward.call(input)


@tensor_method("square")
def square(input):
    """Element-wise :math:`x^2` (bool input gives int64, like PyTorch)."""
    if input.__class__ is not Tensor:
        input = to_tensor(input)
    if input._dtype is _dt.bool:
        input = _cast(input, _dt.int64)
    return SquareBackward.call(input)


@tensor_method("round")
def round(input, *, decimals=0):
    """Element-wise rounding half to even, at ``decimals`` decimal places."""
    if input.__class__ is not Tensor:
        input = to_tensor(input)
    if not isinstance(decimals, numbers.Integral):
        raise DTypeError(f"round: decimals must be an int, got {type(decimals).__name__}")
    if input._dtype._cat < 2:
        if input._dtype is _dt.bool:
            _reject("round", input._dtype, _NUMERIC)
        if decimals:
            _reject("round (with decimals)", input._dtype, 2)
    if decimals:
        return RoundBackward.call(input, decimals=int(decimals))
    return RoundBackward.call(input)


@tensor_method("positive")
def positive(input):
    """``input`` itself (``+x``); bool tensors are rejected, like PyTorch."""
    if input.__class__ is not Tensor:
        input = to_tensor(input)
    if input._dtype is _dt.bool:
        raise DTypeError("positive: the + operator is not supported on bool tensors")
    return input


@tensor_method("logit")
def logit(input, eps=None):
    r"""Element-wise :math:`\ln(z/(1-z))`, :math:`z` = ``input`` clamped to
    :math:`[\epsilon, 1-\epsilon]` when ``eps`` is given."""
    if eps is not None:
        if not isinstance(eps, numbers.Real):
            raise DTypeError(f"logit: eps must be a float or None, got {type(eps).__name__}")
        eps = float(eps)
        if eps < 0:       # PyTorch treats a negative eps as None
            eps = None
    return LogitBackward.call(input, eps=eps)


@tensor_method("nan_to_num")
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """``input`` with nan, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf``
    (defaults: 0, the dtype's largest and lowest finite values)."""
    if input.__class__ is not Tensor:
        input = to_tensor(input)
    for arg, v in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if v is not None and not isinstance(v, numbers.Real):
            raise DTypeError(f"nan_to_num: {arg} must be a number or None, got "
                             f"{type(v).__name__}")
    dt = input._dtype
    if dt._cat >= 2 and (posinf is None or neginf is None):
        info = _dt.finfo(dt)
        posinf = info.max if posinf is None else posinf
        neginf = info.min if neginf is None else neginf
    return NanToNumBackward.call(input, nan=0.0 if nan is None else float(nan),
                                 posinf=posinf, neginf=neginf)


_PLAIN_BOUND = (float, int, type(None))     # bounds that never change a float dtype


def _bound(which, v):
    if v is None or isinstance(v, (Tensor, numbers.Real)):
        return v
    raise DTypeError(f"clamp: {which} must be a number, a Tensor or None, got "
                     f"{type(v).__name__}")


@tensor_method("clamp")
def clamp(input, min=None, max=None):
    r"""Element-wise :math:`\min(\max(x, \text{min}), \text{max})`; ``min`` and ``max``
    are numbers, tensors (broadcast) or None (not both)."""
    if input.__class__ is not Tensor:
        input = to_tensor(input)
    if input._dtype._cat == 2 and min.__class__ in _PLAIN_BOUND and \
            max.__class__ in _PLAIN_BOUND and (min is not None or max is not None):
        return ClampBackward.call(input, min=min, max=max)       # the common case
    if input._dtype.is_complex:
        raise DTypeError(f"clamp: does not support complex input (got {input._dtype.name}); "
                         "complex numbers are not ordered")
    lo, hi = _bound("min", min), _bound("max", max)
    if lo is None and hi is None:
        raise DTypeError("clamp: at least one of 'min' or 'max' must not be None")
    if lo is not None and hi is not None and isinstance(lo, Tensor) != isinstance(hi, Tensor):
        # next to a Python number, PyTorch reads a 0-d tensor bound as a number too
        lo, hi = (v.item() if isinstance(v, Tensor) and not v._data.ndim else v
                  for v in (lo, hi))
    ops = [v for v in (lo, hi) if v is not None]
    rd = _dt.result_type(input, *ops)
    tensor_bounds = isinstance(lo, Tensor) or isinstance(hi, Tensor)
    if rd is _dt.bool and not (tensor_bounds and (lo is None or hi is None)):
        # PyTorch has a bool kernel for one tensor bound only (its clamp_min / clamp_max)
        raise DTypeError("clamp: not implemented for bool, except with one tensor bound "
                         "(min or max)")
    if input._dtype is not rd:
        input = _cast(input, rd)
    if not rd.is_floating_point:
        lo, hi = (_int_bound(rd, v) if isinstance(v, numbers.Real) else v for v in (lo, hi))
    if not tensor_bounds:
        return ClampBackward.call(input, min=lo, max=hi)
    tensors, inputs, params = [], [input], {}
    for which, v in (("min", lo), ("max", hi)):
        if isinstance(v, Tensor):
            tensors.append(which)
            inputs.append(v if v._dtype is rd else _cast(v, rd))
        elif v is not None:
            params[which] = v
    return ClampBackward.apply(*inputs, tensors=tuple(tensors), **params)


def _int_bound(rd, v):
    """Bound ``v`` as a value of integer dtype ``rd`` by PyTorch's rule for scalars: in range,
    or for an unsigned dtype down to ``-max``, wrapping (uint8 ``max=-3`` is 253)."""
    info = _dt.iinfo(rd)
    v = int(v)
    lo = -info.max if info.min == 0 else info.min
    if not lo <= v <= info.max:
        raise ValueOverflowError(f"clamp: bound {v} cannot be converted to {rd.name} "
                                 "without overflow")
    return v + (1 << info.bits) if v < info.min else v


clip = tensor_method("clip")(reports_as("clip")(clamp))     # its errors name clip


@tensor_method("clamp_min")
@reports_as("clamp_min")
def clamp_min(input, min):
    """:func:`clamp` with a lower bound only."""
    return clamp(input, min=min)


@tensor_method("clamp_max")
@reports_as("clamp_max")
def clamp_max(input, max):
    """:func:`clamp` with an upper bound only."""
    return clamp(input, max=max)


# -- in-place variants ---------------------------------------------------------------------

exp_ = _inplace(exp)
neg_ = _inplace(neg, "negative_")


@tensor_method("abs_", "absolute_")
def abs_(input):
    """In-place :func:`abs` (not for complex tensors, whose abs is real: PyTorch refuses)."""
    if input._dtype.is_complex:
        raise DTypeError(f"abs_: in-place abs is not supported for complex tensors (the "
                         f"result is real; got {input._dtype.name}); use abs()")
    return apply_inplace(abs, input)


sign_ = _inplace(sign)
square_ = _inplace(square)
relu_ = _inplace(relu)
clamp_ = _inplace(clamp, "clip_")
clamp_min_ = _inplace(clamp_min)
clamp_max_ = _inplace(clamp_max)
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
sin_ = _inplace(sin)
cos_ = _inplace(cos)
tan_ = _inplace(tan)
asin_ = _inplace(asin, "arcsin_")
acos_ = _inplace(acos, "arccos_")
atan_ = _inplace(atan, "arctan_")
sinh_ = _inplace(sinh)
cosh_ = _inplace(cosh)
tanh_ = _inplace(tanh)
asinh_ = _inplace(asinh, "arcsinh_")
acosh_ = _inplace(acosh, "arccosh_")
atanh_ = _inplace(atanh, "arctanh_")
sinc_ = _inplace(sinc)
erf_ = _inplace(erf)
erfc_ = _inplace(erfc)
erfinv_ = _inplace(erfinv)
floor_ = _inplace(floor)
ceil_ = _inplace(ceil)
round_ = _inplace(round)
trunc_ = _inplace(trunc, "fix_")
frac_ = _inplace(frac)
nan_to_num_ = _inplace(nan_to_num)

__all__ += [f.__name__ for f in (
    exp_, neg_, abs_, sign_, square_, relu_, clamp_, clamp_min_, clamp_max_, exp2_, expm1_,
    log_, log2_, log10_, log1p_, sqrt_, rsqrt_, reciprocal_, sigmoid_, logit_, sin_, cos_,
    tan_, asin_, acos_, atan_, sinh_, cosh_, tanh_, asinh_, acosh_, atanh_, sinc_, erf_,
    erfc_, erfinv_, floor_, ceil_, round_, trunc_, frac_, nan_to_num_)]
negative_, absolute_, fix_, clip_ = neg_, abs_, trunc_, clamp_
arcsin_, arccos_, arctan_ = asin_, acos_, atan_
arcsinh_, arccosh_, arctanh_ = asinh_, acosh_, atanh_
__all__ += ["negative_", "absolute_", "fix_", "clip_", "arcsin_", "arccos_",
            "arctan_", "arcsinh_", "arccosh_", "arctanh_"]

Tensor.__neg__ = neg
Tensor.__pos__ = positive
Tensor.__abs__ = abs
