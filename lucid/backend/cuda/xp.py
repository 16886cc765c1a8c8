"""CuPy as the CUDA backend's array module, with NumPy 2's dtype rules where CuPy differs.

The shared array kernels (``lucid.backend.array``) are written against NumPy. CuPy follows
it except in a few functions the kernels rely on; this module is ``cupy`` with those
replaced (a plain module, so attribute lookups cost what ``cupy.x`` costs):

- ``where``: a Python scalar beside an array takes the array's dtype (NumPy 2's weak
  scalars); CuPy turns ``where(c, bfloat16_array, 0)`` into float32. A fill (a number
  or a 0-d array) beside a half or float32 array takes :func:`.elementwise.select`.
  Selecting bfloat16 moves the raw 16-bit words (CuPy's ``where`` has no bfloat16 loop).
- ``tril`` / ``triu``: keep bfloat16 (through that ``where``).
- the math ufuncs (``power``, ``fmod``, ``log``, ``maximum``, ...): where CuPy has no
  bfloat16 loop it computes in float32; the result is rounded back to bfloat16, once, as
  the CPU's ml_dtypes does; ``add``/``subtract``/``multiply`` of two equally shaped half
  arrays take the vector kernel of :mod:`.elementwise`.
- ``sort`` / ``argsort`` / ``isin``: bfloat16 sorts through float32 (exact: every bfloat16 is a
  float32), which CuPy refuses.
"""

import types

import cupy
import cupy.fft
import cupy.lib.stride_tricks
import cupy.linalg
import cupy.random
import ml_dtypes
import numpy as np

from . import elementwise

_BF16 = np.dtype(ml_dtypes.bfloat16)

xp = types.ModuleType("lucid.backend.cuda.xp", __doc__)
for _k in dir(cupy):
    if not _k.startswith("__"):
        try:
            setattr(xp, _k, getattr(cupy, _k))
        except AttributeError:  # a lazily deprecated name
            pass


def _weak(v, like):
    """Scalar ``v`` as a NumPy scalar of the dtype NumPy 2 gives ``like`` combined with it
    (a kernel argument: no host-to-device copy, which would wait for the device)."""
    return np.asarray(v, dtype=np.result_type(like.dtype, v))[()]


def _bits(v):
    """bfloat16 array or NumPy scalar ``v`` as its raw 16-bit words."""
    return v.view(np.uint16) if isinstance(v, cupy.ndarray) else np.asarray(v).view(np.uint16)[()]


def where(cond, x=None, y=None):
    if x is None and y is None:
        return cupy.where(cond)
    r = elementwise.select(cond, x, y)
    if r is not None:
        return r
    xa, ya = isinstance(x, cupy.ndarray), isinstance(y, cupy.ndarray)
    if xa and not ya:
        y = _weak(y, x)
        x = x.astype(y.dtype, copy=False)
    elif ya and not xa:
        x = _weak(x, y)
        y = y.astype(x.dtype, copy=False)
    if xa | ya and x.dtype == _BF16 and y.dtype == _BF16:  # a selection: move the bits
        return cupy.where(cond, _bits(x), _bits(y)).view(_BF16)
    return cupy.where(cond, x, y)


def _keep_bfloat16(ufunc):
    """``ufunc`` whose float32 result is rounded back to bfloat16 when every array operand
    is bfloat16 (CuPy has no bfloat16 loop for it and computes in float32)."""

    def call(*args, **kwargs):
        r = ufunc(*args, **kwargs)
        a = args[0] if args else None
        if a.__class__ is cupy.ndarray and a.dtype.itemsize != 2:  # not bfloat16
            return r
        if (
            isinstance(r, cupy.ndarray)
            and r.dtype == np.float32
            and "out" not in kwargs
            and all(a.dtype == _BF16 for a in args if isinstance(a, cupy.ndarray))
            and any(isinstance(a, cupy.ndarray) for a in args)
        ):
            return r.astype(_BF16)
        return r

    call.__name__ = call.__qualname__ = ufunc.__name__
    call.__doc__ = ufunc.__doc__
    for attr in ("at", "reduce", "accumulate", "reduceat", "outer", "nin", "nout"):
        if hasattr(ufunc, attr):  # the ufunc's methods stay reachable
            setattr(call, attr, getattr(ufunc, attr))
    return call


