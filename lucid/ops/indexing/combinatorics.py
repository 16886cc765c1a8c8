"""Combinatorial constructions composed from registered ops.

``cartesian_prod``, ``combinations``, ``block_diag``, ``diagflat``, ``tril_indices`` and
``triu_indices``. The tensor-valued ones are built from differentiable ops (meshgrid,
stack, index_select, pad, cat, diag), so gradients reach every input; the index
constructors are integer tensors.
"""

from __future__ import annotations

import itertools
import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor, tensor as _tensor_of
from ...errors import ArgumentError, DTypeError, ShapeError
from ..core._bind import tensor_method
from ..core.base import to_tensor
from ..creation.creation import arange, empty, meshgrid
from ..indexing.gather_scatter import index_select
from ..indexing.masks import nonzero
from ..linalg.products import diag
from ..shape.joins import cat, stack
from ..shape.padding import pad
from ..shape.views import narrow

__all__ = [
    "cartesian_prod",
    "combinations",
    "block_diag",
    "diagflat",
    "tril_indices",
    "triu_indices",
]


def _tensors(tensors, op):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for t in tensors:
        if not isinstance(t, Tensor):
            raise DTypeError(f"{op}(): expected Tensors, got {type(t).__name__}")
    return tensors


def cartesian_prod(*tensors):
    """The Cartesian product of 1-D tensors of one dtype: ``(N, k)`` rows of every
    combination, the last tensor varying fastest (one tensor: returned as is)."""
    ts = _tensors(tensors, "cartesian_prod")
    if not ts:
        raise ArgumentError("cartesian_prod(): expects at least one tensor")
    for t in ts:
        if t._data.ndim != 1:
            raise ShapeError(
                f"cartesian_prod(): expect a 1D vector, but got shape {tuple(t.shape)}"
            )
    if len(ts) == 1:
        return ts[0]
    for t in ts[1:]:
        if t._dtype is not ts[0]._dtype:
            raise DTypeError(
                f"cartesian_prod(): expects all tensors to have the same dtype, "
                f"got {ts[0]._dtype.name} and {t._dtype.name}"
            )
    grids = meshgrid(*ts, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of the elements of 1-D ``input`` (like
    ``itertools.combinations`` / ``combinations_with_replacement``), as rows."""
    x = to_tensor(input)
    if x._data.ndim != 1:
        raise ShapeError(f"combinations(): expect a 1D vector, but got shape {tuple(x.shape)}")
    if isinstance(r, bool) or not isinstance(r, numbers.Integral) or r < 0:
        raise ArgumentError(f"combinations(): expect a non-negative number, but got {r}")
    none = narrow(x, 0, 0, 0)  # empty results keep the input's history
    if r == 0:
        return none.clone()
    n = x.shape[0]
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(gen(range(n), r))
    if not rows:
        return none.reshape(0, 1).expand(0, r).clone()
    idx = _tensor_of(rows, device=x._device)
    return stack([index_select(x, 0, idx[:, j]) for j in range(r)], 1)


def block_diag(*tensors):
    """The block-diagonal matrix of the given tensors (0-d: 1x1, 1-D: one row, 2-D as
    is), in the promoted dtype."""
    ts = _tensors(tensors, "block_diag")
    if not ts:
        return empty(1, 0)
    mats = []
    for i, t in enumerate(ts):
        nd = t._data.ndim
        if nd > 2:
            raise ShapeError(
                f"block_diag(): Input tensors must have 2 or fewer dimensions. "
                f"Input {i} has {nd} dimensions"
            )
        mats.append(t.reshape(1, 1) if nd == 0 else t.reshape(1, -1) if nd == 1 else t)
    dt = mats[0]._dtype
    for m in mats[1:]:
        dt = _dt.promote_types(dt, m._dtype)
    mats = [m if m._dtype is dt else m.to(dt) for m in mats]
    total = sum(m.shape[1] for m in mats)
    rows = []
    left = 0
    for m in mats:
        c = m.shape[1]
        rows.append(pad(m, (left, total - left - c)))
        left += c
    return cat(rows, 0)


@tensor_method("diagflat")
def diagflat(input, offset=0):
    """A 2-D tensor with the flattened ``input`` on diagonal ``offset``."""
    x = to_tensor(input)
    if isinstance(offset, bool) or not isinstance(offset, numbers.Integral):
        raise DTypeError(f"diagflat(): offset must be an int, got {type(offset).__name__}")
    return diag(x.reshape(-1), int(offset))


def _tri_indices(row, col, offset, dtype, device, lower, op):
    for name, v in (("row", row), ("col", col), ("offset", offset)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise DTypeError(f"{op}(): {name} must be an int, got {type(v).__name__}")
    if row < 0 or col < 0:
        raise ArgumentError(f"{op}(): row and col must be non-negative, got row={row}, col={col}")
    dt = _dt.int64 if dtype is None else _dt.as_dtype(dtype)
    if dt not in (_dt.int32, _dt.int64):
        raise DTypeError(f"{op}(): dtype must be int32 or int64, got {dt.name}")
    i = arange(row, device=device).unsqueeze(1)
    j = arange(col, device=device).unsqueeze(0)
    keep = (j - i <= offset) if lower else (j - i >= offset)
    keep = keep.expand(row, col)
    return nonzero(keep).t().to(dt).contiguous()


def tril_indices(row, col, offset=0, *, dtype=None, device=None):
    """The ``(2, N)`` row/column indices of the lower triangle of a ``row x col`` matrix
    (entries with ``j - i <= offset``), in row-major order."""
    return _tri_indices(row, col, offset, dtype, device, True, "tril_indices")


def triu_indices(row, col, offset=0, *, dtype=None, device=None):
    """The ``(2, N)`` row/column indices of the upper triangle (``j - i >= offset``)."""
    return _tri_indices(row, col, offset, dtype, device, False, "triu_indices")
