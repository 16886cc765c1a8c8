"""The remaining PyTorch surface, composed from registered ops.

Splits (``split_with_sizes``, ``vsplit``, ``hsplit``, ``dsplit``), ``numel``, in-place
``fill_diagonal_``, ``maximum_`` / ``minimum_``, the in-place random fills ``geometric_``,
``cauchy_``, ``log_normal_`` (``exponential_`` lives with the other samplers) and
``poisson``. In-place forms go through :func:`~lucid.ops.core.inplace.apply_inplace` (leaf checks,
version bump, graph rebasing); random fills record a zero gradient, as PyTorch does.
"""

from __future__ import annotations

import math
import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import ArgumentError, DimError, DTypeError, ShapeError
from ...random import generator_for
from ..core._bind import install, tensor_method
from ..core.base import to_tensor
from ..core.inplace import apply_inplace
from ..creation.creation import FillBackward, number_arg
from ..creation.creation import arange
from ..elementwise.fp_classify import isfinite
from ..indexing.masks import masked_fill
from ..shape.joins import split, tensor_split
from ..binary.functions import minimum
from ..binary.functions import maximum

__all__ = ["split_with_sizes", "vsplit", "hsplit", "dsplit", "numel", "poisson"]


# == splits ================================================================================


@tensor_method("split_with_sizes")
def split_with_sizes(input, split_sizes, dim=0):
    """Views of ``input`` along ``dim`` of the given sizes (which must sum to its size)."""
    x = to_tensor(input)
    if isinstance(split_sizes, numbers.Integral) or not all(
        isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in split_sizes
    ):
        raise DTypeError(
            f"split_with_sizes(): split_sizes must be a sequence of ints, got {split_sizes!r}"
        )
    sizes = [int(s) for s in split_sizes]
    if any(s < 0 for s in sizes):
        raise ShapeError(f"split_with_sizes(): split_sizes must be non-negative, got {sizes}")
    if x._data.ndim == 0:
        raise DimError("split_with_sizes(): expects at least a 1-dimensional tensor")
    return split(x, sizes, dim)


def _dir_split(input, ios, dim, op, need, what):
    x = to_tensor(input)
    nd = x._data.ndim
    if nd < need:
        raise DimError(
            f"{op}(): {op} requires a tensor with at least {need} dimension"
            f"{'s' if need > 1 else ''}, but got a tensor with {nd} dimensions!"
        )
    if isinstance(ios, numbers.Integral) and not isinstance(ios, bool):
        n = x.shape[dim]
        if ios == 0 or n % ios:
            raise ShapeError(
                f"{op}(): {op} attempted to split along dimension {dim}, but the "
                f"size of the dimension {n} is not divisible by the split_size "
                f"{ios}!"
            )
        return tensor_split(x, int(ios), dim)
    if isinstance(ios, Tensor) or isinstance(ios, (list, tuple)):
        return tensor_split(x, list(ios) if not isinstance(ios, Tensor) else ios, dim)
    raise DTypeError(
        f"{op}(): indices_or_sections must be an int or a sequence of {what}, "
        f"got {type(ios).__name__}"
    )


@tensor_method("vsplit")
def vsplit(input, indices_or_sections):
    """:func:`tensor_split` along dim 0 of a tensor of at least 2 dims (sections must
    divide the dim evenly)."""
    return _dir_split(input, indices_or_sections, 0, "vsplit", 2, "ints")


@tensor_method("hsplit")
def hsplit(input, indices_or_sections):
    """:func:`tensor_split` along dim 1 (dim 0 of a 1-D tensor)."""
    x = to_tensor(input)
    d = 1 if x._data.ndim >= 2 else 0
    return _dir_split(x, indices_or_sections, d, "hsplit", 1, "ints")


@tensor_method("dsplit")
def dsplit(input, indices_or_sections):
    """:func:`tensor_split` along dim 2 of a tensor of at least 3 dims."""
    return _dir_split(input, indices_or_sections, 2, "dsplit", 3, "ints")


def numel(input):
    """The number of elements of ``input``."""
    if not isinstance(input, Tensor):
        raise DTypeError(f"numel(): argument 'input' must be Tensor, not {type(input).__name__}")
    return math.prod(input._data.shape)


# == in place ==============================================================================


def _fill_diagonal(x, fill_value, wrap):
    shape = tuple(x.shape)
    total = math.prod(shape)
    if len(shape) == 2:
        rows, cols = shape
        step = cols + 1
        end = total if wrap else min(rows, cols) * cols
    else:
        n = shape[0]
        step = sum(n**k for k in range(len(shape)))
        end = total
    pos = arange(total, device=x._device)
    mask = ((pos % step == 0) & (pos < end)).reshape(shape)
    return masked_fill(x, mask, fill_value)


_fill_diagonal.__name__ = "fill_diagonal"


