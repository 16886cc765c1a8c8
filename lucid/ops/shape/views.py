"""Views that pick elements of their input: ``narrow``, ``select``, ``diagonal``,
``as_strided``, ``unfold`` (sliding windows), and ``empty_strided``.

A view (:class:`~lucid.ops.core.base.ViewOp`) shares storage and version counter with its
input; its params are exactly the dispatch params, so ``cls.apply(base, **params)``
replays it (in-place writes through a view rebase the base with that chain). The views of
distinct elements share one backward, :class:`_SelectViewBackward` (also the base of
indexing's ``SliceBackward``): zeros with the incoming gradient written through the same
view. ``unfold`` and ``as_strided`` may alias one element several times; their gradients
add the aliases up. Complex tensors take every view (holomorphic).
"""

from __future__ import annotations

import builtins

from ... import dtypes as _dt
from ..._device import device as _device_cls, get_default_device
from ..._tensor import Tensor
from ...errors import DimError, IndexingError, ShapeError
from ..core._bind import install, tensor_method
from ..core._formula import const
from ..core.base import UnaryOp, ViewOp, norm_dim
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ._common import _int, _shape_arg
from .reshape import ViewBackward

__all__ = ["narrow", "select", "diagonal", "as_strided", "empty_strided"]


# -- views selecting elements ------------------------------------------------------------


class _SelectViewBackward(ViewOp):
    """A view picking distinct input elements: its gradient is zeros of the input's shape
    (a constant) with the incoming gradient written through the same view; in graph mode
    that write is a recorded in-place copy into a view of the zeros, so the second
    derivative reads the view again."""

    __slots__ = ()

    def grad(self, F, g, x, out):
        shape, dt = self.in_meta[0]
        z = const(self.be.full(shape, 0, dt.np), g)
        F.assign(self.dispatch(F, z, **self.params), g)
        return z


@register
class NarrowBackward(_SelectViewBackward):
    r"""Autograd node for :math:`y = x_{\ldots, s:s+l, \ldots}` along one dim (a view).

    Saves nothing: the gradient is the incoming one placed in zeros at the same slice.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_{\ldots, i, \ldots}} =
              \begin{cases} g_{\ldots, i - s, \ldots} & s \le i < s + l \\
              0 & \text{otherwise} \end{cases}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"narrow"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: basic slicing (a strided view). Also the view each output of ``split``,
    ``chunk`` and ``tensor_split`` records for in-place replay.
    """

    __slots__ = ()
    schema_v1 = OpSchema("narrow", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, dim, start, length):
        return be.narrow(x, dim, start, length)


@tensor_method("narrow")
def narrow(input, dim, start, length):
    """The view of ``length`` elements of ``input`` from ``start`` along ``dim``."""
    shape = input._data.shape
    if not shape:
        raise DimError("narrow: cannot be applied to a 0-dim tensor")
    d = norm_dim(dim, len(shape), "narrow")
    n = shape[d]
    start, length = _int(start, "start", "narrow"), _int(length, "length", "narrow")
    if not -n <= start <= n:
        raise DimError(
            f"narrow: start out of range (expected to be in range of [{-n}, {n}], but got {start})"
        )
    if start < 0:
        start += n
    if length < 0:
        raise ShapeError(f"narrow: length must be non-negative, got {length}")
    if start + length > n:
        raise ShapeError(
            f"narrow: start ({start}) + length ({length}) exceeds dimension size ({n})"
        )
    return NarrowBackward.call(input, dim=d, start=start, length=length)


@register
class SelectBackward(_SelectViewBackward):
    r"""Autograd node for :math:`y = x_{\ldots, i, \ldots}` along one dim (a view, the dim
    removed).

    Saves nothing: the gradient is the incoming one written into zeros at index :math:`i`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_{\ldots, j, \ldots}} =
              \begin{cases} g & j = i \\ 0 & \text{otherwise} \end{cases}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"select"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: basic indexing with an int (a strided view; 0-d for a 1-d input, never a
    copied scalar). Also the view each output of ``unbind`` (and iteration) records, so
    writes through it reach the input.
    """

    __slots__ = ()
    schema_v1 = OpSchema("select", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, dim, index):
        return be.select(x, dim, index)


