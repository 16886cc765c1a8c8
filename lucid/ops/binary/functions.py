"""Element-wise functions of two inputs beyond arithmetic: ``atan2`` (``arctan2``),
``hypot``, ``maximum``, ``minimum``, ``fmax``, ``fmin``, ``logaddexp``, ``logaddexp2``,
``xlogy`` and ``copysign``, with the in-place Tensor methods ``atan2_``, ``hypot_``,
``xlogy_`` and ``copysign_``.

Operands broadcast and promote as in PyTorch; each gradient is summed back over the
broadcast axes. Gradient formulas follow PyTorch's ``derivatives.yaml`` term for term
(including its masks at 0, ties and nan: ``maximum`` splits the gradient on ties, ``fmax``
sends it to the non-nan operand). All refuse complex input.
"""

from __future__ import annotations

import operator

from ... import dtypes as _dt
from ...errors import DTypeError
from ..core._bind import tensor_method
from ..core._formula import const
from ..core.base import BinaryOp
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ._common import _inplace

__all__ = [
    "atan2",
    "arctan2",
    "hypot",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "logaddexp",
    "logaddexp2",
    "xlogy",
    "copysign",
]


def _floating_only(name, a):
    if not _dt._BY_NP[a.dtype].is_floating_point:
        raise DTypeError(
            f"{name}: not implemented for {_dt._BY_NP[a.dtype].name} tensors; "
            "expected a floating dtype"
        )


# -- atan2, hypot ------------------------------------------------------------------------


@register
class Atan2Backward(BinaryOp):
    r"""Autograd node for :math:`y = \operatorname{atan2}(a, b)`, the angle of
    :math:`(b, a)`.

    Saves both inputs: both partials share :math:`r = 1 / (a^2 + b^2)` (0 where
    :math:`a^2 + b^2 = 0`, as PyTorch).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g\,b\,r, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = -g\,a\,r, \qquad
              r = \frac{1}{a^2 + b^2}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"atan2"``, ``AmpPolicy.KEEP_INPUT``, real-valued (integers give the default
        float).
    saves_input : bool
        True: ``a`` and ``b``.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.arctan2``, in :math:`[-\pi, \pi]`, signed zeros respected
    (``atan2(0., -1.)`` is :math:`\pi`). The gradient at the origin (or where
    :math:`a^2 + b^2` underflows to 0) is 0.
    """

    __slots__ = ()
    schema_v1 = OpSchema("atan2", 1, AmpPolicy.KEEP_INPUT, real_valued=True, input_arity=2)
    saves_input = True

    @staticmethod
    def dispatch(be, a, b):
        return be.atan2(a, b)

    def grad(self, F, g, a, b, out):
        d = a * a + b * b
        recip = F.where(d == 0, 0, 1 / d)
        return g * b * recip, g * -a * recip


@register
class HypotBackward(BinaryOp):
    r"""Autograd node for :math:`y = \sqrt{a^2 + b^2}`.

    Saves the output and each input whose gradient is wanted:
    :math:`\partial y / \partial a = a / y`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = \frac{g\,a}{y}, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = \frac{g\,b}{y}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"hypot"``, ``AmpPolicy.KEEP_INPUT``; floating inputs only (as PyTorch).
    saves_input : tuple
        ``a`` if ``a`` needs a gradient, ``b`` if ``b`` does.
    saves_output : bool
        True.

    Notes
    -----
    Backends: ``xp.hypot`` (no overflow of :math:`a^2`). ``hypot(inf, nan)`` is inf. The
    gradient at the origin is nan.
    """

    __slots__ = ()
    schema_v1 = OpSchema("hypot", 1, AmpPolicy.KEEP_INPUT, input_arity=2)
    saves_input = ((0,), (1,))  # the gradient of each input needs that input
    saves_output = True

    @staticmethod
    def dispatch(be, a, b):
        _floating_only("hypot", a)
        return be.hypot(a, b)

    def grad(self, F, g, a, b, out):
        return (None if a is None else g * a / out, None if b is None else g * b / out)


