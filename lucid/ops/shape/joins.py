"""Joins and splits: cat, stack (and the h/v/d/column stacks), split, chunk, tensor_split,
unbind.

``cat`` and ``stack`` are :class:`~lucid.ops.core.base.NaryOp` (inputs promoted to one dtype).
``split`` and ``unbind`` are multi-output ops whose outputs are views: each output is
linked to the input with the single-output view ops that reproduce it (``narrow``, then a
reshape for ``unbind``), so an in-place write through one output replays correctly, while
the backward stays one node (outputs without a gradient contribute zeros).

Complex tensors join and split like any other dtype (holomorphic ops).
"""

from __future__ import annotations

import numbers

from ..._tensor import Tensor
from ...errors import DimError, ShapeError, reports_as
from ..core._bind import tensor_method
from ..core.base import MultiOutputOp, NaryOp, _link_view, norm_dim
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ._common import _int, _shape_arg
from .reshape import ViewBackward
from .views import NarrowBackward, SelectBackward
from ...errors import DTypeError

__all__ = [
    "cat",
    "concat",
    "concatenate",
    "stack",
    "hstack",
    "vstack",
    "row_stack",
    "dstack",
    "column_stack",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "split",
    "chunk",
    "tensor_split",
    "unbind",
]


def _sizes(tensors):
    return ", ".join(str(list(t._data.shape)) for t in tensors)


# -- cat and stack ---------------------------------------------------------------------


@register
class CatBackward(NaryOp):
    r"""Autograd node for :math:`y = [x_0; x_1; \ldots]` joined along an existing dim.

    Saves nothing: each input's gradient is its slice of :math:`g` (the sizes are in the
    node's input metadata).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_k} = g_{\ldots, o_k : o_k + n_k, \ldots},
              \qquad o_k = \sum_{l < k} n_l

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"cat"``, ``AmpPolicy.KEEP_INPUT``, variable arity.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.concatenate`` (a copy). Inputs are promoted to one dtype first; empty
    inputs of shape ``(0,)`` are skipped (PyTorch's legacy rule; param ``skip``).
    """

    __slots__ = ()
    schema_v1 = OpSchema("cat", 1, AmpPolicy.KEEP_INPUT, input_arity=-1, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, *xs, dim, skip=False):
        if skip:
            xs = [x for x in xs if x.shape != (0,)]
        return be.concatenate(xs, dim)

    def _sizes(self):
        d = self.params["dim"]
        return [s[d] if len(s) > d else 0 for s, _ in self.in_meta]

    def grad(self, F, g, *xs_and_out):
        return F.split(g, self.params["dim"], self._sizes())


def cat(tensors, dim=0):
    """The tensors joined along existing dim ``dim`` (same shape elsewhere)."""
    tensors = _tensor_list(tensors, "cat")
    ref = None
    legacy = False
    for t in tensors:
        if t._data.shape == (0,):
            legacy = True
        elif ref is None:
            ref = t
    nd = 1 if ref is None else ref._data.ndim
    if nd == 0:
        pos = next(i for i, t in enumerate(tensors) if t is ref)
        raise ShapeError(f"cat: zero-dimensional tensor (at position {pos}) cannot be concatenated")
    # only legacy (0,) tensors: PyTorch checks no dim (any dim gives the empty result)
    d = 0 if ref is None and dim.__class__ is int else norm_dim(dim, nd, "cat")
    try:
        if legacy and nd != 1:
            return CatBackward.call(tensors, dim=d, skip=True)
        return CatBackward.call(tensors, dim=d)
    except ValueError:
        _cat_error([t for t in tensors if t._data.shape != (0,)], d)
        raise


concat = reports_as("concat")(cat)  # the aliases' errors name the alias
concatenate = reports_as("concatenate")(cat)


