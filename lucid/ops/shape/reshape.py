"""Reshapes and broadcasts: ``reshape``, ``view`` (also as another dtype), ``flatten``,
``unflatten``, ``ravel``, ``squeeze``, ``unsqueeze`` (and in place), ``expand``,
``broadcast_to``, ``broadcast_tensors`` and ``broadcast_shapes``.

A reshape is a view (:class:`ViewBackward`: storage and version counter shared with the
input) wherever the input's strides can express the new shape, else a copy
(:class:`ReshapeBackward`); ``view`` refuses the copy, as in PyTorch. Both gradients are
reshaped back. ``expand`` is a stride-0 view whose gradient sums over the broadcast axes.
A shape may hold one ``-1``. Like every shape op, these take complex tensors
(holomorphic: the gradient is moved back unchanged).
"""

from __future__ import annotations

import math
import numbers

from ... import dtypes as _dt
from ...errors import DimError, ShapeError
from ..core._bind import tensor_method
from ..core.base import UnaryOp, ViewOp, norm_dim, norm_dims
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ._common import _restride_, _shape_arg
from ..._tensor.tensor import Size

__all__ = [
    "reshape",
    "view",
    "flatten",
    "unflatten",
    "ravel",
    "squeeze",
    "unsqueeze",
    "expand",
    "expand_as",
    "broadcast_to",
    "broadcast_tensors",
    "broadcast_shapes",
]


