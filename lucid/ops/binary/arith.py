"""Arithmetic: ``add``, ``sub`` (``subtract``, ``rsub``), ``mul`` (``multiply``), ``div``
(``divide``, ``true_divide``, ``floor_divide``; ``rounding_mode`` ``"trunc"`` or
``"floor"``), ``pow`` and ``float_power``, ``remainder`` and ``fmod``; their in-place Tensor
methods (``add_``, ...) and Tensor's arithmetic operators (``+``, ``-``, ``*``, ``/``,
``//``, ``%``, ``**`` and their reflected and in-place forms).

Operands broadcast and promote as in PyTorch (Python scalars are weak: ``float32 tensor *
2.0`` stays float32, ``float64 tensor * 1j`` is complex128); each gradient is summed back
over the broadcast axes. True division of integers gives the default float; rounded
division, ``remainder`` and ``fmod`` keep integer dtypes and report an integer zero divisor.
Gradient formulas follow PyTorch's ``derivatives.yaml`` term for term (including its masks
at 0), so eager, graph-mode and PyTorch gradients agree bit for bit where the arithmetic
allows. Complex: ``add``, ``sub``, ``mul``, ``div`` and ``pow`` (either side) are
holomorphic; rounded division, ``remainder`` and ``fmod`` refuse complex input.
"""

from __future__ import annotations

import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import ArgumentError, DivisionByZeroError, DTypeError, reports_as
from ..core._bind import install, tensor_method
from ..core.base import BinaryOp, UnaryOp, _cast, _scalar_result
from ..core.inplace import apply_inplace
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ._common import _inplace, _is_number

__all__ = [
    "add",
    "mul",
    "multiply",
    "sub",
    "subtract",
    "rsub",
    "div",
    "divide",
    "true_divide",
    "floor_divide",
    "pow",
    "float_power",
    "remainder",
    "fmod",
]


# -- shared checks -----------------------------------------------------------------------


def _no_bool(name, a):
    if _dt._BY_NP[a.dtype] is _dt.bool:
        raise DTypeError(
            f"{name}: not implemented for bool tensors; cast them to an integer "
            "or floating dtype first"
        )


def _int_division(kernel, name, a, b):
    """``kernel(a, b)`` with an integer zero divisor reported as a Lucid error."""
    _no_bool(name, a)
    try:
        return kernel(a, b)
    except DivisionByZeroError:
        raise DivisionByZeroError(
            f"{name}: integer division by zero (a {a.dtype} divisor holds 0)"
        ) from None


# -- add, mul, sub, div ------------------------------------------------------------------


@register
class AddBackward(BinaryOp):
    r"""Autograd node for :math:`y = a + \alpha b` (broadcasting).

    Saves nothing: both partial derivatives are constants.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = \alpha g

    each summed over the axes along which its input was broadcast.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"add"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.add``. Integer overflow wraps; bool + bool is logical or (PyTorch).
    """

    __slots__ = ()
    schema_v1 = OpSchema("add", 1, AmpPolicy.KEEP_INPUT, input_arity=2, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, a, b, alpha=1):
        return be.add(a, b, alpha)

    def grad(self, F, g, a, b, out):
        alpha = self.params.get("alpha", 1)
        return g, (g if alpha == 1 else g * alpha)


@register
class MulBackward(BinaryOp):
    r"""Autograd node for :math:`y = a \cdot b` (broadcasting).

    Saves each input only if the other needs a gradient: each one's gradient is the other
    times the incoming gradient (so ``x * 3.0`` saves only the scalar, and a later in-place
    change of ``x`` is no error, as in PyTorch).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g\,b, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = g\,a

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"mul"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input : tuple
        ``b`` if ``a`` needs a gradient, ``a`` if ``b`` does.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.multiply``. ``0 * inf`` is nan; integer overflow wraps.
    """

    __slots__ = ()
    schema_v1 = OpSchema("mul", 1, AmpPolicy.KEEP_INPUT, input_arity=2, complex_grad="holomorphic")
    saves_input = ((1,), (0,))  # the gradient of a needs b, that of b needs a

    @staticmethod
    def dispatch(be, a, b):
        return be.mul(a, b)

    def grad(self, F, g, a, b, out):
        return (None if b is None else g * b, None if a is None else g * a)


