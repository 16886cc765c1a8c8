r"""Complex numbers: parts, conjugate, polar form, and real views of complex tensors.

A complex tensor (``complex64``: float32 parts, ``complex128``: float64 parts) holds
:math:`z = x + iy`. ``real``/``imag`` and ``view_as_real``/``view_as_complex`` are views
(shared storage and version counter, as in PyTorch); ``conj`` is a copy here, since Lucid
has no lazy conjugate bit (``is_conj`` is always False, ``resolve_conj`` returns its input).

Autograd follows PyTorch's convention: the gradient kept for a complex :math:`z` is
:math:`\partial L/\partial x + i\,\partial L/\partial y` (twice the conjugate Wirtinger
derivative :math:`\partial L/\partial \bar z`). For an op :math:`w = f(z)` with incoming
gradient :math:`g`,

.. math::
    \mathrm{grad}_z = g\,\overline{\partial w/\partial z} + \bar g\,\partial w/\partial \bar z,

and a real input keeps the real part of its complex gradient. Holomorphic ops
(:math:`\partial w/\partial \bar z = 0`) declare ``complex_grad="holomorphic"`` and keep
their real formula (:meth:`lucid.ops.core.base.Op.grad_formula`); the ops here are not
holomorphic and write their complex gradient themselves (``complex_grad="custom"``).
"""

from __future__ import annotations

from ... import dtypes as _dt
from ...errors import DTypeError, ShapeError
from ..core._bind import install, tensor_method
from ..core._formula import array_of, const
from ..core.base import BinaryOp, UnaryOp, ViewOp, to_tensor
from ..core.inplace import apply_inplace
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from .sign_magnitude import sign

__all__ = [
    "real",
    "imag",
    "conj",
    "conj_physical",
    "resolve_conj",
    "resolve_neg",
    "is_conj",
    "is_neg",
    "angle",
    "sgn",
    "polar",
    "complex",
    "view_as_real",
    "view_as_complex",
    "conj_physical_",
    "sgn_",
]

_KEEP = AmpPolicy.KEEP_INPUT


def _schema(name, arity=1, real=False):
    return OpSchema(name, 1, _KEEP, real_valued=real, input_arity=arity, complex_grad="custom")


def _need_complex(op, t):
    if not t._dtype.is_complex:
        raise DTypeError(f"{op}: expected a complex tensor, got dtype {t._dtype.name}")


def _need_float_pair(op, a, b):
    """``a`` and ``b`` as the real and imaginary (or magnitude and angle) parts: both
    float32 or both float64, as PyTorch requires."""
    for t in (a, b):
        if t._dtype not in (_dt.float32, _dt.float64):
            raise DTypeError(
                f"{op}: expected float32 or float64 tensors, got dtype {t._dtype.name}"
            )
    if a._dtype is not b._dtype:
        raise DTypeError(
            f"{op}: expected both inputs to have the same dtype, got "
            f"{a._dtype.name} and {b._dtype.name}"
        )


# == conjugate ================================================================================


@register
class ConjBackward(UnaryOp):
    r"""Autograd node for the complex conjugate :math:`y = \bar z = x - iy`.

    Saves nothing: conjugation is :math:`\mathbb{R}`-linear, its gradient is the conjugated
    incoming gradient.

    Math
    ----
    .. math:: \frac{\partial \bar z}{\partial \bar z} = 1, \qquad
        \mathrm{grad}_z = \overline{g}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"conj"``, ``AmpPolicy.KEEP_INPUT``, ``complex_grad="custom"`` (anti-holomorphic).
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.conjugate`` (a new array). Also the node of ``conj_physical``; on a
    real input ``conj`` returns the input itself and ``conj_physical`` a copy (PyTorch).
    Lucid has no lazy conjugate bit: ``conj`` copies. Also the ``conj`` that holomorphic
    ops run around their real formula in graph mode, so double backward works.
    """

    __slots__ = ()
    schema_v1 = _schema("conj")

    @staticmethod
    def dispatch(be, x):
        return be.conj(x)

    def grad(self, F, g, x, out):
        return F.conj(g)


@tensor_method("conj")
def conj(input):
    """The complex conjugate (a copy; a real tensor is returned as is, as in PyTorch)."""
    input = to_tensor(input)
    return ConjBackward.call(input) if input._dtype.is_complex else input


@tensor_method("conj_physical")
def conj_physical(input):
    """The complex conjugate in new memory (a copy for real tensors too)."""
    return ConjBackward.call(to_tensor(input))


