"""Fused activation ops: GELU (exact and tanh), SiLU and the piecewise-linear hardtanh,
leaky ReLU and hardsigmoid, one node each with an analytic backward. Their public wrappers
are in :mod:`lucid.nn.functional.activation`; the other activations are composed there
from Lucid ops.

The piecewise-linear ones are ops (not ``where`` compositions) so that their gradient is
PyTorch's recorded backward op (``hardtanh_backward``, ...): under ``create_graph=True`` the
first gradient has a ``grad_fn`` linked to :math:`x`, and its derivative is PyTorch's
(zeros; an error for hardsigmoid).
"""

from __future__ import annotations

from ..core.base import UnaryOp
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = []


@register
class GeluBackward(UnaryOp):
    r"""Autograd node for :math:`y = \mathrm{GELU}(x)`, exact or with the tanh
    approximation, one fused op.

    Saves the input: the derivative is a function of :math:`x` alone (the output would not
    give it back, GELU is not monotonic).

    Math
    ----
    .. math:: \mathrm{GELU}(x) = x\,\Phi(x), \qquad
              \frac{\partial \mathcal{L}}{\partial x} = g\,\big(\Phi(x) + x\,\varphi(x)\big)

    with :math:`\Phi`, :math:`\varphi` the standard normal cdf and pdf. With
    ``approximate="tanh"``: :math:`y = \frac{x}{2}(1 + \tanh u)`,
    :math:`u = \sqrt{2/\pi}\,(x + 0.044715\,x^3)`, and
    :math:`\frac{\partial y}{\partial x} = \frac12(1 + t) + \frac{x}{2}(1 - t^2)\,
    \sqrt{2/\pi}\,(1 + 0.134145\,x^2)`, :math:`t = \tanh u`.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"gelu"``, ``AmpPolicy.KEEP_INPUT``: element-wise and memory-bound; half inputs
        compute in float32 inside the kernel and round back.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.gelu`` / ``be.gelu_backward`` (``erf`` of the backend for the exact
    form, ``tanh`` for the approximation). Saturates to :math:`x` for large :math:`x` and
    to 0 for very negative :math:`x` without overflow (:math:`x^3` may overflow to inf in
    the tanh form, where :math:`\tanh` saturates: still finite results). The graph-mode
    backward (``graph_ns.gelu_backward``) is the same formula in Lucid ops, so the second
    derivative exists.
    """

    __slots__ = ()
    schema_v1 = OpSchema("gelu", 1, AmpPolicy.KEEP_INPUT)
    saves_input = True

    @staticmethod
    def dispatch(be, x, approximate):
        return be.gelu(x, approximate)

    def grad(self, F, g, x, out):
        return F.gelu_backward(x, g, self.params["approximate"])


@register
class SiluBackward(UnaryOp):
    r"""Autograd node for :math:`y = x\,\sigma(x)` (SiLU, swish), one fused op.

    Saves the input: the derivative needs :math:`\sigma(x)`, recomputed from :math:`x`
    rather than kept as a second array.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g\,\sigma(x)\big(1 + x\,(1 -
              \sigma(x))\big)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"silu"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.silu`` / ``be.silu_backward`` over the backend's ``sigmoid`` (computed
    as :math:`1 / (1 + e^{-x})`: no overflow for large :math:`|x|`; half inputs in
    float32). One node instead of the two of ``x * sigmoid(x)``.
    """

    __slots__ = ()
    schema_v1 = OpSchema("silu", 1, AmpPolicy.KEEP_INPUT)
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.silu(x)

    def grad(self, F, g, x, out):
        return F.silu_backward(x, g)


@register
class HardtanhBackward(UnaryOp):
    r"""Autograd node for :math:`y = \min(\max(x, lo), hi)` (hardtanh; relu6 is
    :math:`lo = 0, hi = 6`), with PyTorch's gradient: 0 at the bounds.

    Saves the input: the gradient passes strictly inside :math:`(lo, hi)`, which the
    clamped output cannot tell at the bounds.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \begin{cases} g & lo < x < hi
              \\ 0 & x \le lo \text{ or } x \ge hi \end{cases}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"hardtanh"``, ``AmpPolicy.KEEP_INPUT``; params ``min_val``, ``max_val``.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.clamp`` (nan stays nan); the backward is ``be.hardtanh_backward``, a
    selection (nan passes the gradient, as PyTorch's), recorded in graph mode as
    ``HardtanhBackwardBackward``, whose derivative for :math:`x` is 0.
    """

    __slots__ = ()
    schema_v1 = OpSchema("hardtanh", 1, AmpPolicy.KEEP_INPUT)
    saves_input = True

    @staticmethod
    def dispatch(be, x, min_val, max_val):
        return be.clamp(x, min_val, max_val)

    def grad(self, F, g, x, out):
        p = self.params
        return F.hardtanh_backward(g, x, p["min_val"], p["max_val"])


@register
class LeakyReluBackward(UnaryOp):
    r"""Autograd node for :math:`y = x` where :math:`x > 0`, else :math:`s\,x`.

    Saves the input: the gradient's branch is chosen by the sign of :math:`x` (the output
    tells it too only for :math:`s > 0`).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \begin{cases} g & x > 0 \\
              s\,g & \text{otherwise} \end{cases}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"leaky_relu"``, ``AmpPolicy.KEEP_INPUT``; param ``negative_slope``.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.where(x > 0, x, x * s)`` (nan stays nan); the backward is
    ``be.leaky_relu_backward``, recorded in graph mode as ``LeakyReluBackwardBackward``
    (derivative 0 for :math:`x`).
    """

    __slots__ = ()
    schema_v1 = OpSchema("leaky_relu", 1, AmpPolicy.KEEP_INPUT)
    saves_input = True

    @staticmethod
    def dispatch(be, x, negative_slope):
        return be.where(x > 0, x, x * negative_slope)

    def grad(self, F, g, x, out):
        return F.leaky_relu_backward(g, x, self.params["negative_slope"])


@register
class HardsigmoidBackward(UnaryOp):
    r"""Autograd node for :math:`y = \min(\max(x + 3, 0), 6) / 6`.

    Saves the input: the gradient passes strictly inside :math:`(-3, 3)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \begin{cases} g / 6 &
              -3 < x < 3 \\ 0 & \text{otherwise} \end{cases}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"hardsigmoid"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.clamp(x + 3, 0, 6) / 6``, PyTorch's order of operations; the backward
    is ``be.hardsigmoid_backward``, recorded in graph mode as
    ``HardsigmoidBackwardBackward``, which (as PyTorch's) has no derivative: a second
    backward through it raises.
    """

    __slots__ = ()
    schema_v1 = OpSchema("hardsigmoid", 1, AmpPolicy.KEEP_INPUT)
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.clamp(x + 3, 0, 6) / 6

    def grad(self, F, g, x, out):
        return F.hardsigmoid_backward(g, x)
