"""Ops that are other ops' backward: ``tanh_backward``, ``sigmoid_backward``,
``pow_scalar_backward`` and the selections of the piecewise-linear activations
(``relu_backward``, ``hardtanh_backward``, ``leaky_relu_backward``, ``hardsigmoid_backward``).

A gradient formula that calls one of these records one node in graph mode instead of the
three of ``g * (1 - y * y)``, so a double backward (Hessian-vector products, gradient
penalties) runs a third of the nodes; each has its own gradient, as PyTorch's
``tanh_backward`` (``TanhBackwardBackward0``) does. In eager mode they are the backend
kernels of the same name.
"""

from __future__ import annotations

from ...errors import AutogradError
from ..core.base import Op
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

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
    schema_v1 = OpSchema(
        "tanh_backward",
        1,
        AmpPolicy.FORCE_FP32,
        input_arity=2,
        internal=True,
        complex_grad="holomorphic",
    )
    saves_input = ((1,), (0, 1))

    @staticmethod
    def dispatch(be, g, y):
        return be.tanh_backward(g, y)

    def grad(self, F, gz, g, y, out):
        return (
            F.tanh_backward(gz, y) if self.next_edges[0] is not None else None,
            None if g is None else gz * g * (y * -2),
        )


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
    schema_v1 = OpSchema(
        "sigmoid_backward",
        1,
        AmpPolicy.FORCE_FP32,
        input_arity=2,
        internal=True,
        complex_grad="holomorphic",
    )
    saves_input = ((1,), (0, 1))

    @staticmethod
    def dispatch(be, g, y):
        return be.sigmoid_backward(g, y)

    def grad(self, F, gz, g, y, out):
        return (
            F.sigmoid_backward(gz, y) if self.next_edges[0] is not None else None,
            None if g is None else gz * g * (1 - y * 2),
        )


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
    schema_v1 = OpSchema(
        "pow_scalar_backward",
        1,
        AmpPolicy.FORCE_FP32,
        input_arity=2,
        internal=True,
        complex_grad="holomorphic",
    )
    saves_input = ((1,), (0, 1))

    @staticmethod
    def dispatch(be, g, x, exponent):
        return be.pow_scalar_backward(g, x, exponent)

    def grad(self, F, gz, g, x, out):
        p = self.params["exponent"]
        return (
            F.pow_scalar_backward(gz, x, p) if self.next_edges[0] is not None else None,
            None if g is None else F.pow_scalar_backward(gz * g * p, x, p - 1),
        )


class SelectionBackward(Op):
    r"""Base of the backward ops of the piecewise-linear activations:
    :math:`z = c(x)\,g` with :math:`c` piecewise constant, computed as a selection (an
    infinite :math:`g` where :math:`c = 0` gives 0). Inputs: :math:`g`, then :math:`x` (or
    the output :math:`y` for ReLU).

    Their own gradients are PyTorch's (``ThresholdBackwardBackward0``,
    ``HardtanhBackwardBackward0``, ``LeakyReluBackwardBackward0``): for :math:`g` the same
    selection of the incoming gradient, for :math:`x` zeros, as :math:`c` is constant
    almost everywhere. Recording the node (rather than a ``where`` that forgets :math:`x`)
    gives the first gradient a ``grad_fn`` linked to :math:`x`, so
    ``autograd.grad(g.sum(), x)`` returns zeros as in PyTorch instead of raising.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial g} = c(x)\, \bar z, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = 0

    Attributes
    ----------
    saves_input : tuple
        :math:`x` for :math:`g`'s gradient; nothing for :math:`x`'s (zeros).

    Notes
    -----
    ``dispatch`` is the backend kernel of the op's name; the gradient for :math:`g` calls
    it again through ``F`` (the kernel in eager mode, this op in graph mode).
    """

    __slots__ = ()
    saves_input = ((1,), ())

    def grad(self, F, gz, g, x, out):
        e = self.next_edges
        return (
            self.dispatch(F, gz, x, **self.params) if e[0] is not None else None,
            F.zeros_like(gz) if e[1] is not None else None,
        )


def _selection_schema(name):
    return OpSchema(name, 1, AmpPolicy.KEEP_INPUT, input_arity=2, internal=True)


