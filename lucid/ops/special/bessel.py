r"""Bessel and related functions: the modified Bessel functions of the first kind ``i0``,
``i0e``, ``i1``, ``i1e`` (the ``e`` forms scaled by :math:`e^{-|x|}`), the Bessel functions
``bessel_j0``, ``bessel_j1``, ``bessel_y0``, ``bessel_y1``, the modified ones of the second
kind ``modified_bessel_k0``, ``modified_bessel_k1`` and their scaled forms
``scaled_modified_bessel_k0``, ``scaled_modified_bessel_k1`` (:math:`e^x K_\nu(x)`), the
Airy function ``airy_ai`` and the spherical Bessel function ``spherical_bessel_j0``.

Every kernel computes in float64 from series, interpolants and continued fractions of its
own (no SciPy; see ``lucid/backend/array/special.py``) and rounds once to the input dtype;
integer inputs compute in the default float dtype, and autocast computes in float32.
Gradients follow PyTorch's ``derivatives.yaml``; where PyTorch has none although the
derivative is elementary (the Bessel functions of the first and second kinds) Lucid gives
it; ``airy_ai`` and ``spherical_bessel_j0`` are not differentiable, as in PyTorch.
"""

from __future__ import annotations

from ..core._formula import array_of, const
from ..core.base import UnaryOp
from ..core.registry import register
from ._common import _schema, _unary

__all__ = [
    "i0",
    "i0e",
    "i1",
    "i1e",
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
]


def _nonzero(F, x):
    """``(x == 0, x with 1 at those places)``, the mask a constant of the formula: the
    masked branch of a removable singularity then has a finite (unused) value and
    derivative."""
    zero = const(array_of(x) == 0, x)
    return zero, F.where(zero, 1.0, x)


# == modified Bessel functions ==============================================================

_BESSEL_I_NOTES = r"""
    Backends: ``be.KERNEL`` in float64: the power series in :math:`x^2/4` (all terms
    positive, 60 terms) below :math:`|x| = 25`, the asymptotic expansion
    :math:`\frac{e^{|x|}}{\sqrt{2\pi|x|}} \sum_k (-1)^k a_k(\nu) |x|^{-k}` (30 terms, exact
    coefficients) beyond; relative error about 1e-15."""


@register
class I0Backward(UnaryOp):
    r"""Autograd node for the modified Bessel function :math:`y = I_0(x)`.

    Saves the input: the derivative is :math:`I_1(x)`.

    Math
    ----
    .. math:: I_0(x) = \sum_{k \ge 0} \frac{(x^2/4)^k}{(k!)^2}, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = I_1(x)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"i0"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.i0`` (see ``i0e``); the large-:math:`|x|` branch multiplies by
    :math:`e^{|x|/2}` twice, so it overflows to :math:`+\infty` only where :math:`I_0` does
    (about 713.98). :math:`+\infty` at :math:`\pm\infty` (PyTorch gives nan there).
    """

    __slots__ = ()
    schema_v1 = _schema("i0")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.i0(x)

    def grad(self, F, g, x, out):
        return g * F.i1(x)


@register
class I0eBackward(UnaryOp):
    __doc__ = (
        r"""Autograd node for the exponentially scaled :math:`y = e^{-|x|} I_0(x)`.

    Saves input and output: the derivative is :math:`I_{1e}(x) - \mathrm{sign}(x)\, y`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \big(e^{-|x|} I_1(x) -
              \mathrm{sign}(x)\, y\big)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"i0e"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----"""
        + _BESSEL_I_NOTES.replace("KERNEL", "i0e")
        + r"""
    Never overflows; 0 at :math:`\pm\infty`.
    """
    )

    __slots__ = ()
    schema_v1 = _schema("i0e")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.i0e(x)

    def grad(self, F, g, x, out):
        return g * (F.i1e(x) - F.sign(x) * out)


@register
class I1Backward(UnaryOp):
    __doc__ = (
        r"""Autograd node for the modified Bessel function :math:`y = I_1(x)`.

    Saves input and output: the derivative is :math:`I_0(x) - y/x` (1/2 at 0).

    Math
    ----
    .. math:: I_1(x) = \frac x2 \sum_{k \ge 0} \frac{(x^2/4)^k}{k!\,(k+1)!}, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = \Big(I_0(x) - \frac{y}{x}\Big)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"i1"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----"""
        + _BESSEL_I_NOTES.replace("KERNEL", "i1")
        + r"""
    Odd; :math:`\pm\infty` at :math:`\pm\infty` (PyTorch: nan). At 0 the gradient is the
    limit 1/2 (the zero mask is a constant, so graph mode stays finite there).
    """
    )

    __slots__ = ()
    schema_v1 = _schema("i1")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.i1(x)

    def grad(self, F, g, x, out):
        zero, xs = _nonzero(F, x)
        return g * F.where(zero, 0.5, F.i0(xs) - out / xs)


