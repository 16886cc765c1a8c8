"""Tensor creation: ``zeros``, ``ones``, ``empty``, ``full``, ``eye``, ranges, the ``*_like``
and ``Tensor.new_*`` factories, ``tril``/``triu``, ``meshgrid``, and the in-place
overwrites ``fill_``/``zero_``.

Factories take the size as varargs or one sequence (``zeros(2, 3)``, ``zeros((2, 3))``),
and ``dtype=``, ``device=`` (default :func:`lucid.get_default_device`) and
``requires_grad=``; what they make is a leaf. Overwriting a tensor in place with values
that do not depend on it (``fill_``, ``zero_``, and the in-place samplers of
:mod:`lucid.ops.random.sampling`) records :class:`FillBackward`, whose gradient is zero.
"""

from __future__ import annotations

import math
import numbers
import operator

from ... import dtypes as _dt
from ..._device import device as _device_cls, get_default_device
from ..._tensor import Tensor
from ...autograd.grad_mode import STATE
from ..._tensor.factory import dtype_arg
from ...errors import DeviceMismatchError, DTypeError, ShapeError, ValueOverflowError
from ..core._bind import tensor_method
from ..core.base import Op, UnaryOp, to_tensor
from ..core.inplace import apply_inplace
from ..core.casts import _copy_value
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ..._tensor import tensor
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...types import DeviceLike, DTypeLike, SizeLike

__all__ = [
    "zeros",
    "ones",
    "empty",
    "full",
    "eye",
    "arange",
    "linspace",
    "logspace",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "tril",
    "triu",
    "meshgrid",
]

_wrap = Tensor._wrap


# -- argument helpers (shared with lucid.ops.random.sampling) ------------------------------------