@register
class SubBackward(BinaryOp):
    r"""Autograd node for :math:`y = a - \alpha b` (broadcasting).

    Saves nothing: both partial derivatives are constants.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = -\alpha g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"sub"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.subtract``. Integer overflow wraps. Bool operands are rejected by the
    wrapper (PyTorch: use ``~`` or ``logical_xor``); a float ``alpha`` with an integer
    result is rejected too.
    """

    __slots__ = ()
    schema_v1 = OpSchema("sub", 1, AmpPolicy.KEEP_INPUT, input_arity=2, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, a, b, alpha=1):
        return be.sub(a, b, alpha)

    def grad(self, F, g, a, b, out):
        alpha = self.params.get("alpha", 1)
        return g, (-g if alpha == 1 else g * -alpha)


@register
class DivBackward(BinaryOp):
    r"""Autograd node for true division :math:`y = a / b` (broadcasting).

    Saves both inputs: :math:`\partial y/\partial a` needs :math:`b`, and
    :math:`\partial y/\partial b` needs :math:`a` and :math:`b` (the output is not reused,
    as PyTorch, so the two gradients round identically to its).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = \frac{g}{b}, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = -g \, \frac{a / b}{b}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"div"``, ``AmpPolicy.KEEP_INPUT``, real-valued (integer inputs divide in the
        default float dtype).
    saves_input : tuple
        ``b`` if ``a`` needs a gradient; ``a`` and ``b`` if ``b`` does.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.true_divide``, IEEE 754: ``x / 0`` is ``±inf``, ``0 / 0`` is nan (no
    warning). Rounding modes are :class:`DivRoundingBackward`.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "div", 1, AmpPolicy.KEEP_INPUT, real_valued=True, input_arity=2, complex_grad="holomorphic"
    )
    saves_input = ((1,), (0, 1))  # grad a needs b; grad b needs a and b

    @staticmethod
    def dispatch(be, a, b):
        return be.div(a, b)

    def grad(self, F, g, a, b, out):
        return (
            F.div(g, b) if self.next_edges[0] is not None else None,
            None if a is None else F.neg(g) * F.div(F.div(a, b), b),
        )


@register
class DivRoundingBackward(BinaryOp):
    r"""Autograd node for rounded division :math:`y = \mathrm{trunc}(a / b)` or
    :math:`\lfloor a / b \rfloor` (``rounding_mode`` ``"trunc"`` / ``"floor"``).

    Saves nothing: the result is piecewise constant, so its gradient is zero almost
    everywhere (PyTorch returns ``g * 0``, so does this node: nan and inf propagate).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = \frac{\partial \mathcal{L}}{\partial b}
              = 0 \cdot g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"div_rounding"``, ``AmpPolicy.KEEP_INPUT``; integer inputs stay integer.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.floor_divide`` (floats: the fmod-corrected quotient, like Python and
    PyTorch) and ``trunc(a / b)``; integer trunc division fixes the floor quotient where
    the signs differ. Integer division by zero raises :class:`DivisionByZeroError`; float
    division by zero gives ``±inf``/nan. Bool inputs are rejected.
    """

    __slots__ = ()
    schema_v1 = OpSchema("div_rounding", 1, AmpPolicy.KEEP_INPUT, input_arity=2)

    @staticmethod
    def dispatch(be, a, b, rounding_mode):
        kernel = be.div_floor if rounding_mode == "floor" else be.div_trunc
        return _int_division(kernel, f"div (rounding_mode={rounding_mode!r})", a, b)

    def grad(self, F, g, a, b, out):
        z = g * 0
        return z, z


# -- pow ---------------------------------------------------------------------------------


@register
class PowBackward(BinaryOp):
    r"""Autograd node for :math:`y = a^b` with a tensor exponent (and for a Python scalar
    base, ``2 ** t``).

    Saves both inputs and the output: the base gradient needs :math:`a, b`, the exponent
    gradient reuses :math:`y` (:math:`\partial y / \partial b = y \ln a`).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g\, b\, a^{b-1}\ (0 \text{ where } b = 0),
              \qquad
              \frac{\partial \mathcal{L}}{\partial b} = g\, y \ln a\
              (0 \text{ where } a = 0,\ \operatorname{Re} b \ge 0)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"pow"``, ``AmpPolicy.FORCE_FP32`` (half inputs overflow early).
    saves_input, saves_output : bool
        True, True.

    Notes
    -----
    Backends: ``xp.power``. Integer powers wrap on overflow; integer :math:`a^b` with
    :math:`b < 0` is 1 for :math:`a = 1`, :math:`\pm 1` for :math:`a = -1`, else 0
    (PyTorch). ``0 ** -1`` is inf, a negative base to a fractional power is nan. Bool
    ``pow(bool, bool)`` is rejected.
    """

    __slots__ = ()
    schema_v1 = OpSchema("pow", 1, AmpPolicy.FORCE_FP32, input_arity=2, complex_grad="holomorphic")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, a, b):
        _no_bool("pow", a)
        return be.pow(a, b)

    def grad(self, F, g, a, b, out):
        e = self.next_edges
        return (
            F.where(b == 0, 0, g * (b * F.pow(a, b - 1))) if e[0] is not None else None,
            g * F.where((a == 0) & (b.real >= 0), 0, out * F.log(a)) if e[1] is not None else None,
        )


@register
class PowScalarBackward(UnaryOp):
    r"""Autograd node for :math:`y = x^p` with a Python-number exponent :math:`p`.

    Saves the input only (not the output, so ``y = x ** 2; y += 1`` stays legal, as in
    PyTorch): the gradient is :math:`p\,x^{p-1}`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g\, p\, x^{p-1}
              \quad (0 \text{ when } p = 0)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"pow_scalar"``, ``AmpPolicy.FORCE_FP32``.
    saves_input : bool
        True: ``x``.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``x ** p`` (``xp.power``; NumPy squares, square-roots or inverts for
    :math:`p \in \{2, 0.5, -1\}`). The wrapper promotes :math:`x` first (``int ** 2.5`` is
    float) and rejects integer :math:`x` with a negative integer :math:`p`. The gradient is
    the ``pow_scalar_backward`` kernel, in graph mode one op with its own gradient
    (:class:`~lucid.ops.elementwise.backward_ops.PowScalarBackwardBackward`).
    """

    __slots__ = ()
    schema_v1 = OpSchema("pow_scalar", 1, AmpPolicy.FORCE_FP32, complex_grad="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x, exponent):
        return be.pow_scalar(x, exponent)

    def grad(self, F, g, x, out):
        return F.pow_scalar_backward(g, x, self.params["exponent"])


# -- remainder, fmod ---------------------------------------------------------------------


@register
class RemainderBackward(BinaryOp):
    r"""Autograd node for Python-style :math:`y = a - b \lfloor a / b \rfloor` (the sign of
    the divisor).

    Saves both inputs, and only when :math:`b` needs a gradient:
    :math:`\partial y / \partial b = -\lfloor a / b \rfloor` (that of :math:`a` is 1, so
    ``x % 3.0`` saves nothing, as in PyTorch).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = -g \left\lfloor \frac{a}{b} \right\rfloor

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"remainder"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input : tuple
        ``a`` and ``b`` if ``b`` needs a gradient, else nothing.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.remainder`` for integers; floats use PyTorch's ``fmod`` plus divisor
    fix-up (``remainder(-4., 2.)`` is ``-0.``). Float ``x % 0`` is nan; integer division
    by zero raises :class:`DivisionByZeroError`.
    """

    __slots__ = ()
    schema_v1 = OpSchema("remainder", 1, AmpPolicy.KEEP_INPUT, input_arity=2)
    saves_input = ((), (0, 1))  # only the gradient of b needs them

    @staticmethod
    def dispatch(be, a, b):
        return _int_division(be.remainder, "remainder", a, b)

    def grad(self, F, g, a, b, out):
        return g, (None if b is None else -g * F.div_floor(a, b))


@register
class FmodBackward(BinaryOp):
    r"""Autograd node for C-style :math:`y = a - b\,\mathrm{trunc}(a / b)` (the sign of the
    dividend).

    Saves both inputs, and only when :math:`b` needs a gradient:
    :math:`\partial y / \partial b = -\mathrm{trunc}(a / b)` (that of :math:`a` is 1, so
    ``x % 3.0`` saves nothing, as in PyTorch).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g, \qquad
              \frac{\partial \mathcal{L}}{\partial b} =
              -g\,\mathrm{trunc}\!\left(\frac{a}{b}\right)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"fmod"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input : tuple
        ``a`` and ``b`` if ``b`` needs a gradient, else nothing.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.fmod`` (exact). Float ``fmod(x, 0)`` is nan; integer division by zero
    raises :class:`DivisionByZeroError`.
    """

    __slots__ = ()
    schema_v1 = OpSchema("fmod", 1, AmpPolicy.KEEP_INPUT, input_arity=2)
    saves_input = ((), (0, 1))  # only the gradient of b needs them

    @staticmethod
    def dispatch(be, a, b):
        return _int_division(be.fmod, "fmod", a, b)

    def grad(self, F, g, a, b, out):
        return g, (None if b is None else -g * F.div_trunc(a, b))


# -- wrappers ----------------------------------------------------------------------------


def _is_bool(x):
    return x.__class__ is bool or getattr(x, "_dtype", None) is _dt.bool


def _check_alpha(name, input, other, alpha):
    if isinstance(alpha, float) and _dt.result_type(input, other)._cat < 2:
        raise DTypeError(
            f"{name}: for integral input tensors, argument alpha must not be a "
            f"floating point number (got alpha={alpha})"
        )


@tensor_method("add")
def add(input, other, *, alpha=1):
    """``input + alpha * other`` with broadcasting and promotion."""
    if alpha != 1:
        _check_alpha("add", input, other, alpha)
        return AddBackward.call(input, other, alpha=alpha)
    return AddBackward.call(input, other)


@tensor_method("mul", "multiply")
def mul(input, other):
    """``input * other`` with broadcasting and promotion."""
    return MulBackward.call(input, other)


multiply = mul


@tensor_method("sub", "subtract")
def sub(input, other, *, alpha=1):
    """``input - alpha * other`` with broadcasting and promotion (bool not allowed)."""
    if _is_bool(input) or _is_bool(other):
        raise DTypeError(
            "sub: subtraction, the `-` operator, with a bool tensor is not "
            "supported; to invert a mask use `~` or logical_not(), for two "
            "masks use `^` or logical_xor()"
        )
    if alpha != 1:
        _check_alpha("sub", input, other, alpha)
        return SubBackward.call(input, other, alpha=alpha)
    return SubBackward.call(input, other)


subtract = sub


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    return sub(other, input, alpha=alpha)


@tensor_method("div", "divide")
def div(input, other, *, rounding_mode=None):
    """``input / other``: true division (integers give the default float) or, with
    ``rounding_mode`` ``"trunc"`` / ``"floor"``, rounded division keeping integer dtypes."""
    if rounding_mode is None:
        return DivBackward.call(input, other)
    if rounding_mode != "trunc" and rounding_mode != "floor":
        raise ArgumentError(
            f"div: expected rounding_mode to be one of None, 'trunc', or "
            f"'floor' but found {rounding_mode!r}"
        )
    return DivRoundingBackward.call(input, other, rounding_mode=rounding_mode)


divide = div


@tensor_method("true_divide")
@reports_as("true_divide")
def true_divide(dividend, divisor):
    """``dividend / divisor`` (true division)."""
    return DivBackward.call(dividend, divisor)


@tensor_method("floor_divide")
@reports_as("floor_divide")
def floor_divide(input, other):
    """``input // other`` rounded toward minus infinity (Python's ``//``)."""
    return DivRoundingBackward.call(input, other, rounding_mode="floor")


