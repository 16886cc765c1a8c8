"""Element-wise unary ops: ``y = f(x)``."""

from __future__ import annotations

from ._bind import tensor_method
from .base import UnaryOp, apply_inplace
from .registry import register
from .schema import AmpPolicy, OpSchema

__all__ = ["exp"]


@register
class ExpBackward(UnaryOp):
    r"""Autograd node for element-wise exponential :math:`y = e^x`.

    Saves the output :math:`y` rather than the input because the backward is
    :math:`\partial y / \partial x = e^x = y`: reusing it avoids a second ``exp`` pass.

    Math
    ----
    .. math:: \frac{\partial y}{\partial x} = e^x = y, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = y \, \frac{\partial \mathcal{L}}{\partial y}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"exp"``, ``AmpPolicy.FORCE_FP32`` (half inputs computed in float32), real-valued
        (integer input gives the default float dtype).
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y = e^x`.

    Notes
    -----
    Backends: ``xp.exp`` (NumPy on the CPU, CuPy on the GPU). Large positive inputs
    overflow to ``+inf``; large negative inputs flush to 0; ``exp(nan)`` is nan.
    """

    __slots__ = ()
    schema_v1 = OpSchema("exp", 1, AmpPolicy.FORCE_FP32, deterministic=True, real_valued=True)
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.exp(x)

    def grad_formula(self, g):
        return g * self.out

    def grad_formula_impl(self, g, x, out):
        return out * g


@tensor_method("exp")
def exp(x):
    """Element-wise :math:`e^x`."""
    return ExpBackward.call(x)


@tensor_method("exp_")
def exp_(x):
    """In-place :func:`exp`."""
    return apply_inplace(exp, x)
