"""Shape ops and views: reshape, expand, permute, transpose, ..."""

from __future__ import annotations

import math

from ..errors import ShapeError
from ._bind import tensor_method
from .base import UnaryOp, ViewOp, norm_dim
from .registry import register
from .schema import AmpPolicy, OpSchema

__all__ = ["reshape", "view", "expand", "permute", "transpose"]


def _shape_arg(size):
    """``f(2, 3)`` and ``f((2, 3))`` both give ``(2, 3)``."""
    if len(size) == 1 and not isinstance(size[0], int):
        return tuple(int(s) for s in size[0])
    return tuple(int(s) for s in size)


def infer_shape(shape, numel, op):
    """``shape`` with one ``-1`` resolved so it holds ``numel`` elements."""
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1 or any(s < -1 for s in shape):
        raise ShapeError(f"{op}: invalid shape {tuple(shape)}: only one dimension can be -1")
    known = math.prod(s for s in shape if s != -1)
    if neg:
        if known == 0 or numel % known:
            raise ShapeError(f"{op}: shape {tuple(shape)} is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise ShapeError(f"{op}: shape {tuple(shape)} is invalid for input of size {numel}")
    return shape


@register
class ReshapeBackward(UnaryOp):
    r"""Autograd node for :math:`y = \mathrm{reshape}(x, s)` (a view when strides allow).

    Saves nothing: the gradient is reshaped back to the input's shape.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \mathrm{reshape}(g, \mathrm{shape}(x))

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"reshape"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``ndarray.reshape``; a copy only when the input's strides cannot express the
    new shape. ``reshape`` of a contiguous tensor is routed to :class:`ViewBackward`.
    """

    __slots__ = ()
    schema_v1 = OpSchema("reshape", 1, AmpPolicy.KEEP_INPUT)

    @staticmethod
    def dispatch(be, x, shape):
        return be.reshape(x, shape)

    def grad_formula(self, g):
        return g.reshape(self.in_meta[0][0])

    def grad_formula_impl(self, g, x, out):
        return g.reshape(self.in_meta[0][0])


@register
class ViewBackward(ViewOp):
    r"""Autograd node for :math:`y = \mathrm{view}(x, s)`: a reshape sharing storage.

    Saves nothing: the gradient is reshaped back to the input's shape.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \mathrm{reshape}(g, \mathrm{shape}(x))

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"view"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``ndarray.reshape`` on a tensor whose strides allow it (checked by the
    wrapper: ``view`` of a non-contiguous tensor raises, as in PyTorch).
    """

    __slots__ = ()
    schema_v1 = OpSchema("view", 1, AmpPolicy.KEEP_INPUT)

    @staticmethod
    def dispatch(be, x, shape):
        return be.reshape(x, shape)

    def grad_formula(self, g):
        return g.reshape(self.in_meta[0][0])

    def grad_formula_impl(self, g, x, out):
        return g.reshape(self.in_meta[0][0])


@tensor_method("reshape")
def reshape(input, *shape):
    """``input`` with a new shape (one dim may be -1); a view when possible."""
    shape = infer_shape(_shape_arg(shape), input._data.size, "reshape")
    if shape == input._data.shape:
        return ViewBackward.call(input, shape=shape)
    if input._data.flags.c_contiguous:
        return ViewBackward.call(input, shape=shape)
    return ReshapeBackward.call(input, shape=shape)


@tensor_method("view")
def view(input, *shape):
    """A view of ``input`` with a new shape; the input must be contiguous."""
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)):
        return input.to(shape[0])     # view(dtype) on same-size dtypes is a cast here
    shape = infer_shape(_shape_arg(shape), input._data.size, "view")
    if not input._data.flags.c_contiguous and shape != input._data.shape:
        raise ShapeError(f"view: view size {tuple(shape)} is not compatible with input "
                         f"tensor's size {tuple(input._data.shape)} and stride; use "
                         ".reshape(...) instead")
    return ViewBackward.call(input, shape=shape)


