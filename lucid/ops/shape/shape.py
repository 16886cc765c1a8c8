"""Shape ops and views: reshape, view, squeeze, permute, narrow, diagonal, unfold, flip,
roll, repeat, pad, ...

View ops (:class:`~lucid.ops.core.base.ViewOp`) share storage and version counter with their
input; their params are exactly the dispatch params, so ``cls.apply(base, **params)``
replays the view (in-place writes through a view rebase the base with that chain).
Ops made of other views (``squeeze``, ``movedim``, ``t``, ``broadcast_to``, ...) call the
view classes here rather than registering twins.

Every shape op and view takes complex tensors (holomorphic: the gradient is moved back
unchanged); ``mH``, ``H`` and ``adjoint`` conjugate (into new memory: Lucid has no lazy
conjugate bit).
"""

from __future__ import annotations

import builtins
import math
import numbers
import operator

from ... import dtypes as _dt
from ..._device import device as _device_cls, get_default_device
from ..._state import STATE
from ..._tensor import Tensor
from ...errors import (ArgumentError, AutogradError, DimError, DTypeError, IndexingError,
                      ShapeError, reports_as)
from ..core._bind import tensor_method
from ..core._formula import const
from ..core.base import UnaryOp, ViewOp, norm_dim, norm_dims, to_tensor
from ..elementwise.complex import conj as _conj
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = ["select", "as_strided", "empty_strided", "reshape", "view", "expand", "permute", "transpose", "swapaxes", "swapdims",
           "flatten", "unflatten", "ravel", "squeeze", "unsqueeze", "movedim", "moveaxis",
           "t", "adjoint", "expand_as", "broadcast_to", "broadcast_tensors", "broadcast_shapes",
           "narrow", "diagonal", "flip", "fliplr", "flipud", "roll", "rot90", "tile",
           "repeat_interleave", "pad"]


def _shape_arg(size, op="shape"):
    """``f(2, 3)`` and ``f((2, 3))`` both give ``(2, 3)``."""
    if len(size) == 1 and size[0].__class__ is not int and \
            not isinstance(size[0], numbers.Integral):
        size = size[0]
    try:
        return tuple(map(operator.index, size))
    except TypeError:
        raise DTypeError(f"{op}: expected a sequence of ints, got {size!r}") from None


def _int(v, what, op):
    """``v`` as an int (ints, integer scalars, one-element integer tensors), else DTypeError."""
    try:
        return operator.index(v)
    except TypeError:
        raise DTypeError(f"{op}: {what} must be an int, got {type(v).__name__}") from None


def infer_shape(shape, numel, op):
    """``shape`` with one ``-1`` resolved so it holds ``numel`` elements."""
    known, neg = 1, -1
    for i, s in enumerate(shape):
        if s >= 0:
            known *= s
        elif s == -1 and neg < 0:
            neg = i
        else:
            raise ShapeError(f"{op}: invalid shape {tuple(shape)}: only one dimension can be "
                             "-1 and no size can be negative")
    if neg >= 0:
        if known == 0 or numel % known:
            raise ShapeError(f"{op}: shape {tuple(shape)} is invalid for input of size {numel}")
        return shape[:neg] + (numel // known,) + shape[neg + 1:]
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
    return _view_as(input, infer_shape(_shape_arg(shape, "reshape"), input._data.size,
                                       "reshape"))


@tensor_method("view")
def view(input, *shape):
    """A view of ``input`` with a new shape; raises when the strides cannot express it."""
    if len(shape) == 1 and shape[0].__class__ is not int and \
            not isinstance(shape[0], (numbers.Integral, tuple, list)):
        return _view_dtype(input, _dt.as_dtype(shape[0]))
    shape = infer_shape(_shape_arg(shape, "view"), input._data.size, "view")
    if not _viewable(input, shape):
        raise ShapeError(f"view: view size {tuple(shape)} is not compatible with input "
                         f"tensor's size {tuple(input._data.shape)} and stride; use "
                         ".reshape(...) instead")
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
    schema_v1 = OpSchema("view_dtype", 1, AmpPolicy.KEEP_INPUT, differentiable=False,
                         complex_grad="custom")

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
            raise ShapeError(f"{where}, a 0-d tensor cannot be viewed with a different "
                             "element size")
        if strides[-1] != 1:
            raise ShapeError(f"{where}, the last dimension must have stride 1, got "
                             f"{strides[-1]}")
        if new > old:
            ratio = new // old
            if shape[-1] % ratio or input.storage_offset() % ratio or \
                    any(st % ratio for st in strides[:-1]):
                raise ShapeError(f"{where}, the size of the last dimension ({shape[-1]}), "
                                 "the storage offset and every other stride must be "
                                 f"divisible by {ratio}")
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
        raise DimError(f"flatten: start_dim ({start_dim}) cannot come after end_dim "
                       f"({end_dim})")
    if nd == 0:
        return ViewBackward.call(input, shape=(1,))
    if s == e:
        return input
    return _view_as(input, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])


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
        raise ShapeError(f"unflatten: provided sizes {list(sizes)} don't multiply up to the "
                         f"size of dim {dim} ({n}) in the input tensor") from None
    return _view_as(input, shape[:d] + sizes + shape[d + 1:])


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

