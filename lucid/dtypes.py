"""Dtypes, type promotion and numeric limits.

A :class:`dtype` names one element type and knows its NumPy storage type (``bfloat16``
comes from ``ml_dtypes``). Promotion follows PyTorch: types are ordered by category
(bool < integer < floating < complex); among tensors of one category the wider type wins, a
0-d tensor only matters when its category is higher than every dimensioned operand's, and a
Python scalar is *weak*: it only sets the category (``float32 tensor * 2.0`` stays float32,
an ``int32 tensor * 2.5`` becomes the default float dtype).

Complex: ``complex64`` (``cfloat``, two float32) and ``complex128`` (``cdouble``). A complex
and a floating type promote to the complex type whose parts hold both (``float64 +
complex64`` is ``complex128``; ``float16``/``bfloat16 + complex64`` is ``complex64``); a
complex operand of a lower priority group keeps the floating precision of a higher one
(``float64 tensor * 1j`` is ``complex128``, ``float32 tensor + 0-d complex128`` is
``complex64``), and a Python complex alone takes the default complex dtype (``complex64``
while the default float is ``float32``, ``complex128`` with ``float64``). PyTorch's
``complex32`` is not provided: where PyTorch makes one (``float16 tensor * 1j``) Lucid
makes ``complex64``.
"""

from __future__ import annotations

import builtins

import ml_dtypes
import numpy as np

from .errors import DTypeError

__all__ = [
    "dtype",
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "half",
    "bfloat16",
    "float32",
    "float",
    "float64",
    "double",
    "long",
    "int",
    "short",
    "promote_types",
    "result_type",
    "can_cast",
    "set_default_dtype",
    "get_default_dtype",
    "finfo",
    "iinfo",
    "as_dtype",
    "complex64",
    "cfloat",
    "complex128",
    "cdouble",
    "bool_",
]

_py_bool, _py_int, _py_float, _py_complex = bool, int, float, complex


class dtype:
    """One element type: its name, width, category and NumPy storage type."""

    __slots__ = (
        "name",
        "itemsize",
        "is_floating_point",
        "is_complex",
        "is_signed",
        "np",
        "_rank",
        "_cat",
        "_grad",
    )

    def __init__(self, name, np_type, rank, category):
        self.name = name
        self.np = np.dtype(np_type)
        self.itemsize = self.np.itemsize
        self.is_floating_point = category == 2
        self.is_complex = category == 3
        self.is_signed = name not in ("bool", "uint8")
        self._rank = rank  # position in the promotion lattice
        self._cat = category  # 0 bool, 1 integer, 2 floating, 3 complex
        self._grad = category >= 2  # tensors of this dtype can carry gradients

    def to_real(self):
        """The dtype of the real and imaginary parts of a complex dtype (``complex64`` ->
        ``float32``); any other dtype is returned as is."""
        return _REAL_OF.get(self, self)

    def to_complex(self):
        """The complex dtype whose parts have this floating dtype (``float32`` ->
        ``complex64``); a complex dtype is returned as is."""
        got = _COMPLEX_OF.get(self)
        if got is None:
            raise DTypeError(
                f"to_complex: no complex dtype for {self} (complex64 holds "
                "float32 parts, complex128 float64; complex32 is not supported)"
            )
        return got

    def __repr__(self):
        return f"lucid.{self.name}"

    def __reduce__(self):
        return (as_dtype, (self.name,))


bool = dtype("bool", np.bool_, 0, 0)
bool_ = bool  # NumPy's spelling
uint8 = dtype("uint8", np.uint8, 1, 1)
int8 = dtype("int8", np.int8, 2, 1)
int16 = dtype("int16", np.int16, 3, 1)
int32 = dtype("int32", np.int32, 4, 1)
int64 = dtype("int64", np.int64, 5, 1)
float16 = dtype("float16", np.float16, 6, 2)
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, 7, 2)
float32 = dtype("float32", np.float32, 8, 2)
float64 = dtype("float64", np.float64, 9, 2)
complex64 = dtype("complex64", np.complex64, 10, 3)
complex128 = dtype("complex128", np.complex128, 11, 3)
half, float, double, long, int, short = float16, float32, float64, int64, int32, int16
cfloat, cdouble = complex64, complex128

