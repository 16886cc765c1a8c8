r"""Floating-point classification: the predicates ``isnan``, ``isinf``, ``isposinf``,
``isneginf``, ``isfinite`` and ``signbit`` (C's classification macros; bool results, not
differentiable) and ``nan_to_num`` (nan and the infinities replaced by finite numbers), with
``nan_to_num_``.

Integer and bool inputs are accepted (never nan or infinite). Complex input:
``isnan``/``isinf``/``isfinite`` test either part and ``nan_to_num`` replaces each part on
its own; ``isposinf``, ``isneginf`` and ``signbit`` refuse it, as in PyTorch.
"""

from __future__ import annotations

import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import DTypeError
from ..core._bind import tensor_method
from ..core.base import UnaryOp, to_tensor
from ..core.registry import register
from ..core.schema import OpSchema
from ._common import _KEEP, _inplace, _schema, _unary

__all__ = [
    "isnan",
    "isinf",
    "isposinf",
    "isneginf",
    "isfinite",
    "signbit",
    "nan_to_num",
    "nan_to_num_",
]


@register
class NanToNumBackward(UnaryOp):
    r"""Autograd node for :func:`nan_to_num`: nan, :math:`+\infty`, :math:`-\infty` replaced
    by finite numbers.

    Saves the input: the gradient passes only where it was finite.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \mathbb{1}[x \text{ finite}]\, g

    Complex :math:`z`: each part is replaced on its own, so each part of :math:`g` passes
    where that part of :math:`z` is finite (PyTorch has no complex gradient here).

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"nan_to_num"``, ``AmpPolicy.KEEP_INPUT``, ``complex_grad="custom"``; ``params``:
        ``nan``, ``posinf``, ``neginf`` (the wrapper resolves defaults to 0 and the dtype's
        max and min, of the parts' dtype for complex).
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.where`` on ``isnan`` and the infinities; integer and bool inputs are
    copied. A replacement out of the dtype's range becomes :math:`\pm\infty` (half).
    """

    __slots__ = ()
    schema_v1 = _schema("nan_to_num", _KEEP, cx="custom")
    saves_input = True

    @staticmethod
    def dispatch(be, x, nan=0.0, posinf=None, neginf=None):
        return be.nan_to_num(x, nan, posinf, neginf)

    def grad(self, F, g, x, out):
        if self.in_meta[0][1].is_complex:
            return F.make_complex(g.real * F.isfinite(x.real), g.imag * F.isfinite(x.imag))
        return g * F.isfinite(x)


def _predicate_doc(summary, kernel, extra=""):
    return rf"""Element-wise predicate {summary} (bool result).

    Saves nothing: not differentiable.

    Math
    ----
    .. math:: y_i = \mathbb{{1}}[{kernel}]

    Attributes
    ----------
    schema_v1 : OpSchema
        Not differentiable, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Integer and bool inputs are accepted (never nan or infinite). {extra}
    """


def _predicate(name, cx=None):
    return OpSchema(name, 1, _KEEP, differentiable=False, complex_grad=cx)


@register
class IsnanBackward(UnaryOp):
    __doc__ = _predicate_doc(":math:`x \\ne x`", "x \\text{ is nan}", "Backends: ``xp.isnan``.")
    __slots__ = ()
    schema_v1 = _predicate("isnan", cx="custom")

    @staticmethod
    def dispatch(be, x):
        return be.isnan(x)


@register
class IsinfBackward(UnaryOp):
    __doc__ = _predicate_doc(":math:`|x| = \\infty`", "|x| = \\infty", "Backends: ``xp.isinf``.")
    __slots__ = ()
    schema_v1 = _predicate("isinf", cx="custom")

    @staticmethod
    def dispatch(be, x):
        return be.isinf(x)


@register
class IsposinfBackward(UnaryOp):
    __doc__ = _predicate_doc(
        ":math:`x = +\\infty`", "x = +\\infty", "Backends: ``xp.isinf(x) & (x > 0)``."
    )
    __slots__ = ()
    schema_v1 = _predicate("isposinf")

    @staticmethod
    def dispatch(be, x):
        return be.isposinf(x)


@register
class IsneginfBackward(UnaryOp):
    __doc__ = _predicate_doc(
        ":math:`x = -\\infty`", "x = -\\infty", "Backends: ``xp.isinf(x) & (x < 0)``."
    )
    __slots__ = ()
    schema_v1 = _predicate("isneginf")

    @staticmethod
    def dispatch(be, x):
        return be.isneginf(x)


@register
class IsfiniteBackward(UnaryOp):
    __doc__ = _predicate_doc(
        "'x is neither nan nor infinite'", "x \\text{ finite}", "Backends: ``xp.isfinite``."
    )
    __slots__ = ()
    schema_v1 = _predicate("isfinite", cx="custom")

    @staticmethod
    def dispatch(be, x):
        return be.isfinite(x)


@register
class SignbitBackward(UnaryOp):
    __doc__ = _predicate_doc(
        "'the sign bit of x is set'",
        "\\text{sign bit of } x",
        "Backends: ``xp.signbit``: true for ``-0.`` and for nan with "
        "the sign bit set; integers compare with 0.",
    )
    __slots__ = ()
    schema_v1 = _predicate("signbit")

    @staticmethod
    def dispatch(be, x):
        return be.signbit(x)


isnan = _unary(IsnanBackward, "isnan", "Element-wise bool: is nan.")
isinf = _unary(IsinfBackward, "isinf", r"Element-wise bool: is :math:`\pm\infty`.")
isposinf = _unary(IsposinfBackward, "isposinf", r"Element-wise bool: is :math:`+\infty`.")
isneginf = _unary(IsneginfBackward, "isneginf", r"Element-wise bool: is :math:`-\infty`.")
isfinite = _unary(IsfiniteBackward, "isfinite", "Element-wise bool: is finite.")
signbit = _unary(SignbitBackward, "signbit", "Element-wise bool: the sign bit is set.")


@tensor_method("nan_to_num")
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """``input`` with nan, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf``
    (defaults: 0, the dtype's largest and lowest finite values)."""
    if input.__class__ is not Tensor:
        input = to_tensor(input)
    for arg, v in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if v is not None and not isinstance(v, numbers.Real):
            raise DTypeError(f"nan_to_num: {arg} must be a number or None, got {type(v).__name__}")
    dt = input._dtype
    if dt._cat >= 2 and (posinf is None or neginf is None):
        info = _dt.finfo(dt)
        posinf = info.max if posinf is None else posinf
        neginf = info.min if neginf is None else neginf
    return NanToNumBackward.call(
        input, nan=0.0 if nan is None else float(nan), posinf=posinf, neginf=neginf
    )


# -- in-place variants -------------------------------------------------------------------

nan_to_num_ = _inplace(nan_to_num)
