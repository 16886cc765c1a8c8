"""Floating-point representation, number theory and bit shifts.

``frexp``, ``ldexp``, ``nextafter``, ``heaviside`` (floating ops, differentiable where the
derivative exists), ``gcd``, ``lcm``, ``bitwise_left_shift`` and ``bitwise_right_shift``
(integer ops, with the ``<<`` / ``>>`` operators, their reflected and in-place forms).
"""

from __future__ import annotations

import collections
import math
import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import DTypeError
from ..core._bind import install, tensor_method
from ..core._formula import array_of, const
from ..core.base import BinaryOp, MultiOutputOp, to_tensor
from ..core.inplace import alias_safe, apply_inplace
from ..reduction.extrema import return_types as _rt
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = [
    "frexp",
    "ldexp",
    "nextafter",
    "heaviside",
    "gcd",
    "lcm",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "ldexp_",
    "gcd_",
    "lcm_",
]

_KEEP = AmpPolicy.KEEP_INPUT
_LN2 = math.log(2.0)


def _frexp_repr(self):
    return f"lucid.return_types.frexp(\nmantissa={self.mantissa!r},\nexponent={self.exponent!r})"


frexp_result = collections.namedtuple(  # type: ignore[name-match]  # PyTorch's type name
    "frexp", ("mantissa", "exponent"), module="lucid.return_types"
)
frexp_result.__repr__ = _frexp_repr
_rt.frexp = frexp_result  # lucid.return_types.frexp (pickles by name)


# == floating representation ===============================================================


@register
class FrexpBackward(MultiOutputOp):
    r"""Autograd node for :math:`(m, e) = \mathrm{frexp}(x)`, :math:`x = m \cdot 2^e`.

    Saves the outputs: the mantissa's derivative is :math:`2^{-e}`; the exponent (int32)
    is not differentiable.

    Math
    ----
    .. math:: m = x\,2^{-e}, \quad |m| \in [\tfrac12, 1), \qquad
              \frac{\partial \mathcal{L}}{\partial x} = 2^{-e}\, g_m

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"frexp"``, ``AmpPolicy.KEEP_INPUT`` (exact), two outputs.
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`(m, e)`.

    Notes
    -----
    Backends: ``xp.frexp`` (bfloat16 through float32, exactly). ``frexp(0)`` is
    ``(0, 0)``; inf and nan give themselves as mantissa with exponent 0. Floating inputs
    only, as in PyTorch.
    """

    __slots__ = ()
    schema_v1 = OpSchema("frexp", 1, _KEEP, output_arity=2)
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.frexp(x)

    def grad(self, F, g, x, out):
        gm = g[0]
        return gm * F.exp2(const(array_of(out[1]), gm) * -1.0)


@register
class LdexpBackward(BinaryOp):
    r"""Autograd node for :math:`y = a \cdot 2^{b}`.

    Saves the inputs: both gradients need :math:`2^b`, the exponent's also :math:`a`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = 2^{b}\, g, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = a\, 2^{b} \ln 2\; g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"ldexp"``, ``AmpPolicy.KEEP_INPUT``, real-valued (integer inputs give the default
        float dtype, as PyTorch's ``input * 2 ** other``).
    saves_input, saves_output : bool
        True, False.

    Notes
    -----
    Backends: ``a * xp.exp2(b)`` in the promoted dtype (half types through float32).
    Overflows to :math:`\pm\infty` and underflows to 0 like the product. PyTorch evaluates
    ``2 ** b`` in ``b``'s own dtype first, so a float16 exponent of a float32 input is
    rounded there; Lucid rounds once, in the promoted dtype. A bool exponent counts as 0/1
    for every input dtype (PyTorch has no kernel for a floating input with one).
    """

    __slots__ = ()
    schema_v1 = OpSchema("ldexp", 1, _KEEP, real_valued=True, input_arity=2)
    saves_input = True

    @staticmethod
    def dispatch(be, a, b):
        return be.ldexp(a, b)

    def grad(self, F, g, a, b, out):
        p = F.exp2(b)
        return g * p, (g * a * p * _LN2 if self.next_edges[1] is not None else None)


@register
class NextafterBackward(BinaryOp):
    r"""Autograd node for :math:`y = \mathrm{nextafter}(a, b)`: the floating value next to
    :math:`a` in the direction of :math:`b`.

    Saves nothing: the result moves :math:`a` by one unit in the last place, so its
    derivative in :math:`a` is 1 and in :math:`b` is 0 (wherever it exists).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = 0

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"nextafter"``, ``AmpPolicy.KEEP_INPUT`` (the step is the input dtype's ulp).
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.nextafter`` in the promoted floating dtype; bfloat16 (no kernel in
    CuPy) steps its bit pattern by one. Equal inputs give ``b``; nan in either gives nan.
    PyTorch does not implement this derivative; Lucid uses the one of the real function it
    approximates (the identity in :math:`a`).
    """

    __slots__ = ()
    schema_v1 = OpSchema("nextafter", 1, _KEEP, input_arity=2)

    @staticmethod
    def dispatch(be, a, b):
        return be.nextafter(a, b)

    def grad(self, F, g, a, b, out):
        return g, None


