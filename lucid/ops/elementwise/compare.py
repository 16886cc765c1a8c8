"""Comparison and logic: ``eq``/``ne``/``lt``/``le``/``gt``/``ge``, ``logical_*``,
``bitwise_*``, ``isclose``, ``isin`` (bool or integer results, not differentiable), the
Python-valued ``equal`` and ``allclose``, and the comparison and bitwise operators of
Tensor.

Operands are promoted like arithmetic (``int_tensor == 2.5`` compares in float); the result
never requires grad.
"""

from __future__ import annotations

import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import ArgumentError, DTypeError
from ..core._bind import install, tensor_method
from ..core.base import BinaryOp, Op, UnaryOp, to_tensor
from ..binary._common import _inplace
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = [
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "not_equal",
    "equal",
    "isclose",
    "allclose",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "isin",
]


def _schema(name, arity=2, cx=None):
    return OpSchema(
        name, 1, AmpPolicy.KEEP_INPUT, input_arity=arity, differentiable=False, complex_grad=cx
    )


_CMP_NOTES = """
    Attributes
    ----------
    schema_v1 : OpSchema
        ``"{name}"``, ``AmpPolicy.KEEP_INPUT``, not differentiable (bool result).
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.{kernel}``. {note}
    """

_PROMOTED = "Operands are promoted first (``int == 2.5`` compares in the default float); "


def _cmp_doc(summary, math, name, kernel, note=_PROMOTED + "any comparison with nan is False."):
    return (
        f"{summary}\n\n    Saves nothing: there is no gradient.\n\n    Math\n    ----\n"
        f"    .. math:: {math}\n" + _CMP_NOTES.format(name=name, kernel=kernel, note=note)
    )


# -- element-wise comparisons ------------------------------------------------------------


@register
class EqBackward(BinaryOp):
    __doc__ = _cmp_doc(
        "Node of element-wise equality :math:`y = [a = b]`.",
        "y_i = [a_i = b_i]",
        "eq",
        "equal",
        _PROMOTED + "nan equals nothing, not even nan.",
    )
    __slots__ = ()
    schema_v1 = _schema("eq", cx="custom")

    @staticmethod
    def dispatch(be, a, b):
        return be.eq(a, b)


@register
class NeBackward(BinaryOp):
    __doc__ = _cmp_doc(
        "Node of element-wise inequality :math:`y = [a \\ne b]`.",
        "y_i = [a_i \\ne b_i]",
        "ne",
        "not_equal",
        _PROMOTED + "nan differs from everything, itself included.",
    )
    __slots__ = ()
    schema_v1 = _schema("ne", cx="custom")

    @staticmethod
    def dispatch(be, a, b):
        return be.ne(a, b)


@register
class LtBackward(BinaryOp):
    __doc__ = _cmp_doc(
        "Node of element-wise :math:`y = [a < b]`.", "y_i = [a_i < b_i]", "lt", "less"
    )
    __slots__ = ()
    schema_v1 = _schema("lt")

    @staticmethod
    def dispatch(be, a, b):
        return be.lt(a, b)


@register
class LeBackward(BinaryOp):
    __doc__ = _cmp_doc(
        "Node of element-wise :math:`y = [a \\le b]`.", "y_i = [a_i \\le b_i]", "le", "less_equal"
    )
    __slots__ = ()
    schema_v1 = _schema("le")

    @staticmethod
    def dispatch(be, a, b):
        return be.le(a, b)


@register
class GtBackward(BinaryOp):
    __doc__ = _cmp_doc(
        "Node of element-wise :math:`y = [a > b]`.", "y_i = [a_i > b_i]", "gt", "greater"
    )
    __slots__ = ()
    schema_v1 = _schema("gt")

    @staticmethod
    def dispatch(be, a, b):
        return be.gt(a, b)


@register
class GeBackward(BinaryOp):
    __doc__ = _cmp_doc(
        "Node of element-wise :math:`y = [a \\ge b]`.",
        "y_i = [a_i \\ge b_i]",
        "ge",
        "greater_equal",
    )
    __slots__ = ()
    schema_v1 = _schema("ge")

    @staticmethod
    def dispatch(be, a, b):
        return be.ge(a, b)


# -- logical ------------------------------------------------------------------------------

_TRUTHY = "Any dtype; nonzero (nan included) is true."


