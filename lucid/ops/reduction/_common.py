"""Helpers shared by the reduction modules: a reduction's ``dim`` checked as PyTorch checks
it, the dtype to accumulate in, the floating-input and non-empty checks, 0-d inputs seen as
1-d, and the docstring of the non-differentiable reductions.

The conventions they carry, as in PyTorch: an empty ``dim`` list means every dim (``all``
and ``any`` read it as no dim); on a 0-d tensor only ``0`` and ``-1`` are valid dims;
integer and bool inputs sum, multiply and scan in int64.
"""

from __future__ import annotations

import builtins as _b
import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ..._tensor.factory import dtype_arg
from ..._tensor.tensor import Size
from ...errors import ArgumentTypeError, DimError, DTypeError
from ..core.base import norm_dim, norm_dims, to_tensor


def _const(arr, like):
    """A constant Tensor (no grad) of backend array ``arr`` on ``like``'s device."""
    return Tensor._wrap(arr, _dt.from_numpy_dtype(arr.dtype), like._device)


def _dim_arg(input, dim, op, empty_means_all=True):
    """A reduction's ``dim`` checked: None, an int or a sequence of ints (else an
    :class:`ArgumentTypeError` naming the argument, as PyTorch's ``TypeError``); an empty
    sequence means every dim. On a 0-d tensor only ``0`` and ``-1`` are valid dims, as in
    PyTorch (``tensor(2.).sum(7)`` is a :class:`DimError`). ``all``/``any`` read an empty
    sequence as no dim (``empty_means_all=False``), as PyTorch does."""
    if dim is None or dim.__class__ is int:
        if (
            dim is not None
            and dim not in (0, -1)
            and input.__class__ is Tensor
            and not input._data.ndim
        ):
            norm_dim(dim, 0, op)
        return dim
    if isinstance(dim, numbers.Integral) and not isinstance(dim, bool):
        return _dim_arg(input, int(dim), op)
    if isinstance(dim, (tuple, list, Size)) and _b.all(
        isinstance(d, numbers.Integral) and not isinstance(d, bool) for d in dim
    ):
        if not dim:
            return None if empty_means_all else ()
        if input.__class__ is Tensor and not input._data.ndim:
            norm_dims(dim, 0, op)
        return dim
    raise ArgumentTypeError(
        f"{op}(): argument 'dim' must be an int, a tuple of ints or None, "
        f"not {type(dim).__name__} ({dim!r})"
    )


def _acc(x, dtype):
    """The NumPy dtype to accumulate in: ``dtype`` if given, int64 for integers/bool."""
    if dtype is not None:
        return dtype.np
    return None if _dt._BY_NP[x.dtype]._cat >= 2 else _dt.int64.np


def _floating(x, op, dtype=None, complex_ok=False):
    """``x`` (cast to ``dtype`` when given); a DTypeError unless it is floating (or, where
    ``complex_ok``, complex)."""
    x = to_tensor(x)
    if dtype is not None:
        dtype = dtype_arg(dtype, op)
        if x._dtype is not dtype:
            x = x.to(dtype)
    if not (x._dtype.is_floating_point or complex_ok and x._dtype.is_complex):
        raise DTypeError(
            f"{op}(): expected a floating point input, got {x._dtype.name}; "
            "pass dtype= or cast the input first"
        )
    return x


def _nonempty(x, dims, op, dim_given):
    """DimError when reducing a dim of size 0 (max, min, argmax... have no identity)."""
    shape = x._data.shape
    if x._data.size:
        return
    if not dim_given:
        raise DimError(
            f"{op}(): Expected reduction dim to be specified for input.numel() "
            "== 0. Specify the reduction dim with the 'dim' argument."
        )
    for d in dims:
        if shape[d] == 0:
            raise DimError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def _on_scalar(fn, x, dim, *args):
    """``fn(x, dim, *args)``, with a 0-d ``x`` seen as 1-d (results back to 0-d)."""
    if x.ndim:
        return fn(x, dim, *args)
    out = fn(x.reshape(1), 0, *args)
    if out.__class__ is tuple:
        return tuple(o.reshape(()) for o in out)
    return out.reshape(())


_BOOL_DOC = r"""{summary}

    Saves nothing: the result is {result}, not differentiable.

    Math
    ----
    .. math:: {math}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"{name}"``, ``AmpPolicy.KEEP_INPUT``, not differentiable.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    {notes}
    """