@register
class I1eBackward(UnaryOp):
    __doc__ = (
        r"""Autograd node for the exponentially scaled :math:`y = e^{-|x|} I_1(x)`.

    Saves input and output.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \Big(e^{-|x|} I_0(x) - y\,
              \big(\mathrm{sign}(x) + \tfrac1x\big)\Big)\, g \quad (\tfrac12 \text{ at } 0)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"i1e"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----"""
        + _BESSEL_I_NOTES.replace("KERNEL", "i1e")
        + r"""
    Odd, never overflows; 0 at :math:`\pm\infty`.
    """
    )

    __slots__ = ()
    schema_v1 = _schema("i1e")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.i1e(x)

    def grad(self, F, g, x, out):
        zero, xs = _nonzero(F, x)
        return g * F.where(zero, 0.5, F.i0e(xs) - out * (F.sign(xs) + 1 / xs))


# == Bessel functions of the first kind ======================================================

_BESSEL_J_NOTES = r"""
    Backends: ``be.KERNEL`` in float64: the power series below 2 (exact at 0), Chebyshev
    series (26 terms, Clenshaw) on the 6 pieces :math:`[4k + 2, 4k + 6)` of
    :math:`[2, 26)`, fitted at import to 60-digit values of the power series; Hankel's
    expansion :math:`\sqrt{2/(\pi x)}(P\cos\chi - Q\sin\chi)`
    (20 terms each) beyond, with :math:`\cos\chi`, :math:`\sin\chi` formed from
    :math:`\cos x`, :math:`\sin x`. Absolute error below 1e-15 (so relative only away from
    the zeros); 0 at :math:`\pm\infty` (PyTorch: nan). PyTorch's own kernel is off by up to
    about 1e-7 between 2 and 8; Lucid's is checked against mpmath. PyTorch defines no
    gradient; Lucid gives the elementary one."""


@register
class BesselJ0Backward(UnaryOp):
    __doc__ = (
        r"""Autograd node for the Bessel function :math:`y = J_0(x)`.

    Saves the input: the derivative is :math:`-J_1(x)`.

    Math
    ----
    .. math:: J_0(x) = \sum_{k \ge 0} \frac{(-x^2/4)^k}{(k!)^2}, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = -J_1(x)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"bessel_j0"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input : bool
        True: :math:`x`.
    saves_output : bool
        False.

    Notes
    -----"""
        + _BESSEL_J_NOTES.replace("KERNEL", "bessel_j0")
        + "\n    "
    )

    __slots__ = ()
    schema_v1 = _schema("bessel_j0")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.bessel_j0(x)

    def grad(self, F, g, x, out):
        return -g * F.bessel_j1(x)


@register
class BesselJ1Backward(UnaryOp):
    __doc__ = (
        r"""Autograd node for the Bessel function :math:`y = J_1(x)`.

    Saves input and output: the derivative is :math:`J_0(x) - y/x` (1/2 at 0).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \Big(J_0(x) - \frac{y}{x}\Big)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"bessel_j1"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----"""
        + _BESSEL_J_NOTES.replace("KERNEL", "bessel_j1")
        + "\n    "
    )

    __slots__ = ()
    schema_v1 = _schema("bessel_j1")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.bessel_j1(x)

    def grad(self, F, g, x, out):
        zero, xs = _nonzero(F, x)
        return g * F.where(zero, 0.5, F.bessel_j0(xs) - out / xs)


_BESSEL_YK_NOTES = r"""
    Backends: ``be.KERNEL`` in float64: below 2 the logarithmic series (:math:`\ln(x/2)`
    times the regular function plus a series weighted by harmonic numbers); on
    :math:`[2, 26)` Chebyshev series fitted (on first use) to 80-digit values of that
    series; beyond, ASYMPTOTIC. Relative error about 1e-15 (absolute near zeros).
    DOMAIN. PyTorch defines no gradient; Lucid gives the elementary one."""
_Y_NOTES = _BESSEL_YK_NOTES.replace(
    "ASYMPTOTIC", r"Hankel's expansion :math:`\sqrt{2/(\pi x)}(P\sin\chi + Q\cos\chi)`"
).replace(
    "DOMAIN",
    r":math:`-\infty` at 0, nan for :math:`x < 0`, 0 at :math:`+\infty` "
    "(PyTorch: nan)",
)
_K_NOTES = _BESSEL_YK_NOTES.replace(
    "ASYMPTOTIC",
    r":math:`e^{x} K_\nu(x) \sim \sqrt{\pi/(2x)} \sum_k a_k(\nu) x^{-k}` "
    "(30 terms)",
).replace("DOMAIN", r":math:`+\infty` at 0, nan for :math:`x < 0`, 0 at :math:`+\infty`")


