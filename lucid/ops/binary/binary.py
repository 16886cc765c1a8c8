"""Element-wise binary ops with broadcasting and type promotion, ``y = f(a, b)``; the
element-wise ternary ops (``lerp``, ``addcmul``, ``addcdiv``, ``where``); and the arithmetic
operators of Tensor (``-``, ``/``, ``//``, ``%``, ``**`` and their reflected and in-place
forms).

Gradient formulas follow PyTorch's ``derivatives.yaml`` term for term (including its masks
at 0, ties and nan), so eager, graph-mode and PyTorch gradients agree bit for bit where the
arithmetic allows.

Complex: ``add``, ``sub``, ``mul``, ``div``, ``pow`` (either side), ``lerp``, ``addcmul``,
``addcdiv`` and ``where`` are holomorphic; Python complex scalars promote as PyTorch's
(``float64 tensor * 1j`` is complex128). The ordering ops (``maximum``, ``fmax``,
``remainder``, ``atan2``, ``hypot``, ``copysign``, ``logaddexp``, ``xlogy``, rounding
division) refuse complex input.
"""

from __future__ import annotations

import numbers
import operator

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import ArgumentError, DivisionByZeroError, DTypeError, reports_as
from ..core._bind import tensor_method
from ..core._formula import const
from ..core.base import (BinaryOp, BroadcastOp, UnaryOp, _cast, _scalar_result, apply_inplace,
                   scalar_like)
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = ["add", "mul", "multiply", "sub", "subtract", "rsub", "div", "divide",
           "true_divide", "floor_divide", "pow", "float_power", "remainder", "fmod", "atan2",
           "arctan2", "hypot", "maximum", "minimum", "fmax", "fmin", "logaddexp",
           "logaddexp2", "xlogy", "copysign", "lerp", "addcmul", "addcdiv", "where"]


# -- shared checks -----------------------------------------------------------------------

def _no_bool(name, a):
    if _dt._BY_NP[a.dtype] is _dt.bool:
        raise DTypeError(f"{name}: not implemented for bool tensors; cast them to an integer "
                         "or floating dtype first")


def _floating_only(name, a):
    if not _dt._BY_NP[a.dtype].is_floating_point:
        raise DTypeError(f"{name}: not implemented for {_dt._BY_NP[a.dtype].name} tensors; "
                         "expected a floating dtype")


def _int_division(kernel, name, a, b):
    """``kernel(a, b)`` with an integer zero divisor reported as a Lucid error."""
    _no_bool(name, a)
    try:
        return kernel(a, b)
    except DivisionByZeroError:
        raise DivisionByZeroError(f"{name}: integer division by zero (a {a.dtype} divisor "
                                  "holds 0)") from None


# -- add, mul, sub, div ------------------------------------------------------------------

@register
class AddBackward(BinaryOp):
    r"""Autograd node for :math:`y = a + \alpha b` (broadcasting).

    Saves nothing: both partial derivatives are constants.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = \alpha g

    each summed over the axes along which its input was broadcast.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"add"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.add``. Integer overflow wraps; bool + bool is logical or (PyTorch).
    """

    __slots__ = ()
    schema_v1 = OpSchema("add", 1, AmpPolicy.KEEP_INPUT, input_arity=2, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, a, b, alpha=1):
        return be.add(a, b, alpha)

    def grad(self, F, g, a, b, out):
        alpha = self.params.get("alpha", 1)
        return g, (g if alpha == 1 else g * alpha)


@register
class MulBackward(BinaryOp):
    r"""Autograd node for :math:`y = a \cdot b` (broadcasting).

    Saves each input only if the other needs a gradient: each one's gradient is the other
    times the incoming gradient (so ``x * 3.0`` saves only the scalar, and a later in-place
    change of ``x`` is no error, as in PyTorch).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g\,b, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = g\,a

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"mul"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input : tuple
        ``b`` if ``a`` needs a gradient, ``a`` if ``b`` does.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.multiply``. ``0 * inf`` is nan; integer overflow wraps.
    """

    __slots__ = ()
    schema_v1 = OpSchema("mul", 1, AmpPolicy.KEEP_INPUT, input_arity=2, complex_grad="holomorphic")
    saves_input = ((1,), (0,))   # the gradient of a needs b, that of b needs a

    @staticmethod
    def dispatch(be, a, b):
        return be.mul(a, b)

    def grad(self, F, g, a, b, out):
        return (None if b is None else g * b, None if a is None else g * a)