def _restride_(name, x, view):
    """Make ``x`` itself the view ``view`` of it, as PyTorch's ``squeeze_``, ``t_``, ...:
    the same storage with new shape and strides, and ``view``'s history.

    The values do not change, so the version counter is not bumped (PyTorch bumps it):
    nodes that saved ``x`` stay valid, and views taken from ``x`` before keep replaying
    against an unchanged base.
    """
    if STATE.grad_enabled and x._requires_grad and x._grad_fn is None:
        raise AutogradError(f"{name}: a leaf Variable that requires grad is being used in an "
                            "in-place operation.")
    x._data = view._data
    if x._base is not None:          # a view stays a view, one step further down its chain
        x._meta = view._meta
        x._view_v = view._view_v
    x._grad_fn = view._grad_fn
    x._output_nr = view._output_nr
    x._requires_grad = view._requires_grad
    return x


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
        elif s < 0:
            raise ShapeError(f"expand: the expanded size {s} at dimension {i} is negative")
        elif cur is not None and cur != 1 and cur != s:
            raise ShapeError(f"expand: the expanded size of the tensor ({s}) must match the "
                             f"existing size ({cur}) at non-singleton dimension {i}. Target "
                             f"sizes: {list(size)}. Tensor sizes: {list(input._data.shape)}")
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
                    raise ShapeError("broadcast_shapes: shapes "
                                     f"{', '.join(str(x) for x in shapes)} cannot be "
                                     f"broadcast to a single shape (size {out[i]} vs {n} at "
                                     f"dim {i})")
                out[i] = n
    from ..._tensor.tensor import Size
    return Size(out)


def broadcast_tensors(*tensors):
    """The tensors expanded to their common broadcast shape (views)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = broadcast_shapes(*(t._data.shape for t in tensors))
    return tuple(expand(t, shape) for t in tensors)


# -- permutations -------------------------------------------------------------------------

@register
class PermuteBackward(ViewOp):
    r"""Autograd node for :math:`y = x^{\sigma}`: a view with axes reordered by :math:`\sigma`.

    Saves nothing: the gradient is permuted back by :math:`\sigma^{-1}`. Also the node of
    ``transpose``, ``movedim``, ``t``, ``T``, ``mT``, ``mH``.

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
    schema_v1 = OpSchema("permute", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, dims):
        return be.permute(x, dims)

    def _inverse(self):
        dims = self.params["dims"]
        inv = [0] * len(dims)
        for i, d in enumerate(dims):
            inv[d] = i
        return tuple(inv)

    def grad(self, F, g, x, out):
        return F.permute(g, self._inverse())