def _doc(head, notes, kernel):
    return head + notes.replace("KERNEL", kernel) + "\n    "


@register
class BesselY0Backward(UnaryOp):
    __doc__ = _doc(
        r"""Autograd node for the Bessel function of the second kind
    :math:`y = Y_0(x)`.

    Saves the input: the derivative is :math:`-Y_1(x)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = -Y_1(x)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"bessel_y0"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, False.

    Notes
    -----""",
        _Y_NOTES,
        "bessel_y0",
    )

    __slots__ = ()
    schema_v1 = _schema("bessel_y0")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.bessel_y0(x)

    def grad(self, F, g, x, out):
        return -g * F.bessel_y1(x)


@register
class BesselY1Backward(UnaryOp):
    __doc__ = _doc(
        r"""Autograd node for the Bessel function of the second kind
    :math:`y = Y_1(x)`.

    Saves input and output: the derivative is :math:`Y_0(x) - y/x`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \Big(Y_0(x) - \frac yx\Big)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"bessel_y1"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----""",
        _Y_NOTES,
        "bessel_y1",
    )

    __slots__ = ()
    schema_v1 = _schema("bessel_y1")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.bessel_y1(x)

    def grad(self, F, g, x, out):
        return g * (F.bessel_y0(x) - out / x)


@register
class ModifiedBesselK0Backward(UnaryOp):
    __doc__ = _doc(
        r"""Autograd node for the modified Bessel function of the second kind
    :math:`y = K_0(x)`.

    Saves the input: the derivative is :math:`-K_1(x)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = -K_1(x)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"modified_bessel_k0"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, False.

    Notes
    -----""",
        _K_NOTES,
        "modified_bessel_k0",
    )

    __slots__ = ()
    schema_v1 = _schema("modified_bessel_k0")
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.modified_bessel_k0(x)

    def grad(self, F, g, x, out):
        return -g * F.modified_bessel_k1(x)


@register
class ModifiedBesselK1Backward(UnaryOp):
    __doc__ = _doc(
        r"""Autograd node for the modified Bessel function of the second kind
    :math:`y = K_1(x)`.

    Saves input and output: the derivative is :math:`-K_0(x) - y/x`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = -\Big(K_0(x) + \frac yx\Big)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"modified_bessel_k1"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----""",
        _K_NOTES,
        "modified_bessel_k1",
    )

    __slots__ = ()
    schema_v1 = _schema("modified_bessel_k1")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.modified_bessel_k1(x)

    def grad(self, F, g, x, out):
        return -g * (F.modified_bessel_k0(x) + out / x)


@register
class ScaledModifiedBesselK0Backward(UnaryOp):
    __doc__ = _doc(
        r"""Autograd node for :math:`y = e^x K_0(x)`.

    Saves input and output: the derivative is :math:`y - e^x K_1(x)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \big(y - e^x K_1(x)\big)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"scaled_modified_bessel_k0"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----""",
        _K_NOTES,
        "scaled_modified_bessel_k0",
    )

    __slots__ = ()
    schema_v1 = _schema("scaled_modified_bessel_k0")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.scaled_modified_bessel_k0(x)

    def grad(self, F, g, x, out):
        return g * (out - F.scaled_modified_bessel_k1(x))


@register
class ScaledModifiedBesselK1Backward(UnaryOp):
    __doc__ = _doc(
        r"""Autograd node for :math:`y = e^x K_1(x)`.

    Saves input and output: the derivative is :math:`y (1 - 1/x) - e^x K_0(x)`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \Big(y\,\big(1 - \tfrac1x\big) -
              e^x K_0(x)\Big)\, g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"scaled_modified_bessel_k1"``, ``AmpPolicy.FORCE_FP32``, real-valued.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----""",
        _K_NOTES,
        "scaled_modified_bessel_k1",
    )

    __slots__ = ()
    schema_v1 = _schema("scaled_modified_bessel_k1")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.scaled_modified_bessel_k1(x)

    def grad(self, F, g, x, out):
        return g * (out * (1 - 1 / x) - F.scaled_modified_bessel_k0(x))