@register
class HeavisideBackward(BinaryOp):
    r"""Autograd node for the Heaviside step :math:`H(x)` with :math:`H(0) = v`.

    Saves the input: the gradient to :math:`v` flows only where :math:`x = 0`.

    Math
    ----
    .. math:: H(x, v) = \begin{cases} 0 & x < 0 \\ v & x = 0 \\ 1 & x > 0 \end{cases},
              \qquad \frac{\partial \mathcal{L}}{\partial x} = 0, \quad
              \frac{\partial \mathcal{L}}{\partial v} = [x = 0]\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"heaviside"``, ``AmpPolicy.KEEP_INPUT`` (exact).
    saves_input, saves_output : bool
        True, False.

    Notes
    -----
    Backends: ``xp.where`` on the sign; nan input gives 0 (PyTorch's rule). Both operands
    must have one dtype (PyTorch's rule); integer and bool operands are allowed (no
    gradient). PyTorch does not implement the derivative; Lucid gives the almost-everywhere
    derivative of the step (0) and the exact one in ``values``.
    """

    __slots__ = ()
    schema_v1 = OpSchema("heaviside", 1, _KEEP, input_arity=2)
    saves_input = True

    @staticmethod
    def dispatch(be, x, v):
        return be.heaviside(x, v)

    def grad(self, F, g, x, v, out):
        return F.zeros_like(g), g * const(array_of(x) == 0, g)


# == integers ==============================================================================


def _int_doc(summary, math_, name, kernel, note=""):
    return f"""{summary}

    Not differentiable (integer result).

    Math
    ----
    .. math:: {math_}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"{name}"``, ``AmpPolicy.KEEP_INPUT``, ``differentiable=False``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``{kernel}`` on the promoted integer dtype. Integer operands only (bool is
    refused); Python ints are weak scalars. {note}
    """


def _int_operands(name, bool_ok, *vals):
    """A DTypeError naming ``name`` unless every operand is an integer (or, with
    ``bool_ok``, bool) tensor or int, and they do not all are bool (bool op bool has no
    integer kernel, as in PyTorch)."""
    if all(isinstance(v, bool) or isinstance(v, Tensor) and v._dtype is _dt.bool for v in vals):
        raise DTypeError(f"{name}: not implemented for bool tensors")
    for v in vals:
        if isinstance(v, Tensor):
            dt = v._dtype
            if dt.is_floating_point or (dt is _dt.bool and not bool_ok):
                raise DTypeError(
                    f"{name}: not implemented for {dt.name} tensors; expected an integer dtype"
                )
        elif isinstance(v, float) or not isinstance(v, numbers.Integral):
            raise DTypeError(f"{name}: expected an integer tensor or int, got {type(v).__name__}")


@register
class GcdBackward(BinaryOp):
    __doc__ = _int_doc(
        "Node of the element-wise greatest common divisor.",
        r"y_i = \gcd(|a_i|, |b_i|), \quad \gcd(0, 0) = 0",
        "gcd",
        "xp.gcd",
    )
    __slots__ = ()
    schema_v1 = OpSchema("gcd", 1, _KEEP, input_arity=2, differentiable=False)

    @staticmethod
    def dispatch(be, a, b):
        return be.gcd(a, b)


@register
class LcmBackward(BinaryOp):
    __doc__ = _int_doc(
        "Node of the element-wise least common multiple.",
        r"y_i = \frac{|a_i b_i|}{\gcd(a_i, b_i)}, \quad y_i = 0 "
        r"\text{ if } a_i b_i = 0",
        "lcm",
        "xp.lcm",
        "The product wraps in the dtype like PyTorch's.",
    )
    __slots__ = ()
    schema_v1 = OpSchema("lcm", 1, _KEEP, input_arity=2, differentiable=False)

    @staticmethod
    def dispatch(be, a, b):
        return be.lcm(a, b)


@register
class BitwiseLeftShiftBackward(BinaryOp):
    __doc__ = _int_doc(
        "Node of the element-wise left shift :math:`a \\ll b`.",
        r"y_i = a_i \cdot 2^{b_i} \bmod 2^{\text{bits}}",
        "bitwise_left_shift",
        "xp.left_shift",
        "Shifts by at least the bit width, or by a negative amount, give 0 "
        "(PyTorch's rule; C leaves them undefined). Bool operands promote "
        "like integers.",
    )
    __slots__ = ()
    schema_v1 = OpSchema("bitwise_left_shift", 1, _KEEP, input_arity=2, differentiable=False)

    @staticmethod
    def dispatch(be, a, b):
        return be.left_shift(a, b)