@tensor_method("permute")
def permute(input, *args, dims=None):
    """A view of ``input`` with dims reordered."""
    dims = _shape_arg(args if dims is None else (dims,), "permute")
    nd = input._data.ndim
    if len(dims) != nd:
        raise ShapeError(f"permute: number of dims {len(dims)} doesn't match the tensor's "
                         f"number of dims {nd}")
    dims = tuple(norm_dim(d, nd, "permute") for d in dims)
    if len(set(dims)) != nd:
        raise DimError(f"permute: repeated dim in {dims}")
    return PermuteBackward.call(input, dims=dims)


def _swap(input, d0, d1):
    if input._data.ndim == 0:                  # dims 0 / -1 of a 0-d tensor: itself
        return PermuteBackward.call(input, dims=())
    dims = list(range(input._data.ndim))
    dims[d0], dims[d1] = dims[d1], dims[d0]
    return PermuteBackward.call(input, dims=tuple(dims))


@tensor_method("transpose")
def transpose(input, dim0, dim1):
    """A view of ``input`` with ``dim0`` and ``dim1`` swapped."""
    nd = input._data.ndim
    return _swap(input, norm_dim(dim0, nd, "transpose"), norm_dim(dim1, nd, "transpose"))


# the aliases' errors name the alias the user called
swapaxes = tensor_method("swapaxes")(reports_as("swapaxes")(transpose))
swapdims = tensor_method("swapdims")(reports_as("swapdims")(transpose))


@tensor_method("transpose_", "swapaxes_", "swapdims_")
def transpose_(input, dim0, dim1):
    """``transpose`` in place: ``input``'s dims ``dim0`` and ``dim1`` swap."""
    return _restride_("transpose_", input, transpose(input, dim0, dim1))


@tensor_method("movedim")
def movedim(input, source, destination):
    """A view of ``input`` with dims ``source`` moved to positions ``destination``."""
    nd = input._data.ndim
    src = (source,) if isinstance(source, numbers.Integral) else tuple(source)
    dst = (destination,) if isinstance(destination, numbers.Integral) else tuple(destination)
    if len(src) != len(dst):
        raise ShapeError(f"movedim: source {list(src)} and destination {list(dst)} must "
                         "hold the same number of dims")
    src = tuple(norm_dim(d, nd, "movedim") for d in src)
    dst = tuple(norm_dim(d, nd, "movedim") for d in dst)
    for name, ds in (("source", src), ("destination", dst)):
        if len(set(ds)) != len(ds):
            raise DimError(f"movedim: repeated dim in `{name}` ({list(ds)})")
    if nd == 0:
        return PermuteBackward.call(input, dims=())
    perm = [-1] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(d for d in range(nd) if d not in src)
    perm = tuple(p if p >= 0 else next(rest) for p in perm)
    return PermuteBackward.call(input, dims=perm)


moveaxis = tensor_method("moveaxis")(reports_as("moveaxis")(movedim))


@tensor_method("t")
def t(input):
    """The transpose of a tensor of at most 2 dims (0-d and 1-d: a view of itself)."""
    nd = input._data.ndim
    if nd > 2:
        raise ShapeError(f"t: expects a tensor with <= 2 dimensions, but self is {nd}D")
    return PermuteBackward.call(input, dims=tuple(range(nd))[::-1])


@tensor_method("t_")
def t_(input):
    """``t`` in place."""
    return _restride_("t_", input, t(input))


def _mT(input, op="mT"):
    """The view with the last two dims swapped (batches of matrices; a 0-d tensor is
    itself, as in PyTorch)."""
    nd = input._data.ndim
    if nd == 1:
        raise ShapeError(f"{op}: only supported on matrices or batches of matrices; got a "
                         f"1-D tensor")
    return _swap(input, nd - 2, nd - 1) if nd else PermuteBackward.call(input, dims=())


def _T(input):
    """The view with all dims reversed."""
    return PermuteBackward.call(input, dims=tuple(range(input._data.ndim))[::-1])


