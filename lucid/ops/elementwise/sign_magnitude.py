r"""Sign and magnitude: ``neg`` (``negative``), ``positive``, ``abs`` (``absolute``), ``sign``,
``square``, ``relu`` and ``clamp`` (``clip``, ``clamp_min``, ``clamp_max``), their in-place
forms, and Tensor's ``-x``, ``+x`` and ``abs(x)``.

Integer dtypes are kept (``square`` of bool gives int64; ``neg``, ``positive``, ``abs``
and ``relu`` reject bool). ``clamp`` promotes the input and its bounds together and routes
the gradient to :math:`x` at a bound (PyTorch's subgradient). Complex input: ``neg`` and
``square`` are holomorphic; ``abs`` gives a real result with the gradient
:math:`g\,z/|z|`; ``sign``, ``relu`` and ``clamp`` refuse it, as in PyTorch (``sgn`` is
:mod:`lucid.ops.elementwise.complex`'s).
"""

from __future__ import annotations

import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import DTypeError, ValueOverflowError, reports_as
from ..core._bind import install, tensor_method
from ..core.base import UnaryOp, _cast, to_tensor
from ..core.inplace import apply_inplace
from ..core.registry import register
from ..core.schema import OpSchema
from ._common import _FP32, _KEEP, _NUMERIC, _StepBackward, _inplace, _schema, _unary

__all__ = [
    "neg",
    "negative",
    "positive",
    "abs",
    "absolute",
    "sign",
    "square",
    "relu",
    "clamp",
    "clip",
    "clamp_min",
    "clamp_max",
    "neg_",
    "abs_",
    "sign_",
    "square_",
    "relu_",
    "clamp_",
    "clamp_min_",
    "clamp_max_",
    "negative_",
    "absolute_",
    "clip_",
]


@register
class NegBackward(UnaryOp):
    r"""Autograd node for :math:`y = -x`.

    Saves nothing: the derivative is the constant -1.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = -g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"neg"``, ``AmpPolicy.KEEP_INPUT`` (exact in any dtype).
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.negative``. Integers wrap (``-(-128)`` is -128 in int8, ``-1`` is 255 in
    uint8); bool input is rejected, as in PyTorch.
    """

    __slots__ = ()
    schema_v1 = _schema("neg", _KEEP, cx="holomorphic")

    @staticmethod
    def dispatch(be, x):
        return be.neg(x)

    def grad(self, F, g, x, out):
        return -g


@register
class AbsBackward(UnaryOp):
    r"""Autograd node for :math:`y = |x|`.

    Saves the input: the gradient is its sign.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \operatorname{sgn}(x)\, g

    with :math:`\operatorname{sgn}(0) = \operatorname{sgn}(\mathrm{nan}) = 0` (PyTorch's
    choice); for complex :math:`z` the result :math:`|z|` is real and
    :math:`\operatorname{sgn}(z) = z/|z|`, so the gradient is :math:`g\,z/|z|`.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"abs"``, ``AmpPolicy.KEEP_INPUT``, ``complex_grad="custom"`` (not holomorphic).
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.absolute``. ``abs(-0.)`` is 0; the most negative integer maps to itself;
    bool input is rejected.
    """

    __slots__ = ()
    schema_v1 = _schema("abs", _KEEP, cx="custom")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.abs(x)

    def grad(self, F, g, x, out):
        return g * F.sgn(x)


@register
class SignBackward(_StepBackward):
    r"""Autograd node for :math:`y = \operatorname{sgn}(x) \in \{-1, 0, 1\}`.

    Saves nothing: the derivative is 0 wherever it exists.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = 0

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"sign"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.sign``; integer dtypes are kept, bool input is returned as is (PyTorch).
    ``sign(nan)`` is 0 and ``sign(-0.)`` is 0, like PyTorch.
    """

    __slots__ = ()
    schema_v1 = _schema("sign", _KEEP)

    @staticmethod
    def dispatch(be, x):
        return be.sign(x)