# -- maximum, minimum, fmax, fmin --------------------------------------------------------


def _extremum_grads(where_fn, g, a, b, worse, need):
    """maximum/minimum: ``g`` to the winner, halved on ties, nothing to the loser (nan
    propagates to both, like PyTorch). ``worse(a, b)``: ``a`` loses."""
    shared = where_fn(a == b, g / 2, g)
    return (
        where_fn(worse(a, b), 0, shared) if need[0] else None,
        where_fn(worse(b, a), 0, shared) if need[1] else None,
    )


def _fextremum_grads(where_fn, g, a, b, keeps):
    """fmax/fmin: ``g`` wholly to ``a`` where ``keeps(a, b)`` or ``b`` is nan, else to
    ``b``."""
    to_a = keeps(a, b) | (b != b)
    return where_fn(to_a, g, 0), where_fn(to_a, 0, g)


_EXTREMUM_DOC = r"""Autograd node for :math:`y = \{tex}(a, b)` element-wise ({name}).

    Saves both inputs: the gradient goes to the {winner} input, split in half on ties.

    Math
    ----
    .. math:: \frac{{\partial \mathcal{{L}}}}{{\partial a}} =
              g\,\big(\mathbb{{1}}[a {op} b] + \tfrac12 \mathbb{{1}}[a = b]\big)

    and symmetrically for :math:`b`; where either is nan, both receive :math:`g`.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"{name}"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input : bool
        True: ``a`` and ``b``.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.{name}``; nan propagates (see ``f{short}`` to ignore it). Integer and
    bool inputs are allowed (no gradient).
    """


@register
class MaximumBackward(BinaryOp):
    __doc__ = _EXTREMUM_DOC.format(name="maximum", tex="max", winner="larger", op=">", short="max")
    __slots__ = ()
    schema_v1 = OpSchema("maximum", 1, AmpPolicy.KEEP_INPUT, input_arity=2)
    saves_input = True

    @staticmethod
    def dispatch(be, a, b):
        return be.maximum(a, b)

    def grad(self, F, g, a, b, out):
        return _extremum_grads(F.where, g, a, b, operator.lt, self.needs_input_grad)


@register
class MinimumBackward(BinaryOp):
    __doc__ = _EXTREMUM_DOC.format(name="minimum", tex="min", winner="smaller", op="<", short="min")
    __slots__ = ()
    schema_v1 = OpSchema("minimum", 1, AmpPolicy.KEEP_INPUT, input_arity=2)
    saves_input = True

    @staticmethod
    def dispatch(be, a, b):
        return be.minimum(a, b)

    def grad(self, F, g, a, b, out):
        return _extremum_grads(F.where, g, a, b, operator.gt, self.needs_input_grad)


_FEXTREMUM_DOC = r"""Autograd node for :math:`y = \operatorname{{{name}}}(a, b)`: the
    {word} of the two, ignoring nan.

    Saves both inputs: the gradient goes wholly to the chosen input (``a`` on ties).

    Math
    ----
    .. math:: \frac{{\partial \mathcal{{L}}}}{{\partial a}} = g\,\mathbb{{1}}[a {op} b \lor
              b = \mathrm{{nan}}], \qquad
              \frac{{\partial \mathcal{{L}}}}{{\partial b}} =
              g - \frac{{\partial \mathcal{{L}}}}{{\partial a}}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"{name}"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input : bool
        True: ``a`` and ``b``.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.{name}``: the other value where one is nan, nan only where both are.
    """


@register
class FmaxBackward(BinaryOp):
    __doc__ = _FEXTREMUM_DOC.format(name="fmax", word="larger", op=r"\ge")
    __slots__ = ()
    schema_v1 = OpSchema("fmax", 1, AmpPolicy.KEEP_INPUT, input_arity=2)
    saves_input = True

    @staticmethod
    def dispatch(be, a, b):
        return be.fmax(a, b)

    def grad(self, F, g, a, b, out):
        return _fextremum_grads(F.where, g, a, b, operator.ge)


