"""Random sampling: ``rand``, ``randn``, ``randint``, ``randperm``, ``normal``,
``bernoulli``, ``multinomial``, the ``*_like`` samplers and the in-place samplers
(``normal_``, ``uniform_``, ``bernoulli_``, ``random_``, ``exponential_``).

Every function takes ``generator=`` (a :class:`lucid.Generator`); without one it draws from
the default generator of the output's device. The kernels live in the backend
(:class:`~lucid.backend.interface.random.RandomKernels`). Samples are not differentiable:
samplers with tensor parameters, and in-place samplers on tensors with history, record
:class:`~lucid.ops.creation.creation.FillBackward` (zero gradient), as PyTorch does.
"""

from __future__ import annotations

import math

from ... import dtypes as _dt
from ..._device import device as _device_cls
from ..._tensor import Tensor
from ...errors import DeviceMismatchError, DTypeError, ShapeError
from ...random import generator_for
from ..core._bind import tensor_method
from ..creation.creation import (
    FillBackward,
    device_arg,
    int_arg,
    leaf,
    number_arg,
    overwrite_,
    size_arg,
)
from ..shape.reshape import broadcast_shapes

__all__ = [
    "rand",
    "randn",
    "randint",
    "randperm",
    "normal",
    "bernoulli",
    "multinomial",
    "rand_like",
    "randn_like",
    "randint_like",
]


def _rng(generator, dev, op):
    return generator_for(generator, dev, op)._impl


def _float_dtype(dtype, op, complex_ok=False):
    dt = _dt.get_default_dtype() if dtype is None else _dt.as_dtype(dtype)
    if not (dt.is_floating_point or complex_ok and dt.is_complex):
        raise DTypeError(f"{op}: expected a floating point dtype, got {dt.name}")
    return dt


def _parts(be, dt, shape, draw):
    """``draw(shape, npdtype)`` in ``dt``; a complex ``dt`` draws its real and imaginary
    parts independently, in the parts' dtype (as PyTorch's complex rand/randn)."""
    if dt.is_complex:
        return be.view_as_complex(draw(tuple(shape) + (2,), dt.to_real().np))
    return draw(shape, dt.np)


def _part_std(std, dt):
    """The standard deviation of each part: :math:`\\sigma/\\sqrt 2` for complex (PyTorch's
    complex normal: :math:`E|z - \\mu|^2 = \\sigma^2`)."""
    return std * 0.5**0.5 if dt.is_complex else std


def _float_tensor(t, op, complex_ok=False):
    if not isinstance(t, Tensor):
        raise DTypeError(f"{op}: expected a Tensor, got {type(t).__name__}")
    if not (t._dtype.is_floating_point or complex_ok and t._dtype.is_complex):
        raise DTypeError(f"{op}: expected a floating point tensor, got {t._dtype.name}")
    return t


def _like_args(input, dtype, device, op):
    if not isinstance(input, Tensor):
        raise DTypeError(f"{op}: expected a Tensor, got {type(input).__name__}")
    return (
        input._data.shape,
        input._dtype if dtype is None else _dt.as_dtype(dtype),
        input._device if device is None else _device_cls(device),
    )


def _check_std(std, op):
    if not std >= 0:
        raise ShapeError(f"{op}: expects std >= 0.0, but found std {std}")


