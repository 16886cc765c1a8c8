"""Casts, copies and the internal ops the engine and in-place machinery rely on."""

from __future__ import annotations

import warnings

from ... import dtypes as _dt
from ..._device import device as _device_cls
from ..._tensor import Tensor
from ..._tensor.legacy_types import TYPE_NAMES as _TYPE_NAMES, _LegacyTensorType
from ...errors import ArgumentError, ArgumentTypeError, ShapeError
from ._bind import tensor_method
from .base import BroadcastOp, Op, UnaryOp, broadcast_shapes, to_tensor
from .inplace import apply_inplace
from .registry import register
from .schema import AmpPolicy, OpSchema
from .device import move

__all__ = ["to", "clone", "contiguous", "sum_to_size", "type_as", "copy_"]


@register
class CastBackward(UnaryOp):
    r"""Autograd node of a dtype cast :math:`y = \mathrm{cast}_{T}(x)`.

    Saves nothing: the gradient is the incoming gradient cast back to the input's dtype,
    which the node does for every op.

    Math
    ----
    .. math::

        \frac{\partial \mathcal{L}}{\partial x}
        = \mathrm{cast}_{T_x}\Big(\frac{\partial \mathcal{L}}{\partial y}\Big)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"cast"``, ``AmpPolicy.KEEP_INPUT``, ``complex_grad="custom"`` (the identity).
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``ndarray.astype``. Float to integer truncates toward zero; out-of-range
    integers wrap like C casts; float to bfloat16 rounds to nearest even (ml_dtypes).
    Complex to real keeps the real part with a ``UserWarning`` (PyTorch's); its gradient
    is real, made complex with imaginary part 0, and a real-to-complex cast's gradient
    keeps the real part (the node's cast back to the input dtype).
    """

    __slots__ = ()
    schema_v1 = OpSchema("cast", 1, AmpPolicy.KEEP_INPUT, complex_grad="custom")

    @staticmethod
    def dispatch(be, x, dtype):
        if dtype._cat < 3 and _dt._BY_NP[x.dtype]._cat == 3:
            warnings.warn(
                "cast: casting complex values to real discards the imaginary part",
                UserWarning,
                stacklevel=5,
            )
            x = be.real(x)
        return be.astype(x, dtype.np)

    def grad(self, F, g, x, out):
        return g


@register
class CloneBackward(UnaryOp):
    r"""Autograd node of :math:`y = x` copied into fresh contiguous storage.

    Saves nothing; the gradient passes through unchanged.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \frac{\partial \mathcal{L}}{\partial y}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"clone"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: a C-ordered copy (``xp.array(x, copy=True)``).
    """

    __slots__ = ()
    schema_v1 = OpSchema("clone", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x):
        return be.copy(x)

    def grad(self, F, g, x, out):
        return g


@register
class SumToSizeBackward(UnaryOp):
    r"""Autograd node of :math:`y = \mathrm{sum\_to}(x, s)`: sum over broadcast axes.

    The adjoint of broadcasting, used by every op's graph-mode backward to bring a
    gradient back to its input's shape. Saves nothing (the input shape is in the node).

    Math
    ----
    .. math:: y_i = \sum_{j \mapsto i} x_j, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = \mathrm{broadcast}\Big(
              \frac{\partial \mathcal{L}}{\partial y}, \mathrm{shape}(x)\Big)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"sum_to_size"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``sum(axis=..., keepdims=True)`` then a reshape.
    """

    __slots__ = ()
    schema_v1 = OpSchema("sum_to_size", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, shape):
        return be.sum_to(x, shape)

    def grad(self, F, g, x, out):
        return F.broadcast_to(g, self.in_meta[0][0])