@register
class LogicalAndBackward(BinaryOp):
    __doc__ = _cmp_doc(
        "Node of element-wise :math:`y = (a \\ne 0) \\land (b \\ne 0)`.",
        "y_i = [a_i \\ne 0 \\land b_i \\ne 0]",
        "logical_and",
        "logical_and",
        _TRUTHY,
    )
    __slots__ = ()
    schema_v1 = _schema("logical_and", cx="custom")

    @staticmethod
    def dispatch(be, a, b):
        return be.logical_and(a, b)


@register
class LogicalOrBackward(BinaryOp):
    __doc__ = _cmp_doc(
        "Node of element-wise :math:`y = (a \\ne 0) \\lor (b \\ne 0)`.",
        "y_i = [a_i \\ne 0 \\lor b_i \\ne 0]",
        "logical_or",
        "logical_or",
        _TRUTHY,
    )
    __slots__ = ()
    schema_v1 = _schema("logical_or", cx="custom")

    @staticmethod
    def dispatch(be, a, b):
        return be.logical_or(a, b)


@register
class LogicalXorBackward(BinaryOp):
    __doc__ = _cmp_doc(
        "Node of element-wise :math:`y = (a \\ne 0) \\oplus (b \\ne 0)`.",
        "y_i = [a_i \\ne 0] \\oplus [b_i \\ne 0]",
        "logical_xor",
        "logical_xor",
        _TRUTHY,
    )
    __slots__ = ()
    schema_v1 = _schema("logical_xor", cx="custom")

    @staticmethod
    def dispatch(be, a, b):
        return be.logical_xor(a, b)


@register
class LogicalNotBackward(UnaryOp):
    __doc__ = _cmp_doc(
        "Node of element-wise :math:`y = (x = 0)`.",
        "y_i = [x_i = 0]",
        "logical_not",
        "logical_not",
        _TRUTHY,
    )
    __slots__ = ()
    schema_v1 = _schema("logical_not", 1, cx="custom")

    @staticmethod
    def dispatch(be, x):
        return be.logical_not(x)


# -- bitwise ------------------------------------------------------------------------------


def _integral(name, a):
    if _dt._BY_NP[a.dtype].is_floating_point:
        raise DTypeError(
            f"{name}: not implemented for {_dt._BY_NP[a.dtype].name} tensors; "
            "expected an integer or bool dtype"
        )


_BITS = (
    "Integer and bool operands only (bool: the logical op); the result keeps the promoted dtype."
)


def _bit_doc(summary, math, name, kernel):
    return _cmp_doc(summary, math, name, kernel, _BITS).replace(
        "not differentiable (bool result)", "not differentiable (integer result)"
    )


@register
class BitwiseAndBackward(BinaryOp):
    __doc__ = _bit_doc(
        "Node of element-wise bitwise :math:`y = a \\,\\&\\, b`.",
        "y_i = a_i \\,\\&\\, b_i",
        "bitwise_and",
        "bitwise_and",
    )
    __slots__ = ()
    schema_v1 = _schema("bitwise_and")

    @staticmethod
    def dispatch(be, a, b):
        _integral("bitwise_and", a)
        return be.bitwise_and(a, b)


@register
class BitwiseOrBackward(BinaryOp):
    __doc__ = _bit_doc(
        "Node of element-wise bitwise :math:`y = a \\mid b`.",
        "y_i = a_i \\mid b_i",
        "bitwise_or",
        "bitwise_or",
    )
    __slots__ = ()
    schema_v1 = _schema("bitwise_or")

    @staticmethod
    def dispatch(be, a, b):
        _integral("bitwise_or", a)
        return be.bitwise_or(a, b)


@register
class BitwiseXorBackward(BinaryOp):
    __doc__ = _bit_doc(
        "Node of element-wise bitwise :math:`y = a \\oplus b`.",
        "y_i = a_i \\oplus b_i",
        "bitwise_xor",
        "bitwise_xor",
    )
    __slots__ = ()
    schema_v1 = _schema("bitwise_xor")

    @staticmethod
    def dispatch(be, a, b):
        _integral("bitwise_xor", a)
        return be.bitwise_xor(a, b)


@register
class BitwiseNotBackward(UnaryOp):
    __doc__ = _bit_doc(
        "Node of element-wise bitwise :math:`y = \\lnot x` (two's complement).",
        "y_i = -x_i - 1 \\ (\\text{integers}), \\quad \\lnot x_i \\ (\\text{bool})",
        "bitwise_not",
        "invert",
    )
    __slots__ = ()
    schema_v1 = _schema("bitwise_not", 1)

    @staticmethod
    def dispatch(be, x):
        _integral("bitwise_not", x)
        return be.bitwise_not(x)


