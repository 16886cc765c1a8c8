"""Element-wise binary ops with broadcasting and type promotion: ``y = f(a, b)``."""

from __future__ import annotations

from .._tensor import Tensor
from ._bind import tensor_method
from .base import BinaryOp, apply_inplace
from .registry import register
from .schema import AmpPolicy, OpSchema

__all__ = ["add", "mul", "multiply"]


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
    schema_v1 = OpSchema("add", 1, AmpPolicy.KEEP_INPUT, input_arity=2)

    @staticmethod
    def dispatch(be, a, b, alpha=1):
        return be.add(a, b) if alpha == 1 else be.add(a, be.mul(b, alpha))

    def grad_formula(self, g):
        alpha = self.params.get("alpha", 1)
        return g, (g if alpha == 1 else g * alpha)

    def grad_formula_impl(self, g, a, b, out):
        alpha = self.params.get("alpha", 1)
        return g, (g if alpha == 1 else g * alpha)


@register
class MulBackward(BinaryOp):
    r"""Autograd node for :math:`y = a \cdot b` (broadcasting).

    Saves both inputs: each one's gradient is the other times the incoming gradient.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g\,b, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = g\,a

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"mul"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input : bool
        True: ``a`` and ``b``.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.multiply``. ``0 * inf`` is nan; integer overflow wraps.
    """

    __slots__ = ()
    schema_v1 = OpSchema("mul", 1, AmpPolicy.KEEP_INPUT, input_arity=2)
    saves_input = True

    @staticmethod
    def dispatch(be, a, b):
        return be.mul(a, b)

    def grad_formula(self, g):
        a, b = self.saved
        e = self.next_edges
        return (g * b._data if e[0] is not None else None,
                g * a._data if e[1] is not None else None)

    def grad_formula_impl(self, g, a, b, out):
        return g * b, g * a


@tensor_method("add")
def add(input, other, *, alpha=1):
    """``input + alpha * other`` with broadcasting and promotion."""
    if alpha != 1:
        return AddBackward.call(input, other, alpha=alpha)
    return AddBackward.call(input, other)


@tensor_method("mul", "multiply")
def mul(input, other):
    """``input * other`` with broadcasting and promotion."""
    return MulBackward.call(input, other)


multiply = mul


@tensor_method("add_")
def add_(x, other, *, alpha=1):
    return apply_inplace(add, x, other, alpha=alpha)


@tensor_method("mul_", "multiply_")
def mul_(x, other):
    return apply_inplace(mul, x, other)


Tensor.__add__ = lambda self, other: AddBackward.call(self, other)
Tensor.__radd__ = lambda self, other: AddBackward.call(other, self)
Tensor.__iadd__ = add_
Tensor.__mul__ = lambda self, other: MulBackward.call(self, other)
Tensor.__rmul__ = lambda self, other: MulBackward.call(other, self)
Tensor.__imul__ = mul_