@register
class ViewScatterBackward(Op):
    r"""Autograd node of writing ``src`` into a view of ``base`` in place.

    Recorded when an in-place op changes a view whose base is part of a graph: the base's
    new history is :math:`b' = b` outside the view region and :math:`src` inside it. The
    view is given as the chain of view ops that made it from the base.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial b} = g \odot (1 - M), \qquad
              \frac{\partial \mathcal{L}}{\partial src} = \mathrm{view}(g)

    where :math:`M` is 1 on the view region.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"view_scatter"``, internal.
    saves_input : bool
        True: the base, whose memory layout the mask copies.
    saves_output : bool
        False.

    Notes
    -----
    The forward writes nothing: the in-place op already wrote the base's storage.

    Two backward forms: the formula replays the chain of view ops that made the view, and
    a view op runs on arrays through its ``dispatch`` (eager) but on Tensors through its
    ``apply`` (graph mode, so the replay is recorded); no backend kernel, and so no
    ``graph_ns`` function, replays an op chain. Both forms build the same constant mask.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "view_scatter",
        1,
        AmpPolicy.KEEP_INPUT,
        input_arity=2,
        internal=True,
        complex_grad="holomorphic",
    )
    saves_input = True  # the base, for its memory layout (its values are never read)

    @staticmethod
    def dispatch(be, base, src, chain):
        return base

    def _view_of(self, a):
        for cls, params in self.params["chain"]:
            a = cls.dispatch(self.be, a, **params)
        return a

    def _outside_mask(self):
        m = self.be.ones_like(self.saved[0]._data)  # the base's memory layout, so view
        self.be.assign(self._view_of(m), 0)  # replays stay views of the mask
        return m

    def grad_formula(self, g):
        return g * self._outside_mask(), self._view_of(g)

    def grad_formula_impl(self, g, base, src, out):
        mask = Tensor._wrap(self._outside_mask(), g._dtype, g._device)
        v = g
        for cls, params in self.params["chain"]:
            v = cls.apply(v, **params)
        return g * mask, v


@tensor_method("to")
def to(self, *args, dtype=None, device=None, copy=False, non_blocking=False):
    """``self`` cast to a dtype and/or moved to a device: ``to(dtype)``, ``to(device)``,
    ``to(other_tensor)``, ``to(device, dtype)``; returns ``self`` when nothing changes."""
    for a in args:
        if isinstance(a, Tensor):
            device, dtype = a._device, a._dtype
        elif isinstance(a, (str, _device_cls)) and not (
            isinstance(a, str) and a.removeprefix("lucid.") in _dt._BY_NAME
        ):
            device = a
        else:
            dtype = a
    dt = _dt.as_dtype(dtype) if dtype is not None else self._dtype
    dev = _device_cls(device) if device is not None else self._device
    if dev is not self._device:
        out = move(self, dev, non_blocking)
        return out.to(dt) if dt is not self._dtype else out
    if dt is self._dtype:
        return clone(self) if copy else self
    return CastBackward.call(self, dtype=dt)


def _dtype_method(dt):
    def method(self):
        return to(self, dt)

    method.__doc__ = f"``self.to({dt!r})``."
    return method


for _name, _dtype in (
    ("float", _dt.float32),
    ("double", _dt.float64),
    ("half", _dt.float16),
    ("bfloat16", _dt.bfloat16),
    ("int", _dt.int32),
    ("long", _dt.int64),
    ("short", _dt.int16),
    ("char", _dt.int8),
    ("byte", _dt.uint8),
    ("bool", _dt.bool),
):
    setattr(Tensor, _name, _dtype_method(_dtype))


_BY_TYPE_NAME = {v: k for k, v in _TYPE_NAMES.items()}


def _parse_type_name(name):
    """``(device type, dtype)`` of ``"lucid.FloatTensor"`` / ``"lucid.cuda.IntTensor"``
    (``torch.`` spellings too: programs are written for PyTorch)."""
    parts = name.split(".")
    if (
        len(parts) in (2, 3)
        and parts[0] in ("lucid", "torch")
        and (len(parts) == 2 or parts[1] == "cuda")
        and parts[-1] in _BY_TYPE_NAME
    ):
        return ("cuda" if len(parts) == 3 else "cpu"), _BY_TYPE_NAME[parts[-1]]
    raise ArgumentError(
        f"type: invalid type {name!r}; expected a dtype or a tensor type "
        "name such as 'lucid.FloatTensor' or 'lucid.cuda.LongTensor'"
    )


@tensor_method("type")
def type_(self, dtype=None, non_blocking=False):
    """``self``'s tensor type name, as PyTorch's with the ``lucid`` prefix
    (``"lucid.FloatTensor"``, ``"lucid.cuda.LongTensor"``), or ``self`` converted to
    ``dtype``: a dtype, a type name (``"lucid.IntTensor"``, ``"torch.cuda.FloatTensor"``,
    which also picks the device) or a legacy type (``lucid.IntTensor``). Returns ``self``
    when nothing changes."""
    if dtype is None:
        cuda = "cuda." if self._device.type == "cuda" else ""
        return f"lucid.{cuda}{_TYPE_NAMES[self._dtype]}"
    if isinstance(dtype, (str, _LegacyTensorType)):
        dev_type, dt = (
            _parse_type_name(dtype) if isinstance(dtype, str) else (dtype._device_type, dtype.dtype)
        )
        dev = self._device if self._device.type == dev_type else _device_cls(dev_type)
        return to(self, dev, dt, non_blocking=non_blocking)
    if not isinstance(dtype, _dt.dtype):
        raise ArgumentTypeError(
            f"type: expected a dtype or a tensor type name, got {type(dtype).__name__}"
        )
    return to(self, dtype, non_blocking=non_blocking)


@tensor_method("type_as")
def type_as(self, other):
    return to(self, other._dtype)


@tensor_method("clone")
def clone(x, *, memory_format=None):
    """A copy of ``x`` in new contiguous storage, differentiable."""
    return CloneBackward.call(x)


@tensor_method("contiguous")
def contiguous(x, memory_format=None):
    """``x`` itself if C-contiguous, else a contiguous copy."""
    return x if x._device._backend.is_contiguous(x._data) else CloneBackward.call(x)


@tensor_method("sum_to_size")
def sum_to_size(x, *size):
    """``x`` summed over broadcast axes down to ``size`` (which must broadcast to x)."""
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
    if shape == x._data.shape:
        return x
    try:
        ok = broadcast_shapes(shape, x._data.shape) == x._data.shape
    except ShapeError:
        ok = False
    if not ok:
        raise ShapeError(
            f"sum_to_size: size {tuple(shape)} is not expandable to {tuple(x._data.shape)}"
        )
    return SumToSizeBackward.call(x, shape=tuple(shape))


@register
class CopyBackward(BroadcastOp):
    r"""Autograd node of overwriting :math:`x` with :math:`src` (``copy_``, ``fill_`` with
    a tensor): :math:`y = \mathrm{broadcast}(src)`, with an edge to the old :math:`x` too,
    so the written tensor keeps requiring grad, as in PyTorch.

    Saves nothing.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = 0, \qquad
              \frac{\partial \mathcal{L}}{\partial src} = \mathrm{sum\_to}(g,
              \mathrm{shape}(src))

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"copy"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``broadcast_copy`` of ``src`` (already in ``x``'s dtype and device) to
    ``x``'s shape.
    """

    __slots__ = ()
    schema_v1 = OpSchema("copy", 1, AmpPolicy.KEEP_INPUT, input_arity=2, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, src):
        return be.broadcast_copy(src, x.shape)

    def grad(self, F, g, x, src, out):
        return F.zeros_like(g), g


def _copy_value(x, src):
    src = to_tensor(src, x)
    if src._device is not x._device:
        src = src.to(x._device)
    if src._dtype is not x._dtype:
        src = src.to(x._dtype)
    shape = x._data.shape
    if src._data.shape != shape and broadcast_shapes(src._data.shape, shape, op="copy_") != shape:
        raise ShapeError(
            f"copy_: the source of shape {tuple(src._data.shape)} cannot be "
            f"broadcast to the destination's shape {tuple(shape)}"
        )
    return CopyBackward.apply(x, src)


_copy_value.__name__ = "copy"


@tensor_method("copy_")
def copy_(x, src, non_blocking=False):
    """Copy ``src`` (broadcast, cast) into ``x`` in place; gradients flow to ``src``."""
    return apply_inplace(_copy_value, x, src)
