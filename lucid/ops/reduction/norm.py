"""PyTorch's ``torch.norm`` (and ``Tensor.norm``): the vector ``p``-norm of
:mod:`.moments`, or a matrix norm of :mod:`lucid.ops.linalg.matrix_fns`, chosen by ``p``
and ``dim``."""

from __future__ import annotations

import numbers

from ..._tensor.tensor import Size
from ...errors import reports_as
from ..core._bind import tensor_method
from ..core.base import to_tensor
from ..linalg.matrix_fns import matrix_norm
from .moments import vector_norm

__all__ = ["norm"]


@tensor_method("norm")
@reports_as("norm")
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """PyTorch's ``torch.norm``: the vector ``p``-norm over ``dim`` (all dims when None;
    ``p=None`` and ``p='fro'`` over at most two dims are the 2-norm), or, for ``'nuc'`` and
    a ``'fro'`` over more dims, ``lucid.linalg.matrix_norm`` over ``dim`` (all dims when
    None), whose checks refuse what it cannot do."""
    if isinstance(dim, numbers.Integral) and not isinstance(dim, bool):
        dim = (dim,)
    if not isinstance(p, str):
        return vector_norm(input, 2 if p is None else p, dim, keepdim, dtype, "norm")
    if p == "fro" and (dim is None or not isinstance(dim, (tuple, list, Size)) or len(dim) <= 2):
        return vector_norm(input, 2, dim, keepdim, dtype, "norm")
    if dim is None:
        dim = tuple(range(to_tensor(input)._data.ndim))
    return matrix_norm(input, p, dim, keepdim, dtype=dtype)