@tensor_method("select")
def select(input, dim, index):
    """The view ``input[..., index, ...]`` with ``dim`` removed."""
    shape = input._data.shape
    if not shape:
        raise DimError("select: cannot be applied to a 0-dim tensor")
    d = norm_dim(dim, len(shape), "select")
    index = _int(index, "index", "select")
    n = shape[d]
    if not -n <= index < n:
        raise IndexingError(
            f"select: index {index} out of range for tensor of size {tuple(shape)} at dimension {d}"
        )
    return SelectBackward.call(input, dim=d, index=index % n)


@register
class AsStridedBackward(ViewOp):
    r"""Autograd node for :math:`y = \mathrm{as\_strided}(x, \text{size}, \text{stride},
    \text{offset})`: a view of :math:`x`'s storage with any layout, elements repeated or
    skipped.

    Keeps, from the forward, the storage position of every output and input element
    (``saves_extra``): the gradient adds each output gradient at its storage position,
    then reads the input's positions back.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_i} =
              \sum_{j : \pi_y(j) = \pi_x(i)} g_j

    with :math:`\pi` the storage position of an element.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"as_strided"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False; ``saves_extra``: ``out_pos``, ``in_pos``.

    Notes
    -----
    Backends: ``as_strided`` on the storage (NumPy/CuPy ``stride_tricks``). The wrapper
    checks that every element lies inside the storage. Writing in place to a result whose
    elements overlap is refused, as for an expanded view.
    """

    __slots__ = ()
    schema_v1 = OpSchema("as_strided", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")
    saves_extra = ("out_pos", "in_pos")

    @staticmethod
    def dispatch(be, x, size, stride, offset, in_stride, in_offset, storage):
        pos = be.arange(0, 1, storage, _dt.int64.np)
        return (
            be.as_strided(x, size, stride, offset),
            be.as_strided(pos, size, stride, offset).reshape(-1),
            be.as_strided(pos, x.shape, in_stride, in_offset),
        )

    def grad(self, F, g, x, out):
        e = self.extra
        s = F.index_add_along(g.reshape(-1), e["out_pos"], 0, self.params["storage"])
        return F.index(s, (e["in_pos"],))


@tensor_method("as_strided")
def as_strided(input, size, stride, storage_offset=None):
    """The view of ``input``'s storage with ``size``, ``stride`` and ``storage_offset``
    (default: ``input``'s own offset)."""
    size = _shape_arg((size,), "as_strided")
    stride = tuple(_int(s, "stride", "as_strided") for s in stride)
    if len(stride) != len(size):
        raise ShapeError(
            f"as_strided: mismatch in length of strides and shape ({len(stride)} "
            f"strides, {len(size)} sizes)"
        )
    if any(s < 0 for s in stride):
        raise ShapeError(f"as_strided: negative strides are not supported, got {stride}")
    be = input._device._backend
    offset = (
        input.storage_offset()
        if storage_offset is None
        else _int(storage_offset, "storage_offset", "as_strided")
    )
    n = be.storage_size(input._data)
    last = (
        offset + builtins.sum((k - 1) * s for k, s in zip(size, stride))
        if all(size)
        else offset - 1
    )
    if offset < 0 or last >= n:
        raise ShapeError(
            f"as_strided: size {list(size)}, stride {list(stride)} and storage "
            f"offset {offset} are out of bounds for a storage of {n} elements"
        )
    return AsStridedBackward.call(
        input,
        size=size,
        stride=stride,
        offset=offset,
        in_stride=input.stride(),
        in_offset=input.storage_offset(),
        storage=n,
    )


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor with ``size`` and ``stride`` over storage just large enough
    to hold it."""
    size = _shape_arg((size,), "empty_strided")
    stride = tuple(_int(s, "stride", "empty_strided") for s in stride)
    if len(stride) != len(size):
        raise ShapeError(
            f"empty_strided: mismatch in length of strides and shape "
            f"({len(stride)} strides, {len(size)} sizes)"
        )
    n = 1 + builtins.sum((k - 1) * s for k, s in zip(size, stride)) if all(size) else 0
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    dev = _device_cls(device) if device is not None else get_default_device()
    be = dev.backend
    out = Tensor._wrap(be.as_strided(be.empty((n,), dt.np), size, stride, 0), dt, dev)
    return out.requires_grad_() if requires_grad else out


@register
class DiagonalBackward(_SelectViewBackward):
    r"""Autograd node for :math:`y_{\ldots, i} = x_{\ldots, i, i + k}` over two dims (a view).

    Saves nothing: the gradient is the incoming one written onto the same diagonal of
    zeros.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_{\ldots, i, j}} =
              \begin{cases} g_{\ldots, \min(i, j)} & j - i = k \\ 0 & \text{otherwise}
              \end{cases}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"diagonal"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``as_strided`` with stride ``stride(dim1) + stride(dim2)`` (a writable view,
    unlike ``numpy.diagonal``). An offset beyond the matrix gives an empty diagonal.
    """

    __slots__ = ()
    schema_v1 = OpSchema("diagonal", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, offset, dim1, dim2):
        return be.diagonal(x, offset, dim1, dim2)


@tensor_method("diagonal")
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The view of the ``offset`` diagonal over ``dim1``, ``dim2`` (appended as last dim)."""
    nd = input._data.ndim
    d1, d2 = norm_dim(dim1, nd, "diagonal"), norm_dim(dim2, nd, "diagonal")
    if d1 == d2:
        raise DimError(f"diagonal: dimensions cannot be identical ({dim1}, {dim2})")
    return DiagonalBackward.call(input, offset=_int(offset, "offset", "diagonal"), dim1=d1, dim2=d2)


