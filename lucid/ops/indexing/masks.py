"""Masks and non-zeros: ``masked_fill``, ``masked_select``, ``masked_scatter`` (a bool mask
broadcast against the input; the first and last in place too), ``nonzero`` and
``argwhere``.

``masked_fill`` has a node of its own (``where``-like: no host sync on the mask);
``masked_select`` and ``masked_scatter`` use the mask's coordinates as an advanced index
and an index-put of :mod:`.subscript`. ``nonzero`` gives int64 coordinates, not
differentiable. Complex tensors are masked and filled like any other dtype.
"""

from __future__ import annotations

from ... import dtypes as _dt
from ...errors import DTypeError, ShapeError
from ..core._bind import tensor_method
from ..core.base import Op, UnaryOp, to_tensor
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ._common import _array, _broadcast, _fill_value, _inplace, _same_dtype, _vec
from .subscript import IndexBackward, SliceBackward, _put

__all__ = ["masked_fill", "masked_select", "masked_scatter", "nonzero", "argwhere"]


# -- the nodes --------------------------------------------------------------------------


@register
class MaskedFillBackward(Op):
    r"""Autograd node for :math:`y = \mathrm{mask} \,?\, v : x` (``masked_fill``; the mask
    broadcasts against :math:`x`, :math:`v` is a 0-d tensor).

    Saves nothing: both gradients are the incoming one masked (the mask is a param).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g \odot (1 - \mathrm{mask}), \qquad
              \frac{\partial \mathcal{L}}{\partial v} = \sum g \odot \mathrm{mask}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"masked_fill"``, ``AmpPolicy.KEEP_INPUT``, two tensor inputs.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.where(mask, v, x)``: no host sync on the mask, unlike indexing by it.
    NaN under the mask is replaced like any value.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "masked_fill", 1, AmpPolicy.KEEP_INPUT, input_arity=2, complex_grad="holomorphic"
    )

    @staticmethod
    def dispatch(be, x, v, mask):
        return be.masked_fill(x, mask, v)

    def grad(self, F, g, x, v, out):
        mask = self.params["mask"]
        need = self.needs_input_grad
        return (
            F.masked_fill(g, mask, 0) if need[0] else None,
            F.masked_fill(g, ~mask, 0) if need[1] else None,
        )


@register
class NonzeroBackward(UnaryOp):
    r"""Op for the coordinates of the non-zero elements of :math:`x`, one row each
    (``nonzero``, ``argwhere``).

    Saves nothing and records no node: the result is integer, not differentiable.

    Math
    ----
    .. math:: y = \big[\, i \;\big|\; x_i \neq 0 \,\big]_{\text{C order}}
              \in \mathbb{Z}^{n \times \mathrm{ndim}(x)}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"nonzero"``, ``AmpPolicy.KEEP_INPUT``, not differentiable.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.argwhere`` as int64 (a host sync for the count on CUDA). NaN counts as
    non-zero; a 0-d input gives shape ``(1, 0)`` or ``(0, 0)``.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "nonzero",
        1,
        AmpPolicy.KEEP_INPUT,
        differentiable=False,
        complex_grad="custom",
        capturable=False,
    )

    @staticmethod
    def dispatch(be, x):
        return be.nonzero(x)


def _mask_arg(op, mask, x):
    """The bool backend array of ``mask``."""
    mask = to_tensor(mask, x)
    if mask._dtype is not _dt.bool:
        raise DTypeError(f"{op}: expected a bool mask, got a mask of dtype {mask._dtype}")
    return _array(mask, x)


# -- masks ------------------------------------------------------------------------------


def _masked(op, input, mask):
    """``(input expanded, mask array expanded, shape)`` to the broadcast shape, 0-d as 1-d."""
    m = _mask_arg(op, mask, input)
    shape = _broadcast(op, input._data.shape, m.shape)
    be = input._device._backend
    x = input.expand(shape)
    if m.shape != shape:
        m = be.broadcast_to(m, shape)
    if not shape:
        return x.reshape(1), be.reshape(m, (1,)), shape
    return x, m, shape


@tensor_method("masked_fill")
def masked_fill(input, mask, value):
    """``input`` with ``value`` (a number or 0-d tensor) where the bool ``mask`` (broadcast)
    is true."""
    m = _mask_arg("masked_fill", mask, input)
    _broadcast("masked_fill", input._data.shape, m.shape)
    return MaskedFillBackward.apply(input, _fill_value("masked_fill", value, input), mask=m)


@tensor_method("masked_select")
def masked_select(input, mask):
    """The 1-d tensor of the elements of ``input`` where ``mask`` is true (both broadcast)."""
    x, m, _ = _masked("masked_select", input, mask)
    return IndexBackward.call(x, index=x._device._backend.nonzero_index(m))


@tensor_method("masked_scatter")
def masked_scatter(input, mask, source):
    """A copy of ``input`` (broadcast with ``mask``) whose masked elements take the
    leading elements of ``source`` in order."""
    src = to_tensor(source, input)
    _same_dtype("masked_scatter", input, src, "source")
    x, m, shape = _masked("masked_scatter", input, mask)
    ix = x._device._backend.nonzero_index(m)
    k = ix[0].shape[0]
    if src._data.size < k:
        raise ShapeError(
            f"masked_scatter: number of elements of source ({src._data.size}) "
            f"< number of ones in mask ({k})"
        )
    v = SliceBackward.call(src.reshape(-1), index=(slice(0, k, 1),))
    out = _put(x, ix, v)
    return out if shape else out.reshape(())


# -- nonzero ----------------------------------------------------------------------------


@tensor_method("nonzero")
def nonzero(input, *, as_tuple=False):
    """The ``(n, ndim)`` int64 coordinates of the non-zero elements, or with ``as_tuple``
    one 1-d tensor per dim (a 0-d input counts as 1-d)."""
    if not as_tuple:
        return NonzeroBackward.call(input)
    m = NonzeroBackward.call(_vec(input))
    n, k = m._data.shape
    return tuple(SliceBackward.call(m, index=(slice(0, n, 1), i)) for i in range(k))


@tensor_method("argwhere")
def argwhere(input):
    """The ``(n, ndim)`` int64 coordinates of the non-zero elements."""
    return NonzeroBackward.call(input)


# -- in place ---------------------------------------------------------------------------

for _fn in (masked_fill, masked_scatter):
    _inplace(_fn)