def size_arg(size, op):
    """``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(Size)`` all give ``(2, 3)``."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    try:
        shape = tuple(map(operator.index, size))
    except TypeError:
        got = ", ".join(type(s).__name__ for s in size)
        raise DTypeError(f"{op}: size must be a tuple of ints, got ({got})") from None
    if any(s < 0 for s in shape):
        raise ShapeError(f"{op}: trying to create tensor with negative dimension: {list(shape)}")
    return shape


def device_arg(device):
    """The device a factory puts its result on."""
    return get_default_device() if device is None else _device_cls(device)


def number_arg(value, op, name, complex_ok=False):
    """A Python number from a number or a one-element tensor (a complex one only where
    ``complex_ok``: fill values)."""
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, numbers.Number) and (complex_ok or not isinstance(value, complex)):
        return value
    raise DTypeError(f"{op}: {name} must be a real number, got {type(value).__name__}")


def leaf(arr, dt, dev, requires_grad):
    """A new leaf tensor around backend array ``arr``."""
    t = _wrap(arr, dt, dev)
    if requires_grad:
        t.requires_grad = True
    return t


def int_arg(value, op, name):
    """``value`` as a Python int (ints, integer tensors), or a DTypeError naming ``op``."""
    try:
        return operator.index(value)
    except TypeError:
        raise DTypeError(f"{op}: {name} must be an int, got {type(value).__name__}") from None


_LIMITS: dict = {}


def _limits(dt):
    """``(lowest, max, bits)`` of dtype ``dt`` (cached: the factories' hot path)."""
    got = _LIMITS.get(dt)
    if got is None:
        if dt.is_floating_point:
            m = _dt.finfo(dt).max
            got = (-m, m, dt.itemsize * 8)
        else:
            info = _dt.iinfo(dt)
            got = (info.min, info.max, info.bits)
        _LIMITS[dt] = got
    return got


def fit_scalar(value, dt, op):
    """``value`` converted for dtype ``dt``, raising where PyTorch reports an overflow.

    Floats into integer dtypes must lie in the dtype's range and truncate toward zero;
    ints into unsigned dtypes may be as low as ``-max`` and wrap (``-1`` is 255 in uint8).
    """
    if dt.is_complex:
        return value
    if isinstance(value, complex):
        raise DTypeError(f"{op}: the complex value {value} cannot be converted to type {dt.name}")
    if dt is _dt.bool:
        return bool(value)
    lo, hi, bits = _limits(dt)
    if dt.is_floating_point:
        ok = lo <= value <= hi or not math.isfinite(value)
    elif isinstance(value, numbers.Integral):
        value = int(value)
        ok = (-hi if lo == 0 else lo) <= value <= hi
        if ok and value < lo:
            value += 1 << bits
    else:
        ok = lo <= value <= hi  # False for nan
        value = math.trunc(value) if ok else value
    if not ok:
        raise ValueOverflowError(
            f"{op}: value {value} cannot be converted to type {dt.name} without overflow"
        )
    return value


def _new(op, shape, value, dt, dev, requires_grad):
    """A leaf of ``shape`` filled with ``value`` (uninitialised when ``value`` is None)."""
    be = dev.backend
    arr = (
        be.empty(shape, dt.np)
        if value is None
        else be.full(shape, fit_scalar(value, dt, op), dt.np)
    )
    return leaf(arr, dt, dev, requires_grad)


def _dtype_or(dtype, default, op):
    return default if dtype is None else dtype_arg(dtype, op)


# -- factories ----------------------------------------------------------------------------


def zeros(
    *size: SizeLike, dtype: DTypeLike = None, device: DeviceLike = None, requires_grad: bool = False
) -> Tensor:
    """A tensor of zeros of the given size (default dtype: the default float dtype)."""
    return _new(
        "zeros",
        size_arg(size, "zeros"),
        0,
        _dtype_or(dtype, _dt.get_default_dtype(), "zeros"),
        device_arg(device),
        requires_grad,
    )


def ones(
    *size: SizeLike, dtype: DTypeLike = None, device: DeviceLike = None, requires_grad: bool = False
) -> Tensor:
    """A tensor of ones of the given size."""
    return _new(
        "ones",
        size_arg(size, "ones"),
        1,
        _dtype_or(dtype, _dt.get_default_dtype(), "ones"),
        device_arg(device),
        requires_grad,
    )


def empty(
    *size: SizeLike,
    dtype: DTypeLike = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """An uninitialised tensor of the given size."""
    return _new(
        "empty",
        size_arg(size, "empty"),
        None,
        _dtype_or(dtype, _dt.get_default_dtype(), "empty"),
        device_arg(device),
        requires_grad,
    )


def full(
    size: SizeLike,
    fill_value: complex,
    *,
    dtype: DTypeLike = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value``; the dtype is inferred from the value
    when not given (bool -> bool, int -> int64, float -> the default float dtype)."""
    value = number_arg(fill_value, "full", "fill_value", complex_ok=True)
    dt = _dt.scalar_dtype(value) if dtype is None else dtype_arg(dtype, "full")
    return _new("full", size_arg((size,), "full"), value, dt, device_arg(device), requires_grad)


def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: DTypeLike = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """The ``n x m`` identity matrix (``m`` defaults to ``n``)."""
    n = int_arg(n, "eye", "n")
    m = n if m is None else int_arg(m, "eye", "m")
    for name, v in (("n", n), ("m", m)):
        if v < 0:
            raise ShapeError(f"eye: {name} must be greater or equal to 0, got {v}")
    dt = _dtype_or(dtype, _dt.get_default_dtype(), "eye")
    dev = device_arg(device)
    return leaf(dev.backend.eye(n, m, dt.np), dt, dev, requires_grad)


def arange(
    start: Any = 0,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: DTypeLike = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """Values ``start, start + step, ...`` up to ``end`` (excluded): ``arange(end)``,
    ``arange(start, end)``, ``arange(start, end, step)``.

    The length is :math:`\\lceil (end - start) / step \\rceil`. The dtype is int64 when all
    three are ints, else the default float dtype. Float arguments with an integer ``dtype``
    follow PyTorch's two paths: for int64 the three arguments are truncated first
    (``arange(0, 2.5, dtype=int64)`` is ``[0, 1]``); for the other integer dtypes the length
    comes from the arguments as given and the values are :math:`\\mathrm{trunc}(start) +
    i\\,\\mathrm{trunc}(step)` (``arange(0, 2.5, dtype=int32)`` is ``[0, 1, 2]``, as in NumPy).
    """
    if end is None:
        start, end = 0, start
    vals = [number_arg(v, "arange", k) for k, v in (("start", start), ("end", end), ("step", step))]
    if dtype is None:
        dt = (
            _dt.int64
            if all(isinstance(v, numbers.Integral) for v in vals)
            else _dt.get_default_dtype()
        )
    else:
        dt = dtype_arg(dtype, "arange")
    if dt is _dt.bool:
        raise DTypeError("arange: not implemented for dtype bool")
    if not all(math.isfinite(v) for v in vals):
        raise ShapeError(f"arange: unsupported range: {vals[0]} -> {vals[1]} (step {vals[2]})")
    _check_arange(*vals)  # the arguments as given, then (int64) truncated
    if dt is _dt.int64:
        vals = [math.trunc(v) for v in vals]
        _check_arange(*vals)
    start, end, step = vals
    if all(isinstance(v, numbers.Integral) for v in vals):
        n = -((start - end) // step)  # exact for big ints
    else:
        n = math.ceil((end - start) / step)
    if not dt.is_floating_point:
        start, step = math.trunc(start), math.trunc(step)
    dev = device_arg(device)
    return leaf(dev.backend.arange(start, step, n, dt.np), dt, dev, requires_grad)


def _check_arange(start, end, step):
    if step == 0:
        raise ShapeError("arange: step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise ShapeError(
            f"arange: upper bound and lower bound inconsistent with step sign "
            f"(start={start}, end={end}, step={step})"
        )


def _spaced(op, start, end, steps, dtype):
    start = number_arg(start, op, "start", complex_ok=True)
    end = number_arg(end, op, "end", complex_ok=True)
    steps = int_arg(steps, op, "steps")
    if steps < 0:
        raise ShapeError(f"{op}: number of steps must be non-negative, got {steps}")
    cx = isinstance(start, complex) or isinstance(end, complex)
    dt = _dtype_or(dtype, _dt.get_default_complex_dtype() if cx else _dt.get_default_dtype(), op)
    if cx and not dt.is_complex:
        raise DTypeError(f"{op}: complex start or end need a complex dtype, got {dt.name}")
    if dt is _dt.bool and steps > 1:  # PyTorch has no bool kernel; 0 or 1 steps need none
        raise DTypeError(f"{op}: not implemented for dtype bool")
    if dt._cat < 2 and dt is not _dt.bool:
        if op == "linspace" and steps:  # the ends the result holds are converted to the
            start = fit_scalar(start, dt, op)  # dtype first, as in PyTorch (must fit; wrap)
            end = fit_scalar(end, dt, op) if steps > 1 else end
        start, end = math.trunc(start), math.trunc(end)
    return start, end, steps, dt


def linspace(
    start: Any,
    end: Any,
    steps: int,
    *,
    dtype: DTypeLike = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` (both included)."""
    start, end, steps, dt = _spaced("linspace", start, end, steps, dtype)
    dev = device_arg(device)
    return leaf(dev.backend.linspace(start, end, steps, dt.np), dt, dev, requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """``base ** linspace(start, end, steps)``. With an integer ``dtype`` the exponents are
    truncated first, except for a single step, which is ``base ** start`` truncated once
    (PyTorch's two paths: ``logspace(0.5, 2, 1, dtype=int64)`` is ``[3]``)."""
    raw = number_arg(start, "logspace", "start", complex_ok=True)
    start, end, steps, dt = _spaced("logspace", start, end, steps, dtype)
    if steps == 1 and dt._cat < 2 and dt is not _dt.bool:
        start = raw
        fit_scalar(base**raw, dt, "logspace")  # the one value must fit, as in PyTorch
    base = number_arg(base, "logspace", "base")
    dev = device_arg(device)
    return leaf(dev.backend.logspace(start, end, steps, base, dt.np), dt, dev, requires_grad)


# -- *_like and Tensor.new_* ----------------------------------------------------------------


def _like(op, input, value, dtype, device, requires_grad):
    if not isinstance(input, Tensor):
        raise DTypeError(f"{op}: expected a Tensor, got {type(input).__name__}")
    return _new(
        op,
        input._data.shape,
        value,
        _dtype_or(dtype, input._dtype, op),
        input._device if device is None else _device_cls(device),
        requires_grad,
    )


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """Zeros of ``input``'s shape (and dtype and device unless given)."""
    return _like("zeros_like", input, 0, dtype, device, requires_grad)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """Ones of ``input``'s shape (and dtype and device unless given)."""
    return _like("ones_like", input, 1, dtype, device, requires_grad)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """An uninitialised tensor of ``input``'s shape (and dtype and device unless given)."""
    return _like("empty_like", input, None, dtype, device, requires_grad)


def full_like(
    input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None
):
    """``fill_value`` in ``input``'s shape (and dtype and device unless given)."""
    return _like(
        "full_like",
        input,
        number_arg(fill_value, "full_like", "fill_value", True),
        dtype,
        device,
        requires_grad,
    )


def _new_args(self, dtype, device, op):
    return (
        self._dtype if dtype is None else dtype_arg(dtype, op),
        self._device if device is None else _device_cls(device),
    )


def _new_filled(op, value, doc):
    def method(self, *size, dtype=None, device=None, requires_grad=False):
        dt, dev = _new_args(self, dtype, device, op)
        return _new(op, size_arg(size, op), value, dt, dev, requires_grad)

    method.__name__, method.__doc__ = op, doc
    return tensor_method(op)(method)


_new_filled(
    "new_zeros", 0, "Zeros of the given size, with ``self``'s dtype and device unless given."
)
_new_filled("new_ones", 1, "Ones of the given size, with ``self``'s dtype and device unless given.")
_new_filled(
    "new_empty",
    None,
    "An uninitialised tensor of the given size, with ``self``'s dtype and device unless given.",
)


@tensor_method("new_full")
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """A tensor of ``size`` filled with ``fill_value``, with ``self``'s dtype and device
    unless given."""
    dt, dev = _new_args(self, dtype, device, "new_full")
    return _new(
        "new_full",
        size_arg((size,), "new_full"),
        number_arg(fill_value, "new_full", "fill_value", True),
        dt,
        dev,
        requires_grad,
    )


@tensor_method("new_tensor")
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A copy of ``data`` as a tensor, with ``self``'s dtype and device unless given."""
    dt, dev = _new_args(self, dtype, device, "new_tensor")
    return tensor(data, dtype=dt, device=dev, requires_grad=requires_grad)


# -- tril / triu ----------------------------------------------------------------------------


class _TriangleBackward(UnaryOp):
    """The formulas tril and triu share: the gradient is the same triangle of ``g``."""

    __slots__ = ()

    def grad(self, F, g, x, out):
        return self.dispatch(F, g, **self.params)


@register
class TrilBackward(_TriangleBackward):
    r"""Autograd node for the lower triangle :math:`y = \mathrm{tril}(x, k)` of the last two
    dims. Saves nothing: the mask is fixed by the shape and ``k``.

    Math
    ----
    .. math:: y_{\ldots, i, j} = \begin{cases} x_{\ldots, i, j} & j - i \le k \\
              0 & \text{otherwise} \end{cases}, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = \mathrm{tril}(g, k)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"tril"``, ``AmpPolicy.KEEP_INPUT`` (a mask; any dtype, integers and bool too).
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.tril`` (batched over leading dims). ``k`` beyond the matrix keeps all
    (``k >= cols - 1``) or nothing (``k < -rows``); NaN above the diagonal becomes 0.
    """

    __slots__ = ()
    schema_v1 = OpSchema("tril", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, diagonal):
        return be.tril(x, diagonal)


@register
class TriuBackward(_TriangleBackward):
    r"""Autograd node for the upper triangle :math:`y = \mathrm{triu}(x, k)` of the last two
    dims. Saves nothing: the mask is fixed by the shape and ``k``.

    Math
    ----
    .. math:: y_{\ldots, i, j} = \begin{cases} x_{\ldots, i, j} & j - i \ge k \\
              0 & \text{otherwise} \end{cases}, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = \mathrm{triu}(g, k)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"triu"``, ``AmpPolicy.KEEP_INPUT`` (a mask; any dtype, integers and bool too).
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.triu`` (batched over leading dims). ``k`` beyond the matrix keeps all
    (``k <= -(rows - 1)``) or nothing (``k >= cols``); NaN below the diagonal becomes 0.
    """

    __slots__ = ()
    schema_v1 = OpSchema("triu", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, diagonal):
        return be.triu(x, diagonal)


def _triangle(cls, input, diagonal):
    x = to_tensor(input)
    name = cls.schema_v1.name
    if x._data.ndim < 2:
        raise ShapeError(
            f"{name}: input tensor must have at least 2 dimensions, got {x._data.ndim}"
        )
    return cls.call(x, diagonal=int_arg(diagonal, name, "diagonal"))


@tensor_method("tril")
def tril(input, diagonal=0):
    """The lower triangle of the last two dims (entries with ``j - i <= diagonal``)."""
    return _triangle(TrilBackward, input, diagonal)


@tensor_method("triu")
def triu(input, diagonal=0):
    """The upper triangle of the last two dims (entries with ``j - i >= diagonal``)."""
    return _triangle(TriuBackward, input, diagonal)


@tensor_method("tril_")
def tril_(input, diagonal=0):
    """In-place :func:`tril`."""
    return apply_inplace(tril, input, diagonal)


@tensor_method("triu_")
def triu_(input, diagonal=0):
    """In-place :func:`triu`."""
    return apply_inplace(triu, input, diagonal)


# -- meshgrid -------------------------------------------------------------------------------


def meshgrid(*tensors, indexing="ij"):
    """Coordinate grids from 1-D (or 0-D) tensors: output ``i`` varies along dim ``i``
    (``"ij"``), or with the first two dims swapped (``"xy"``, Cartesian). The outputs are
    broadcast views of the inputs, differentiable."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise ShapeError("meshgrid: expects a non-empty list of tensors")
    if indexing not in ("ij", "xy"):
        raise ShapeError(f"meshgrid: indexing must be one of 'xy' or 'ij', got {indexing!r}")
    first = tensors[0]
    for t in tensors:
        if not isinstance(t, Tensor):
            raise DTypeError(f"meshgrid: expected Tensors, got {type(t).__name__}")
        if t._data.ndim > 1:
            raise ShapeError(
                f"meshgrid: expected 0D or 1D tensors, got a tensor of shape {tuple(t._data.shape)}"
            )
        if t._dtype is not first._dtype:
            raise DTypeError(
                f"meshgrid: expects all tensors to have the same dtype, got "
                f"{first._dtype.name} and {t._dtype.name}"
            )
        if t._device is not first._device:
            raise DeviceMismatchError(
                f"meshgrid: expects all tensors to be on the same "
                f"device, got {first._device} and {t._device}"
            )
    axes = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) > 1:
        axes[0], axes[1] = 1, 0
    shape = [0] * len(tensors)
    for t, ax in zip(tensors, axes):
        shape[ax] = t._data.size
    out = []
    for t, ax in zip(tensors, axes):
        view = [1] * len(tensors)
        view[ax] = shape[ax]
        out.append(t.reshape(view).expand(shape))
    return tuple(out)


# -- overwriting in place: fill_, zero_ (and the in-place samplers) -------------------------


@register
class FillBackward(Op):
    r"""Autograd node of overwriting tensors with values that do not depend on them:
    ``fill_``, ``zero_``, the in-place samplers (``normal_``, ``uniform_``, ...) and the
    samplers with tensor parameters (``normal(mean, std)``, ``bernoulli(p)``). Saves
    nothing: the gradient is zero.

    Math
    ----
    .. math:: y = v, \qquad \frac{\partial \mathcal{L}}{\partial x_k} = 0

    for every input :math:`x_k`, as in PyTorch (samples are not reparameterised).

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"fill"``, ``AmpPolicy.KEEP_INPUT``, any number of inputs.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    ``dispatch`` returns the array ``params["value"]`` the wrapper made (a 0-d fill value,
    or samples drawn by the backend's random kernels); the node only records that the
    inputs' gradients are zero. Backends: ``zeros_like`` of the incoming gradient.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "fill", 1, AmpPolicy.KEEP_INPUT, input_arity=-1, complex_grad="holomorphic"
    )

    @staticmethod
    def dispatch(be, *inputs, value):
        return value

    def grad(self, F, g, *inputs_and_out):
        return (F.zeros_like(g),) * len(self.in_meta)


def _overwriter(name):
    def fn(x, value):
        return FillBackward.apply(x, value=value)

    fn.__name__ = name
    return fn


_OVERWRITERS = {
    n: _overwriter(n)
    for n in ("fill", "zero", "normal", "uniform", "bernoulli", "random", "exponential")
}


def overwrite_(x, value, name):
    """Write backend array ``value`` (``x``'s dtype, broadcasting to it) into ``x`` in place
    as op ``name``: leaf checks, version bump and a zero-gradient history."""
    return apply_inplace(_OVERWRITERS[name], x, value)


def _fill_from_tensor(x, value):
    return _copy_value(x, value)


_fill_from_tensor.__name__ = "fill"


@tensor_method("fill_")
def fill_(input, value):
    """Fill ``input`` with ``value`` (a number or a 0-d tensor) in place."""
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise ShapeError(
                f"fill_: only supports 0-dimension value tensor but got tensor "
                f"with {value._data.ndim} dimensions"
            )
        if value._requires_grad and STATE.grad_enabled:
            return apply_inplace(_fill_from_tensor, input, value)
    value = number_arg(value, "fill_", "value", complex_ok=True)
    dt = input._dtype
    arr = input._device._backend.full((), fit_scalar(value, dt, "fill_"), dt.np)
    return overwrite_(input, arr, "fill")


@tensor_method("zero_")
def zero_(input):
    """Fill ``input`` with zeros in place."""
    return overwrite_(input, input._device._backend.full((), 0, input._dtype.np), "zero")