@tensor_method("pow")
def pow(input, exponent):
    """``input ** exponent``; either side may be a Python number. Integer powers stay
    integer (a negative scalar exponent of an integer tensor is an error)."""
    if (
        not isinstance(input, Tensor)
        or isinstance(exponent, Tensor)
        or not isinstance(exponent, numbers.Number)
    ):  # arrays: PowBackward converts
        return PowBackward.call(input, exponent)
    rd = _scalar_result(PowBackward, input._dtype, exponent)
    if rd._cat < 2 and exponent < 0:
        raise DTypeError(
            f"pow: integers to negative integer powers are not allowed (got a "
            f"{input._dtype.name} tensor to the power {exponent})"
        )
    return PowScalarBackward.call(
        input if input._dtype is rd else _cast(input, rd), exponent=exponent
    )


@tensor_method("float_power")
@reports_as("float_power")
def float_power(input, exponent):
    """``input ** exponent`` computed in float64 (both operands cast)."""
    f64 = _dt.float64
    if isinstance(input, Tensor) and input._dtype is not f64:
        input = _cast(input, f64)
    if isinstance(exponent, Tensor):
        if exponent._dtype is not f64:
            exponent = _cast(exponent, f64)
    elif _is_number(exponent):
        exponent = float(exponent)
    return pow(input, exponent)