def fill_diagonal_(self, fill_value, wrap=False):
    """Fill the main diagonal of ``self`` (2-D, or all dims equal) with ``fill_value`` in
    place; ``wrap`` continues a tall matrix's diagonal every ``cols + 1`` rows (NumPy)."""
    nd = self._data.ndim
    if nd < 2:
        raise DimError(f"fill_diagonal_: dimensions must larger than 1, got {nd}")
    if nd > 2 and len(set(self._data.shape)) != 1:
        raise ShapeError(
            f"fill_diagonal_: all dimensions of input must be of equal length, "
            f"got shape {tuple(self.shape)}"
        )
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if not isinstance(fill_value, numbers.Number):
        raise DTypeError(
            f"fill_diagonal_: fill_value must be a number, got {type(fill_value).__name__}"
        )
    if isinstance(fill_value, complex) and not self._dtype.is_complex:
        raise DTypeError(
            f"fill_diagonal_: can't fill a {self._dtype.name} tensor with the "
            f"complex value {fill_value}"
        )
    if self._dtype is _dt.bool:
        fill_value = bool(fill_value)
    elif self._dtype._cat < 2:
        fill_value = int(fill_value)  # truncates, like the C cast PyTorch does
    return apply_inplace(_fill_diagonal, self, fill_value, bool(wrap))


install(fill_diagonal_=fill_diagonal_)


def _max_(self, other):
    return apply_inplace(maximum, self, other)


def _min_(self, other):
    return apply_inplace(minimum, self, other)


install(
    maximum_=_max_,
    minimum_=_min_,
)


# == random fills ==========================================================================


def _filler(name):
    def fn(x, value):
        return FillBackward.apply(x, value=value)

    fn.__name__ = name
    return fn


_FILLERS = {n: _filler(n) for n in ("geometric", "cauchy", "log_normal")}


def _draw_into(x, name, kernel, *args, generator):
    dev = x._device
    rng = generator_for(generator, dev, name + "_")._impl
    arr = getattr(dev.backend, kernel)(rng, x._data.shape, *args, x._dtype.np)
    return apply_inplace(_FILLERS[name], x, arr)


def _float_self(x, op):
    if not isinstance(x, Tensor):
        raise DTypeError(f"{op}: expected a Tensor, got {type(x).__name__}")
    if not x._dtype.is_floating_point:
        raise DTypeError(f"{op}: expected a floating point tensor, got {x._dtype.name}")


def geometric_(self, p, *, generator=None):
    """Fill with samples of the geometric distribution on ``{1, 2, ...}``
    (:math:`P(k) = (1 - p)^{k-1} p`) in place; any dtype but bool."""
    if not isinstance(self, Tensor):
        raise DTypeError(f"geometric_: expected a Tensor, got {type(self).__name__}")
    if self._dtype is _dt.bool:
        raise DTypeError("geometric_: not implemented for bool tensors")
    p = number_arg(p, "geometric_", "p")
    if not 0 < p < 1:
        raise ArgumentError(f"geometric_: expects p to be in (0, 1), but got p={p}")
    return _draw_into(self, "geometric", "geometric", p, generator=generator)


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with samples of the Cauchy distribution in place."""
    _float_self(self, "cauchy_")
    median = number_arg(median, "cauchy_", "median")
    sigma = number_arg(sigma, "cauchy_", "sigma")
    if not sigma > 0:
        raise ArgumentError(f"cauchy_: expects sigma > 0.0, but found sigma={sigma}")
    return _draw_into(self, "cauchy", "cauchy", median, sigma, generator=generator)


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with samples of :math:`e^{\\mathcal{N}(mean, std^2)}` in place."""
    _float_self(self, "log_normal_")
    mean = number_arg(mean, "log_normal_", "mean")
    std = number_arg(std, "log_normal_", "std")
    if not std > 0:
        raise ArgumentError(f"log_normal_: expects std > 0.0, but found std={std}")
    return _draw_into(self, "log_normal", "log_normal", mean, std, generator=generator)


install(
    geometric_=geometric_,
    cauchy_=cauchy_,
    log_normal_=log_normal_,
)


def poisson(input, generator=None):
    """One sample of :math:`\\mathrm{Poisson}(\\lambda)` per element of the rates
    ``input`` (float, non-negative), in its dtype; the gradient to the rates is 0."""
    x = to_tensor(input)
    _float_self(x, "poisson")
    if x._data.size and bool(((x < 0) | ~isfinite(x)).any()):
        raise ArgumentError(
            "poisson: invalid Poisson rate, expected rate to be non-negative and finite"
        )
    dev = x._device
    rng = generator_for(generator, dev, "poisson")._impl
    arr = dev.backend.poisson(rng, x._data, x._dtype.np)
    return FillBackward.apply(x, value=arr)