def _int_range(low, high, dt, op):
    """``[low, high)`` checked: non-empty, and within an integer dtype's range."""
    if low >= high:
        raise ShapeError(
            f"{op}: expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    if dt.is_complex:
        raise DTypeError(f"{op}: expected an integral, floating point or bool dtype, got {dt.name}")
    if not dt.is_floating_point:
        info = _dt.iinfo(dt)
        if low < info.min:
            raise DTypeError(f"{op}: from={low} is out of bounds for {dt.name}")
        if high - 1 > info.max:
            raise DTypeError(f"{op}: to - 1 = {high - 1} is out of bounds for {dt.name}")


# -- samplers -----------------------------------------------------------------------------


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Samples of :math:`U[0, 1)` of the given size (complex: both parts)."""
    shape, dt = size_arg(size, "rand"), _float_dtype(dtype, "rand", complex_ok=True)
    dev = device_arg(device)
    be, rng = dev.backend, _rng(generator, dev, "rand")
    arr = _parts(be, dt, shape, lambda s, npd: be.uniform(rng, s, 0.0, 1.0, npd))
    return leaf(arr, dt, dev, requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Samples of the standard normal :math:`\\mathcal{N}(0, 1)` of the given size; complex:
    the standard complex normal (each part :math:`\\mathcal{N}(0, 1/2)`, as PyTorch)."""
    shape, dt = size_arg(size, "randn"), _float_dtype(dtype, "randn", complex_ok=True)
    dev = device_arg(device)
    be, rng = dev.backend, _rng(generator, dev, "randn")
    std = _part_std(1.0, dt)
    arr = _parts(be, dt, shape, lambda s, npd: be.normal(rng, s, 0.0, std, npd))
    return leaf(arr, dt, dev, requires_grad)


def randint(
    low=0, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False
):
    """Integers uniform on ``[low, high)``: ``randint(high, size)`` or
    ``randint(low, high, size)``; dtype int64 unless given."""
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if size is None:
        raise DTypeError("randint: missing the size argument (a tuple of ints)")
    low, high = int_arg(low, "randint", "low"), int_arg(high, "randint", "high")
    shape = size_arg((size,), "randint")
    dt = _dt.int64 if dtype is None else _dt.as_dtype(dtype)
    _int_range(low, high, dt, "randint")
    dev = device_arg(device)
    arr = dev.backend.randint(_rng(generator, dev, "randint"), shape, low, high, dt.np)
    return leaf(arr, dt, dev, requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype`` is given)."""
    n = int_arg(n, "randperm", "n")
    if n < 0:
        raise ShapeError(f"randperm: n must be non-negative, got {n}")
    dt = _dt.int64 if dtype is None else _dt.as_dtype(dtype)
    dev = device_arg(device)
    arr = dev.backend.permutation(_rng(generator, dev, "randperm"), n, dt.np)
    return leaf(arr, dt, dev, requires_grad)


def normal(
    mean, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False
):
    """Samples of :math:`\\mathcal{N}(mean, std^2)`.

    ``normal(mean_tensor, std_tensor)``, ``normal(mean_tensor, std=1.0)``,
    ``normal(mean, std_tensor)``: the shape broadcasts the tensors, the dtype is ``mean``'s
    (else ``std``'s); ``normal(mean, std, size)`` with numbers. ``std`` must be >= 0.
    """
    tensors = [t for t in (mean, std) if isinstance(t, Tensor)]
    if not tensors:
        if size is None:
            raise DTypeError("normal: expected a size when mean and std are numbers")
        mean, std = number_arg(mean, "normal", "mean"), number_arg(std, "normal", "std")
        _check_std(std, "normal")
        shape, dt = size_arg((size,), "normal"), _float_dtype(dtype, "normal", complex_ok=True)
        dev = device_arg(device)
        be, rng, std = dev.backend, _rng(generator, dev, "normal"), _part_std(std, dt)
        arr = _parts(be, dt, shape, lambda s, npd: be.normal(rng, s, mean, std, npd))
        return leaf(arr, dt, dev, requires_grad)
    if size is not None:
        raise DTypeError("normal: size is only allowed when mean and std are numbers")
    for t in tensors:
        _float_tensor(t, "normal")
    dev = tensors[0]._device
    if tensors[-1]._device is not dev:
        raise DeviceMismatchError(
            f"normal: expected mean and std on the same device, got {dev} and {tensors[-1]._device}"
        )
    if isinstance(std, Tensor):
        if not bool((std._data >= 0).all()):
            raise ShapeError("normal: expects all elements of std >= 0.0")
        s = std._data
    else:
        s = number_arg(std, "normal", "std")
        _check_std(s, "normal")
    m = mean._data if isinstance(mean, Tensor) else number_arg(mean, "normal", "mean")
    try:
        shape = tuple(broadcast_shapes(*(t._data.shape for t in tensors)))
    except ShapeError:
        raise ShapeError(
            f"normal: mean of shape {tuple(mean.shape)} and std of shape "
            f"{tuple(std.shape)} cannot be broadcast together"
        ) from None
    dt = tensors[0]._dtype
    arr = dev.backend.normal(_rng(generator, dev, "normal"), shape, m, s, dt.np)
    out = FillBackward.apply(*tensors, value=arr)
    if requires_grad:
        out.requires_grad = True
    return out


def _check_p(p, op):
    """A probability number in [0, 1], or a tensor of them (its backend array)."""
    if isinstance(p, Tensor):
        if not bool(((p._data >= 0) & (p._data <= 1)).all()):
            raise ShapeError(f"{op}: expects all probabilities p to be in [0, 1]")
        return p._data
    p = number_arg(p, op, "p")
    if not 0 <= p <= 1:
        raise ShapeError(f"{op}: expects p to be in [0, 1], but got p={p}")
    return p


@tensor_method("bernoulli")
def bernoulli(input, p=None, *, generator=None):
    """0/1 samples, 1 with probability ``input`` (element-wise), or with probability ``p``
    in ``input``'s shape when ``p`` is given; ``input``'s dtype."""
    if p is None:
        prob = _check_p(_float_tensor(input, "bernoulli"), "bernoulli")
    elif isinstance(input, Tensor):
        prob = _check_p(p, "bernoulli")
    else:
        raise DTypeError(f"bernoulli: expected a Tensor, got {type(input).__name__}")
    dev = input._device
    arr = dev.backend.bernoulli(
        _rng(generator, dev, "bernoulli"), input._data.shape, prob, input._dtype.np
    )
    return FillBackward.apply(input, value=arr)


@tensor_method("multinomial")
def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Category indices (int64) drawn from the non-negative weights in each row of 1-D or
    2-D ``input``; without ``replacement`` a row never repeats an index."""
    op = "multinomial"
    _float_tensor(input, op)
    nd = input._data.ndim
    if nd not in (1, 2):
        raise ShapeError(f"{op}: prob_dist must be 1 or 2 dim, got {nd} dims")
    k = int_arg(num_samples, op, "num_samples")
    if k <= 0:
        raise ShapeError(f"{op}: cannot sample n_sample <= 0 samples (got {k})")
    n = input._data.shape[-1]
    if not replacement and k > n:
        raise ShapeError(
            f"{op}: cannot sample n_sample > prob_dist.size(-1) samples "
            f"without replacement ({k} > {n})"
        )
    probs = input._data.reshape((input._data.shape[0] if nd == 2 else 1, n))
    if probs.shape[0]:
        if not bool(((probs >= 0) & (probs < math.inf)).all()):
            raise ShapeError(f"{op}: probability tensor contains either inf, nan or element < 0")
        if not bool((probs.sum(axis=1) > 0).all()):
            raise ShapeError(f"{op}: invalid multinomial distribution (sum of probabilities <= 0)")
    dev = input._device
    arr = dev.backend.multinomial(_rng(generator, dev, op), probs, k, bool(replacement))
    return leaf(arr.reshape(input._data.shape[:-1] + (k,)), _dt.int64, dev, False)


# -- *_like ---------------------------------------------------------------------------------


def rand_like(
    input, *, generator=None, dtype=None, device=None, requires_grad=False, memory_format=None
):
    """:func:`rand` in ``input``'s shape (and dtype and device unless given)."""
    shape, dt, dev = _like_args(input, dtype, device, "rand_like")
    return rand(shape, generator=generator, dtype=dt, device=dev, requires_grad=requires_grad)


def randn_like(
    input, *, generator=None, dtype=None, device=None, requires_grad=False, memory_format=None
):
    """:func:`randn` in ``input``'s shape (and dtype and device unless given)."""
    shape, dt, dev = _like_args(input, dtype, device, "randn_like")
    return randn(shape, generator=generator, dtype=dt, device=dev, requires_grad=requires_grad)


def randint_like(
    input,
    low=0,
    high=None,
    *,
    generator=None,
    dtype=None,
    device=None,
    requires_grad=False,
    memory_format=None,
):
    """:func:`randint` in ``input``'s shape: ``randint_like(x, high)`` or
    ``randint_like(x, low, high)``."""
    shape, dt, dev = _like_args(input, dtype, device, "randint_like")
    return randint(
        low, high, shape, generator=generator, dtype=dt, device=dev, requires_grad=requires_grad
    )


# -- in-place samplers ----------------------------------------------------------------------


def _sample_into(x, name, kernel, *args, generator):
    """Draw ``kernel(rng, shape, *args, dtype)`` and write it into ``x`` as op ``name``
    (complex ``x``: each part drawn so)."""
    dev = x._device
    be = dev.backend
    rng = _rng(generator, dev, name + "_")
    arr = _parts(
        be, x._dtype, x._data.shape, lambda s, npd: getattr(be, kernel)(rng, s, *args, npd)
    )
    return overwrite_(x, arr, name)


@tensor_method("normal_")
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with samples of :math:`\\mathcal{N}(mean, std^2)` in place (complex: each part
    :math:`\\mathcal{N}(mean, std^2/2)`, as PyTorch)."""
    _float_tensor(self, "normal_", complex_ok=True)
    mean, std = number_arg(mean, "normal_", "mean"), number_arg(std, "normal_", "std")
    _check_std(std, "normal_")
    return _sample_into(
        self, "normal", "normal", mean, _part_std(std, self._dtype), generator=generator
    )


@tensor_method("uniform_")
def uniform_(self, from_=0.0, to=1.0, *, generator=None):
    """Fill with samples of :math:`U[from, to)` in place (complex: each part)."""
    _float_tensor(self, "uniform_", complex_ok=True)
    lo, hi = number_arg(from_, "uniform_", "from"), number_arg(to, "uniform_", "to")
    if not lo <= hi:
        raise ShapeError(
            f"uniform_: expects to return a [from, to) range, but found from={lo} > to={hi}"
        )
    return _sample_into(self, "uniform", "uniform", lo, hi, generator=generator)


@tensor_method("bernoulli_")
def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1 samples, 1 with probability ``p`` (a number or a tensor broadcasting
    to ``self``), in place; any dtype."""
    if isinstance(p, Tensor):
        try:
            ok = tuple(broadcast_shapes(p._data.shape, self._data.shape)) == self._data.shape
        except ShapeError:
            ok = False
        if not ok:
            raise ShapeError(
                f"bernoulli_: p of shape {tuple(p.shape)} cannot be broadcast "
                f"to the tensor's shape {tuple(self.shape)}"
            )
    return _sample_into(
        self, "bernoulli", "bernoulli", _check_p(p, "bernoulli_"), generator=generator
    )


def _digits(dt):
    """The mantissa bits (with the implicit one) of a float dtype: 24 for float32."""
    return round(-math.log2(_dt.finfo(dt).eps)) + 1


@tensor_method("random_")
def random_(self, from_=None, to=None, *, generator=None):
    """Fill with integers uniform on ``[from, to)`` in place: ``random_(to)``,
    ``random_(from, to)``; ``random_()`` covers ``[0, 2**mantissa]`` for float dtypes and
    ``[0, max]`` for integer dtypes."""
    dt = self._dtype
    if from_ is None and to is None:
        low = 0
        high = (1 << _digits(dt)) + 1 if dt.is_floating_point else _dt.iinfo(dt).max + 1
    else:
        low, high = (0, from_) if to is None else (from_, to)
        low, high = int_arg(low, "random_", "from"), int_arg(high, "random_", "to")
    _int_range(low, high, dt, "random_")
    return _sample_into(self, "random", "randint", low, high, generator=generator)


@tensor_method("exponential_")
def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with samples of :math:`\\mathrm{Exp}(\\lambda)` in place."""
    _float_tensor(self, "exponential_")
    lambd = number_arg(lambd, "exponential_", "lambd")
    if not lambd > 0:
        raise ShapeError(f"exponential_: expects lambda > 0.0, but found lambda={lambd}")
    return _sample_into(self, "exponential", "exponential", lambd, generator=generator)