@tensor_method("remainder")
def remainder(input, other):
    """``input % other`` with the sign of ``other`` (Python's ``%``)."""
    return RemainderBackward.call(input, other)


@tensor_method("fmod")
def fmod(input, other):
    """C-style remainder of ``input / other``, with the sign of ``input``."""
    return FmodBackward.call(input, other)


# -- in place ----------------------------------------------------------------------------

add_ = _inplace(add, "add_")
mul_ = _inplace(mul, "mul_", "multiply_")
sub_ = _inplace(sub, "sub_", "subtract_")
div_ = _inplace(div, "div_", "divide_")
true_divide_ = _inplace(true_divide, "true_divide_")
floor_divide_ = _inplace(floor_divide, "floor_divide_")
pow_ = _inplace(pow, "pow_")
remainder_ = _inplace(remainder, "remainder_")
fmod_ = _inplace(fmod, "fmod_")


def _float_power_(self, exponent):
    """In-place :func:`float_power`; ``self`` must be float64 (as PyTorch)."""
    if self._dtype is not _dt.float64:
        raise DTypeError(
            f"float_power_: the base given to float_power_ has dtype "
            f"{self._dtype.name} but the operation's result requires dtype "
            "float64"
        )
    return apply_inplace(float_power, self, exponent)


install(float_power_=_float_power_)


# -- operators ---------------------------------------------------------------------------

install(
    __add__=lambda self, other: AddBackward.call(self, other),
    __radd__=lambda self, other: AddBackward.call(other, self),
    __iadd__=add_,
    __mul__=lambda self, other: MulBackward.call(self, other),
    __rmul__=lambda self, other: MulBackward.call(other, self),
    __imul__=mul_,
    __sub__=sub,
    __rsub__=lambda self, other: sub(other, self),
    __isub__=sub_,
    __truediv__=lambda self, other: DivBackward.call(self, other),
    __rtruediv__=lambda self, other: DivBackward.call(other, self),
    __itruediv__=true_divide_,
    __floordiv__=floor_divide,
    __rfloordiv__=lambda self, other: floor_divide(other, self),
    __ifloordiv__=floor_divide_,
    __mod__=lambda self, other: RemainderBackward.call(self, other),
    __rmod__=lambda self, other: RemainderBackward.call(other, self),
    __imod__=remainder_,
    __pow__=pow,
    __rpow__=lambda self, other: PowBackward.call(other, self),
    __ipow__=pow_,
)