@tensor_method("conj_physical_")
def conj_physical_(input):
    """In-place :func:`conj_physical`."""
    return apply_inplace(conj_physical, input)


@tensor_method("resolve_conj")
def resolve_conj(input):
    """``input`` itself: Lucid's ``conj`` is never lazy, so there is no bit to resolve."""
    return input


@tensor_method("resolve_neg")
def resolve_neg(input):
    """``input`` itself: Lucid has no lazy negative bit."""
    return input


@tensor_method("is_conj")
def is_conj(input):
    """False: Lucid's ``conj`` copies (no lazy conjugate bit)."""
    return False


@tensor_method("is_neg")
def is_neg(input):
    """False: Lucid has no lazy negative bit."""
    return False


# == parts ===================================================================================


@register
class RealBackward(ViewOp):
    r"""Autograd node for :math:`y = \operatorname{Re} z = x`, a view of the real parts.

    Saves nothing: the gradient of the real part is the (real) incoming gradient itself.

    Math
    ----
    .. math:: \frac{\partial L}{\partial x} = g, \quad \frac{\partial L}{\partial y} = 0,
        \qquad \mathrm{grad}_z = g + 0i

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"real"``, ``AmpPolicy.KEEP_INPUT``, ``complex_grad="custom"``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``ndarray.real``, a strided view (stride 2 in parts): writes through it
    change the complex tensor. The real gradient returned is cast to the input's complex
    dtype by the node (imaginary part 0). On a real tensor ``real`` returns the tensor.
    """

    __slots__ = ()
    schema_v1 = _schema("real")

    @staticmethod
    def dispatch(be, x):
        return be.real(x)

    def grad(self, F, g, x, out):
        return g


@register
class ImagBackward(ViewOp):
    r"""Autograd node for :math:`y = \operatorname{Im} z`, a view of the imaginary parts.

    Saves nothing: the gradient is the incoming gradient placed on the imaginary axis.

    Math
    ----
    .. math:: \frac{\partial L}{\partial x} = 0, \quad \frac{\partial L}{\partial y} = g,
        \qquad \mathrm{grad}_z = i\,g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"imag"``, ``AmpPolicy.KEEP_INPUT``, ``complex_grad="custom"``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``ndarray.imag``, a strided view. A real tensor has no imaginary part to view:
    ``imag`` raises, as in PyTorch.
    """

    __slots__ = ()
    schema_v1 = _schema("imag")

    @staticmethod
    def dispatch(be, x):
        return be.imag(x)

    def grad(self, F, g, x, out):
        return F.make_complex(F.zeros_like(g), g)


def real(input):
    """The real parts of a complex tensor as a view (a real tensor itself, as PyTorch)."""
    input = to_tensor(input)
    return RealBackward.call(input) if input._dtype.is_complex else input


def imag(input):
    """The imaginary parts of a complex tensor as a view (real tensors raise)."""
    input = to_tensor(input)
    if not input._dtype.is_complex:
        raise DTypeError(
            f"imag: imag is not implemented for tensors with non-complex "
            f"dtypes (got {input._dtype.name})"
        )
    return ImagBackward.call(input)


def _set_part(part):
    def setter(self, value):
        part(self).copy_(to_tensor(value, self))

    return setter


install(
    real=property(real, _set_part(real), doc="The real parts (a view)."),
    imag=property(imag, _set_part(imag), doc="The imaginary parts (a view)."),
)


# == polar form ===============================================================================


@register
class AngleBackward(UnaryOp):
    r"""Autograd node for the argument :math:`\theta = \operatorname{atan2}(y, x)`.

    Saves the input: the gradient depends on :math:`z`.

    Math
    ----
    .. math:: \frac{\partial\theta}{\partial x} = \frac{-y}{|z|^2},\quad
        \frac{\partial\theta}{\partial y} = \frac{x}{|z|^2},\qquad
        \mathrm{grad}_z = g\,\frac{i z}{|z|^2}\ (0 \text{ at } z = 0)

    A real input's angle is piecewise constant (0 or :math:`\pi`): its gradient is 0.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"angle"``, ``AmpPolicy.KEEP_INPUT``, ``real_valued`` (integers give the default
        float), ``complex_grad="custom"``.
    saves_input : bool
        True: :math:`z`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.arctan2(imag, real)`` in :math:`(-\pi, \pi]`, a real result; for real
    input :math:`\pi` where :math:`x < 0`, else 0, nan stays nan (PyTorch). The gradient
    at :math:`z = 0` is 0, PyTorch's choice.
    """

    __slots__ = ()
    schema_v1 = _schema("angle", real=True)
    saves_input = True

    @staticmethod
    def dispatch(be, x):
        return be.angle(x)

    def grad(self, F, g, x, out):
        if not self.in_meta[0][1].is_complex:
            return F.zeros_like(g)
        r2 = x.real * x.real + x.imag * x.imag
        mask = const(_abs2_array(self, x) == 0, g)
        return F.where(mask, 0.0, g * F.make_complex(-x.imag, x.real) / F.where(mask, 1.0, r2))