@register
class SubBackward(BinaryOp):
    r"""Autograd node for :math:`y = a - \alpha b` (broadcasting).

    Saves nothing: both partial derivatives are constants.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = -\alpha g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"sub"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.subtract``. Integer overflow wraps. Bool operands are rejected by the
    wrapper (PyTorch: use ``~`` or ``logical_xor``); a float ``alpha`` with an integer
    result is rejected too.
    """

    __slots__ = ()
    schema_v1 = OpSchema("sub", 1, AmpPolicy.KEEP_INPUT, input_arity=2, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, a, b, alpha=1):
        return be.sub(a, b, alpha)

    def grad(self, F, g, a, b, out):
        alpha = self.params.get("alpha", 1)
        return g, (-g if alpha == 1 else g * -alpha)


@register
class DivBackward(BinaryOp):
    r"""Autograd node for true division :math:`y = a / b` (broadcasting).

    Saves both inputs: :math:`\partial y/\partial a` needs :math:`b`, and
    :math:`\partial y/\partial b` needs :math:`a` and :math:`b` (the output is not reused,
    as PyTorch, so the two gradients round identically to its).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = \frac{g}{b}, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = -g \, \frac{a / b}{b}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"div"``, ``AmpPolicy.KEEP_INPUT``, real-valued (integer inputs divide in the
        default float dtype).
    saves_input : tuple
        ``b`` if ``a`` needs a gradient; ``a`` and ``b`` if ``b`` does.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.true_divide``, IEEE 754: ``x / 0`` is ``±inf``, ``0 / 0`` is nan (no
    warning). Rounding modes are :class:`DivRoundingBackward`.
    """

    __slots__ = ()
    schema_v1 = OpSchema("div", 1, AmpPolicy.KEEP_INPUT, real_valued=True, input_arity=2,
            complex_grad="holomorphic")
    saves_input = ((1,), (0, 1))   # grad a needs b; grad b needs a and b

    @staticmethod
    def dispatch(be, a, b):
        return be.div(a, b)

    def grad(self, F, g, a, b, out):
        return (F.div(g, b) if self.next_edges[0] is not None else None,
                None if a is None else F.neg(g) * F.div(F.div(a, b), b))


@register
class DivRoundingBackward(BinaryOp):
    r"""Autograd node for rounded division :math:`y = \mathrm{trunc}(a / b)` or
    :math:`\lfloor a / b \rfloor` (``rounding_mode`` ``"trunc"`` / ``"floor"``).

    Saves nothing: the result is piecewise constant, so its gradient is zero almost
    everywhere (PyTorch returns ``g * 0``, so does this node: nan and inf propagate).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = \frac{\partial \mathcal{L}}{\partial b}
              = 0 \cdot g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"div_rounding"``, ``AmpPolicy.KEEP_INPUT``; integer inputs stay integer.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.floor_divide`` (floats: the fmod-corrected quotient, like Python and
    PyTorch) and ``trunc(a / b)``; integer trunc division fixes the floor quotient where
    the signs differ. Integer division by zero raises :class:`DivisionByZeroError`; float
    division by zero gives ``±inf``/nan. Bool inputs are rejected.
    """

    __slots__ = ()
    schema_v1 = OpSchema("div_rounding", 1, AmpPolicy.KEEP_INPUT, input_arity=2)

    @staticmethod
    def dispatch(be, a, b, rounding_mode):
        kernel = be.div_floor if rounding_mode == "floor" else be.div_trunc
        return _int_division(kernel, f"div (rounding_mode={rounding_mode!r})", a, b)

    def grad(self, F, g, a, b, out):
        z = g * 0
        return z, z


# -- pow ---------------------------------------------------------------------------------