# -- isclose, isin ------------------------------------------------------------------------


@register
class IscloseBackward(BinaryOp):
    r"""Node of element-wise closeness :math:`y = [|a - b| \le \mathrm{atol} +
    |\mathrm{rtol} \cdot b|]`.

    Saves nothing: there is no gradient.

    Math
    ----
    .. math:: y_i = [a_i = b_i] \lor \big(|a_i - b_i| \text{ finite} \land
              |a_i - b_i| \le \mathrm{atol} + |\mathrm{rtol}\, b_i|\big)
              \lor (\mathrm{equal\_nan} \land a_i, b_i \text{ nan})

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"isclose"``, ``AmpPolicy.KEEP_INPUT``, not differentiable (bool result).
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: the formula above with ``xp`` primitives (PyTorch's, not NumPy's
    ``isclose``): equal infinities are close, different ones are not. Both operands must
    have one dtype; integers compare exactly, then within tolerance in the default float
    dtype (as PyTorch: ``2**62 + 1`` is close to ``2**62`` at ``atol=0.5``).
    """

    __slots__ = ()
    schema_v1 = _schema("isclose", cx="custom")

    @staticmethod
    def dispatch(be, a, b, rtol, atol, equal_nan, float_dtype):
        return be.isclose(a, b, rtol, atol, equal_nan, float_dtype)


@register
class IsinBackward(Op):
    r"""Node of membership :math:`y_i = [x_i \in T]` (``isin(elements, test_elements)``).

    Saves nothing: there is no gradient.

    Math
    ----
    .. math:: y_i = [\exists j:\ x_i = T_j] \oplus \mathrm{invert}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"isin"``, ``AmpPolicy.KEEP_INPUT``, not differentiable (bool result, of the
        shape of ``elements``).
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.isin`` (sort-based) on the promoted operands; nan is never found.
    Bool operands are rejected (as PyTorch).
    """

    __slots__ = ()
    schema_v1 = _schema("isin")

    @staticmethod
    def dispatch(be, elements, test_elements, invert):
        return be.isin(elements, test_elements, invert)


# -- wrappers -----------------------------------------------------------------------------


def _binary(cls, name, doc):
    """The public wrapper of comparison/logic op ``cls``."""
    call = cls.call

    def fn(input, other):
        return call(input, other)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


eq = _binary(EqBackward, "eq", "Element-wise ``input == other`` (bool).")
ne = not_equal = _binary(NeBackward, "ne", "Element-wise ``input != other`` (bool).")
lt = less = _binary(LtBackward, "lt", "Element-wise ``input < other`` (bool).")
le = less_equal = _binary(LeBackward, "le", "Element-wise ``input <= other`` (bool).")
gt = greater = _binary(GtBackward, "gt", "Element-wise ``input > other`` (bool).")
ge = greater_equal = _binary(GeBackward, "ge", "Element-wise ``input >= other`` (bool).")
logical_and = _binary(
    LogicalAndBackward, "logical_and", "Element-wise ``bool(input) and bool(other)``."
)
logical_or = _binary(
    LogicalOrBackward, "logical_or", "Element-wise ``bool(input) or bool(other)``."
)
logical_xor = _binary(
    LogicalXorBackward, "logical_xor", "Element-wise ``bool(input) != bool(other)``."
)
bitwise_and = _binary(
    BitwiseAndBackward, "bitwise_and", "Element-wise ``input & other`` (integer or bool)."
)
bitwise_or = _binary(
    BitwiseOrBackward, "bitwise_or", "Element-wise ``input | other`` (integer or bool)."
)
bitwise_xor = _binary(
    BitwiseXorBackward, "bitwise_xor", "Element-wise ``input ^ other`` (integer or bool)."
)

for _fn, _names in (
    (eq, ("eq",)),
    (ne, ("ne", "not_equal")),
    (lt, ("lt", "less")),
    (le, ("le", "less_equal")),
    (gt, ("gt", "greater")),
    (ge, ("ge", "greater_equal")),
    (logical_and, ("logical_and",)),
    (logical_or, ("logical_or",)),
    (logical_xor, ("logical_xor",)),
    (bitwise_and, ("bitwise_and",)),
    (bitwise_or, ("bitwise_or",)),
    (bitwise_xor, ("bitwise_xor",)),
):
    tensor_method(*_names)(_fn)
    _inplace(_fn, *(n + "_" for n in _names))