@register
class BitwiseRightShiftBackward(BinaryOp):
    __doc__ = _int_doc(
        "Node of the element-wise arithmetic right shift :math:`a \\gg b`.",
        r"y_i = \lfloor a_i / 2^{b_i} \rfloor",
        "bitwise_right_shift",
        "xp.right_shift",
        "Shifts by at least the bit width, or by a negative amount, give 0 "
        "for non-negative and -1 for negative ``a`` (PyTorch's rule).",
    )
    __slots__ = ()
    schema_v1 = OpSchema("bitwise_right_shift", 1, _KEEP, input_arity=2, differentiable=False)

    @staticmethod
    def dispatch(be, a, b):
        return be.right_shift(a, b)


# == wrappers ==============================================================================


def _floating(name, x):
    if not x._dtype.is_floating_point:
        raise DTypeError(f"{name}: expected a floating point tensor, got {x._dtype.name}")


@tensor_method("frexp")
def frexp(input):
    """``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent`` and
    ``|mantissa|`` in [0.5, 1); the exponent is int32."""
    x = to_tensor(input)
    _floating("frexp", x)
    m, e = FrexpBackward.apply(x)
    return frexp_result(m, e)


@tensor_method("ldexp")
def ldexp(input, other):
    """:math:`input \\cdot 2^{other}` (integer inputs give the default float dtype; a
    bool ``other`` with a floating ``input`` is refused, as PyTorch's kernel does)."""
    if (
        isinstance(other, Tensor)
        and other._dtype is _dt.bool
        and to_tensor(input)._dtype.is_floating_point
    ):
        raise DTypeError("ldexp: not implemented for a bool exponent with a floating input")
    return LdexpBackward.call(input, other)


@tensor_method("nextafter")
def nextafter(input, other):
    """The next floating value after ``input`` towards ``other``, element-wise."""
    a = to_tensor(input)
    b = to_tensor(other, a)
    rd = _dt.result_type(a, b)
    if not rd.is_floating_point:
        raise DTypeError(
            f"nextafter: not implemented for {rd.name} (the promoted dtype of "
            f"{a._dtype.name} and {b._dtype.name}); expected a floating dtype"
        )
    return NextafterBackward.call(a, b)


@tensor_method("heaviside")
def heaviside(input, values):
    """The Heaviside step of ``input`` with ``values`` where ``input`` is 0."""
    x = to_tensor(input)
    if not isinstance(values, Tensor):
        raise DTypeError(f"heaviside: values must be a Tensor, got {type(values).__name__}")
    if values._dtype is not x._dtype:
        raise DTypeError(
            f"heaviside: is not yet implemented for tensors with different "
            f"dtypes ({x._dtype.name} and {values._dtype.name})"
        )
    return HeavisideBackward.call(x, values)


@tensor_method("gcd")
def gcd(input, other):
    """Element-wise greatest common divisor (integers; non-negative result)."""
    _int_operands("gcd", True, input, other)
    return GcdBackward.call(input, other)


@tensor_method("lcm")
def lcm(input, other):
    """Element-wise least common multiple (integers; non-negative result)."""
    _int_operands("lcm", True, input, other)
    return LcmBackward.call(input, other)


@tensor_method("bitwise_left_shift")
def bitwise_left_shift(input, other):
    """Element-wise ``input << other`` (integers; shifting past the width gives 0)."""
    _int_operands("bitwise_left_shift", True, input, other)
    return BitwiseLeftShiftBackward.call(input, other)


@tensor_method("bitwise_right_shift")
def bitwise_right_shift(input, other):
    """Element-wise arithmetic ``input >> other`` (integers)."""
    _int_operands("bitwise_right_shift", True, input, other)
    return BitwiseRightShiftBackward.call(input, other)


def _inplace(fn, name):
    alias_safe(fn)

    def method(self, *args):
        return apply_inplace(fn, self, *args)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place :func:`{fn.__name__}`."
    setattr(Tensor, name, method)
    return method


for _fn in (nextafter, heaviside, bitwise_left_shift, bitwise_right_shift):
    _inplace(_fn, _fn.__name__ + "_")
ldexp_ = _inplace(ldexp, "ldexp_")  # also lucid.ldexp_, as torch.ldexp_
gcd_ = _inplace(gcd, "gcd_")
lcm_ = _inplace(lcm, "lcm_")

install(
    __lshift__=bitwise_left_shift,
    __rlshift__=lambda self, other: bitwise_left_shift(other, self),
    __ilshift__=vars(Tensor)["bitwise_left_shift_"],
    __rshift__=bitwise_right_shift,
    __rrshift__=lambda self, other: bitwise_right_shift(other, self),
    __irshift__=vars(Tensor)["bitwise_right_shift_"],
)