@register
class SquareBackward(UnaryOp):
    r"""Autograd node for :math:`y = x^2`.

    Saves the input: the gradient is linear in it.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = 2x\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"square"``, ``AmpPolicy.FORCE_FP32`` (a power: half inputs above 256 overflow).
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.square``. Integer dtypes are kept (and wrap); bool input gives int64,
    as in PyTorch.
    """

    __slots__ = ()
    schema_v1 = _schema("square", _FP32, cx="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.square(x)

    def grad(self, F, g, x, out):
        return g * (x * 2)


@register
class ReluBackward(UnaryOp):
    r"""Autograd node for :math:`y = \max(x, 0)`.

    Saves the output: the gradient passes where it is positive, which the output tells as
    well as the input, and the output is what the next layer keeps alive anyway.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \begin{cases} 0 & y \le 0 \\
              g & \text{otherwise} \end{cases}

    (a selection, not a product: 0 at :math:`x = 0` even for an infinite :math:`g`, passed
    through at nan, like PyTorch's ``threshold_backward``).

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"relu"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input : bool
        False.
    saves_output : bool
        True: :math:`y`.

    Notes
    -----
    Backends: ``xp.maximum(x, 0)``; nan stays nan; integer dtypes are kept, bool input is
    rejected. The backward is ``be.relu_backward`` (one fused kernel on CUDA).
    """

    __slots__ = ()
    schema_v1 = _schema("relu", _KEEP)
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.relu(x)

    def grad(self, F, g, x, out):
        return F.relu_backward(out, g)


@register
class ClampBackward(UnaryOp):
    r"""Autograd node for :math:`y = \min(\max(x, lo), hi)` with number or tensor bounds.

    Saves the input (and tensor bounds, which are inputs too): the gradient is routed by
    comparing :math:`x` with the bounds.

    Math
    ----
    .. math::
        \frac{\partial \mathcal{L}}{\partial x} = \mathbb{1}[lo \le x \le hi]\, g, \quad
        \frac{\partial \mathcal{L}}{\partial lo} = \mathbb{1}[x < lo,\ lo < hi]\, g, \quad
        \frac{\partial \mathcal{L}}{\partial hi} = \mathbb{1}[x > hi \ \lor\ hi < lo]\, g

    A missing bound drops its condition. At :math:`x = lo` or :math:`x = hi` the gradient
    goes to :math:`x` (PyTorch's subgradient); when :math:`lo > hi` the output is
    :math:`hi` and so is the gradient's destination.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"clamp"``, ``AmpPolicy.KEEP_INPUT``, variable arity: ``x`` followed by the
        tensor bounds named in ``params["tensors"]`` (``("min",)``, ``("max",)`` or
        both); number bounds travel in ``params["min"]`` / ``params["max"]``.
    saves_input : bool
        True: :math:`x` and the tensor bounds.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.maximum`` then ``xp.minimum`` (bounds broadcast); nan in :math:`x` or a
    bound gives nan (and a zero gradient). The wrapper promotes :math:`x` and the bounds
    together first (``clamp(int_tensor, min=0.5)`` is float32, like PyTorch).
    """

    __slots__ = ()
    schema_v1 = OpSchema("clamp", 1, _KEEP, input_arity=-1)
    saves_input = True
    _broadcast = True  # tensor bounds broadcast against the input

    @staticmethod
    def dispatch(be, x, *bounds, min=None, max=None, tensors=()):
        for name, b in zip(tensors, bounds):
            if name == "min":
                min = b
            else:
                max = b
        return be.clamp(x, min, max)

    @staticmethod
    def _masks(x, lo, hi):
        """Bool masks (arrays or tensors, as ``x``) routing the gradient to x, lo and hi
        (None where not needed)."""
        if lo is None:
            return x <= hi, None, x > hi
        if hi is None:
            return x >= lo, x < lo, None
        return (x >= lo) & (x <= hi), (x < lo) & (lo < hi), (x > hi) | (hi < lo)

    def grad(self, F, g, x, *bounds_and_out):
        p = self.params
        lo, hi = p.get("min"), p.get("max")
        for name, b in zip(p.get("tensors", ()), bounds_and_out):
            if name == "min":
                lo = b
            else:
                hi = b
        mx, mlo, mhi = self._masks(x, lo, hi)
        out = [g * mx]
        for name in p.get("tensors", ()):
            out.append(g * (mlo if name == "min" else mhi))
        return tuple(out)


neg = _unary(
    NegBackward,
    "neg",
    "Element-wise :math:`-x` (bool rejected: use ``~``).",
    _NUMERIC,
    ("negative",),
)
abs = _unary(AbsBackward, "abs", "Element-wise :math:`|x|`.", _NUMERIC, ("absolute",))
sign = _unary(SignBackward, "sign", r"Element-wise sign in :math:`\{-1, 0, 1\}`.")
relu = _unary(ReluBackward, "relu", r"Element-wise :math:`\max(x, 0)`.", _NUMERIC)

negative, absolute = neg, abs


@tensor_method("square")
def square(input):
    """Element-wise :math:`x^2` (bool input gives int64, like PyTorch)."""
    if input.__class__ is not Tensor:
        input = to_tensor(input)
    if input._dtype is _dt.bool:
        input = _cast(input, _dt.int64)
    return SquareBackward.call(input)


@tensor_method("positive")
def positive(input):
    """``input`` itself (``+x``); bool tensors are rejected, like PyTorch."""
    if input.__class__ is not Tensor:
        input = to_tensor(input)
    if input._dtype is _dt.bool:
        raise DTypeError("positive: the + operator is not supported on bool tensors")
    return input


_PLAIN_BOUND = (float, int, type(None))  # bounds that never change a float dtype


def _bound(which, v):
    if v is None or isinstance(v, (Tensor, numbers.Real)):
        return v
    raise DTypeError(f"clamp: {which} must be a number, a Tensor or None, got {type(v).__name__}")


@tensor_method("clamp")
def clamp(input, min=None, max=None):
    r"""Element-wise :math:`\min(\max(x, \text{min}), \text{max})`; ``min`` and ``max``
    are numbers, tensors (broadcast) or None (not both)."""
    if input.__class__ is not Tensor:
        input = to_tensor(input)
    if (
        input._dtype._cat == 2
        and min.__class__ in _PLAIN_BOUND
        and max.__class__ in _PLAIN_BOUND
        and (min is not None or max is not None)
    ):
        return ClampBackward.call(input, min=min, max=max)  # the common case
    if input._dtype.is_complex:
        raise DTypeError(
            f"clamp: does not support complex input (got {input._dtype.name}); "
            "complex numbers are not ordered"
        )
    lo, hi = _bound("min", min), _bound("max", max)
    if lo is None and hi is None:
        raise DTypeError("clamp: at least one of 'min' or 'max' must not be None")
    if lo is not None and hi is not None and isinstance(lo, Tensor) != isinstance(hi, Tensor):
        # next to a Python number, PyTorch reads a 0-d tensor bound as a number too
        lo, hi = (v.item() if isinstance(v, Tensor) and not v._data.ndim else v for v in (lo, hi))
    ops = [v for v in (lo, hi) if v is not None]
    rd = _dt.result_type(input, *ops)
    tensor_bounds = isinstance(lo, Tensor) or isinstance(hi, Tensor)
    if rd is _dt.bool and not (tensor_bounds and (lo is None or hi is None)):
        # PyTorch has a bool kernel for one tensor bound only (its clamp_min / clamp_max)
        raise DTypeError(
            "clamp: not implemented for bool, except with one tensor bound (min or max)"
        )
    if input._dtype is not rd:
        input = _cast(input, rd)
    if not rd.is_floating_point:
        lo, hi = (_int_bound(rd, v) if isinstance(v, numbers.Real) else v for v in (lo, hi))
    if not tensor_bounds:
        return ClampBackward.call(input, min=lo, max=hi)
    tensors, inputs, params = [], [input], {}
    for which, v in (("min", lo), ("max", hi)):
        if isinstance(v, Tensor):
            tensors.append(which)
            inputs.append(v if v._dtype is rd else _cast(v, rd))
        elif v is not None:
            params[which] = v
    return ClampBackward.apply(*inputs, tensors=tuple(tensors), **params)


def _int_bound(rd, v):
    """Bound ``v`` as a value of integer dtype ``rd`` by PyTorch's rule for scalars: in range,
    or for an unsigned dtype down to ``-max``, wrapping (uint8 ``max=-3`` is 253)."""
    info = _dt.iinfo(rd)
    v = int(v)
    lo = -info.max if info.min == 0 else info.min
    if not lo <= v <= info.max:
        raise ValueOverflowError(
            f"clamp: bound {v} cannot be converted to {rd.name} without overflow"
        )
    return v + (1 << info.bits) if v < info.min else v


clip = tensor_method("clip")(reports_as("clip")(clamp))  # its errors name clip


@tensor_method("clamp_min")
@reports_as("clamp_min")
def clamp_min(input, min):
    """:func:`clamp` with a lower bound only."""
    return clamp(input, min=min)


@tensor_method("clamp_max")
@reports_as("clamp_max")
def clamp_max(input, max):
    """:func:`clamp` with an upper bound only."""
    return clamp(input, max=max)


# -- in-place variants -------------------------------------------------------------------

neg_ = _inplace(neg, "negative_")


@tensor_method("abs_", "absolute_")
def abs_(input):
    """In-place :func:`abs` (not for complex tensors, whose abs is real: PyTorch refuses)."""
    if input._dtype.is_complex:
        raise DTypeError(
            f"abs_: in-place abs is not supported for complex tensors (the "
            f"result is real; got {input._dtype.name}); use abs()"
        )
    return apply_inplace(abs, input)


sign_ = _inplace(sign)
square_ = _inplace(square)
relu_ = _inplace(relu)
clamp_ = _inplace(clamp, "clip_")
clamp_min_ = _inplace(clamp_min)
clamp_max_ = _inplace(clamp_max)

negative_, absolute_, clip_ = neg_, abs_, clamp_

install(
    __neg__=neg,
    __pos__=positive,
    __abs__=abs,
)
