r"""The straight-through estimator as one node: the value of one tensor (``hard``), the
gradient of another (``soft``). Its public wrapper is
:func:`lucid.nn.functional.straight_through`."""

from __future__ import annotations

from ..core.base import BinaryOp, broadcast_shapes
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = []


@register
class StraightThroughBackward(BinaryOp):
    r"""Autograd node for the straight-through estimator: the value of ``hard`` in the
    forward, the gradient of ``soft`` in the backward (Bengio et al. 2013; the quantiser's
    gradient of VQ-VAE, van den Oord et al. 2017).

    Saves nothing: the gradient is zero for ``hard`` and the identity for ``soft``.

    Math
    ----
    .. math:: z = h, \qquad \frac{\partial \mathcal{L}}{\partial h} = 0, \qquad
              \frac{\partial \mathcal{L}}{\partial s} = g

    the function written :math:`s + \operatorname{sg}[h - s]` (``sg`` stop-gradient), with
    ``hard`` :math:`h` and ``soft`` :math:`s` broadcast against each other and promoted to a
    common dtype.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"straight_through"``, ``AmpPolicy.KEEP_INPUT`` (a copy: exact in any dtype);
        inputs ``(hard, soft)``, Lucid³'s order.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``be.broadcast_copy`` of ``hard`` to the broadcast shape. One node instead of
    the composed ``soft + (hard - soft).detach()`` (three ops), and the forward value is
    ``hard`` exactly, where the composition rounds :math:`s + (h - s)` (and gives nan for
    an infinite ``soft``). PyTorch has no such op; the composition is the idiom it
    documents.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "straight_through", 1, AmpPolicy.KEEP_INPUT, input_arity=2, complex_grad="holomorphic"
    )

    @staticmethod
    def dispatch(be, hard, soft):
        shape = hard.shape if hard.shape == soft.shape else broadcast_shapes(hard.shape, soft.shape)
        return be.broadcast_copy(hard, shape)

    def grad(self, F, g, hard, soft, out):
        return None, g
