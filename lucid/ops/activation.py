"""Fused activation ops: GELU (exact and tanh) and SiLU, one node each with an analytic
backward. Their public wrappers are :func:`lucid.nn.functional.gelu` and
:func:`lucid.nn.functional.silu`; the other activations are composed there from Lucid ops.
"""

from __future__ import annotations

from .base import UnaryOp
from .registry import register
from .schema import AmpPolicy, OpSchema

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