def _abs2_array(node, x):
    """:math:`|z|^2` of operand ``x`` (array or Tensor) as a backend array, for masks."""
    a = array_of(x)
    return node.be.real(a) ** 2 + node.be.imag(a) ** 2


@tensor_method("angle")
def angle(input):
    """Element-wise argument :math:`\\operatorname{atan2}(y, x)` (real result)."""
    return AngleBackward.call(to_tensor(input))


@register
class SgnBackward(UnaryOp):
    r"""Autograd node for the complex sign :math:`s = z / |z|` (0 at 0).

    Saves the input and the output: the gradient needs :math:`|z|` and :math:`s`.

    Math
    ----
    .. math:: \frac{\partial s}{\partial z} = \frac{1}{2|z|},\quad
        \frac{\partial s}{\partial \bar z} = -\frac{s^2}{2|z|},\qquad
        \mathrm{grad}_z = \frac{g - \bar g\, s^2}{2|z|}\ (0 \text{ at } z = 0)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"sgn"``, ``AmpPolicy.KEEP_INPUT``, ``complex_grad="custom"``.
    saves_input, saves_output : bool
        True, True.

    Notes
    -----
    Backends: ``z / |z|`` with ``xp.where`` at 0. The public ``sgn`` of a real tensor is
    ``sign`` (:class:`~lucid.ops.elementwise.sign_magnitude.SignBackward`); on a real input
    this node's gradient is 0, like sign's.
    """

    __slots__ = ()
    schema_v1 = _schema("sgn")
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x):
        return be.sgn(x)

    def grad(self, F, g, x, out):
        if not self.in_meta[0][1].is_complex:
            return F.zeros_like(g)
        a = _abs2_array(self, x)
        mask = const(a == 0, g)
        r = F.abs(x)
        return F.where(mask, 0.0, (g - F.conj(g) * out * out) / (F.where(mask, 1.0, r) * 2))


@tensor_method("sgn")
def sgn(input):
    """Element-wise :math:`z/|z|` for complex input (0 at 0); the sign of a real one."""
    input = to_tensor(input)
    if input._dtype.is_complex:
        return SgnBackward.call(input)
    return sign(input)


@tensor_method("sgn_")
def sgn_(input):
    """In-place :func:`sgn`."""
    return apply_inplace(sgn, input)


@register
class PolarBackward(BinaryOp):
    r"""Autograd node for :math:`z = r e^{i\theta} = r\cos\theta + i r\sin\theta`.

    Saves both inputs: each gradient needs :math:`e^{i\theta}`, the angle's also :math:`r`.

    Math
    ----
    With :math:`u = e^{i\theta}` and incoming :math:`g` (both inputs real):

    .. math:: \frac{\partial L}{\partial r} = \operatorname{Re}(g\,\bar u), \qquad
        \frac{\partial L}{\partial \theta} = \operatorname{Re}(g\,\overline{i r u})
        = r \operatorname{Im}(g\,\bar u)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"polar"``, ``AmpPolicy.KEEP_INPUT``, ``complex_grad="custom"`` (real inputs, a
        complex output).
    saves_input : bool
        True: :math:`r, \theta`.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``make_complex(r cos θ, r sin θ)``. Inputs: float32 (complex64 result) or
    float64 (complex128), of one dtype, broadcasting. A negative :math:`r` is allowed (the
    formula is applied as is, as PyTorch does).
    """

    __slots__ = ()
    schema_v1 = _schema("polar", arity=2)
    saves_input = True

    @staticmethod
    def dispatch(be, r, t):
        return be.make_complex(r * be.cos(t), r * be.sin(t))

    def grad(self, F, g, r, t, out):
        gu = g * F.make_complex(F.cos(t), -F.sin(t))
        return gu.real, gu.imag * r


