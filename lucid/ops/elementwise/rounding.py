r"""Rounding: ``floor``, ``ceil``, ``round`` (half to even, optionally at ``decimals``
places), ``trunc`` (``fix``), the fractional part ``frac``, and their in-place forms.

``floor``, ``ceil``, ``trunc`` and ``round`` copy integer inputs; ``frac`` and ``round``
with decimals want floating input; bool is rejected. ``floor``, ``ceil``, ``round`` and
``trunc`` are piecewise constant: their gradient is 0, at the jumps too (PyTorch's
choice); ``frac`` passes the gradient through. Complex input is refused, as in PyTorch.
"""

from __future__ import annotations

import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import DTypeError
from ..core._bind import tensor_method
from ..core.base import UnaryOp, to_tensor
from ..core.registry import register
from ._common import _KEEP, _NUMERIC, _StepBackward, _inplace, _reject, _schema, _unary

__all__ = [
    "floor",
    "ceil",
    "round",
    "trunc",
    "fix",
    "frac",
    "floor_",
    "ceil_",
    "round_",
    "trunc_",
    "frac_",
    "fix_",
]


@register
class FloorBackward(_StepBackward):
    r"""Autograd node for :math:`y = \lfloor x \rfloor`.

    Saves nothing: the gradient is 0.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = 0

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"floor"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.floor``; integer inputs are copied (dtype kept); bool is rejected.
    ``floor(-0.5)`` is -1; nan and :math:`\pm\infty` pass through.
    """

    __slots__ = ()
    schema_v1 = _schema("floor", _KEEP)

    @staticmethod
    def dispatch(be, x):
        return be.floor(x)


@register
class CeilBackward(_StepBackward):
    r"""Autograd node for :math:`y = \lceil x \rceil`.

    Saves nothing: the gradient is 0.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = 0

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"ceil"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.ceil``; integer inputs are copied; bool is rejected. ``ceil(-0.5)`` is
    ``-0.``.
    """

    __slots__ = ()
    schema_v1 = _schema("ceil", _KEEP)

    @staticmethod
    def dispatch(be, x):
        return be.ceil(x)


@register
class RoundBackward(_StepBackward):
    r"""Autograd node for :math:`y = \mathrm{round}(x, d)`: half to even at ``decimals``
    :math:`d` places.

    Saves nothing: the gradient is 0.

    Math
    ----
    .. math:: y = \mathrm{rint}(x\,10^{d}) / 10^{d}, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = 0

    (for :math:`d < 0`, :math:`y = \mathrm{rint}(x / 10^{-d})\,10^{-d}`, like PyTorch).

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"round"``, ``AmpPolicy.KEEP_INPUT``; ``params["decimals"]`` when not 0.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.rint`` (ties to even: ``round(2.5)`` is 2); with decimals the scaling
    runs in float32 for half inputs. Integer inputs are copied (decimals then rejected);
    bool is rejected. Like PyTorch, decimals that push :math:`x 10^d` past the dtype's
    range give ``inf``/nan.
    """

    __slots__ = ()
    schema_v1 = _schema("round", _KEEP)

    @staticmethod
    def dispatch(be, x, decimals=0):
        return be.round(x, decimals)


@register
class TruncBackward(_StepBackward):
    r"""Autograd node for :math:`y = \mathrm{trunc}(x)` (rounding toward zero).

    Saves nothing: the gradient is 0.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = 0

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"trunc"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.trunc``; integer inputs are copied; bool is rejected. Also ``fix``.
    """

    __slots__ = ()
    schema_v1 = _schema("trunc", _KEEP)

    @staticmethod
    def dispatch(be, x):
        return be.trunc(x)


@register
class FracBackward(UnaryOp):
    r"""Autograd node for the fractional part :math:`y = x - \mathrm{trunc}(x)`.

    Saves nothing: the derivative is 1 (the truncation is locally constant).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"frac"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``x - xp.trunc(x)``; the result has the sign of :math:`x`;
    ``frac(±inf)`` is nan. Floating inputs only (PyTorch rejects integers too).
    """

    __slots__ = ()
    schema_v1 = _schema("frac", _KEEP)

    @staticmethod
    def dispatch(be, x):
        return be.frac(x)

    def grad(self, F, g, x, out):
        return g


floor = _unary(FloorBackward, "floor", "Element-wise floor (integers unchanged).", _NUMERIC)
ceil = _unary(CeilBackward, "ceil", "Element-wise ceiling (integers unchanged).", _NUMERIC)
trunc = _unary(TruncBackward, "trunc", "Element-wise rounding toward zero.", _NUMERIC, ("fix",))
frac = _unary(FracBackward, "frac", r"Element-wise :math:`x - \mathrm{trunc}(x)`.", 2)

fix = trunc


@tensor_method("round")
def round(input, *, decimals=0):
    """Element-wise rounding half to even, at ``decimals`` decimal places."""
    if input.__class__ is not Tensor:
        input = to_tensor(input)
    if not isinstance(decimals, numbers.Integral):
        raise DTypeError(f"round: decimals must be an int, got {type(decimals).__name__}")
    if input._dtype._cat < 2:
        if input._dtype is _dt.bool:
            _reject("round", input._dtype, _NUMERIC)
        if decimals:
            _reject("round (with decimals)", input._dtype, 2)
    if decimals:
        return RoundBackward.call(input, decimals=int(decimals))
    return RoundBackward.call(input)


# -- in-place variants -------------------------------------------------------------------

floor_ = _inplace(floor)
ceil_ = _inplace(ceil)
round_ = _inplace(round)
trunc_ = _inplace(trunc, "fix_")
frac_ = _inplace(frac)

fix_ = trunc_
