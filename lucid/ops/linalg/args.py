"""What every ``lucid.linalg`` function shares: argument checks, the base class of the
linalg nodes, the transpose and conjugate transpose of the last two dims and the named-tuple
result types."""

from __future__ import annotations

import collections

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import DTypeError, ShapeError
from ..core.base import MultiOutputOp, to_tensor
from ..reduction.extrema import return_types
from ..core.schema import AmpPolicy, OpSchema

__all__ = []

_REAL = (_dt.float32, _dt.float64)


def matrix(op, a, name="A", square=False, complex_ok=True):
    """``a`` as a float32/float64/complex64/complex128 (real only unless ``complex_ok``)
    Tensor with at least 2 dims (square ones if asked)."""
    if not isinstance(a, Tensor):
        a = to_tensor(a)
    if a._dtype not in _REAL and not (complex_ok and a._dtype.is_complex):
        kinds = (
            "float32, float64, complex64 or complex128"
            if complex_ok
            else "float32 or float64 (real)"
        )
        raise DTypeError(
            f"linalg.{op}: expected {name} to be a {kinds} tensor, got {a._dtype.name}"
        )
    shape = tuple(a._data.shape)
    if len(shape) < 2:
        raise ShapeError(f"linalg.{op}: {name} must have at least 2 dimensions, got shape {shape}")
    if square and shape[-1] != shape[-2]:
        raise ShapeError(
            f"linalg.{op}: {name} must be batches of square matrices, but they "
            f"are {shape[-2]} by {shape[-1]} matrices"
        )
    return a


def same_kind(op, a, b, name="B"):
    """``b`` as a Tensor of ``a``'s dtype and device (a Lucid error otherwise)."""
    if not isinstance(b, Tensor):
        b = to_tensor(b, a)
    if b._dtype is not a._dtype:
        raise DTypeError(
            f"linalg.{op}: expected {name} to have the dtype of A "
            f"({a._dtype.name}), got {b._dtype.name}"
        )
    return b


def mT(x):
    """``x`` with its last two dims swapped (a backend array or a Tensor)."""
    return x.swapaxes(-1, -2)


def is_complex(x):
    """Whether ``x`` (a backend array or a Tensor) holds complex numbers."""
    d = x.dtype
    return d.is_complex if d.__class__ is _dt.dtype else d.kind == "c"


def conj(x):
    """The complex conjugate of ``x`` (array or Tensor; recorded in graph mode), ``x``
    itself when real (no copy)."""
    return x.conj() if is_complex(x) else x


def mH(x):
    """The conjugate transpose of the last two dims (:func:`mT` for real ``x``)."""
    return mT(conj(x))


def result_type(name, fields):
    """A named-tuple result type shown as ``lucid.return_types.<name>``."""
    cls = collections.namedtuple(name, fields, module="lucid.return_types")
    cls.__repr__ = _repr
    setattr(return_types, name, cls)
    return cls


def _repr(self):
    body = ",\n".join(f"{k}={v!r}" for k, v in zip(self._fields, self))
    return f"lucid.return_types.{type(self).__name__}(\n{body})"


def schema(name, **kw):
    """A linalg node's schema: float32 under autocast (no half LAPACK), deterministic."""
    return OpSchema(name, 1, AmpPolicy.FORCE_FP32, **kw)


class LinalgMultiOp(MultiOutputOp):
    """Several-output linalg node; outputs that get no gradient arrive as None (not zeros),
    so a formula skips their terms, as PyTorch does (this keeps, for instance, an SVD's
    gradient finite for repeated singular values when only ``S`` is used)."""

    __slots__ = ()
    materialize_grads = False