# -- unfold ------------------------------------------------------------------------------


@register
class UnfoldBackward(ViewOp):
    r"""Autograd node for :math:`y_{\ldots, w, \ldots, k} = x_{\ldots, w\,s + k, \ldots}`:
    sliding windows of length :math:`n` and step :math:`s` along one dim (a view).

    Saves nothing: the gradient sums each window's gradient back where it was read
    (overlapping windows add up).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_{\ldots, j, \ldots}} =
              \sum_{w, k:\; w s + k = j} g_{\ldots, w, \ldots, k}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"unfold"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``as_strided`` (window stride ``s * stride(dim)``, in-window stride
    ``stride(dim)``). With overlapping windows several output elements alias one input
    element. The backward is the internal op ``unfold_backward``.
    """

    __slots__ = ()
    schema_v1 = OpSchema("unfold", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, dim, size, step):
        return be.unfold(x, dim, size, step)

    def grad(self, F, g, x, out):
        return F.unfold_backward(g, self.in_meta[0][0], **self.params)


@register
class UnfoldGradBackward(UnaryOp):
    r"""Autograd node of ``unfold``'s backward: window gradients summed into the input.

    Internal (the graph-mode backward of ``unfold``). Saves nothing: it is linear, and its
    own gradient is ``unfold`` of the incoming gradient.

    Math
    ----
    .. math:: y_j = \sum_{w, k:\; w s + k = j} x_{w, k}, \qquad
              \frac{\partial \mathcal{L}}{\partial x_{w, k}} = g_{w s + k}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"unfold_backward"``, ``AmpPolicy.KEEP_INPUT``, internal.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: one strided write when windows are disjoint (``step >= size``), otherwise
    one strided add per in-window offset.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "unfold_backward", 1, AmpPolicy.KEEP_INPUT, internal=True, complex_grad="holomorphic"
    )

    @staticmethod
    def dispatch(be, g, shape, dim, size, step):
        return be.unfold_backward(g, shape, dim, size, step)

    def _unfold_params(self):
        p = self.params
        return {"dim": p["dim"], "size": p["size"], "step": p["step"]}

    def grad(self, F, g, x, out):
        return F.unfold(g, **self._unfold_params())


def _unfold(input, dimension, size, step):
    """The view of all windows of ``size`` elements, ``step`` apart, along ``dimension``
    (a new last dim runs inside each window)."""
    shape = input._data.shape
    d = norm_dim(dimension, len(shape), "unfold")
    size, step = _int(size, "size", "unfold"), _int(step, "step", "unfold")
    n = shape[d] if shape else 1
    if step <= 0:
        raise ShapeError(f"unfold: step is {step} but must be > 0")
    if not 0 <= size <= n:
        raise ShapeError(
            f"unfold: maximum size for tensor at dimension {d} is {n} but size is {size}"
        )
    if not shape:
        y = UnfoldBackward.call(ViewBackward.call(input, shape=(1,)), dim=0, size=size, step=step)
        return ViewBackward.call(y, shape=(size,))
    return UnfoldBackward.call(input, dim=d, size=size, step=step)


install(unfold=_unfold)
