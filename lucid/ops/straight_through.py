r"""The straight-through estimator as one node: the value of one tensor, the gradient of
another. Its public wrapper is :func:`lucid.nn.functional.straight_through`."""

from __future__ import annotations

from .base import BinaryOp, broadcast_shapes
from .registry import register
from .schema import AmpPolicy, OpSchema

__all__ = []


@register
class StraightThroughBackward(BinaryOp):
    r"""Autograd node for the straight-through estimator :math:`z = y` in the forward,
    :math:`\partial z / \partial x = I` in the backward (Bengio et al. 2013; the
    quantiser's gradient of VQ-VAE, van den Oord et al. 2017).

    Saves nothing: the gradient is the identity for ``x`` and zero for ``y``.

    Math
    ----
    .. math:: z = y, \qquad \frac{\partial \mathcal{L}}{\partial x} = g, \qquad
              \frac{\partial \mathcal{L}}{\partial y} = 0

    the function written :math:`x + \operatorname{sg}[y - x]` (``sg`` stop-gradient), with
    ``x`` and ``y`` broadcast against each other and promoted to a common dtype.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"straight_through"``, ``AmpPolicy.KEEP_INPUT`` (a copy: exact in any dtype).
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``be.broadcast_copy`` of ``y`` to the broadcast shape. One node instead of
    the composed ``x + (y - x).detach()`` (three ops), and the forward value is ``y``
    exactly, where the composition rounds :math:`x + (y - x)` (and gives nan for infinite
    ``x``). PyTorch has no such op; the composition is the idiom it documents.
    """

    __slots__ = ()
    schema_v1 = OpSchema("straight_through", 1, AmpPolicy.KEEP_INPUT, input_arity=2,
                         complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, y):
        shape = x.shape if x.shape == y.shape else broadcast_shapes(x.shape, y.shape)
        return be.broadcast_copy(y, shape)

    def grad(self, F, g, x, y, out):
        return g, None