@register
class FminBackward(BinaryOp):
    __doc__ = _FEXTREMUM_DOC.format(name="fmin", word="smaller", op=r"\le")
    __slots__ = ()
    schema_v1 = OpSchema("fmin", 1, AmpPolicy.KEEP_INPUT, input_arity=2)
    saves_input = True

    @staticmethod
    def dispatch(be, a, b):
        return be.fmin(a, b)

    def grad(self, F, g, a, b, out):
        return _fextremum_grads(F.where, g, a, b, operator.le)


# -- logaddexp, logaddexp2, xlogy, copysign ----------------------------------------------


@register
class LogAddExpBackward(BinaryOp):
    r"""Autograd node for :math:`y = \log(e^a + e^b)`.

    Saves both inputs: each partial is a logistic function of :math:`b - a`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = \frac{g}{1 + e^{b - a}}, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = \frac{g}{1 + e^{a - b}}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"logaddexp"``, ``AmpPolicy.FORCE_FP32``; floating inputs only (as PyTorch).
    saves_input : bool
        True: ``a`` and ``b``.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.logaddexp`` (:math:`\max + \mathrm{log1p}(e^{-|a-b|})`, no overflow);
    ``logaddexp(-inf, -inf)`` is -inf, ``logaddexp(inf, inf)`` is inf.
    """

    __slots__ = ()
    schema_v1 = OpSchema("logaddexp", 1, AmpPolicy.FORCE_FP32, input_arity=2)
    saves_input = True

    @staticmethod
    def dispatch(be, a, b):
        _floating_only("logaddexp", a)
        return be.logaddexp(a, b)

    def grad(self, F, g, a, b, out):
        return g / (1 + F.exp(b - a)), g / (1 + F.exp(a - b))


@register
class LogAddExp2Backward(BinaryOp):
    r"""Autograd node for :math:`y = \log_2(2^a + 2^b)`.

    Saves both inputs: each partial is a logistic function (base 2) of :math:`b - a`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = \frac{g}{1 + 2^{b - a}}, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = \frac{g}{1 + 2^{a - b}}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"logaddexp2"``, ``AmpPolicy.FORCE_FP32``; floating inputs only (as PyTorch).
    saves_input : bool
        True: ``a`` and ``b``.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.logaddexp2`` (no overflow).
    """

    __slots__ = ()
    schema_v1 = OpSchema("logaddexp2", 1, AmpPolicy.FORCE_FP32, input_arity=2)
    saves_input = True

    @staticmethod
    def dispatch(be, a, b):
        _floating_only("logaddexp2", a)
        return be.logaddexp2(a, b)

    def grad(self, F, g, a, b, out):
        return g / (1 + 2.0 ** (b - a)), g / (1 + 2.0 ** (a - b))


@register
class XlogyBackward(BinaryOp):
    r"""Autograd node for :math:`y = a \log b`, with :math:`y = 0` where :math:`a = 0`.

    Saves both inputs: :math:`\partial y/\partial a = \log b` and
    :math:`\partial y/\partial b = a / b`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = \operatorname{xlogy}(g, b)
              \ (0 \text{ where } a = 0,\ b \le 0), \qquad
              \frac{\partial \mathcal{L}}{\partial b} = \frac{g\,a}{b}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"xlogy"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: ``a`` and ``b``.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``a * xp.log(b)`` then 0 where :math:`a = 0`; nan :math:`b` gives nan even
    where :math:`a = 0`, :math:`\log 0 = -\infty`, a negative :math:`b` gives nan.
    """

    __slots__ = ()
    schema_v1 = OpSchema("xlogy", 1, AmpPolicy.FORCE_FP32, real_valued=True, input_arity=2)
    saves_input = True

    @staticmethod
    def dispatch(be, a, b):
        return be.xlogy(a, b)

    def grad(self, F, g, a, b, out):
        e = self.next_edges
        return (
            F.where((a == 0) & (b <= 0), 0, F.xlogy(g, b)) if e[0] is not None else None,
            g * a / b if e[1] is not None else None,
        )


