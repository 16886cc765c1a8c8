"""Repeats: ``Tensor.repeat`` and ``tile`` (copies of the whole input side by side,
:class:`RepeatBackward`) and ``repeat_interleave`` (each element repeated in place, an int
or a tensor of counts).

The results are copies; the gradients sum the repeats back (a reshape and a sum, or the
internal ``segment_sum`` for per-element counts). A zero count gives an empty result and
a zero gradient. Complex tensors repeat like any other (holomorphic).
"""

from __future__ import annotations

import numbers

from ..._tensor import Tensor
from ...errors import DTypeError, ShapeError
from ..core._bind import install, tensor_method
from ..core.base import UnaryOp, norm_dim, to_tensor
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ._common import _shape_arg
from .reshape import ViewBackward, _view_as
from ... import dtypes as _dt

__all__ = ["tile", "repeat_interleave"]


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
        raise ShapeError(
            f"repeat: number of dimensions of repeat dims ({len(reps)}) can not "
            f"be smaller than number of dimensions of tensor ({nd})"
        )
    if any(r < 0 for r in reps):
        raise ShapeError(f"repeat: repeats must be non-negative, got {list(reps)}")
    return RepeatBackward.call(input, reps=reps)


install(repeat=_repeat)


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
        return shape[: d + 1] + (self.params["repeats"],) + shape[d + 1 :], d + 1

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
    schema_v1 = OpSchema(
        "segment_sum", 1, AmpPolicy.KEEP_INPUT, internal=True, complex_grad="holomorphic"
    )

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
        return Tensor._wrap(input._device._backend.repeat_indices(counts), _int64(), input._device)
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
            raise ShapeError(
                f"repeat_interleave: output_size {output_size} does not match "
                f"the repeated size {total}"
            )
    return RepeatInterleaveBackward.call(input, repeats=r, dim=d)


def _int64():
    return _dt.int64


def _counts(t, n, op):
    """The backend int64 array of a 1-d tensor of non-negative counts (``n`` of them)."""
    if t._dtype.is_floating_point or t._dtype.name == "bool":
        raise DTypeError(f"{op}: repeats must be an integer tensor, got {t._dtype}")
    if t._data.ndim != 1:
        raise ShapeError(f"{op}: repeats must be 0-d or 1-d, got shape {tuple(t.shape)}")
    if n is not None and t._data.shape[0] != n:
        raise ShapeError(
            f"{op}: repeats must have the same size as input along dim, but got "
            f"repeats.size(0) = {t._data.shape[0]} and input.size = {n}"
        )
    a = t._device._backend.astype(t._data, _int64().np)
    if a.size and bool((a < 0).any()):
        raise ShapeError(f"{op}: repeats must be non-negative")
    return a
