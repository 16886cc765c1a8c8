"""Ops that are other ops' backward: ``tanh_backward``, ``sigmoid_backward`` and
``pow_scalar_backward``.

A gradient formula that calls one of these records one node in graph mode instead of the
three of ``g * (1 - y * y)``, so a double backward (Hessian-vector products, gradient
penalties) runs a third of the nodes; each has its own gradient, as PyTorch's
``tanh_backward`` (``TanhBackwardBackward0``) does. In eager mode they are the backend
kernels of the same name.
"""

from __future__ import annotations

from .base import Op
from .registry import register
from .schema import AmpPolicy, OpSchema

__all__ = []


@register
class TanhBackwardBackward(Op):
    r"""Autograd node for :math:`z = g\,(1 - y^2)`, the backward of :math:`y = \tanh x`
    as an op of its own (inputs the incoming gradient :math:`g` and the output :math:`y`).

    Saves :math:`y` for both gradients and :math:`g` for :math:`y`'s.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial g} = (1 - y^2)\, \bar z, \qquad
              \frac{\partial \mathcal{L}}{\partial y} = -2\, y\, g\, \bar z

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"tanh_backward"``, ``AmpPolicy.FORCE_FP32``, two inputs, internal.
    saves_input : tuple
        :math:`y` if :math:`g` needs a gradient; :math:`g` and :math:`y` if :math:`y` does.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``tanh_backward``, :math:`g (1 - y y)` in that order (the eager backward of
    ``tanh``, bit for bit).
    """

    __slots__ = ()
    schema_v1 = OpSchema("tanh_backward", 1, AmpPolicy.FORCE_FP32, input_arity=2,
                         internal=True, complex_grad="holomorphic")
    saves_input = ((1,), (0, 1))

    @staticmethod
    def dispatch(be, g, y):
        return be.tanh_backward(g, y)

    def grad(self, F, gz, g, y, out):
        return (F.tanh_backward(gz, y) if self.next_edges[0] is not None else None,
                None if g is None else gz * g * (y * -2))


@register
class SigmoidBackwardBackward(Op):
    r"""Autograd node for :math:`z = g\,(1 - y)\,y`, the backward of
    :math:`y = \sigma(x)` as an op of its own.

    Saves :math:`y` for both gradients and :math:`g` for :math:`y`'s.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial g} = (1 - y)\,y\, \bar z, \qquad
              \frac{\partial \mathcal{L}}{\partial y} = (1 - 2y)\, g\, \bar z

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"sigmoid_backward"``, ``AmpPolicy.FORCE_FP32``, two inputs, internal.
    saves_input : tuple
        :math:`y` if :math:`g` needs a gradient; :math:`g` and :math:`y` if :math:`y` does.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``sigmoid_backward``, :math:`g (1 - y) y` in that order (the eager backward
    of ``sigmoid``, bit for bit).
    """

    __slots__ = ()
    schema_v1 = OpSchema("sigmoid_backward", 1, AmpPolicy.FORCE_FP32, input_arity=2,
                         internal=True, complex_grad="holomorphic")
    saves_input = ((1,), (0, 1))

    @staticmethod
    def dispatch(be, g, y):
        return be.sigmoid_backward(g, y)

    def grad(self, F, gz, g, y, out):
        return (F.sigmoid_backward(gz, y) if self.next_edges[0] is not None else None,
                None if g is None else gz * g * (1 - y * 2))


@register
class PowScalarBackwardBackward(Op):
    r"""Autograd node for :math:`z = g\,p\,x^{p-1}` (0 for :math:`p = 0`), the backward of
    :math:`y = x^p` for a number :math:`p`, as an op of its own.

    Saves :math:`x` for both gradients and :math:`g` for :math:`x`'s.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial g} = p\,x^{p-1}\, \bar z, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = p\,(p - 1)\,x^{p-2}\, g\, \bar z

    so its own gradients are this op again, with :math:`p - 1` for :math:`x`'s.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"pow_scalar_backward"``, ``AmpPolicy.FORCE_FP32``, two inputs, internal;
        ``exponent`` is a param.
    saves_input : tuple
        :math:`x` if :math:`g` needs a gradient; :math:`g` and :math:`x` if :math:`x` does.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``pow_scalar_backward``, :math:`g (p \cdot x^{p-1})` with ``pow_scalar``'s
    special exponents (the eager backward of ``pow``, bit for bit); zeros for
    :math:`p = 0`.
    """

    __slots__ = ()
    schema_v1 = OpSchema("pow_scalar_backward", 1, AmpPolicy.FORCE_FP32, input_arity=2,
                         internal=True, complex_grad="holomorphic")
    saves_input = ((1,), (0, 1))

    @staticmethod
    def dispatch(be, g, x, exponent):
        return be.pow_scalar_backward(g, x, exponent)

    def grad(self, F, gz, g, x, out):
        p = self.params["exponent"]
        return (F.pow_scalar_backward(gz, x, p) if self.next_edges[0] is not None else None,
                None if g is None else F.pow_scalar_backward(gz * g * p, x, p - 1))