def _H(input):
    """The conjugate transpose of a matrix (a copy for complex: no lazy conjugate bit)."""
    if input._data.ndim not in (0, 2):
        raise ShapeError(f"H: only supported on matrices (2-D tensors); got a "
                         f"{input._data.ndim}-D tensor")
    return _conj(_T(input))


def _mH(input, op="mH"):
    """The conjugate transpose of the last two dims (for real tensors the view ``mT``;
    complex ones are conjugated into new memory)."""
    return _conj(_mT(input, op))


@tensor_method("adjoint")
def adjoint(input):
    """``input.mH``: the conjugate transpose of the last two dims."""
    return _mH(input, "adjoint")


Tensor.T = property(_T)
Tensor.mT = property(_mT)
Tensor.mH = property(_mH)
Tensor.H = property(_H)


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
        raise DimError(f"narrow: start out of range (expected to be in range of [{-n}, {n}], "
                       f"but got {start})")
    if start < 0:
        start += n
    if length < 0:
        raise ShapeError(f"narrow: length must be non-negative, got {length}")
    if start + length > n:
        raise ShapeError(f"narrow: start ({start}) + length ({length}) exceeds dimension "
                         f"size ({n})")
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
        raise IndexingError(f"select: index {index} out of range for tensor of size "
                            f"{tuple(shape)} at dimension {d}")
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
        return (be.as_strided(x, size, stride, offset),
                be.as_strided(pos, size, stride, offset).reshape(-1),
                be.as_strided(pos, x.shape, in_stride, in_offset))

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
        raise ShapeError(f"as_strided: mismatch in length of strides and shape ({len(stride)} "
                         f"strides, {len(size)} sizes)")
    if any(s < 0 for s in stride):
        raise ShapeError(f"as_strided: negative strides are not supported, got {stride}")
    be = input._device._backend
    offset = input.storage_offset() if storage_offset is None else \
        _int(storage_offset, "storage_offset", "as_strided")
    n = be.storage_size(input._data)
    last = offset + builtins.sum((k - 1) * s for k, s in zip(size, stride)) \
        if all(size) else offset - 1
    if offset < 0 or last >= n:
        raise ShapeError(f"as_strided: size {list(size)}, stride {list(stride)} and storage "
                         f"offset {offset} are out of bounds for a storage of {n} elements")
    return AsStridedBackward.call(input, size=size, stride=stride, offset=offset,
                                  in_stride=input.stride(), in_offset=input.storage_offset(),
                                  storage=n)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor with ``size`` and ``stride`` over storage just large enough
    to hold it."""
    size = _shape_arg((size,), "empty_strided")
    stride = tuple(_int(s, "stride", "empty_strided") for s in stride)
    if len(stride) != len(size):
        raise ShapeError(f"empty_strided: mismatch in length of strides and shape "
                         f"({len(stride)} strides, {len(size)} sizes)")
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
    schema_v1 = OpSchema("unfold_backward", 1, AmpPolicy.KEEP_INPUT, internal=True,
            complex_grad="holomorphic")

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
        raise ShapeError(f"unfold: maximum size for tensor at dimension {d} is {n} but size "
                         f"is {size}")
    if not shape:
        y = UnfoldBackward.call(ViewBackward.call(input, shape=(1,)), dim=0, size=size,
                                step=step)
        return ViewBackward.call(y, shape=(size,))
    return UnfoldBackward.call(input, dim=d, size=size, step=step)


Tensor.unfold = _unfold


# -- flips and rolls -------------------------------------------------------------------

@register
class FlipBackward(UnaryOp):
    r"""Autograd node for :math:`y_i = x_{n - 1 - i}` along each dim in ``dims``.

    Saves nothing: flipping is its own inverse and adjoint.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \mathrm{flip}(g)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"flip"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.flip`` materialised contiguous (a copy, as in PyTorch: the result never
    aliases the input).
    """

    __slots__ = ()
    schema_v1 = OpSchema("flip", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, dims):
        return be.flip(x, dims)

    def grad(self, F, g, x, out):
        return F.flip(g, self.params["dims"])


@tensor_method("flip")
def flip(input, *args, dims=None):
    """A copy of ``input`` reversed along ``dims``."""
    nd = input._data.ndim
    dims = _shape_arg(args if dims is None else (dims,), "flip")
    return FlipBackward.call(input, dims=norm_dims(dims, nd, "flip") if dims else ())


@tensor_method("fliplr")
def fliplr(input):
    """``input`` reversed along dim 1 (needs at least 2 dims)."""
    if input._data.ndim < 2:
        raise ShapeError(f"fliplr: input must be >= 2-d, got {input._data.ndim}-d")
    return FlipBackward.call(input, dims=(1,))


@tensor_method("flipud")
def flipud(input):
    """``input`` reversed along dim 0 (needs at least 1 dim)."""
    if input._data.ndim < 1:
        raise ShapeError("flipud: input must be >= 1-d, got 0-d")
    return FlipBackward.call(input, dims=(0,))


@register
class RollBackward(UnaryOp):
    r"""Autograd node for :math:`y_{(i + s) \bmod n} = x_i` along each of ``dims``.

    Saves nothing: the gradient is rolled back by :math:`-s`.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_i} = g_{(i + s) \bmod n}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"roll"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.roll`` (a copy); ``dims=None`` rolls the flattened tensor and restores
    its shape. Shifts wrap modulo the dim size; empty dims are left as they are.
    """

    __slots__ = ()
    schema_v1 = OpSchema("roll", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, shifts, dims):
        return be.roll(x, shifts, dims)

    def _back(self):
        p = self.params
        return tuple(-s for s in p["shifts"]), p["dims"]

    def grad(self, F, g, x, out):
        return F.roll(g, *self._back())


@tensor_method("roll")
def roll(input, shifts, dims=None):
    """``input`` rolled by ``shifts`` along ``dims`` (the flattened tensor when None)."""
    shifts = (shifts,) if isinstance(shifts, numbers.Integral) else _shape_arg((shifts,),
                                                                              "roll")
    if not shifts:
        raise ArgumentError("roll: `shifts` required")
    nd = input._data.ndim
    if dims is not None:
        dims = (dims,) if isinstance(dims, numbers.Integral) else tuple(dims)
        if len(shifts) != len(dims):
            raise ShapeError(f"roll: shifts and dimensions must align. shifts: "
                             f"{len(shifts)}, dims: {len(dims)}")
    elif len(shifts) != 1:
        raise ShapeError(f"roll: with dims=None, shifts must be a single int, got {shifts}")
    if input._data.size == 0:                  # nothing to move: a copy, dims unchecked
        return RollBackward.call(input, shifts=(0,), dims=None)
    if dims is None:
        return RollBackward.call(input, shifts=shifts, dims=None)
    if nd == 0:
        raise DimError(f"roll: dimension specified as {dims[0]} but tensor has no "
                       "dimensions")
    dims = tuple(norm_dim(d, nd, "roll") for d in dims)
    return RollBackward.call(input, shifts=shifts, dims=dims)


@tensor_method("rot90")
def rot90(input, k=1, dims=(0, 1)):
    """``input`` rotated by ``k`` quarter turns from ``dims[0]`` towards ``dims[1]``."""
    nd = input._data.ndim
    dims = tuple(dims)
    if len(dims) != 2:
        raise ShapeError(f"rot90: expected total rotation dims == 2, but got dims = "
                         f"{len(dims)}")
    if nd < 2:
        raise ShapeError(f"rot90: expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = norm_dim(dims[0], nd, "rot90"), norm_dim(dims[1], nd, "rot90")
    if d0 == d1:
        raise DimError(f"rot90: expected rotation dims to be different, but got dim0 = "
                       f"{dims[0]} and dim1 = {dims[1]}")
    k = _int(k, "k", "rot90") % 4
    if k == 1:
        return _swap(FlipBackward.call(input, dims=(d1,)), d0, d1)
    if k == 2:
        return FlipBackward.call(input, dims=tuple(sorted((d0, d1))))
    if k == 3:
        return _swap(FlipBackward.call(input, dims=(d0,)), d0, d1)
    from ..core.casts import clone
    return clone(input)


# -- repeats -----------------------------------------------------------------------------

@register
class RepeatBackward(UnaryOp):
    r"""Autograd node for ``x.repeat(*reps)``: :math:`y` tiles :math:`x` ``reps[i]`` times
    along dim :math:`i`.

    Saves nothing: the gradient sums the tiles, a reshape of :math:`g` to interleaved
    ``(reps[i], size[i])`` pairs reduced over the ``reps`` axes.

    Math
    ----
    .. math:: y_{t_0 n_0 + i_0, \ldots} = x_{i_0, \ldots}, \qquad
              \frac{\partial \mathcal{L}}{\partial x_{i}} = \sum_{t} g_{t n + i}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"repeat"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.tile`` (a copy); extra leading ``reps`` add leading dims. Also the node
    of ``tile``. A zero repeat gives an empty result and a zero gradient.
    """

    __slots__ = ()
    schema_v1 = OpSchema("repeat", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, reps):
        return be.tile(x, reps)

    def _tiles(self):
        reps = self.params["reps"]
        shape = self.in_meta[0][0]
        shape = (1,) * (len(reps) - len(shape)) + tuple(shape)
        inter = tuple(v for r, n in zip(reps, shape) for v in (r, n))
        return inter, tuple(range(0, 2 * len(reps), 2))

    def grad(self, F, g, x, out):
        inter, axes = self._tiles()
        return F.sum(F.reshape(g, inter), axes, False)


def _repeat(input, *sizes):
    """``input`` tiled ``sizes[i]`` times along dim ``i`` (extra sizes add leading dims)."""
    reps = _shape_arg(sizes, "repeat")
    nd = input._data.ndim
    if len(reps) < nd:
        raise ShapeError(f"repeat: number of dimensions of repeat dims ({len(reps)}) can not "
                         f"be smaller than number of dimensions of tensor ({nd})")
    if any(r < 0 for r in reps):
        raise ShapeError(f"repeat: repeats must be non-negative, got {list(reps)}")
    return RepeatBackward.call(input, reps=reps)


Tensor.repeat = _repeat


@tensor_method("tile")
def tile(input, dims):
    """``input`` tiled ``dims[i]`` times along dim ``i`` (1s prepended to the shorter)."""
    reps = _shape_arg((dims,), "tile")
    nd = input._data.ndim
    if any(r < 0 for r in reps):
        raise ShapeError(f"tile: repeats must be non-negative, got {list(reps)}")
    return RepeatBackward.call(input, reps=(1,) * (nd - len(reps)) + reps)


@register
class RepeatInterleaveBackward(UnaryOp):
    r"""Autograd node for :math:`y` = each element of :math:`x` along ``dim`` repeated
    :math:`r_i` times (an int, or one count per element).

    Saves nothing: the gradient sums each run of repeats (a reshape and sum for an int
    :math:`r`, the internal ``segment_sum`` for per-element counts).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_i} = \sum_{j \in S_i} g_j,\qquad
              S_i = \Big[\sum_{l<i} r_l,\ \sum_{l \le i} r_l\Big)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"repeat_interleave"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.repeat`` (a copy). A zero count drops the element; its gradient is 0.
    """

    __slots__ = ()
    schema_v1 = OpSchema("repeat_interleave", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, repeats, dim):
        return be.repeat_interleave(x, repeats, dim)

    def _runs(self):
        shape = self.in_meta[0][0]
        d = self.params["dim"]
        return shape[:d + 1] + (self.params["repeats"],) + shape[d + 1:], d + 1

    def grad(self, F, g, x, out):
        r = self.params["repeats"]
        if isinstance(r, int):
            shape, axis = self._runs()
            return F.sum(F.reshape(g, shape), axis, False)
        return F.segment_sum(g, r, self.params["dim"])


@register
class SegmentSumBackward(UnaryOp):
    r"""Autograd node for sums of consecutive segments of lengths :math:`c_i` along a dim.

    Internal (the backward of ``repeat_interleave`` with per-element counts). Saves
    nothing: it is linear, and its gradient repeats each element :math:`c_i` times.

    Math
    ----
    .. math:: y_i = \sum_{j \in S_i} x_j, \qquad
              \frac{\partial \mathcal{L}}{\partial x_j} = g_i \ \text{for}\ j \in S_i

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"segment_sum"``, ``AmpPolicy.KEEP_INPUT``, internal.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.add.reduceat`` over the non-empty segments; empty segments give 0.
    """

    __slots__ = ()
    schema_v1 = OpSchema("segment_sum", 1, AmpPolicy.KEEP_INPUT, internal=True,
            complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, counts, dim):
        return be.segment_sum(x, counts, dim)

    def grad(self, F, g, x, out):
        return F.repeat_interleave(g, self.params["counts"], self.params["dim"])


@tensor_method("repeat_interleave")
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element of ``input`` along ``dim`` repeated ``repeats`` times (an int or a
    tensor of counts); ``dim=None`` works on the flattened input. With only a tensor of
    counts ``c``, returns ``[0]*c[0] + [1]*c[1] + ...``."""
    if repeats is None:
        counts = _counts(input, None, "repeat_interleave")
        return Tensor._wrap(input._device._backend.repeat_indices(counts), _int64(),
                            input._device)
    if dim is None:
        input = _view_as(input, (input._data.size,))
        dim = 0
    shape = input._data.shape
    d = norm_dim(dim, len(shape), "repeat_interleave")
    n = shape[d] if shape else 1
    if not shape:
        input = ViewBackward.call(input, shape=(1,))
    if isinstance(repeats, Tensor) and repeats._data.size == 1 and repeats._data.ndim <= 1:
        repeats = int(repeats.item())
    if isinstance(repeats, numbers.Integral):
        if repeats < 0:
            raise ShapeError(f"repeat_interleave: repeats must be non-negative, got {repeats}")
        r = int(repeats)
    else:
        r = _counts(to_tensor(repeats, input), n, "repeat_interleave")
    if output_size is not None:
        total = n * r if isinstance(r, int) else int(r.sum())
        if total != output_size:
            raise ShapeError(f"repeat_interleave: output_size {output_size} does not match "
                             f"the repeated size {total}")
    return RepeatInterleaveBackward.call(input, repeats=r, dim=d)


