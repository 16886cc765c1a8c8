r"""The symmetric logarithm and its inverse (DreamerV3's target squashing), one fused node
each. Their public wrappers are :func:`lucid.nn.functional.symlog` and
:func:`lucid.nn.functional.symexp`.

.. math:: \operatorname{symlog}(x) = \operatorname{sign}(x)\ln(1 + |x|), \qquad
          \operatorname{symexp}(x) = \operatorname{sign}(x)\,(e^{|x|} - 1)

are inverse bijections of :math:`\mathbb R`, odd, and the identity to first order at 0.
"""

from __future__ import annotations

from ..core.base import UnaryOp
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = []


@register
class SymlogBackward(UnaryOp):
    r"""Autograd node for :math:`y = \operatorname{sign}(x)\ln(1 + |x|)`.

    Saves the input: the derivative :math:`1/(1 + |x|)` reads it directly (from the output
    it would take an ``exp``: :math:`1 + |x| = e^{|y|}`).

    Math
    ----
    .. math:: y = \operatorname{sign}(x)\ln(1 + |x|), \qquad
              \frac{\partial \mathcal{L}}{\partial x} = \frac{g}{1 + |x|}

    The derivative is continuous, 1 at :math:`x = 0` (both one-sided derivatives of
    :math:`\ln(1 + |x|)` times the sign are 1), though the composed
    ``sign(x) * log1p(abs(x))`` of autograd would give 0 there.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"symlog"``, ``AmpPolicy.FORCE_FP32`` (a logarithm, as ``log1p``), real-valued
        (integer input gives the default float dtype).
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.sign(x) * be.log1p(be.abs(x))`` (``xp.log1p`` is accurate for small
    :math:`|x|`). Never overflows (:math:`\pm\infty` maps to :math:`\pm\infty` with
    gradient 0); nan stays nan; :math:`-0` maps to 0. PyTorch has no ``symlog``; the
    definition is DreamerV3's (Hafner et al. 2023), as torchrl's ``symlog``.
    """

    __slots__ = ()
    schema_v1 = OpSchema("symlog", 1, AmpPolicy.FORCE_FP32, real_valued=True)
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.sign(x) * be.log1p(be.abs(x))

    def grad(self, F, g, x, out):
        return g / (F.abs(x) + 1)


@register
class SymexpBackward(UnaryOp):
    r"""Autograd node for :math:`y = \operatorname{sign}(x)\,(e^{|x|} - 1)`, the inverse
    of ``symlog``.

    Saves the output: the derivative :math:`e^{|x|}` is :math:`1 + |y|`, so the backward
    needs no second ``exp``.

    Math
    ----
    .. math:: y = \operatorname{sign}(x)\,(e^{|x|} - 1), \qquad
              \frac{\partial \mathcal{L}}{\partial x} = e^{|x|}\,g = (1 + |y|)\,g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"symexp"``, ``AmpPolicy.FORCE_FP32`` (an exponential: half inputs overflow early),
        real-valued.
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y`.

    Notes
    -----
    Backends: ``be.sign(x) * be.expm1(be.abs(x))`` (``xp.expm1``, accurate near 0).
    :math:`|x|` beyond the dtype's log of its largest value overflows to :math:`\pm\infty`
    (gradient inf); nan stays nan. PyTorch has no ``symexp``; DreamerV3's definition.
    """

    __slots__ = ()
    schema_v1 = OpSchema("symexp", 1, AmpPolicy.FORCE_FP32, real_valued=True)
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.sign(x) * be.expm1(be.abs(x))

    def grad(self, F, g, x, out):
        return g * (F.abs(out) + 1)