@register
class PowBackward(BinaryOp):
    r"""Autograd node for :math:`y = a^b` with a tensor exponent (and for a Python scalar
    base, ``2 ** t``).

    Saves both inputs and the output: the base gradient needs :math:`a, b`, the exponent
    gradient reuses :math:`y` (:math:`\partial y / \partial b = y \ln a`).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g\, b\, a^{b-1}\ (0 \text{ where } b = 0),
              \qquad
              \frac{\partial \mathcal{L}}{\partial b} = g\, y \ln a\
              (0 \text{ where } a = 0,\ \operatorname{Re} b \ge 0)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"pow"``, ``AmpPolicy.FORCE_FP32`` (half inputs overflow early).
    saves_input, saves_output : bool
        True, True.

    Notes
    -----
    Backends: ``xp.power``. Integer powers wrap on overflow; integer :math:`a^b` with
    :math:`b < 0` is 1 for :math:`a = 1`, :math:`\pm 1` for :math:`a = -1`, else 0
    (PyTorch). ``0 ** -1`` is inf, a negative base to a fractional power is nan. Bool
    ``pow(bool, bool)`` is rejected.
    """

    __slots__ = ()
    schema_v1 = OpSchema("pow", 1, AmpPolicy.FORCE_FP32, input_arity=2, complex_grad="holomorphic")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, a, b):
        _no_bool("pow", a)
        return be.pow(a, b)

    def grad(self, F, g, a, b, out):
        e = self.next_edges
        return (F.where(b == 0, 0, g * (b * F.pow(a, b - 1))) if e[0] is not None else None,
                g * F.where((a == 0) & (b.real >= 0), 0, out * F.log(a)) if e[1] is not None
                else None)


