"""Arithmetic of a floating tensor with a Python number: ``x + 2``, ``x * 0.5``, ``x - 1``,
``x / n`` (PyTorch's ``add.Scalar`` and kin).

The number stays a parameter of a one-input node instead of becoming a 0-d tensor input:
no scalar tensor is made, nothing is saved, and the gradient has one edge. ``BinaryOp.call``
routes a call here when the tensor is float16, float32 or float64 and the other operand a
Python ``int`` or ``float`` (for ``sub`` and ``div``, on the right), or the tensor is int64
and the number an ``int`` (``add``, ``sub``, ``mul`` without ``alpha``: a step counter's
``add_(1)``), which is exactly where the result keeps the tensor's dtype and the backend's
weak-scalar arithmetic equals PyTorch's; every other call takes the general two-input op.
"""

from __future__ import annotations

from typing import Any

from ... import dtypes as _dt
from ..core.base import UnaryOp
from .arith import AddBackward, DivBackward, MulBackward, SubBackward
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = []


def _schema(name, cx=None):
    return OpSchema(name, 1, AmpPolicy.KEEP_INPUT, complex_grad=cx)


def _opmath(be, kernel, x, number):
    """``kernel(x, number)``; float16 computes in float32 with the number unrounded and
    rounds once, as PyTorch's half ``mul``/``div`` by a number (its ``add``/``sub`` round
    the number to float16 first, which is the backend's weak-scalar arithmetic)."""
    if _dt._BY_NP[x.dtype] is _dt.float16:
        return be.astype(kernel(be.astype(x, _F32), number), x.dtype)
    return kernel(x, number)


_F32 = _dt.float32.np


class _ScalarOp(UnaryOp):
    """A tensor-with-number op; its node reports the name of the general op, as
    PyTorch's ``MulBackward0`` serves both ``mul.Tensor`` and ``mul.Scalar``."""

    __slots__ = ()
    general: Any = None  # the two-input op this one stands in for
    keeps_int64 = True  # int64 (op) int is int64 (not so for true division)

    def name(self):
        return self.general.__name__


@register
class AddScalarBackward(_ScalarOp):
    r"""Autograd node for :math:`y = x + \alpha s` with a Python number :math:`s`.

    Saves nothing: the derivative is 1.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"add_scalar"``, ``AmpPolicy.KEEP_INPUT``; ``other`` and ``alpha`` are params.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.add`` with the number :math:`\alpha s` (computed in Python), which
    takes the tensor's dtype (a weak scalar, rounded to float16 for float16 tensors, as
    PyTorch); overflow gives inf.
    """

    __slots__ = ()
    schema_v1 = _schema("add_scalar", cx="holomorphic")

    @staticmethod
    def dispatch(be, x, other, alpha=1):
        return be.add(x, other * alpha)

    def grad(self, F, g, x, out):
        return g


@register
class SubScalarBackward(AddScalarBackward):
    r"""Autograd node for :math:`y = x - \alpha s` with a Python number :math:`s`.

    Saves nothing: the derivative is 1.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"sub_scalar"``, ``AmpPolicy.KEEP_INPUT``; ``other`` and ``alpha`` are params.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.subtract`` with the number :math:`\alpha s` (a weak scalar).
    """

    __slots__ = ()
    schema_v1 = _schema("sub_scalar", cx="holomorphic")

    @staticmethod
    def dispatch(be, x, other, alpha=1):
        return be.sub(x, other * alpha)


@register
class RsubScalarBackward(_ScalarOp):
    r"""Autograd node for :math:`y = s - \alpha x` with a Python number :math:`s` (``1 - x``).

    Saves nothing: the derivative is :math:`-\alpha`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = -\alpha\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"rsub_scalar"``, ``AmpPolicy.KEEP_INPUT``; ``other`` and ``alpha`` are params.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.subtract`` from the number (a weak scalar, rounded to float16 for
    float16 tensors, as PyTorch).
    """

    __slots__ = ()
    schema_v1 = _schema("rsub_scalar", cx="holomorphic")

    @staticmethod
    def dispatch(be, x, other, alpha=1):
        return be.sub(other, x if alpha == 1 else be.mul(x, alpha))

    def grad(self, F, g, x, out):
        alpha = self.params.get("alpha", 1)
        return -g if alpha == 1 else g * -alpha


@register
class MulScalarBackward(_ScalarOp):
    r"""Autograd node for :math:`y = s\,x` with a Python number :math:`s`.

    Saves nothing: the derivative is the constant :math:`s` (so a later in-place change of
    :math:`x` is no error, as in PyTorch).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = s\,g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"mul_scalar"``, ``AmpPolicy.KEEP_INPUT``; ``other`` is a param.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.multiply`` with the number (a weak scalar); float16 multiplies in
    float32 by the unrounded number and rounds once, as PyTorch; ``inf * 0`` is nan.
    """

    __slots__ = ()
    schema_v1 = _schema("mul_scalar", cx="holomorphic")

    @staticmethod
    def dispatch(be, x, other):
        return _opmath(be, be.mul, x, other)

    def grad(self, F, g, x, out):
        return F.mul(g, self.params["other"])


@register
class DivScalarBackward(_ScalarOp):
    r"""Autograd node for :math:`y = x / s` with a Python number :math:`s`.

    Saves nothing: the derivative is the constant :math:`1/s`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{g}{s}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"div_scalar"``, ``AmpPolicy.KEEP_INPUT``; ``other`` is a param.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.true_divide`` by the number (a weak scalar; float16 divides in float32
    by the unrounded number and rounds once, as PyTorch), IEEE 754 at zero
    (:math:`\pm\infty`, nan for 0/0); the gradient divides by it too, so it is the same
    inf or nan there.
    """

    __slots__ = ()
    schema_v1 = _schema("div_scalar", cx="holomorphic")
    keeps_int64 = False

    @staticmethod
    def dispatch(be, x, other):
        return _opmath(be, be.div, x, other)

    def grad(self, F, g, x, out):
        return g / self.params["other"]


# BinaryOp.call takes _scalar_op for (tensor, number) and _rscalar_op for (number, tensor)
for _general, _scalar in (
    (AddBackward, AddScalarBackward),
    (SubBackward, SubScalarBackward),
    (MulBackward, MulScalarBackward),
    (DivBackward, DivScalarBackward),
):
    _general._scalar_op = _scalar
    _scalar.general = _general
AddBackward._rscalar_op = AddScalarBackward  # (number, tensor): commutes
MulBackward._rscalar_op = MulScalarBackward
SubBackward._rscalar_op = RsubScalarBackward  # number - tensor
RsubScalarBackward.general = SubBackward