def _fast_binary(name, slow):
    """``slow`` (a ufunc wrapper) with :func:`.elementwise.binary`'s vector kernel first."""

    def call(*args, **kwargs):
        a = args[0] if args else None
        if (
            len(args) == 2
            and not kwargs
            and (a.__class__ is not cupy.ndarray or a.dtype.itemsize == 2)
        ):  # half arrays only
            r = elementwise.binary(name, *args)
            if r is not None:
                return r
        return slow(*args, **kwargs)

    for attr in (
        "__name__",
        "__qualname__",
        "__doc__",
        "at",
        "reduce",
        "accumulate",
        "reduceat",
        "outer",
        "nin",
        "nout",
    ):
        if hasattr(slow, attr):
            setattr(call, attr, getattr(slow, attr))
    return call


for _k in (
    "power",
    "float_power",
    "fmod",
    "remainder",
    "mod",
    "floor_divide",
    "divide",
    "true_divide",
    "sign",
    "log",
    "log2",
    "log10",
    "log1p",
    "expm1",
    "exp2",
    "sqrt",
    "cbrt",
    "reciprocal",
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "arctan2",
    "hypot",
    "logaddexp",
    "logaddexp2",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "copysign",
    "floor",
    "ceil",
    "trunc",
    "rint",
    "fix",
    "absolute",
    "abs",
    "negative",
    "square",
    "heaviside",
    "nextafter",
    "ldexp",
    "deg2rad",
    "rad2deg",
    "clip",
    "multiply",
    "subtract",
    "add",
    "exp",
    "tanh",
):
    setattr(xp, _k, _keep_bfloat16(getattr(cupy, _k)))
for _k in ("add", "subtract", "multiply"):
    setattr(xp, _k, _fast_binary(_k, getattr(xp, _k)))


def _triangle(a, k, lower):
    n, m = a.shape[-2:]
    keep = cupy.tri(n, m, k=k if lower else k - 1, dtype=bool)
    return where(keep if lower else ~keep, a, a.dtype.type(0))


def tril(a, k=0):
    return _triangle(a, k, True)


def triu(a, k=0):
    return _triangle(a, k, False)


def sort(a, axis=-1, **kwargs):
    if a.dtype == _BF16:
        return cupy.sort(a.astype(np.float32), axis=axis, **kwargs).astype(_BF16)
    return cupy.sort(a, axis=axis, **kwargs)


def argsort(a, axis=-1, **kwargs):
    return cupy.argsort(_f32(a), axis=axis, **kwargs)


def isin(element, test_elements, assume_unique=False, invert=False):
    return cupy.isin(_f32(element), _f32(test_elements), assume_unique, invert)


def _f32(a):
    return a.astype(np.float32) if getattr(a, "dtype", None) == _BF16 else a


def einsum(subscripts, *operands, **kwargs):
    """A sum over some axes of a product of equally shaped operands (``"ij,ij->i"``, the
    norms' reductions) as a product and ``sum``: CuPy's general ``einsum`` spends tens of
    microseconds of host time planning each call."""
    ins, arrow, out = subscripts.replace(" ", "").partition("->")
    terms = ins.split(",")
    sub = terms[0]
    if (
        arrow
        and len(set(terms)) == 1
        and len(set(sub)) == len(sub)
        and out == "".join(c for c in sub if c in out)
        and len(operands) == len(terms)
        and all(o.shape == operands[0].shape for o in operands)
    ):
        p = operands[0]
        for o in operands[1:]:
            p = p * o
        axes = tuple(i for i, c in enumerate(sub) if c not in out)
        return p.sum(axis=axes) if axes else p.copy()
    return cupy.einsum(subscripts, *operands, **kwargs)


xp.einsum = einsum
xp.where, xp.tril, xp.triu, xp.sort, xp.argsort, xp.isin = where, tril, triu, sort, argsort, isin