@register
class PowScalarBackward(UnaryOp):
    r"""Autograd node for :math:`y = x^p` with a Python-number exponent :math:`p`.

    Saves the input only (not the output, so ``y = x ** 2; y += 1`` stays legal, as in
    PyTorch): the gradient is :math:`p\,x^{p-1}`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g\, p\, x^{p-1}
              \quad (0 \text{ when } p = 0)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"pow_scalar"``, ``AmpPolicy.FORCE_FP32``.
    saves_input : bool
        True: ``x``.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``x ** p`` (``xp.power``; NumPy squares, square-roots or inverts for
    :math:`p \in \{2, 0.5, -1\}`). The wrapper promotes :math:`x` first (``int ** 2.5`` is
    float) and rejects integer :math:`x` with a negative integer :math:`p`. The gradient is
    the ``pow_scalar_backward`` kernel, in graph mode one op with its own gradient
    (:class:`~lucid.ops.elementwise.backward_ops.PowScalarBackwardBackward`).
    """

    __slots__ = ()
    schema_v1 = OpSchema("pow_scalar", 1, AmpPolicy.FORCE_FP32, complex_grad="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, x, exponent):
        return be.pow_scalar(x, exponent)

    def grad(self, F, g, x, out):
        return F.pow_scalar_backward(g, x, self.params["exponent"])


# -- remainder, fmod ---------------------------------------------------------------------

@register
class RemainderBackward(BinaryOp):
    r"""Autograd node for Python-style :math:`y = a - b \lfloor a / b \rfloor` (the sign of
    the divisor).

    Saves both inputs, and only when :math:`b` needs a gradient:
    :math:`\partial y / \partial b = -\lfloor a / b \rfloor` (that of :math:`a` is 1, so
    ``x % 3.0`` saves nothing, as in PyTorch).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = -g \left\lfloor \frac{a}{b} \right\rfloor

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"remainder"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input : tuple
        ``a`` and ``b`` if ``b`` needs a gradient, else nothing.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.remainder`` for integers; floats use PyTorch's ``fmod`` plus divisor
    fix-up (``remainder(-4., 2.)`` is ``-0.``). Float ``x % 0`` is nan; integer division
    by zero raises :class:`DivisionByZeroError`.
    """

    __slots__ = ()
    schema_v1 = OpSchema("remainder", 1, AmpPolicy.KEEP_INPUT, input_arity=2)
    saves_input = ((), (0, 1))   # only the gradient of b needs them

    @staticmethod
    def dispatch(be, a, b):
        return _int_division(be.remainder, "remainder", a, b)

    def grad(self, F, g, a, b, out):
        return g, (None if b is None else -g * F.div_floor(a, b))


@register
class FmodBackward(BinaryOp):
    r"""Autograd node for C-style :math:`y = a - b\,\mathrm{trunc}(a / b)` (the sign of the
    dividend).

    Saves both inputs, and only when :math:`b` needs a gradient:
    :math:`\partial y / \partial b = -\mathrm{trunc}(a / b)` (that of :math:`a` is 1, so
    ``x % 3.0`` saves nothing, as in PyTorch).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g, \qquad
              \frac{\partial \mathcal{L}}{\partial b} =
              -g\,\mathrm{trunc}\!\left(\frac{a}{b}\right)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"fmod"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input : tuple
        ``a`` and ``b`` if ``b`` needs a gradient, else nothing.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.fmod`` (exact). Float ``fmod(x, 0)`` is nan; integer division by zero
    raises :class:`DivisionByZeroError`.
    """

    __slots__ = ()
    schema_v1 = OpSchema("fmod", 1, AmpPolicy.KEEP_INPUT, input_arity=2)
    saves_input = ((), (0, 1))   # only the gradient of b needs them

    @staticmethod
    def dispatch(be, a, b):
        return _int_division(be.fmod, "fmod", a, b)

    def grad(self, F, g, a, b, out):
        return g, (None if b is None else -g * F.div_trunc(a, b))


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
    saves_input = ((0,), (1,))   # the gradient of each input needs that input
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
    return (where_fn(worse(a, b), 0, shared) if need[0] else None,
            where_fn(worse(b, a), 0, shared) if need[1] else None)


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
    __doc__ = _EXTREMUM_DOC.format(name="maximum", tex="max", winner="larger", op=">",
                                   short="max")
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
    __doc__ = _EXTREMUM_DOC.format(name="minimum", tex="min", winner="smaller", op="<",
                                   short="min")
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
        return (F.where((a == 0) & (b <= 0), 0, F.xlogy(g, b)) if e[0] is not None else None,
                g * a / b if e[1] is not None else None)


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
    schema_v1 = OpSchema("copysign", 1, AmpPolicy.KEEP_INPUT, real_valued=True,
                         input_arity=2)
    saves_input = ((0,), ())     # a for its gradient y / a; b's gradient is a constant 0
    saves_output = True

    @staticmethod
    def dispatch(be, a, b):
        return be.copysign(a, b)

    def grad(self, F, g, a, b, out):
        shape, dt = self.in_meta[1]
        return (None if a is None else g * F.where(a == 0, 0, out / a),
                const(self.be.full(shape, 0, dt.np), g) if self.next_edges[1] else None)


# -- ternary: lerp, addcmul, addcdiv, where ----------------------------------------------

@register
class LerpBackward(BroadcastOp):
    r"""Autograd node for :math:`y = a + w\,(b - a)` (``lerp(input, end, weight)``).

    Saves what the wanted gradients need: the weight's gradient needs :math:`a` and
    :math:`b`, the others :math:`w`. A Python-number weight arrives as a 0-d tensor that
    needs no gradient.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g\,(1 - w), \quad
              \frac{\partial \mathcal{L}}{\partial b} = g\,w, \quad
              \frac{\partial \mathcal{L}}{\partial w} = g\,(b - a)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"lerp"``, ``AmpPolicy.KEEP_INPUT``; floating inputs of one dtype (as PyTorch).
    saves_input : tuple
        ``w`` if ``a`` or ``b`` needs a gradient; all three if ``w`` does (PyTorch keeps
        ``w`` then too, so an in-place change of it raises in both).
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``a + w (b - a)`` for :math:`|w| < 0.5`, else ``b - (b - a)(1 - w)`` so
    both ends are exact; half types compute in float32.
    """

    __slots__ = ()
    schema_v1 = OpSchema("lerp", 1, AmpPolicy.KEEP_INPUT, input_arity=3,
            complex_grad="holomorphic")
    saves_input = ((2,), (2,), (0, 1, 2))   # what PyTorch keeps

    @staticmethod
    def dispatch(be, a, b, w):
        return be.lerp(a, b, w)

    def grad(self, F, g, a, b, w, out):
        e = self.next_edges
        return (g * (1 - w) if e[0] is not None else None,
                g * w if e[1] is not None else None,
                g * (b - a) if e[2] is not None else None)


@register
class AddcmulBackward(BroadcastOp):
    r"""Autograd node for :math:`y = x + v\,t_1 t_2` (``value`` :math:`v` a Python number).

    Saves each factor only if the other needs a gradient: each factor's gradient is the
    other factor (``x``'s is ``g``).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g, \quad
              \frac{\partial \mathcal{L}}{\partial t_1} = g\,(t_2 v), \quad
              \frac{\partial \mathcal{L}}{\partial t_2} = g\,(t_1 v)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"addcmul"``, ``AmpPolicy.KEEP_INPUT``; the three inputs are promoted together.
    saves_input : tuple
        ``t2`` if ``t1`` needs a gradient, ``t1`` if ``t2`` does; never ``x``.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``x + v * t1 * t2`` (one fused kernel on CuPy). Integer results truncate a
    float ``value`` (PyTorch).
    """

    __slots__ = ()
    schema_v1 = OpSchema("addcmul", 1, AmpPolicy.KEEP_INPUT, input_arity=3,
            complex_grad="holomorphic")
    saves_input = ((), (2,), (1,))

    @staticmethod
    def dispatch(be, x, t1, t2, value):
        return be.addcmul(x, t1, t2, value)

    def grad(self, F, g, x, t1, t2, out):
        v = self.params["value"]
        return (g, None if t2 is None else g * (t2 * v),
                None if t1 is None else g * (t1 * v))


@register
class AddcdivBackward(BroadcastOp):
    r"""Autograd node for :math:`y = x + v\,t_1 / t_2` (``value`` :math:`v` a Python
    number).

    Saves what the wanted gradients need: :math:`t_2` for that of :math:`t_1`,
    :math:`t_1` and :math:`t_2` for that of :math:`t_2`; never :math:`x`, but :math:`t_2`
    when only :math:`x` needs a gradient, as PyTorch.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g, \quad
              \frac{\partial \mathcal{L}}{\partial t_1} = g\,\frac{v}{t_2}, \quad
              \frac{\partial \mathcal{L}}{\partial t_2} = \frac{-g\,(v\,t_1 / t_2)}{t_2}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"addcdiv"``, ``AmpPolicy.KEEP_INPUT``; inputs promoted together; integer
        ``t1, t2`` are rejected (PyTorch: no integer division in addcdiv).
    saves_input : tuple
        ``t2`` if ``x`` or ``t1`` needs a gradient (PyTorch keeps it for ``x`` too, so an
        in-place change of ``t2`` raises in both), ``t1`` and ``t2`` if ``t2`` does.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``x + v * t1 / t2`` (one fused kernel on CuPy); division by zero gives
    ``±inf``/nan.
    """

    __slots__ = ()
    schema_v1 = OpSchema("addcdiv", 1, AmpPolicy.KEEP_INPUT, input_arity=3,
            complex_grad="holomorphic")
    saves_input = ((2,), (2,), (1, 2))   # what PyTorch keeps (t2 even for x's gradient)

    @staticmethod
    def dispatch(be, x, t1, t2, value):
        return be.addcdiv(x, t1, t2, value)

    def grad(self, F, g, x, t1, t2, out):
        v, e = self.params["value"], self.next_edges
        return (g, g * (v / t2) if e[1] is not None else None,
                -g * (v * t1 / t2) / t2 if e[2] is not None else None)


@register
class WhereBackward(BroadcastOp):
    r"""Autograd node for :math:`y = c \,?\, a : b` (``where(condition, input, other)``).

    Saves the condition only (when ``a`` or ``b`` needs a gradient): the gradient is
    routed by it, and the values of ``a`` and ``b`` are not needed.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = g\,\mathbb{1}[c], \qquad
              \frac{\partial \mathcal{L}}{\partial b} = g\,\mathbb{1}[\lnot c]

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"where"``, ``AmpPolicy.KEEP_INPUT``; three inputs, the condition needs no
        gradient; ``a`` and ``b`` promoted together (Python scalars weak).
    saves_input : tuple
        The condition, if ``a`` or ``b`` needs a gradient.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.where``. The three operands broadcast together. The unselected
    operand's values never reach the gradient (no nan leak, unlike ``c * a``).
    """

    __slots__ = ()
    schema_v1 = OpSchema("where", 1, AmpPolicy.KEEP_INPUT, input_arity=3,
            complex_grad="holomorphic")
    saves_input = ((), (0,), (0,))

    @staticmethod
    def dispatch(be, cond, a, b):
        return be.where(cond, a, b)

    def grad(self, F, g, cond, a, b, out):
        e = self.next_edges
        return (None, F.where(cond, g, 0) if e[1] is not None else None,
                F.where(cond, 0, g) if e[2] is not None else None)


# -- wrappers ----------------------------------------------------------------------------

def _is_bool(x):
    return x.__class__ is bool or getattr(x, "_dtype", None) is _dt.bool


def _check_alpha(name, input, other, alpha):
    if isinstance(alpha, float) and _dt.result_type(input, other)._cat < 2:
        raise DTypeError(f"{name}: for integral input tensors, argument alpha must not be a "
                         f"floating point number (got alpha={alpha})")


@tensor_method("add")
def add(input, other, *, alpha=1):
    """``input + alpha * other`` with broadcasting and promotion."""
    if alpha != 1:
        _check_alpha("add", input, other, alpha)
        return AddBackward.call(input, other, alpha=alpha)
    return AddBackward.call(input, other)


@tensor_method("mul", "multiply")
def mul(input, other):
    """``input * other`` with broadcasting and promotion."""
    return MulBackward.call(input, other)


multiply = mul


@tensor_method("sub", "subtract")
def sub(input, other, *, alpha=1):
    """``input - alpha * other`` with broadcasting and promotion (bool not allowed)."""
    if _is_bool(input) or _is_bool(other):
        raise DTypeError("sub: subtraction, the `-` operator, with a bool tensor is not "
                         "supported; to invert a mask use `~` or logical_not(), for two "
                         "masks use `^` or logical_xor()")
    if alpha != 1:
        _check_alpha("sub", input, other, alpha)
        return SubBackward.call(input, other, alpha=alpha)
    return SubBackward.call(input, other)


subtract = sub


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    return sub(other, input, alpha=alpha)


@tensor_method("div", "divide")
def div(input, other, *, rounding_mode=None):
    """``input / other``: true division (integers give the default float) or, with
    ``rounding_mode`` ``"trunc"`` / ``"floor"``, rounded division keeping integer dtypes."""
    if rounding_mode is None:
        return DivBackward.call(input, other)
    if rounding_mode != "trunc" and rounding_mode != "floor":
        raise ArgumentError(f"div: expected rounding_mode to be one of None, 'trunc', or "
                         f"'floor' but found {rounding_mode!r}")
    return DivRoundingBackward.call(input, other, rounding_mode=rounding_mode)


divide = div


@tensor_method("true_divide")
@reports_as("true_divide")
def true_divide(dividend, divisor):
    """``dividend / divisor`` (true division)."""
    return DivBackward.call(dividend, divisor)


@tensor_method("floor_divide")
@reports_as("floor_divide")
def floor_divide(input, other):
    """``input // other`` rounded toward minus infinity (Python's ``//``)."""
    return DivRoundingBackward.call(input, other, rounding_mode="floor")


def _is_number(x):
    k = x.__class__
    return k is int or k is float or k is bool or isinstance(x, numbers.Real)


@tensor_method("pow")
def pow(input, exponent):
    """``input ** exponent``; either side may be a Python number. Integer powers stay
    integer (a negative scalar exponent of an integer tensor is an error)."""
    if not isinstance(input, Tensor) or isinstance(exponent, Tensor) or \
            not isinstance(exponent, numbers.Number):     # arrays: PowBackward converts
        return PowBackward.call(input, exponent)
    rd = _scalar_result(PowBackward, input._dtype, exponent)
    if rd._cat < 2 and exponent < 0:
        raise DTypeError(f"pow: integers to negative integer powers are not allowed (got a "
                         f"{input._dtype.name} tensor to the power {exponent})")
    return PowScalarBackward.call(input if input._dtype is rd else _cast(input, rd),
                                  exponent=exponent)


@tensor_method("float_power")
@reports_as("float_power")
def float_power(input, exponent):
    """``input ** exponent`` computed in float64 (both operands cast)."""
    f64 = _dt.float64
    if isinstance(input, Tensor) and input._dtype is not f64:
        input = _cast(input, f64)
    if isinstance(exponent, Tensor):
        if exponent._dtype is not f64:
            exponent = _cast(exponent, f64)
    elif _is_number(exponent):
        exponent = float(exponent)
    return pow(input, exponent)


@tensor_method("remainder")
def remainder(input, other):
    """``input % other`` with the sign of ``other`` (Python's ``%``)."""
    return RemainderBackward.call(input, other)


@tensor_method("fmod")
def fmod(input, other):
    """C-style remainder of ``input / other``, with the sign of ``input``."""
    return FmodBackward.call(input, other)


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


def _as_operand(x, rd, like):
    """``x`` (a Tensor or a Python number) as a tensor of dtype ``rd`` on ``like``'s
    device; a cast of a tensor that requires grad is recorded."""
    if isinstance(x, Tensor):
        return x if x._dtype is rd else _cast(x, rd)
    return scalar_like(x, rd, like)


def _require_tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise DTypeError(f"{name}: argument '{arg}' must be a Tensor, got "
                         f"{type(x).__name__}")


@tensor_method("lerp")
def lerp(input, end, weight):
    """``input + weight * (end - input)``; ``weight`` a Python number or a tensor (a 0-d
    weight of any dtype is cast; otherwise dtypes must match ``input``'s)."""
    _require_tensor("lerp", "input", input)
    _require_tensor("lerp", "end", end)
    dt = input._dtype
    if dt._cat < 2:
        raise DTypeError(f"lerp: not implemented for {dt.name} tensors; expected a floating "
                         "or complex dtype")
    if end._dtype is not dt:
        raise DTypeError(f"lerp: expected dtype {dt.name} for `end` but got dtype "
                         f"{end._dtype.name}")
    if isinstance(weight, Tensor):
        if weight._dtype is not dt and weight._data.ndim:
            raise DTypeError(f"lerp: expected dtype {dt.name} for `weight` but got dtype "
                             f"{weight._dtype.name}")
    elif not _is_number(weight):
        raise DTypeError(f"lerp: weight must be a Tensor or a real number, got "
                         f"{type(weight).__name__}")
    return LerpBackward.apply(input, end, _as_operand(weight, dt, input))


def _addc(cls, name, input, tensor1, tensor2, value):
    for arg, x in (("input", input), ("tensor1", tensor1), ("tensor2", tensor2)):
        _require_tensor(name, arg, x)
    if cls is AddcdivBackward and tensor1._dtype._cat < 2 and tensor2._dtype._cat < 2:
        raise DTypeError("addcdiv: integer division with addcdiv is not supported; got "
                         f"tensor1 {tensor1._dtype.name} and tensor2 {tensor2._dtype.name} "
                         "(use a floating dtype, or floor_divide)")
    rd = _dt.result_type(input, tensor1, tensor2)
    if rd._cat < 2:
        if rd is _dt.bool:
            raise DTypeError(f"{name}: not implemented for bool tensors")
        value = int(value)
    return cls.apply(*(_as_operand(x, rd, input) for x in (input, tensor1, tensor2)),
                     value=value)


@tensor_method("addcmul")
def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2`` (broadcast, promoted together)."""
    return _addc(AddcmulBackward, "addcmul", input, tensor1, tensor2, value)


@tensor_method("addcdiv")
def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2`` (broadcast, promoted together)."""
    return _addc(AddcdivBackward, "addcdiv", input, tensor1, tensor2, value)


def where(condition, input=None, other=None):
    """Element-wise ``input`` where ``condition`` holds, else ``other`` (either may be a
    Python number). ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    _require_tensor("where", "condition", condition)
    cd = condition._dtype
    if cd is not _dt.bool:
        if cd is not _dt.uint8:
            raise DTypeError(f"where: expected condition to be a bool tensor, but got a "
                             f"tensor with dtype {cd.name}")
        condition = _cast(condition, _dt.bool)
    if input is None or other is None:
        raise DTypeError("where: expected both input and other (or neither)")
    ti, to = isinstance(input, Tensor), isinstance(other, Tensor)
    if ti and to:
        rd = input._dtype if input._dtype is other._dtype else _dt.result_type(input, other)
    elif ti or to:
        rd = _scalar_result(WhereBackward, input._dtype, other) if ti else \
            _scalar_result(WhereBackward, other._dtype, input)
    else:
        for x in (input, other):
            if not _is_number(x):
                raise DTypeError(f"where: expected a Tensor or a real number, got "
                                 f"{type(x).__name__}")
        rd = _dt.result_type(input, other)
    return WhereBackward.apply(condition, _as_operand(input, rd, condition),
                               _as_operand(other, rd, condition))


def _tensor_where(self, condition, other):
    """``where(condition, self, other)``."""
    return where(condition, self, other)


Tensor.where = _tensor_where


# -- in place ----------------------------------------------------------------------------

def _inplace(fn, *names):
    """Install ``Tensor.<name>`` for each name as the in-place form of ``fn``."""
    def method(self, *args, **kwargs):
        return apply_inplace(fn, self, *args, **kwargs)
    method.__name__ = names[0]
    method.__doc__ = f"In-place :func:`{fn.__name__}`."
    for n in names:
        setattr(Tensor, n, method)
    return method


add_ = _inplace(add, "add_")
mul_ = _inplace(mul, "mul_", "multiply_")
sub_ = _inplace(sub, "sub_", "subtract_")
div_ = _inplace(div, "div_", "divide_")
true_divide_ = _inplace(true_divide, "true_divide_")
floor_divide_ = _inplace(floor_divide, "floor_divide_")
pow_ = _inplace(pow, "pow_")
remainder_ = _inplace(remainder, "remainder_")
fmod_ = _inplace(fmod, "fmod_")
atan2_ = _inplace(atan2, "atan2_", "arctan2_")
hypot_ = _inplace(hypot, "hypot_")
xlogy_ = _inplace(xlogy, "xlogy_")
copysign_ = _inplace(copysign, "copysign_")
lerp_ = _inplace(lerp, "lerp_")
addcmul_ = _inplace(addcmul, "addcmul_")
addcdiv_ = _inplace(addcdiv, "addcdiv_")


def _float_power_(self, exponent):
    """In-place :func:`float_power`; ``self`` must be float64 (as PyTorch)."""
    if self._dtype is not _dt.float64:
        raise DTypeError(f"float_power_: the base given to float_power_ has dtype "
                         f"{self._dtype.name} but the operation's result requires dtype "
                         "float64")
    return apply_inplace(float_power, self, exponent)


Tensor.float_power_ = _float_power_


# -- operators ---------------------------------------------------------------------------

Tensor.__add__ = lambda self, other: AddBackward.call(self, other)
Tensor.__radd__ = lambda self, other: AddBackward.call(other, self)
Tensor.__iadd__ = add_
Tensor.__mul__ = lambda self, other: MulBackward.call(self, other)
Tensor.__rmul__ = lambda self, other: MulBackward.call(other, self)
Tensor.__imul__ = mul_
Tensor.__sub__ = sub
Tensor.__rsub__ = lambda self, other: sub(other, self)
Tensor.__isub__ = sub_
Tensor.__truediv__ = lambda self, other: DivBackward.call(self, other)
Tensor.__rtruediv__ = lambda self, other: DivBackward.call(other, self)
Tensor.__itruediv__ = true_divide_
Tensor.__floordiv__ = floor_divide
Tensor.__rfloordiv__ = lambda self, other: floor_divide(other, self)
Tensor.__ifloordiv__ = floor_divide_
Tensor.__mod__ = lambda self, other: RemainderBackward.call(self, other)
Tensor.__rmod__ = lambda self, other: RemainderBackward.call(other, self)
Tensor.__imod__ = remainder_
Tensor.__pow__ = pow
Tensor.__rpow__ = lambda self, other: PowBackward.call(other, self)
Tensor.__ipow__ = pow_