@register
class ComplexBackward(BinaryOp):
    r"""Autograd node for :math:`z = x + iy` from its real and imaginary parts.

    Saves nothing: the gradients are the parts of the incoming gradient.

    Math
    ----
    .. math:: \frac{\partial L}{\partial x} = \operatorname{Re} g, \qquad
        \frac{\partial L}{\partial y} = \operatorname{Im} g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"complex"``, ``AmpPolicy.KEEP_INPUT``, ``complex_grad="custom"``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: a new complex array with its parts assigned (``make_complex``). Inputs:
    float32 (complex64 result) or float64 (complex128), of one dtype, broadcasting.
    Also ``F.make_complex`` of graph-mode gradient formulas.
    """

    __slots__ = ()
    schema_v1 = _schema("complex", arity=2)

    @staticmethod
    def dispatch(be, x, y):
        return be.make_complex(x, y)

    def grad(self, F, g, x, y, out):
        return g.real, g.imag


def polar(abs, angle):
    """The complex tensor :math:`|z| e^{i\\theta}` from magnitudes and angles."""
    abs, angle = to_tensor(abs), to_tensor(angle)
    _need_float_pair("polar", abs, angle)
    return PolarBackward.apply(abs, angle)


def complex(real, imag):
    """The complex tensor :math:`x + iy` from real and imaginary parts."""
    real, imag = to_tensor(real), to_tensor(imag)
    _need_float_pair("complex", real, imag)
    return ComplexBackward.apply(real, imag)


# == real views ===============================================================================


@register
class ViewAsRealBackward(ViewOp):
    r"""Autograd node for the view of complex :math:`z` (shape :math:`s`) as real pairs
    :math:`(x, y)` (shape :math:`s + (2,)`).

    Saves nothing: the gradient pairs back into complex numbers.

    Math
    ----
    .. math:: \mathrm{grad}_z = g_{\ldots,0} + i\,g_{\ldots,1}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"view_as_real"``, ``AmpPolicy.KEEP_INPUT``, ``complex_grad="custom"``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``ndarray.view`` of the parts' dtype over a trailing size-1 axis: shared
    storage, last stride 1. Only complex input (PyTorch).
    """

    __slots__ = ()
    schema_v1 = _schema("view_as_real")

    @staticmethod
    def dispatch(be, x):
        return be.view_as_real(x)

    def grad(self, F, g, x, out):
        return F.make_complex(g[..., 0], g[..., 1])


@register
class ViewAsComplexBackward(ViewOp):
    r"""Autograd node for the view of real pairs (shape :math:`s + (2,)`) as complex
    numbers (shape :math:`s`).

    Saves nothing: the gradient splits back into pairs.

    Math
    ----
    .. math:: \frac{\partial L}{\partial a_{\ldots,0}} = \operatorname{Re} g, \qquad
        \frac{\partial L}{\partial a_{\ldots,1}} = \operatorname{Im} g

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"view_as_complex"``, ``AmpPolicy.KEEP_INPUT``, ``complex_grad="custom"``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``ndarray.view`` of the complex dtype. The input must be float32 or float64
    with a last dimension of size 2 and stride 1, its other strides and its storage offset
    even (PyTorch's conditions); otherwise a ShapeError.
    """

    __slots__ = ()
    schema_v1 = _schema("view_as_complex")

    @staticmethod
    def dispatch(be, x):
        return be.view_as_complex(x)

    def grad(self, F, g, x, out):
        return F.view_as_real(g)


@tensor_method("view_as_real")
def view_as_real(input):
    """Complex ``input`` viewed as real pairs: shape ``(*input.shape, 2)``."""
    input = to_tensor(input)
    _need_complex("view_as_real", input)
    return ViewAsRealBackward.call(input)


@tensor_method("view_as_complex")
def view_as_complex(input):
    """Real ``input`` of shape ``(..., 2)`` viewed as complex numbers of shape ``(...)``."""
    input = to_tensor(input)
    if input._dtype not in (_dt.float32, _dt.float64):
        raise DTypeError(
            f"view_as_complex: expected a float32 or float64 tensor, got {input._dtype.name}"
        )
    shape, strides = input.shape, input.stride()
    if not shape or shape[-1] != 2:
        raise ShapeError(
            f"view_as_complex: tensor must have a last dimension of size 2, "
            f"got shape {tuple(shape)}"
        )
    if strides[-1] != 1:
        raise ShapeError(
            f"view_as_complex: tensor must have a last dimension with stride "
            f"1, got strides {strides}"
        )
    if any(s % 2 for s in strides[:-1]) or input.storage_offset() % 2:
        raise ShapeError(
            f"view_as_complex: tensor must have a stride divisible by 2 for "
            f"all but the last dimension and an even storage offset, got "
            f"strides {strides}, offset {input.storage_offset()}"
        )
    return ViewAsComplexBackward.call(input)
