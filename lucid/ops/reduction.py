"""Reductions over dims: ``y = f(x, dim, keepdim)``."""

from __future__ import annotations

from .. import dtypes as _dt
from ._bind import tensor_method
from .base import ReductionOp
from .registry import register
from .schema import AmpPolicy, OpSchema

__all__ = ["sum"]


@register
class SumBackward(ReductionOp):
    r"""Autograd node for :math:`y = \sum_{i \in D} x_i` over dims :math:`D`.

    Saves nothing: the gradient is the incoming one broadcast back over the reduced dims.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x_i} = g_{\pi(i)}

    where :math:`\pi` drops the reduced coordinates.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"sum"``, ``AmpPolicy.FORCE_FP32``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.sum`` (pairwise summation on NumPy). Integer and bool inputs sum in
    int64, like PyTorch; an empty reduction gives 0.
    """

    __slots__ = ()
    schema_v1 = OpSchema("sum", 1, AmpPolicy.FORCE_FP32)

    @staticmethod
    def dispatch(be, x, dim, keepdim, dtype=None):
        if dtype is None and x.dtype.kind in "biu":
            dtype = _dt.int64
        return be.sum(x, dim, keepdim, dtype.np if dtype is not None else None)

    def grad_formula(self, g):
        return self.be.broadcast_copy(self.unreduce(g), self.in_meta[0][0])

    def grad_formula_impl(self, g, x, out):
        return self.unreduce_t(g).expand(self.in_meta[0][0])


@tensor_method("sum")
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum of elements over ``dim`` (all dims when None)."""
    if dtype is not None:
        return SumBackward.call(input, dim, keepdim, dtype=_dt.as_dtype(dtype))
    return SumBackward.call(input, dim, keepdim)