@register
class ReluBackwardBackward(SelectionBackward):
    r"""Autograd node for :math:`z = g\,[y > 0]`, the backward of :math:`y = \max(x, 0)`
    from its output (PyTorch's ``threshold_backward(g, y, 0)``) as an op of its own.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial g} = [y > 0]\, \bar z, \qquad
              \frac{\partial \mathcal{L}}{\partial y} = 0

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"relu_backward"``, ``AmpPolicy.KEEP_INPUT``, two inputs (:math:`g`, :math:`y`),
        internal.
    saves_input : tuple
        :math:`y` if :math:`g` needs a gradient.

    Notes
    -----
    Backends: ``relu_backward(y, g)`` (nan in :math:`y` passes :math:`g`). See
    :class:`SelectionBackward`.
    """

    __slots__ = ()
    schema_v1 = _selection_schema("relu_backward")

    @staticmethod
    def dispatch(be, g, y):
        return be.relu_backward(y, g)


@register
class HardtanhBackwardBackward(SelectionBackward):
    r"""Autograd node for :math:`z = g\,[lo < x < hi]`, the backward of hardtanh (and
    relu6) as an op of its own.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial g} = [lo < x < hi]\, \bar z, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = 0

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"hardtanh_backward"``, ``AmpPolicy.KEEP_INPUT``, two inputs, internal; params
        ``min_val``, ``max_val``.
    saves_input : tuple
        :math:`x` if :math:`g` needs a gradient.

    Notes
    -----
    Backends: ``hardtanh_backward`` (0 where :math:`x \le lo` or :math:`x \ge hi`, so nan
    in :math:`x` passes :math:`g`, as PyTorch). See :class:`SelectionBackward`.
    """

    __slots__ = ()
    schema_v1 = _selection_schema("hardtanh_backward")

    @staticmethod
    def dispatch(be, g, x, min_val, max_val):
        return be.hardtanh_backward(g, x, min_val, max_val)


@register
class LeakyReluBackwardBackward(SelectionBackward):
    r"""Autograd node for :math:`z = g` where :math:`x > 0`, else :math:`s\,g`, the
    backward of leaky ReLU as an op of its own.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial g} = (x > 0 \;?\; 1 : s)\, \bar z,
              \qquad \frac{\partial \mathcal{L}}{\partial x} = 0

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"leaky_relu_backward"``, ``AmpPolicy.KEEP_INPUT``, two inputs, internal; param
        ``negative_slope``.
    saves_input : tuple
        :math:`x` if :math:`g` needs a gradient.

    Notes
    -----
    Backends: ``leaky_relu_backward`` (nan in :math:`x` takes the slope). See
    :class:`SelectionBackward`.
    """

    __slots__ = ()
    schema_v1 = _selection_schema("leaky_relu_backward")

    @staticmethod
    def dispatch(be, g, x, negative_slope):
        return be.leaky_relu_backward(g, x, negative_slope)


@register
class HardsigmoidBackwardBackward(SelectionBackward):
    r"""Autograd node for :math:`z = g / 6` where :math:`-3 < x < 3`, else 0, the
    backward of hardsigmoid as an op of its own, without a derivative (as PyTorch).

    Math
    ----
    .. math:: z = \tfrac16\,[-3 < x < 3]\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"hardsigmoid_backward"``, ``AmpPolicy.KEEP_INPUT``, two inputs, internal.
    saves_input : tuple
        :math:`x` if :math:`g` needs a gradient.

    Notes
    -----
    Backends: ``hardsigmoid_backward``. PyTorch records a node for
    ``hardsigmoid_backward`` whose backward raises ("derivative for
    aten::hardsigmoid_backward is not implemented"); so does this one, with an
    ``AutogradError``. ``hardswish``, whose second derivative PyTorch has, is composed
    without it.
    """

    __slots__ = ()
    schema_v1 = _selection_schema("hardsigmoid_backward")

    @staticmethod
    def dispatch(be, g, x):
        return be.hardsigmoid_backward(g, x)

    def grad(self, F, gz, g, x, out):
        raise AutogradError(
            "hardsigmoid: the derivative of its gradient "
            "(hardsigmoid_backward) is not implemented, as in PyTorch"
        )