@register
class AiryAiBackward(UnaryOp):
    r"""Node of the Airy function :math:`y = \mathrm{Ai}(x)`; not differentiable (as in
    PyTorch: the derivative :math:`\mathrm{Ai}'` is no op of its own), so it saves nothing.

    Math
    ----
    .. math:: y'' = x\,y, \qquad \mathrm{Ai}(x) \to 0 \ (x \to +\infty), \qquad
              \mathrm{Ai}(x) = c_1 f(x) - c_2 g(x)

    with :math:`f, g` the Maclaurin series :math:`\sum_k 3^k (\tfrac13)_k
    x^{3k}/(3k)!`, :math:`\sum_k 3^k (\tfrac23)_k x^{3k+1}/(3k+1)!`.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"airy_ai"``, ``AmpPolicy.FORCE_FP32``, real-valued, ``differentiable=False``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``be.airy_ai`` in float64: on :math:`[-10, 10)` 16 Chebyshev series (26
    terms, of :math:`e^{\zeta}\mathrm{Ai}` from 5/2 on, :math:`\zeta = \frac23
    |x|^{3/2}`), fitted on first use to 80-digit values of the Maclaurin series; beyond,
    the asymptotic expansions in :math:`1/\zeta` (40 and 2 x 20 terms). Relative error
    about 1e-15 on :math:`[-10, 10]`; beyond, the rounding of :math:`\zeta` itself costs
    about :math:`\epsilon\zeta` (relative for :math:`x > 10`, absolute in the phase for
    :math:`x < -10`). 0 at :math:`\pm\infty` (PyTorch: nan), subnormal rather than 0 from
    about 104. PyTorch's own kernel is off by up to about 3e-5; Lucid's is checked against
    mpmath.
    """

    __slots__ = ()
    schema_v1 = _schema("airy_ai", differentiable=False)

    @staticmethod
    def dispatch(be, x):
        return be.airy_ai(x)


@register
class SphericalBesselJ0Backward(UnaryOp):
    r"""Node of the spherical Bessel function :math:`y = j_0(x) = \sin(x)/x`; not
    differentiable (as in PyTorch), so it saves nothing.

    Math
    ----
    .. math:: j_0(x) = \frac{\sin x}{x}, \qquad j_0(0) = 1

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"spherical_bessel_j0"``, ``AmpPolicy.FORCE_FP32``, real-valued,
        ``differentiable=False`` (PyTorch defines no derivative).
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``be.spherical_bessel_j0``: ``xp.sin(x) / x`` in float64 (relatively accurate
    for every finite :math:`x`), 1 at 0, 0 at :math:`\pm\infty`.
    """

    __slots__ = ()
    schema_v1 = _schema("spherical_bessel_j0", differentiable=False)

    @staticmethod
    def dispatch(be, x):
        return be.spherical_bessel_j0(x)


i0 = _unary(I0Backward, "i0", "Element-wise modified Bessel function :math:`I_0`.")
i0e = _unary(I0eBackward, "i0e", r"Element-wise :math:`e^{-|x|} I_0(x)`.")
i1 = _unary(I1Backward, "i1", "Element-wise modified Bessel function :math:`I_1`.")
i1e = _unary(I1eBackward, "i1e", r"Element-wise :math:`e^{-|x|} I_1(x)`.")
bessel_j0 = _unary(BesselJ0Backward, "bessel_j0", "Element-wise Bessel function :math:`J_0`.")
bessel_j1 = _unary(BesselJ1Backward, "bessel_j1", "Element-wise Bessel function :math:`J_1`.")
bessel_y0 = _unary(BesselY0Backward, "bessel_y0", "Element-wise Bessel function :math:`Y_0`.")
bessel_y1 = _unary(BesselY1Backward, "bessel_y1", "Element-wise Bessel function :math:`Y_1`.")
modified_bessel_k0 = _unary(
    ModifiedBesselK0Backward,
    "modified_bessel_k0",
    "Element-wise modified Bessel function :math:`K_0`.",
)
modified_bessel_k1 = _unary(
    ModifiedBesselK1Backward,
    "modified_bessel_k1",
    "Element-wise modified Bessel function :math:`K_1`.",
)
scaled_modified_bessel_k0 = _unary(
    ScaledModifiedBesselK0Backward, "scaled_modified_bessel_k0", r"Element-wise :math:`e^x K_0(x)`."
)
scaled_modified_bessel_k1 = _unary(
    ScaledModifiedBesselK1Backward, "scaled_modified_bessel_k1", r"Element-wise :math:`e^x K_1(x)`."
)
airy_ai = _unary(AiryAiBackward, "airy_ai", r"Element-wise Airy function :math:`\mathrm{Ai}`.")
spherical_bessel_j0 = _unary(
    SphericalBesselJ0Backward, "spherical_bessel_j0", r"Element-wise :math:`\sin(x)/x` (1 at 0)."
)