def _int64():
    from ... import dtypes
    return dtypes.int64


def _counts(t, n, op):
    """The backend int64 array of a 1-d tensor of non-negative counts (``n`` of them)."""
    if t._dtype.is_floating_point or t._dtype.name == "bool":
        raise DTypeError(f"{op}: repeats must be an integer tensor, got {t._dtype}")
    if t._data.ndim != 1:
        raise ShapeError(f"{op}: repeats must be 0-d or 1-d, got shape {tuple(t.shape)}")
    if n is not None and t._data.shape[0] != n:
        raise ShapeError(f"{op}: repeats must have the same size as input along dim, but got "
                         f"repeats.size(0) = {t._data.shape[0]} and input.size = {n}")
    a = t._device._backend.astype(t._data, _int64().np)
    if a.size and bool((a < 0).any()):
        raise ShapeError(f"{op}: repeats must be non-negative")
    return a


# -- padding -----------------------------------------------------------------------------

_PAD_MODES = ("constant", "reflect", "replicate", "circular")


@register
class PadBackward(UnaryOp):
    r"""Autograd node for ``pad(x, pads, mode, value)``: :math:`x` padded (or cropped, for
    negative pads) along each dim.

    Saves nothing: constant padding's gradient is the crop of :math:`g` (padding by the
    negated pads, so the op is its own adjoint); the other modes fold the padded cells'
    gradients back onto the cells they copy (internal ``pad_backward``).

    Math
    ----
    .. math:: y_j = x_{\pi(j)} \ (\text{or } v \text{ outside, for constant}), \qquad
              \frac{\partial \mathcal{L}}{\partial x_i} = \sum_{j:\, \pi(j) = i} g_j

    with :math:`\pi` the reflect / replicate / circular index map.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"pad"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: a filled array with the input written inside (constant) or ``xp.pad`` with
    ``reflect`` / ``edge`` / ``wrap``. Negative pads crop before padding (PyTorch's rule).
    """

    __slots__ = ()
    schema_v1 = OpSchema("pad", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, pads, mode, value):
        return be.pad(x, pads, mode, value)

    def grad(self, F, g, x, out):
        return F.pad_backward(g, self.params["pads"], self.params["mode"])