ALL = (
    bool,
    uint8,
    int8,
    int16,
    int32,
    int64,
    float16,
    bfloat16,
    float32,
    float64,
    complex64,
    complex128,
)
FLOATING = (float16, bfloat16, float32, float64)
COMPLEX = (complex64, complex128)
_REAL_OF = {complex64: float32, complex128: float64}
_COMPLEX_OF = {
    float32: complex64,
    float64: complex128,
    complex64: complex64,
    complex128: complex128,
}
_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update(
    half=float16,
    float=float32,
    double=float64,
    long=int64,
    int=int32,
    short=int16,
    cfloat=complex64,
    cdouble=complex128,
)
_BY_NP = {d.np: d for d in ALL}


def _complex_holding(f: dtype) -> dtype:
    """The complex dtype a floating ``f`` promotes to with a complex operand (float16 and
    bfloat16 parts widen to float32: no complex32)."""
    return complex128 if f is float64 else complex64


def _promote_pair(a: dtype, b: dtype) -> dtype:
    if a is b:
        return a
    if a._cat == 3 or b._cat == 3:
        c, o = (a, b) if a._cat == 3 else (b, a)
        if o._cat == 3:
            return a if a._rank > b._rank else b
        if o._cat == 2:
            return _complex_holding(_promote_pair(c.to_real(), o))
        return c
    if a._cat != b._cat:
        return a if a._cat > b._cat else b
    if a._cat == 1 and (a is uint8 or b is uint8):
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    if {a, b} == {float16, bfloat16}:
        return float32
    return a if a._rank > b._rank else b


_TABLE = {(a, b): _promote_pair(a, b) for a in ALL for b in ALL}


def promote_types(a: dtype, b: dtype) -> dtype:
    """The smallest dtype both ``a`` and ``b`` cast to safely (PyTorch's table)."""
    return _TABLE[as_dtype(a), as_dtype(b)]


_default_float = float32


def set_default_dtype(d) -> None:
    """Set the dtype of Python floats and of float factories (float32 or float64)."""
    global _default_float
    d = as_dtype(d)
    if not d.is_floating_point:
        raise DTypeError(f"set_default_dtype: got {d}, expected a floating dtype")
    _default_float = d


def get_default_dtype() -> dtype:
    """The dtype Python floats and float factories take (float32 unless changed)."""
    return _default_float


def get_default_complex_dtype() -> dtype:
    """The dtype Python complex numbers take: ``complex128`` when the default float dtype
    is float64, else ``complex64``."""
    return _complex_holding(_default_float)


def scalar_dtype(value) -> dtype:
    """The dtype a Python scalar takes when it makes a tensor."""
    if isinstance(value, _py_bool) or isinstance(value, np.bool_):
        return bool
    if isinstance(value, (_py_int, np.integer)):
        return int64
    if isinstance(value, (_py_float, np.floating)):
        return _default_float
    if isinstance(value, np.complexfloating):
        return _BY_NP[value.dtype]
    if isinstance(value, _py_complex):
        return _complex_holding(_default_float)
    raise DTypeError(f"cannot infer a dtype from {type(value).__name__} {value!r}")