def _cat_error(tensors, d):
    """Raise the ShapeError naming the first tensor that does not fit."""
    ref = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        s = t._data.shape
        if not s:
            raise ShapeError(
                f"cat: zero-dimensional tensor (at position {i}) cannot be concatenated"
            )
        if len(s) != len(ref):
            raise ShapeError(
                f"cat: tensors must have same number of dimensions: got "
                f"{len(ref)} and {len(s)} (tensor number {i} in the list)"
            )
        for k, (a, b) in enumerate(zip(ref, s)):
            if k != d and a != b:
                raise ShapeError(
                    f"cat: sizes of tensors must match except in dimension {d}. "
                    f"Expected size {a} but got size {b} for tensor number {i} "
                    f"in the list (dimension {k})"
                )


def _tensor_list(tensors, op):
    if isinstance(tensors, Tensor):
        raise ShapeError(f"{op}: expected a sequence of tensors, got a single Tensor")
    tensors = list(tensors)
    if not tensors:
        raise ShapeError(f"{op}: expected a non-empty list of tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise DTypeError(
                f"{op}: expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
    return tensors


@register
class StackBackward(NaryOp):
    r"""Autograd node for :math:`y = [x_0, x_1, \ldots]` joined along a new dim.

    Saves nothing: each input's gradient is :math:`g` indexed at its position.

    Math
    ----
    .. math:: y_{\ldots, k, \ldots} = x_k, \qquad
              \frac{\partial \mathcal{L}}{\partial x_k} = g_{\ldots, k, \ldots}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"stack"``, ``AmpPolicy.KEEP_INPUT``, variable arity.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.stack`` (a copy). Inputs are promoted to one dtype and must all have
    the same shape.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "stack", 1, AmpPolicy.KEEP_INPUT, input_arity=-1, complex_grad="holomorphic"
    )

    @staticmethod
    def dispatch(be, *xs, dim):
        return be.stack(xs, dim)

    def grad(self, F, g, *xs_and_out):
        return F.unbind(g, self.params["dim"])


def stack(tensors, dim=0):
    """The equally shaped tensors joined along a new dim ``dim``."""
    tensors = _tensor_list(tensors, "stack")
    shape = tensors[0]._data.shape
    d = norm_dim(dim, len(shape) + 1, "stack")  # checked first, as in PyTorch
    for i, t in enumerate(tensors):
        if t._data.shape != shape:
            raise ShapeError(
                f"stack: expects each tensor to be equal size, but got "
                f"{list(shape)} at entry 0 and {list(t._data.shape)} at entry {i}"
            )
    return StackBackward.call(tensors, dim=d)


def _atleast(tensors, n):
    single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    if len(tensors) == 1 and not single:
        tensors = tuple(tensors[0])
    out = []
    for x in tensors:
        s = x._data.shape
        if len(s) < n:
            s = {0: (1,) * n, 1: (1,) + s + (1,) * (n - 2)}.get(len(s), s + (1,))
            x = ViewBackward.call(x, shape=s)
        out.append(x)
    return out[0] if single else tuple(out)


def atleast_1d(*tensors):
    """Each tensor viewed with at least 1 dim (a 0-d tensor becomes shape ``(1,)``)."""
    return _atleast(tensors, 1)


def atleast_2d(*tensors):
    """Each tensor viewed with at least 2 dims (``(n,)`` becomes ``(1, n)``)."""
    return _atleast(tensors, 2)


def atleast_3d(*tensors):
    """Each tensor viewed with at least 3 dims (``(n,)`` is ``(1, n, 1)``, ``(m, n)`` is
    ``(m, n, 1)``)."""
    return _atleast(tensors, 3)


@reports_as("hstack")
def hstack(tensors):
    """The tensors joined column-wise: along dim 0 for 1-d tensors, else dim 1."""
    ts = [_atleast((t,), 1) for t in _tensor_list(tensors, "hstack")]
    return cat(ts, 0 if ts[0]._data.ndim == 1 else 1)


@reports_as("vstack")
def vstack(tensors):
    """The tensors joined row-wise (1-d tensors become rows)."""
    return cat([_atleast((t,), 2) for t in _tensor_list(tensors, "vstack")], 0)


row_stack = reports_as("row_stack")(vstack)


@reports_as("dstack")
def dstack(tensors):
    """The tensors joined depth-wise, along dim 2 (after viewing them as at least 3-d)."""
    return cat([_atleast((t,), 3) for t in _tensor_list(tensors, "dstack")], 2)


@reports_as("column_stack")
def column_stack(tensors):
    """The tensors joined as columns: 0-d and 1-d tensors become ``(n, 1)`` columns."""
    ts = [
        ViewBackward.call(t, shape=(t._data.size, 1)) if t._data.ndim <= 1 else t
        for t in _tensor_list(tensors, "column_stack")
    ]
    return cat(ts, 1)


# -- splits ------------------------------------------------------------------------------


def _parts(g):
    """The per-output gradients (the engine passes a lone output's gradient unwrapped)."""
    return g if g.__class__ is tuple else (g,)


@register
class SplitBackward(MultiOutputOp):
    r"""Autograd node for :math:`(y_0, y_1, \ldots)`: consecutive pieces of :math:`x` along
    one dim (views).

    Saves nothing: the gradient joins the outputs' gradients back (zeros for outputs that
    got none).

    Math
    ----
    .. math:: y_k = x_{\ldots, o_k : o_k + n_k, \ldots}, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = [g_0; g_1; \ldots]

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"split"``, ``AmpPolicy.KEEP_INPUT``, variable output arity.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: basic slicing (views sharing the input's storage and version counter; each
    output is linked as a ``narrow`` of the input). Also the node of ``chunk`` and
    ``tensor_split``. The backward is ``xp.concatenate``.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "split", 1, AmpPolicy.KEEP_INPUT, output_arity=-1, complex_grad="holomorphic"
    )

    @staticmethod
    def dispatch(be, x, dim, sizes):
        return be.split(x, dim, sizes)

    def grad(self, F, g, x, out):
        return F.concatenate(_parts(g), self.params["dim"])


def _split(x, d, sizes):
    """Views of ``x`` along dim ``d`` with lengths ``sizes`` (which sum to its size)."""
    sizes = tuple(sizes)
    outs = SplitBackward.apply(x, dim=d, sizes=sizes)
    start = 0
    for i, (t, n) in enumerate(zip(outs, sizes)):
        _link_view(
            t,
            x,
            NarrowBackward,
            {"dim": d, "start": start, "length": n},
            multi=f"output {i} of split",
        )
        start += n
    return outs


def _dim_of(input, dim, op):
    nd = input._data.ndim
    if nd == 0:
        raise DimError(f"{op}: expects at least a 1-dimensional tensor")
    return norm_dim(dim, nd, op)


@tensor_method("split")
def split(tensor, split_size_or_sections, dim=0):
    """Views of ``tensor`` along ``dim``: pieces of ``split_size`` (the last may be
    smaller), or pieces of the given sizes (which must sum to the dim's size)."""
    d = _dim_of(tensor, dim, "split")
    n = tensor._data.shape[d]
    s = split_size_or_sections
    if isinstance(s, Tensor) and s._data.ndim == 0:
        s = int(s.item())
    if isinstance(s, numbers.Integral):
        if s < 0:
            raise ShapeError(f"split: split_size must be non-negative, got {s}")
        if s == 0:
            if n:
                raise ShapeError(
                    f"split: split_size can only be 0 if dimension size is 0, "
                    f"but got dimension size of {n}"
                )
            return _split(tensor, d, (0,))
        k = max(-(-n // s), 1)
        return _split(tensor, d, (s,) * (k - 1) + (n - s * (k - 1),))
    sizes = _shape_arg((s,), "split")
    if any(v < 0 for v in sizes) or sum(sizes) != n:
        raise ShapeError(
            f"split: split_with_sizes expects split_sizes to sum exactly to {n} "
            f"(input tensor's size at dimension {d}), but got split_sizes="
            f"{list(sizes)}"
        )
    return _split(tensor, d, sizes)


@tensor_method("chunk")
def chunk(input, chunks, dim=0):
    """``chunks`` views of ``input`` along ``dim`` of equal size (the last may be smaller,
    and there may be fewer when the size does not divide)."""
    d = _dim_of(input, dim, "chunk")
    chunks = _int(chunks, "chunks", "chunk")
    if chunks <= 0:
        raise ShapeError(f"chunk: expects `chunks` to be greater than 0, got: {chunks}")
    n = input._data.shape[d]
    if n == 0:
        return _split(input, d, (0,) * chunks)
    return split(input, -(-n // chunks), d)


@tensor_method("tensor_split")
def tensor_split(input, indices_or_sections, dim=0):
    """Views of ``input`` along ``dim``: ``sections`` nearly equal pieces (the first
    ``n % sections`` one longer), or the pieces between the given indices."""
    d = _dim_of(input, dim, "tensor_split")
    n = input._data.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios._dtype.is_floating_point or ios._data.ndim > 1:
            raise ShapeError(
                f"tensor_split: expected indices_or_sections to be a 0-d or 1-d "
                f"integer tensor, got {ios._dtype} of shape {tuple(ios.shape)}"
            )
        ios = ios.tolist()
    if isinstance(ios, numbers.Integral):
        if ios <= 0:
            raise ShapeError(f"tensor_split: number of sections must be larger than 0, got {ios}")
        q, r = divmod(n, ios)
        return _split(input, d, (q + 1,) * r + (q,) * (ios - r))
    bounds = [0] + [
        min(max(i + n if i < 0 else i, 0), n) for i in _shape_arg((ios,), "tensor_split")
    ]
    pieces = []
    for k, start in enumerate(bounds):
        end = bounds[k + 1] if k + 1 < len(bounds) else n
        pieces.append((start, max(end - start, 0)))
    if all(pieces[k][0] + pieces[k][1] == pieces[k + 1][0] for k in range(len(pieces) - 1)):
        return _split(input, d, [p[1] for p in pieces])
    return tuple(NarrowBackward.call(input, dim=d, start=s, length=m) for s, m in pieces)


@register
class UnbindBackward(MultiOutputOp):
    r"""Autograd node for :math:`y_k = x_{\ldots, k, \ldots}` for every :math:`k` along one
    dim (views with the dim removed).

    Saves nothing: the gradient stacks the outputs' gradients back (zeros for outputs that
    got none).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \mathrm{stack}(g_0, g_1, \ldots)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"unbind"``, ``AmpPolicy.KEEP_INPUT``, variable output arity.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: integer indexing (views; each output is linked as a ``narrow`` of length 1
    then a reshape dropping the dim). Iterating over a tensor unbinds dim 0. The backward
    is ``xp.stack``.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "unbind", 1, AmpPolicy.KEEP_INPUT, output_arity=-1, complex_grad="holomorphic"
    )

    @staticmethod
    def dispatch(be, x, dim):
        return be.unbind(x, dim)

    def grad(self, F, g, x, out):
        return F.stack(_parts(g), self.params["dim"])


@tensor_method("unbind")
def unbind(input, dim=0):
    """The views ``input[..., i, ...]`` along ``dim``, as a tuple."""
    if input._data.ndim == 0:
        raise DimError("unbind: dimension specified as 0 but tensor has no dimensions")
    d = norm_dim(dim, input._data.ndim, "unbind")
    outs = UnbindBackward.apply(input, dim=d)
    for i, t in enumerate(outs):
        _link_view(t, input, SelectBackward, {"dim": d, "index": i}, multi=f"output {i} of unbind")
    return outs