@register
class ExpandBackward(ViewOp):
    r"""Autograd node for :math:`y = \mathrm{expand}(x, s)`: a broadcast view.

    Saves nothing: the gradient is summed over the broadcast axes.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \mathrm{sum\_to}(g, \mathrm{shape}(x))

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"expand"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.broadcast_to`` (stride-0 view, read-only; writing through it raises).
    """

    __slots__ = ()
    schema_v1 = OpSchema("expand", 1, AmpPolicy.KEEP_INPUT)

    @staticmethod
    def dispatch(be, x, shape):
        return be.broadcast_to(x, shape)

    def grad_formula(self, g):
        return self.be.sum_to(g, self.in_meta[0][0])

    def grad_formula_impl(self, g, x, out):
        return g.sum_to_size(self.in_meta[0][0])


@tensor_method("expand")
def expand(input, *size):
    """A view of ``input`` broadcast to ``size`` (-1 keeps a dim)."""
    size = _shape_arg(size)
    nd = input._data.ndim
    if len(size) < nd:
        raise ShapeError(f"expand: the number of sizes provided ({len(size)}) must be greater "
                         f"or equal to the number of dimensions in the tensor ({nd})")
    lead = len(size) - nd
    shape = []
    for i, s in enumerate(size):
        cur = input._data.shape[i - lead] if i >= lead else None
        if s == -1:
            if cur is None:
                raise ShapeError(f"expand: -1 is not allowed in a leading, non-existing "
                                 f"dimension {i}")
            s = cur
        elif cur is not None and cur != 1 and cur != s:
            raise ShapeError(f"expand: the expanded size of the tensor ({s}) must match the "
                             f"existing size ({cur}) at non-singleton dimension {i}. Target "
                             f"sizes: {list(size)}. Tensor sizes: {list(input._data.shape)}")
        shape.append(s)
    shape = tuple(shape)
    if shape == input._data.shape:
        return input
    return ExpandBackward.call(input, shape=shape)


@register
class PermuteBackward(ViewOp):
    r"""Autograd node for :math:`y = x^{\sigma}`: a view with axes reordered by :math:`\sigma`.

    Saves nothing: the gradient is permuted back by :math:`\sigma^{-1}`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g^{\sigma^{-1}}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"permute"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``ndarray.transpose(axes)`` (a strided view, no copy).
    """

    __slots__ = ()
    schema_v1 = OpSchema("permute", 1, AmpPolicy.KEEP_INPUT)

    @staticmethod
    def dispatch(be, x, dims):
        return be.permute(x, dims)

    def _inverse(self):
        dims = self.params["dims"]
        inv = [0] * len(dims)
        for i, d in enumerate(dims):
            inv[d] = i
        return tuple(inv)

    def grad_formula(self, g):
        return self.be.permute(g, self._inverse())

    def grad_formula_impl(self, g, x, out):
        return g.permute(self._inverse())


@tensor_method("permute")
def permute(input, *dims):
    """A view of ``input`` with dims reordered."""
    dims = _shape_arg(dims)
    nd = input._data.ndim
    if len(dims) != nd:
        raise ShapeError(f"permute: number of dims {len(dims)} doesn't match the tensor's "
                         f"number of dims {nd}")
    dims = tuple(norm_dim(d, nd, "permute") for d in dims)
    if len(set(dims)) != nd:
        raise ShapeError(f"permute: repeated dim in {dims}")
    return PermuteBackward.call(input, dims=dims)


@tensor_method("transpose", "swapaxes", "swapdims")
def transpose(input, dim0, dim1):
    """A view of ``input`` with ``dim0`` and ``dim1`` swapped."""
    nd = input._data.ndim
    d0, d1 = norm_dim(dim0, nd, "transpose"), norm_dim(dim1, nd, "transpose")
    dims = list(range(nd))
    dims[d0], dims[d1] = dims[d1], dims[d0]
    return PermuteBackward.call(input, dims=tuple(dims))