@tensor_method("logical_not")
def logical_not(input):
    """Element-wise ``not bool(input)``."""
    return LogicalNotBackward.call(input)


@tensor_method("bitwise_not")
def bitwise_not(input):
    """Element-wise ``~input`` (integer or bool)."""
    return BitwiseNotBackward.call(input)


_inplace(logical_not, "logical_not_")
_inplace(bitwise_not, "bitwise_not_")


@tensor_method("isclose")
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Element-wise ``|input - other| <= atol + rtol * |other|`` (or equal; nan pairs
    when ``equal_nan``). Both tensors must have one dtype."""
    for arg, x in (("input", input), ("other", other)):
        if not isinstance(x, Tensor):
            raise DTypeError(f"isclose: argument '{arg}' must be a Tensor, got {type(x).__name__}")
    if input._dtype is not other._dtype:
        raise DTypeError(
            f"isclose: expected both inputs to have the same dtype, got "
            f"{input._dtype.name} and {other._dtype.name}"
        )
    if rtol < 0 or atol < 0:
        raise ArgumentError(
            f"isclose: rtol and atol must be greater than or equal to zero, "
            f"got rtol={rtol}, atol={atol}"
        )
    dt = input._dtype
    fdt = dt if dt._cat >= 2 else _dt.get_default_dtype()
    return IscloseBackward.call(
        input,
        other,
        rtol=float(rtol),
        atol=float(atol),
        equal_nan=bool(equal_nan),
        float_dtype=fdt.np,
    )


@tensor_method("allclose")
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of ``input`` is close to ``other`` (a Python bool)."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


@tensor_method("equal")
def equal(input, other):
    """Whether ``input`` and ``other`` have one shape and equal elements (a Python bool;
    nan makes it False)."""
    if tuple(input._data.shape) != tuple(other._data.shape):
        return False
    return bool(EqBackward.call(input, other)._data.all())


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of ``elements`` occurs in ``test_elements`` (either may be a
    Python number); the result has the shape of ``elements``."""
    like = elements if isinstance(elements, Tensor) else test_elements
    if not isinstance(like, Tensor):
        raise DTypeError(
            "isin: expected elements or test_elements to be a Tensor, got "
            f"{type(elements).__name__} and {type(test_elements).__name__}"
        )
    a, b = to_tensor(elements, like), to_tensor(test_elements, like)
    for t in (a, b):
        if t._dtype is _dt.bool:
            raise DTypeError(
                "isin: unsupported input type bool; expected integer or floating tensors"
            )
    rd = _dt.result_type(elements, test_elements)
    a = a if a._dtype is rd else a.to(rd)
    b = b if b._dtype is rd else b.to(rd)
    return IsinBackward.apply(a, b, invert=bool(invert))


# -- operators ----------------------------------------------------------------------------

_OPERANDS = (Tensor, numbers.Number)


def _eq_operator(cls):
    """``==``/``!=``: element-wise for tensors, numbers and arrays (NumPy's array
    interface); any other operand falls back to Python's identity comparison (``t == None``
    is False, as PyTorch)."""
    call = cls.call

    def op(self, other):
        if (
            other.__class__ is Tensor
            or isinstance(other, _OPERANDS)
            or hasattr(other, "__array_interface__")
        ):  # arrays compare element-wise
            return call(self, other)
        return NotImplemented

    return op


install(
    __eq__=_eq_operator(EqBackward),
    __ne__=_eq_operator(NeBackward),
    __lt__=lambda self, other: LtBackward.call(self, other),
    __le__=lambda self, other: LeBackward.call(self, other),
    __gt__=lambda self, other: GtBackward.call(self, other),
    __ge__=lambda self, other: GeBackward.call(self, other),
    __and__=bitwise_and,
    __rand__=lambda self, other: BitwiseAndBackward.call(other, self),
    __iand__=vars(Tensor)["bitwise_and_"],
    __or__=bitwise_or,
    __ror__=lambda self, other: BitwiseOrBackward.call(other, self),
    __ior__=vars(Tensor)["bitwise_or_"],
    __xor__=bitwise_xor,
    __rxor__=lambda self, other: BitwiseXorBackward.call(other, self),
    __ixor__=vars(Tensor)["bitwise_xor_"],
    __invert__=bitwise_not,
)