def _combine(higher, lower):
    """PyTorch's merge of a higher-priority group's dtype with a lower one's."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher._cat == 3:
        return higher
    if lower._cat == 3:  # keeps a floating group's precision (float64 * 1j)
        return _complex_holding(higher) if higher._cat == 2 else lower
    if higher._cat == 2:
        return higher
    if higher is bool or lower._cat == 2:
        return _TABLE[higher, lower]
    return higher


def result_type(*operands) -> dtype:
    """The dtype an element-wise op over ``operands`` (tensors, scalars) computes in."""
    dims = zeros = scalars = None
    for op in operands:
        d = getattr(op, "_dtype", None)
        if d is not None:
            if op._data.ndim:
                dims = d if dims is None else _TABLE[dims, d]
            else:
                zeros = d if zeros is None else _TABLE[zeros, d]
        else:
            d = scalar_dtype(op)
            scalars = d if scalars is None else _TABLE[scalars, d]
    return _combine(dims, _combine(zeros, scalars))


def can_cast(from_, to) -> builtins.bool:
    """Whether PyTorch's in-place rules allow writing ``from_`` into ``to`` (no category drop)."""
    return as_dtype(from_)._cat <= as_dtype(to)._cat


def as_dtype(d) -> dtype:
    """Normalise a Lucid dtype, a name, a Python type or a NumPy dtype to a Lucid dtype."""
    if d.__class__ is dtype:
        return d
    if isinstance(d, str):
        got = _BY_NAME.get(d.removeprefix("lucid.").removeprefix("torch."))
        if got is not None:
            return got
    elif d is _py_float:
        return float64  # as in PyTorch: dtype=float means double
    elif d is _py_int:
        return int64
    elif d is _py_bool:
        return bool
    else:
        name = getattr(d, "name", None)  # a torch.dtype or similar
        if isinstance(name, str) and name in _BY_NAME:
            return _BY_NAME[name]
        try:
            got = _BY_NP.get(np.dtype(d))
        except TypeError:
            got = None
        if got is None and isinstance(d, object) and str(d).startswith("torch."):
            got = _BY_NAME.get(str(d)[6:])
        if got is not None:
            return got
    raise DTypeError(f"unsupported dtype {d!r}; expected one of " + ", ".join(x.name for x in ALL))


def from_numpy_dtype(npd) -> dtype:
    """The Lucid dtype of a NumPy dtype, or a DTypeError naming it."""
    got = _BY_NP.get(npd)
    if got is None:
        raise DTypeError(
            f"unsupported array dtype {npd}; expected one of " + ", ".join(x.name for x in ALL)
        )
    return got


class finfo:
    """Limits of a floating dtype: ``bits``, ``eps``, ``max``, ``min``, ``tiny``, ``resolution``.

    For a complex dtype, those of its parts (PyTorch: ``finfo(complex64)`` is float32's)."""

    def __init__(self, d=None):
        d = _default_float if d is None else as_dtype(d).to_real()
        if not d.is_floating_point:
            raise DTypeError(f"finfo: got {d}, expected a floating dtype or a complex one")
        info = ml_dtypes.finfo(d.np) if d is bfloat16 else np.finfo(d.np)
        self.dtype = d.name
        self.bits = d.itemsize * 8
        self.eps = _py_float(info.eps)
        self.max = _py_float(info.max)
        self.min = _py_float(info.min)
        self.tiny = self.smallest_normal = _py_float(info.tiny)
        self.resolution = 10.0 ** -_py_int(info.precision)

    def __repr__(self):
        return (
            f"finfo(resolution={self.resolution}, min={self.min}, max={self.max}, "
            f"eps={self.eps}, smallest_normal={self.tiny}, bits={self.bits}, "
            f"dtype={self.dtype})"
        )


class iinfo:
    """Limits of an integer dtype: ``bits``, ``max``, ``min``."""

    def __init__(self, d):
        d = as_dtype(d)
        if d._cat >= 2:
            raise DTypeError(f"iinfo: got {d}, expected an integer or bool dtype")
        info = np.iinfo(np.uint8 if d is bool else d.np)
        self.dtype = d.name
        self.bits = d.itemsize * 8
        self.max = 1 if d is bool else _py_int(info.max)
        self.min = 0 if d is bool else _py_int(info.min)

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, bits={self.bits}, dtype={self.dtype})"
