"""Element-wise ops of three inputs: ``lerp``, ``addcmul``, ``addcdiv`` and ``where``
(``Tensor.where`` too), with the in-place Tensor methods ``lerp_``, ``addcmul_`` and
``addcdiv_``.

The three operands broadcast against each other and are promoted together (a Python number
operand becomes a tensor of the result dtype on the first tensor's device); each gradient is
summed back over the broadcast axes. Gradient formulas follow PyTorch's
``derivatives.yaml`` and keep what PyTorch keeps. Complex: all four are holomorphic.
"""

from __future__ import annotations

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import DTypeError
from ..core._bind import install, tensor_method
from ..core.base import BroadcastOp, _cast, _scalar_result, scalar_like
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ._common import _inplace, _is_number

__all__ = ["lerp", "addcmul", "addcdiv", "where"]


@register
class LerpBackward(BroadcastOp):
    r"""Autograd node for :math:`y = a + w\,(b - a)` (``lerp(input, end, weight)``).

    Saves what the wanted gradients need: the weight's gradient needs :math:`a` and
    :math:`b`, the others :math:`w`. A Python-number weight arrives as a 0-d tensor that
    needs no gradient.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g\,(1 - w), \quad
              \frac{\partial \mathcal{L}}{\partial b} = g\,w, \quad
              \frac{\partial \mathcal{L}}{\partial w} = g\,(b - a)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"lerp"``, ``AmpPolicy.KEEP_INPUT``; floating inputs of one dtype (as PyTorch).
    saves_input : tuple
        ``w`` if ``a`` or ``b`` needs a gradient; all three if ``w`` does (PyTorch keeps
        ``w`` then too, so an in-place change of it raises in both).
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``a + w (b - a)`` for :math:`|w| < 0.5`, else ``b - (b - a)(1 - w)`` so
    both ends are exact; half types compute in float32.
    """

    __slots__ = ()
    schema_v1 = OpSchema("lerp", 1, AmpPolicy.KEEP_INPUT, input_arity=3, complex_grad="holomorphic")
    saves_input = ((2,), (2,), (0, 1, 2))  # what PyTorch keeps

    @staticmethod
    def dispatch(be, a, b, w):
        return be.lerp(a, b, w)

    def grad(self, F, g, a, b, w, out):
        e = self.next_edges
        return (
            g * (1 - w) if e[0] is not None else None,
            g * w if e[1] is not None else None,
            g * (b - a) if e[2] is not None else None,
        )


@register
class AddcmulBackward(BroadcastOp):
    r"""Autograd node for :math:`y = x + v\,t_1 t_2` (``value`` :math:`v` a Python number).

    Saves each factor only if the other needs a gradient: each factor's gradient is the
    other factor (``x``'s is ``g``).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g, \quad
              \frac{\partial \mathcal{L}}{\partial t_1} = g\,(t_2 v), \quad
              \frac{\partial \mathcal{L}}{\partial t_2} = g\,(t_1 v)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"addcmul"``, ``AmpPolicy.KEEP_INPUT``; the three inputs are promoted together.
    saves_input : tuple
        ``t2`` if ``t1`` needs a gradient, ``t1`` if ``t2`` does; never ``x``.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``x + v * t1 * t2`` (one fused kernel on CuPy). Integer results truncate a
    float ``value`` (PyTorch).
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "addcmul", 1, AmpPolicy.KEEP_INPUT, input_arity=3, complex_grad="holomorphic"
    )
    saves_input = ((), (2,), (1,))

    @staticmethod
    def dispatch(be, x, t1, t2, value):
        return be.addcmul(x, t1, t2, value)

    def grad(self, F, g, x, t1, t2, out):
        v = self.params["value"]
        return (g, None if t2 is None else g * (t2 * v), None if t1 is None else g * (t1 * v))


@register
class AddcdivBackward(BroadcastOp):
    r"""Autograd node for :math:`y = x + v\,t_1 / t_2` (``value`` :math:`v` a Python
    number).

    Saves what the wanted gradients need: :math:`t_2` for that of :math:`t_1`,
    :math:`t_1` and :math:`t_2` for that of :math:`t_2`; never :math:`x`, but :math:`t_2`
    when only :math:`x` needs a gradient, as PyTorch.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g, \quad
              \frac{\partial \mathcal{L}}{\partial t_1} = g\,\frac{v}{t_2}, \quad
              \frac{\partial \mathcal{L}}{\partial t_2} = \frac{-g\,(v\,t_1 / t_2)}{t_2}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"addcdiv"``, ``AmpPolicy.KEEP_INPUT``; inputs promoted together; integer
        ``t1, t2`` are rejected (PyTorch: no integer division in addcdiv).
    saves_input : tuple
        ``t2`` if ``x`` or ``t1`` needs a gradient (PyTorch keeps it for ``x`` too, so an
        in-place change of ``t2`` raises in both), ``t1`` and ``t2`` if ``t2`` does.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``x + v * t1 / t2`` (one fused kernel on CuPy); division by zero gives
    ``±inf``/nan.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "addcdiv", 1, AmpPolicy.KEEP_INPUT, input_arity=3, complex_grad="holomorphic"
    )
    saves_input = ((2,), (2,), (1, 2))  # what PyTorch keeps (t2 even for x's gradient)

    @staticmethod
    def dispatch(be, x, t1, t2, value):
        return be.addcdiv(x, t1, t2, value)

    def grad(self, F, g, x, t1, t2, out):
        v, e = self.params["value"], self.next_edges
        return (
            g,
            g * (v / t2) if e[1] is not None else None,
            -g * (v * t1 / t2) / t2 if e[2] is not None else None,
        )