def infer_shape(shape, numel, op):
    """``shape`` with one ``-1`` resolved so it holds ``numel`` elements."""
    known, neg = 1, -1
    for i, s in enumerate(shape):
        if s >= 0:
            known *= s
        elif s == -1 and neg < 0:
            neg = i
        else:
            raise ShapeError(
                f"{op}: invalid shape {tuple(shape)}: only one dimension can be "
                "-1 and no size can be negative"
            )
    if neg >= 0:
        if known == 0 or numel % known:
            raise ShapeError(f"{op}: shape {tuple(shape)} is invalid for input of size {numel}")
        return shape[:neg] + (numel // known,) + shape[neg + 1 :]
    if known != numel:
        raise ShapeError(f"{op}: shape {tuple(shape)} is invalid for input of size {numel}")
    return shape


def _viewable(x, shape):
    """Whether ``x`` can be seen with ``shape`` (resolved) without a copy: any shape of
    contiguous data can; otherwise the backend tries the reshape."""
    a = x._data
    be = x._device._backend
    return shape == a.shape or be.is_contiguous(a) or be.reshape_view(a, shape) is not None


def _view_as(x, shape):
    """``x`` reshaped to ``shape`` (already resolved): a view when the strides allow it."""
    if _viewable(x, shape):
        return ViewBackward.call(x, shape=shape)
    return ReshapeBackward.call(x, shape=shape)


# -- reshape and view -------------------------------------------------------------------


@register
class ReshapeBackward(UnaryOp):
    r"""Autograd node for :math:`y = \mathrm{reshape}(x, s)` when it needs a copy.

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
    Backends: ``ndarray.reshape`` (a copy). Only reached when the input's strides cannot
    express the new shape; otherwise ``reshape``, ``flatten``, ``ravel`` route to the view
    :class:`ViewBackward`.
    """

    __slots__ = ()
    schema_v1 = OpSchema("reshape", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, shape):
        return be.reshape(x, shape)

    def grad(self, F, g, x, out):
        return F.reshape(g, self.in_meta[0][0])


@register
class ViewBackward(ViewOp):
    r"""Autograd node for :math:`y = \mathrm{view}(x, s)`: a reshape sharing storage.

    Saves nothing: the gradient is reshaped back to the input's shape. Also the node of
    ``squeeze``, ``unsqueeze``, ``flatten``, ``unflatten`` and ``ravel`` (reshapes all).

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
    Backends: ``ndarray.reshape`` on an input whose strides allow it (checked by the
    wrappers; ``view`` of an incompatible tensor raises, as in PyTorch). Inserting or
    removing size-1 dims is always a view.
    """

    __slots__ = ()
    schema_v1 = OpSchema("view", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, shape):
        return be.reshape(x, shape)

    def grad(self, F, g, x, out):
        return F.reshape(g, self.in_meta[0][0])


@tensor_method("reshape")
def reshape(input, *args, shape=None):
    """``input`` with a new shape (one dim may be -1); a view when the strides allow."""
    shape = args if shape is None else (shape,)
    return _view_as(input, infer_shape(_shape_arg(shape, "reshape"), input._data.size, "reshape"))


@tensor_method("view")
def view(input, *shape):
    """A view of ``input`` with a new shape; raises when the strides cannot express it."""
    if (
        len(shape) == 1
        and shape[0].__class__ is not int
        and not isinstance(shape[0], (numbers.Integral, tuple, list))
    ):
        return _view_dtype(input, _dt.as_dtype(shape[0]))
    shape = infer_shape(_shape_arg(shape, "view"), input._data.size, "view")
    if not _viewable(input, shape):
        raise ShapeError(
            f"view: view size {tuple(shape)} is not compatible with input "
            f"tensor's size {tuple(input._data.shape)} and stride; use "
            ".reshape(...) instead"
        )
    return ViewBackward.call(input, shape=shape)


@register
class ViewDtypeBackward(ViewOp):
    r"""Node of :math:`y = x` reinterpreted as another dtype: the same bytes, read as
    elements of ``dtype`` (a view; not differentiable, as in PyTorch).

    Math
    ----
    No gradient: the map between the two dtypes' values is not a smooth function.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"view_dtype"``, ``AmpPolicy.KEEP_INPUT``, not differentiable; complex tensors
        reinterpret too (``complex64`` as pairs of ``float32``).
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``ndarray.view(dtype)``. With a different element size the last dim must
    have stride 1; it grows by the size ratio (to a smaller dtype) or must be divisible by
    it (to a larger one), and the other strides and the storage offset must be divisible
    too, PyTorch's rules. Writes through the view reach the input's storage.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "view_dtype", 1, AmpPolicy.KEEP_INPUT, differentiable=False, complex_grad="custom"
    )

    @staticmethod
    def dispatch(be, x, dtype):
        return be.view_dtype(x, dtype.np)


def _view_dtype(input, dt):
    """``input.view(dtype)``: check PyTorch's layout rules, then reinterpret."""
    old, new = input._dtype.itemsize, dt.itemsize
    if old != new:
        shape, strides = input._data.shape, input.stride()
        where = f"view: to view {input._dtype} as {dt} (element size {old} to {new})"
        if not shape:
            raise ShapeError(
                f"{where}, a 0-d tensor cannot be viewed with a different element size"
            )
        if strides[-1] != 1:
            raise ShapeError(f"{where}, the last dimension must have stride 1, got {strides[-1]}")
        if new > old:
            ratio = new // old
            if (
                shape[-1] % ratio
                or input.storage_offset() % ratio
                or any(st % ratio for st in strides[:-1])
            ):
                raise ShapeError(
                    f"{where}, the size of the last dimension ({shape[-1]}), "
                    "the storage offset and every other stride must be "
                    f"divisible by {ratio}"
                )
    return ViewDtypeBackward.call(input, dtype=dt)


@tensor_method("view_as")
def view_as(input, other):
    """``input.view(other.shape)``."""
    return view(input, other._data.shape)


@tensor_method("reshape_as")
def reshape_as(input, other):
    """``input.reshape(other.shape)``."""
    return reshape(input, other._data.shape)


@tensor_method("flatten")
def flatten(input, start_dim=0, end_dim=-1):
    """Dims ``start_dim..end_dim`` merged into one (a view when the strides allow)."""
    shape = input._data.shape
    nd = len(shape)
    s, e = norm_dim(start_dim, nd, "flatten"), norm_dim(end_dim, nd, "flatten")
    if s > e:
        raise DimError(f"flatten: start_dim ({start_dim}) cannot come after end_dim ({end_dim})")
    if nd == 0:
        return ViewBackward.call(input, shape=(1,))
    if s == e:
        return input
    return _view_as(input, shape[:s] + (math.prod(shape[s : e + 1]),) + shape[e + 1 :])


@tensor_method("unflatten")
def unflatten(input, dim, sizes):
    """Dim ``dim`` split into ``sizes`` (one may be -1); a view."""
    shape = input._data.shape
    if not shape:
        raise DimError("unflatten: dimension specified as 0 but tensor has no dimensions")
    d = norm_dim(dim, len(shape), "unflatten")
    sizes = _shape_arg((sizes,), "unflatten")
    if not sizes:
        raise ShapeError("unflatten: sizes must be non-empty")
    n = shape[d] if shape else 1
    try:
        sizes = infer_shape(sizes, n, "unflatten")
    except ShapeError:
        raise ShapeError(
            f"unflatten: provided sizes {list(sizes)} don't multiply up to the "
            f"size of dim {dim} ({n}) in the input tensor"
        ) from None
    return _view_as(input, shape[:d] + sizes + shape[d + 1 :])


@tensor_method("ravel")
def ravel(input):
    """``input`` flattened to 1-d (a view when the strides allow, else a copy)."""
    return _view_as(input, (input._data.size,))


@tensor_method("squeeze")
def squeeze(input, dim=None):
    """A view of ``input`` without its size-1 dims (only those in ``dim`` when given)."""
    shape = input._data.shape
    dims = norm_dims(dim, len(shape), "squeeze")
    new = tuple(n for i, n in enumerate(shape) if n != 1 or i not in dims)
    return ViewBackward.call(input, shape=new)


@tensor_method("unsqueeze")
def unsqueeze(input, dim):
    """A view of ``input`` with a size-1 dim inserted at ``dim``."""
    shape = input._data.shape
    d = norm_dim(dim, len(shape) + 1, "unsqueeze")
    return ViewBackward.call(input, shape=shape[:d] + (1,) + shape[d:])


# -- in-place view ops: the tensor itself takes the view's shape and strides --------------


@tensor_method("squeeze_")
def squeeze_(input, dim=None):
    """``squeeze`` in place: ``input`` loses its size-1 dims."""
    return _restride_("squeeze_", input, squeeze(input, dim))


@tensor_method("unsqueeze_")
def unsqueeze_(input, dim):
    """``unsqueeze`` in place: ``input`` gains a size-1 dim at ``dim``."""
    return _restride_("unsqueeze_", input, unsqueeze(input, dim))


# -- expand -----------------------------------------------------------------------------


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
    Backends: a stride-0 view (``as_strided``); writing in place through a dim that was
    expanded (several elements, one memory location) raises, as in PyTorch, while writing
    through a dim that kept its size is allowed.
    Also the node of ``expand_as``, ``broadcast_to`` and ``broadcast_tensors``.
    """

    __slots__ = ()
    schema_v1 = OpSchema("expand", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, shape):
        return be.expand(x, shape)

    def grad(self, F, g, x, out):
        return F.sum_to(g, self.in_meta[0][0])


@tensor_method("expand")
def expand(input, *args, size=None):
    """A view of ``input`` broadcast to ``size`` (-1 keeps a dim)."""
    size = _shape_arg(args if size is None else (size,), "expand")
    nd = input._data.ndim
    if len(size) < nd:
        raise ShapeError(
            f"expand: the number of sizes provided ({len(size)}) must be greater "
            f"or equal to the number of dimensions in the tensor ({nd})"
        )
    lead = len(size) - nd
    shape = []
    for i, s in enumerate(size):
        cur = input._data.shape[i - lead] if i >= lead else None
        if s == -1:
            if cur is None:
                raise ShapeError(
                    f"expand: -1 is not allowed in a leading, non-existing dimension {i}"
                )
            s = cur
        elif s < 0:
            raise ShapeError(f"expand: the expanded size {s} at dimension {i} is negative")
        elif cur is not None and cur != 1 and cur != s:
            raise ShapeError(
                f"expand: the expanded size of the tensor ({s}) must match the "
                f"existing size ({cur}) at non-singleton dimension {i}. Target "
                f"sizes: {list(size)}. Tensor sizes: {list(input._data.shape)}"
            )
        shape.append(s)
    return ExpandBackward.call(input, shape=tuple(shape))


@tensor_method("expand_as")
def expand_as(input, other):
    """``input`` expanded to ``other``'s shape (a view)."""
    return expand(input, other._data.shape)


@tensor_method("broadcast_to")
def broadcast_to(input, size):
    """``input`` broadcast to ``size`` (a view; -1 keeps a dim)."""
    return expand(input, size)


def broadcast_shapes(*shapes):
    """The shape that all ``shapes`` (ints or sequences) broadcast to, as a ``Size``."""
    shapes = [(s,) if isinstance(s, numbers.Integral) else tuple(s) for s in shapes]
    out = [1] * max((len(s) for s in shapes), default=0)
    for s in shapes:
        for i, n in enumerate(s, len(out) - len(s)):
            if n < 0:
                raise ShapeError(f"broadcast_shapes: shape {s} has a negative size")
            if n != 1:
                if out[i] != 1 and out[i] != n:
                    raise ShapeError(
                        "broadcast_shapes: shapes "
                        f"{', '.join(str(x) for x in shapes)} cannot be "
                        f"broadcast to a single shape (size {out[i]} vs {n} at "
                        f"dim {i})"
                    )
                out[i] = n
    return Size(out)


def broadcast_tensors(*tensors):
    """The tensors expanded to their common broadcast shape (views)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = broadcast_shapes(*(t._data.shape for t in tensors))
    return tuple(expand(t, shape) for t in tensors)