@register
class PadGradBackward(UnaryOp):
    r"""Autograd node of the backward of reflect / replicate / circular ``pad``.

    Internal. Saves nothing: it is linear, and its own gradient is ``pad`` of the incoming
    gradient with the same pads and mode.

    Math
    ----
    .. math:: y_i = \sum_{j:\, \pi(j) = i} x_j, \qquad
              \frac{\partial \mathcal{L}}{\partial x_j} = g_{\pi(j)}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"pad_backward"``, ``AmpPolicy.KEEP_INPUT``, internal.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: per padded dim, the inner slice plus the pad slices added to their sources
    (flipped for reflect, summed onto the edge for replicate); cropped cells get 0.
    """

    __slots__ = ()
    schema_v1 = OpSchema("pad_backward", 1, AmpPolicy.KEEP_INPUT, internal=True,
            complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, g, pads, mode):
        return be.pad_backward(g, pads, mode)

    def grad(self, F, g, x, out):
        return F.pad(g, self.params["pads"], self.params["mode"], 0)


def pad(input, pad, mode="constant", value=None):
    """``input`` padded by ``pad = (last_lo, last_hi, prev_lo, prev_hi, ...)`` from the last
    dim backward; negative pads crop. ``mode``: constant (``value``, default 0), reflect,
    replicate, circular."""
    pad = _shape_arg((pad,), "pad")
    shape = input._data.shape
    nd = len(shape)
    if len(pad) % 2:
        raise ShapeError(f"pad: padding length must be divisible by 2, got {len(pad)}")
    if len(pad) > 2 * nd:
        raise ShapeError(f"pad: padding length should be less than or equal to two times the "
                         f"input dimension but got padding length {len(pad)} and input of "
                         f"dimension {nd}")
    if mode not in _PAD_MODES:
        raise ArgumentError(f"pad: unsupported padding mode {mode!r}; expected one of "
                         f"{', '.join(_PAD_MODES)}")
    if mode != "constant" and value is not None and value != 0:
        raise ArgumentError(f"pad: padding mode {mode!r} doesn't take in a value argument")
    pads = [(0, 0)] * nd
    for i in range(len(pad) // 2):
        d = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        pads[d] = (lo, hi)
        n = shape[d] - max(-lo, 0) - max(-hi, 0)
        if n + max(lo, 0) + max(hi, 0) < 0 or n < 0:
            raise ShapeError(f"pad: the input size {shape[d]}, plus negative padding {lo} and "
                             f"{hi} resulted in a negative output size, which is invalid. "
                             f"Check dimension {d} of your input.")
        if mode == "constant" or (lo <= 0 and hi <= 0):
            continue
        if mode == "reflect" and max(lo, hi) >= n:
            raise ShapeError(f"pad: padding size should be less than the corresponding input "
                             f"dimension, but got padding ({lo}, {hi}) at dimension {d} of "
                             f"input {list(shape)}")
        if mode == "circular" and max(lo, hi) > n:
            raise ShapeError(f"pad: padding value ({lo}, {hi}) must be at most the size "
                             f"{n} of dimension {d} of input {list(shape)} (circular)")
        if mode == "replicate" and n == 0:
            raise ShapeError(f"pad: cannot replicate-pad the empty dimension {d} of input "
                             f"{list(shape)}")
    return PadBackward.call(input, pads=tuple(pads), mode=mode,
                            value=0 if value is None else value)
