"""Logical reductions and counting over dims: ``all``, ``any`` and ``count_nonzero``.

Not differentiable. As in PyTorch, ``all`` and ``any`` read an empty ``dim`` list as no dim
and give bool (uint8 for uint8 input); ``count_nonzero`` gives int64 and counts nan as
non-zero. All three accept complex input.
"""

from __future__ import annotations

from ... import dtypes as _dt
from ..core._bind import tensor_method
from ..core.base import ReductionOp
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ._common import _BOOL_DOC, _dim_arg

__all__ = ["all", "any", "count_nonzero"]


# -- logic and counting ------------------------------------------------------------------


@register
class AllBackward(ReductionOp):
    __doc__ = _BOOL_DOC.format(
        summary="Node of ``all``: whether every element over the dims is non-zero.",
        result="boolean",
        name="all",
        math=r"y = \bigwedge_{i \in D} [x_i \ne 0]",
        notes="Backends: ``xp.all``. uint8 input gives uint8, like PyTorch; an empty "
        "reduction gives True.",
    )
    __slots__ = ()
    schema_v1 = OpSchema(
        "all", 1, AmpPolicy.KEEP_INPUT, differentiable=False, complex_grad="custom"
    )

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        r = be.all(x, dim, keepdim)
        return be.astype(r, x.dtype) if _dt._BY_NP[x.dtype] is _dt.uint8 else r


@register
class AnyBackward(ReductionOp):
    __doc__ = _BOOL_DOC.format(
        summary="Node of ``any``: whether some element over the dims is non-zero.",
        result="boolean",
        name="any",
        math=r"y = \bigvee_{i \in D} [x_i \ne 0]",
        notes="Backends: ``xp.any``. uint8 input gives uint8, like PyTorch; an empty "
        "reduction gives False.",
    )
    __slots__ = ()
    schema_v1 = OpSchema(
        "any", 1, AmpPolicy.KEEP_INPUT, differentiable=False, complex_grad="custom"
    )

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        r = be.any(x, dim, keepdim)
        return be.astype(r, x.dtype) if _dt._BY_NP[x.dtype] is _dt.uint8 else r


@register
class CountNonzeroBackward(ReductionOp):
    __doc__ = _BOOL_DOC.format(
        summary="Node of ``count_nonzero``: the number of non-zero elements over the dims.",
        result="an int64 count",
        name="count_nonzero",
        math=r"y = \sum_{i \in D} [x_i \ne 0]",
        notes="Backends: ``xp.sum(x != 0)``; nan counts as non-zero.",
    )
    __slots__ = ()
    schema_v1 = OpSchema(
        "count_nonzero", 1, AmpPolicy.KEEP_INPUT, differentiable=False, complex_grad="custom"
    )

    @staticmethod
    def dispatch(be, x, dim, keepdim):
        return be.count_nonzero(x, dim)


# -- wrappers: logic and counting --------------------------------------------------------


@tensor_method("all")
def all(input, dim=None, keepdim=False):
    """Whether every element over ``dim`` is non-zero (bool; uint8 for uint8 input)."""
    return AllBackward.call(input, _dim_arg(input, dim, "all", False), keepdim)


@tensor_method("any")
def any(input, dim=None, keepdim=False):
    """Whether any element over ``dim`` is non-zero (bool; uint8 for uint8 input)."""
    return AnyBackward.call(input, _dim_arg(input, dim, "any", False), keepdim)


@tensor_method("count_nonzero")
def count_nonzero(input, dim=None):
    """The number of non-zero elements over ``dim`` (int64)."""
    return CountNonzeroBackward.call(input, _dim_arg(input, dim, "count_nonzero"), False)