@register
class CopysignBackward(BinaryOp):
    r"""Autograd node for :math:`y = |a| \operatorname{sign}(b)` (the sign bit of
    :math:`b`).

    Saves the output and, if it needs a gradient, :math:`a`: :math:`\partial y / \partial
    a = y / a` (:math:`\pm 1`); :math:`b` only moves the sign, so its gradient is 0 and
    nothing of it is kept (as in PyTorch).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g\,\frac{y}{a}\ (0 \text{ where }
              a = 0), \qquad \frac{\partial \mathcal{L}}{\partial b} = 0

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"copysign"``, ``AmpPolicy.KEEP_INPUT``, real-valued.
    saves_input : tuple
        ``a`` if ``a`` needs a gradient; never ``b``.
    saves_output : bool
        True.

    Notes
    -----
    Backends: ``xp.copysign``; ``-0.`` counts as negative, nan keeps its sign bit.
    """

    __slots__ = ()
    schema_v1 = OpSchema("copysign", 1, AmpPolicy.KEEP_INPUT, real_valued=True, input_arity=2)
    saves_input = ((0,), ())  # a for its gradient y / a; b's gradient is a constant 0
    saves_output = True

    @staticmethod
    def dispatch(be, a, b):
        return be.copysign(a, b)

    def grad(self, F, g, a, b, out):
        shape, dt = self.in_meta[1]
        return (
            None if a is None else g * F.where(a == 0, 0, out / a),
            const(self.be.full(shape, 0, dt.np), g) if self.next_edges[1] else None,
        )


# -- wrappers ----------------------------------------------------------------------------


@tensor_method("atan2", "arctan2")
def atan2(input, other):
    """Element-wise angle of the point ``(other, input)``, in ``[-pi, pi]``."""
    return Atan2Backward.call(input, other)


arctan2 = atan2


@tensor_method("hypot")
def hypot(input, other):
    """Element-wise ``sqrt(input**2 + other**2)`` without overflow."""
    return HypotBackward.call(input, other)


@tensor_method("maximum")
def maximum(input, other):
    """Element-wise maximum (nan propagates)."""
    return MaximumBackward.call(input, other)


@tensor_method("minimum")
def minimum(input, other):
    """Element-wise minimum (nan propagates)."""
    return MinimumBackward.call(input, other)


@tensor_method("fmax")
def fmax(input, other):
    """Element-wise maximum ignoring nan."""
    return FmaxBackward.call(input, other)


@tensor_method("fmin")
def fmin(input, other):
    """Element-wise minimum ignoring nan."""
    return FminBackward.call(input, other)


@tensor_method("logaddexp")
def logaddexp(input, other):
    """Element-wise ``log(exp(input) + exp(other))`` without overflow."""
    return LogAddExpBackward.call(input, other)


@tensor_method("logaddexp2")
def logaddexp2(input, other):
    """Element-wise ``log2(2**input + 2**other)`` without overflow."""
    return LogAddExp2Backward.call(input, other)


@tensor_method("xlogy")
def xlogy(input, other):
    """Element-wise ``input * log(other)``, 0 where ``input`` is 0 (unless other is nan)."""
    return XlogyBackward.call(input, other)


@tensor_method("copysign")
def copysign(input, other):
    """Element-wise magnitude of ``input`` with the sign of ``other``."""
    return CopysignBackward.call(input, other)


# -- in place ----------------------------------------------------------------------------

atan2_ = _inplace(atan2, "atan2_", "arctan2_")
hypot_ = _inplace(hypot, "hypot_")
xlogy_ = _inplace(xlogy, "xlogy_")
copysign_ = _inplace(copysign, "copysign_")
