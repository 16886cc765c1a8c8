r"""Entropy terms: ``entr`` (:math:`-x\ln x`, 0 at 0, :math:`-\infty` below) and ``xlog1py``
(:math:`a\ln(1 + b)`, 0 where :math:`a = 0`); ``xlogy`` is :mod:`lucid.ops.binary.functions`'s.

Every kernel computes in float64 from series, interpolants and continued fractions of its
own (no SciPy; see ``lucid/backend/array/special.py``) and rounds once to the input dtype;
integer inputs compute in the default float dtype, and autocast computes in float32.
Gradients follow PyTorch's ``derivatives.yaml`` (nan outside the logarithm's domain).
"""

from __future__ import annotations

from ..core.base import BinaryOp, UnaryOp
from ..core.registry import register
from ._common import _schema, _unary

__all__ = ["entr", "xlog1py"]


@register
class EntrBackward(UnaryOp):
    r"""Autograd node for the entropy term :math:`y = -x \ln x`.

    Saves the input: the derivative is :math:`-(1 + \ln x)`.

    Math
    ----
    .. math:: y = \begin{cases} -x\ln x & x > 0 \\ 0 & x = 0 \\ -\infty & x < 0
              \end{cases}, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = -(1 + \ln x)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"entr"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.entr`` in float64. The gradient is :math:`+\infty` at 0 and nan for
    :math:`x < 0` (the logarithm's domain), as in PyTorch.
    """

    __slots__ = ()
    schema_v1 = _schema("entr")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.entr(x)

    def grad(self, F, g, x, out):
        return -g * (1 + F.log(x))


@register
class Xlog1pyBackward(BinaryOp):
    r"""Autograd node for :math:`y = a \ln(1 + b)`, 0 where :math:`a = 0`.

    Saves both inputs: each gradient needs the other input (and :math:`a`'s its own
    zeros).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = \operatorname{xlog1py}(g, b)
              \ (0 \text{ where } a = 0,\ b \le -1), \qquad
              \frac{\partial \mathcal{L}}{\partial b} = \frac{g\,a}{1 + b}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"xlog1py"``, ``AmpPolicy.FORCE_FP32``, real-valued, two inputs.
    saves_input : bool
        True: ``a`` and ``b``.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.xlog1py``: ``a * xp.log1p(b)`` in float64, 0 where :math:`a = 0` unless
    :math:`b` is nan; :math:`b = -1` gives :math:`-\infty \cdot a`, :math:`b < -1` nan.
    """

    __slots__ = ()
    schema_v1 = _schema("xlog1py", 2)
    saves_input = True

    @staticmethod
    def dispatch(be, a, b):
        return be.xlog1py(a, b)

    def grad(self, F, g, a, b, out):
        e = self.next_edges
        return (
            F.where((a == 0) & (b <= -1), 0, F.xlog1py(g, b)) if e[0] is not None else None,
            g * a / (1 + b) if e[1] is not None else None,
        )


entr = _unary(
    EntrBackward,
    "entr",
    r"Element-wise :math:`-x\ln x` (0 at 0, "
    r":math:`-\infty` below).",
)


def xlog1py(input, other):
    """Element-wise ``input * log1p(other)``, 0 where ``input`` is 0 (unless other is
    nan)."""
    return Xlog1pyBackward.call(input, other)
