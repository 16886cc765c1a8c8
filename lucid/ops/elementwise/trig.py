r"""Trigonometric and hyperbolic functions and their inverses: ``sin``, ``cos``, ``tan``,
``asin``, ``acos``, ``atan``, ``sinh``, ``cosh``, ``tanh``, ``asinh``, ``acosh``, ``atanh``
(with NumPy's ``arc*`` names), the normalised ``sinc``, and their in-place forms.

Angles are in radians. All are real-valued (integer and bool inputs compute in the default
float dtype) and compute in float32 under autocast (``AmpPolicy.FORCE_FP32``). Complex
input: all are holomorphic, on the principal branches (as NumPy and PyTorch).
"""

from __future__ import annotations

from ..core.base import UnaryOp
from ..core.registry import register
from ._common import _FP32, _inplace, _schema, _unary

__all__ = [
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "sinc",
    "sin_",
    "cos_",
    "tan_",
    "asin_",
    "acos_",
    "atan_",
    "sinh_",
    "cosh_",
    "tanh_",
    "asinh_",
    "acosh_",
    "atanh_",
    "sinc_",
    "arcsin_",
    "arccos_",
    "arctan_",
    "arcsinh_",
    "arccosh_",
    "arctanh_",
]


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


sin = _unary(SinBackward, "sin", "Element-wise sine.")
cos = _unary(CosBackward, "cos", "Element-wise cosine.")
tan = _unary(TanBackward, "tan", "Element-wise tangent.")
asin = _unary(AsinBackward, "asin", "Element-wise arcsine.", aliases=("arcsin",))
acos = _unary(AcosBackward, "acos", "Element-wise arccosine.", aliases=("arccos",))
atan = _unary(AtanBackward, "atan", "Element-wise arctangent.", aliases=("arctan",))
sinh = _unary(SinhBackward, "sinh", "Element-wise hyperbolic sine.")
cosh = _unary(CoshBackward, "cosh", "Element-wise hyperbolic cosine.")
tanh = _unary(TanhBackward, "tanh", "Element-wise hyperbolic tangent.")
asinh = _unary(
    AsinhBackward, "asinh", "Element-wise inverse hyperbolic sine.", aliases=("arcsinh",)
)
acosh = _unary(
    AcoshBackward, "acosh", "Element-wise inverse hyperbolic cosine.", aliases=("arccosh",)
)
atanh = _unary(
    AtanhBackward, "atanh", "Element-wise inverse hyperbolic tangent.", aliases=("arctanh",)
)
sinc = _unary(SincBackward, "sinc", r"Element-wise :math:`\sin(\pi x)/(\pi x)`, 1 at 0.")

arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh


# -- in-place variants -------------------------------------------------------------------

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

arcsin_, arccos_, arctan_ = asin_, acos_, atan_
arcsinh_, arccosh_, arctanh_ = asinh_, acosh_, atanh_