@register
class WhereBackward(BroadcastOp):
    r"""Autograd node for :math:`y = c \,?\, a : b` (``where(condition, input, other)``).

    Saves the condition only (when ``a`` or ``b`` needs a gradient): the gradient is
    routed by it, and the values of ``a`` and ``b`` are not needed.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g\,\mathbb{1}[c], \qquad
              \frac{\partial \mathcal{L}}{\partial b} = g\,\mathbb{1}[\lnot c]

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"where"``, ``AmpPolicy.KEEP_INPUT``; three inputs, the condition needs no
        gradient; ``a`` and ``b`` promoted together (Python scalars weak).
    saves_input : tuple
        The condition, if ``a`` or ``b`` needs a gradient.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.where``. The three operands broadcast together. The unselected
    operand's values never reach the gradient (no nan leak, unlike ``c * a``).
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "where", 1, AmpPolicy.KEEP_INPUT, input_arity=3, complex_grad="holomorphic"
    )
    saves_input = ((), (0,), (0,))

    @staticmethod
    def dispatch(be, cond, a, b):
        return be.where(cond, a, b)

    def grad(self, F, g, cond, a, b, out):
        e = self.next_edges
        return (
            None,
            F.where(cond, g, 0) if e[1] is not None else None,
            F.where(cond, 0, g) if e[2] is not None else None,
        )


# -- wrappers ----------------------------------------------------------------------------


def _as_operand(x, rd, like):
    """``x`` (a Tensor or a Python number) as a tensor of dtype ``rd`` on ``like``'s
    device; a cast of a tensor that requires grad is recorded."""
    if isinstance(x, Tensor):
        return x if x._dtype is rd else _cast(x, rd)
    return scalar_like(x, rd, like)


def _require_tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise DTypeError(f"{name}: argument '{arg}' must be a Tensor, got {type(x).__name__}")


@tensor_method("lerp")
def lerp(input, end, weight):
    """``input + weight * (end - input)``; ``weight`` a Python number or a tensor (a 0-d
    weight of any dtype is cast; otherwise dtypes must match ``input``'s)."""
    _require_tensor("lerp", "input", input)
    _require_tensor("lerp", "end", end)
    dt = input._dtype
    if dt._cat < 2:
        raise DTypeError(
            f"lerp: not implemented for {dt.name} tensors; expected a floating or complex dtype"
        )
    if end._dtype is not dt:
        raise DTypeError(
            f"lerp: expected dtype {dt.name} for `end` but got dtype {end._dtype.name}"
        )
    if isinstance(weight, Tensor):
        if weight._dtype is not dt and weight._data.ndim:
            raise DTypeError(
                f"lerp: expected dtype {dt.name} for `weight` but got dtype {weight._dtype.name}"
            )
    elif not _is_number(weight):
        raise DTypeError(
            f"lerp: weight must be a Tensor or a real number, got {type(weight).__name__}"
        )
    return LerpBackward.apply(input, end, _as_operand(weight, dt, input))


def _addc(cls, name, input, tensor1, tensor2, value):
    for arg, x in (("input", input), ("tensor1", tensor1), ("tensor2", tensor2)):
        _require_tensor(name, arg, x)
    if cls is AddcdivBackward and tensor1._dtype._cat < 2 and tensor2._dtype._cat < 2:
        raise DTypeError(
            "addcdiv: integer division with addcdiv is not supported; got "
            f"tensor1 {tensor1._dtype.name} and tensor2 {tensor2._dtype.name} "
            "(use a floating dtype, or floor_divide)"
        )
    rd = _dt.result_type(input, tensor1, tensor2)
    if rd._cat < 2:
        if rd is _dt.bool:
            raise DTypeError(f"{name}: not implemented for bool tensors")
        value = int(value)
    return cls.apply(*(_as_operand(x, rd, input) for x in (input, tensor1, tensor2)), value=value)


@tensor_method("addcmul")
def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2`` (broadcast, promoted together)."""
    return _addc(AddcmulBackward, "addcmul", input, tensor1, tensor2, value)


@tensor_method("addcdiv")
def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2`` (broadcast, promoted together)."""
    return _addc(AddcdivBackward, "addcdiv", input, tensor1, tensor2, value)


def where(condition, input=None, other=None):
    """Element-wise ``input`` where ``condition`` holds, else ``other`` (either may be a
    Python number). ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    _require_tensor("where", "condition", condition)
    cd = condition._dtype
    if cd is not _dt.bool:
        if cd is not _dt.uint8:
            raise DTypeError(
                f"where: expected condition to be a bool tensor, but got a "
                f"tensor with dtype {cd.name}"
            )
        condition = _cast(condition, _dt.bool)
    if input is None or other is None:
        raise DTypeError("where: expected both input and other (or neither)")
    ti, to = isinstance(input, Tensor), isinstance(other, Tensor)
    if ti and to:
        rd = input._dtype if input._dtype is other._dtype else _dt.result_type(input, other)
    elif ti or to:
        rd = (
            _scalar_result(WhereBackward, input._dtype, other)
            if ti
            else _scalar_result(WhereBackward, other._dtype, input)
        )
    else:
        for x in (input, other):
            if not _is_number(x):
                raise DTypeError(
                    f"where: expected a Tensor or a real number, got {type(x).__name__}"
                )
        rd = _dt.result_type(input, other)
    return WhereBackward.apply(
        condition, _as_operand(input, rd, condition), _as_operand(other, rd, condition)
    )


def _tensor_where(self, condition, other):
    """``where(condition, self, other)``."""
    return where(condition, self, other)


install(where=_tensor_where)


# -- in place ----------------------------------------------------------------------------

lerp_ = _inplace(lerp, "lerp_")
addcmul_ = _inplace(addcmul, "addcmul_")
addcdiv_ = _inplace(addcdiv, "addcdiv_")
