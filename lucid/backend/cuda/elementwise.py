"""Vectorised element-wise kernels for the half-precision traffic of mixed precision.

Under autocast every weight is cast to bfloat16 (or float16) in the forward and its
gradient back to float32, and activations are added and multiplied in the half type.
CuPy's generic kernels move these at a fraction of the memory bandwidth (one element a
thread, strided indexing); these move four elements a thread with one vector load and
store, on contiguous, aligned arrays:

- :func:`cast`: float32 <-> float16/bfloat16 (round to nearest even, as CuPy and NumPy).
- :func:`binary`: ``x + y``, ``x - y``, ``x * y`` of two half arrays of one shape, or of
  a half array and a Python number (rounded to the array's dtype first, NumPy 2's weak
  scalar), computed in float32 and rounded once.
- :func:`select`: ``where(mask, s, a)`` / ``where(mask, a, s)`` of a half or float32
  array and a number, the boolean mask broadcasting over ``a``'s leading dims (a causal
  mask over a batch of attention scores: masked_fill and its gradient).
- :func:`bias_add_`: a linear layer's ``y += b`` over the rows of ``y`` (half or float32).
- :func:`ones`: an array of ones of a float dtype, one fill kernel (CuPy's fill of a
  Python number resolves its kernel on every call: the seed of every ``backward()``).

Anything else returns None, and the caller takes CuPy's kernel.
"""

import cupy
import ml_dtypes
import numpy as np

from .kernels import ACCUMULATE, CTYPES, empty, kernel

_CAST = r"""
struct __align__(4 * sizeof(S)) VS { S v[4]; };
struct __align__(4 * sizeof(D)) VD { D v[4]; };
extern "C" __global__ void cast(const S* x, D* y, long long n) {
    long long q = n / 4;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < q;
         i += (long long)gridDim.x * blockDim.x) {
        VS a = reinterpret_cast<const VS*>(x)[i];
        VD b;
        for (int j = 0; j < 4; ++j) b.v[j] = D(static_cast<float>(a.v[j]));
        reinterpret_cast<VD*>(y)[i] = b;
    }
    long long t = 4 * q + blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t < n) y[t] = D(static_cast<float>(x[t]));
}
"""
_BINARY = r"""
struct __align__(4 * sizeof(T)) V { T v[4]; };
__device__ __forceinline__ float apply(float a, float b, int op) {
    return op == 0 ? a + b : (op == 1 ? a - b : a * b);
}
// y null: x (op) s, the number s exact in T
extern "C" __global__ void binary(const T* x, const T* y, T* z, long long n, int op,
                                  float s) {
    long long q = n / 4;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < q;
         i += (long long)gridDim.x * blockDim.x) {
        V a = reinterpret_cast<const V*>(x)[i], b, c;
        if (y) b = reinterpret_cast<const V*>(y)[i];
        for (int j = 0; j < 4; ++j)
            c.v[j] = T(apply(static_cast<float>(a.v[j]), y ? static_cast<float>(b.v[j]) : s,
                             op));
        reinterpret_cast<V*>(z)[i] = c;
    }
    long long t = 4 * q + blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t < n) z[t] = T(apply(static_cast<float>(x[t]), y ? static_cast<float>(y[t]) : s, op));
}
"""
_SELECT = r"""
struct __align__(4 * sizeof(T)) V { T v[4]; };
// z[i] = (mask[i % m] != flip) ? fill : a[i] over n elements, four at a time (m % 4 == 0);
// fill is *sv, or s where sv is null
extern "C" __global__ void select(const T* a, const bool* mask, T* z, long long n,
                                  long long m, int flip, float s, const T* sv) {
    const T fill = sv ? *sv : T(s);
    const bool on = !flip;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n / 4;
         i += (long long)gridDim.x * blockDim.x) {
        V x = reinterpret_cast<const V*>(a)[i];
        const uchar4 k = reinterpret_cast<const uchar4*>(mask)[i % (m / 4)];
        if ((k.x != 0) == on) x.v[0] = fill;
        if ((k.y != 0) == on) x.v[1] = fill;
        if ((k.z != 0) == on) x.v[2] = fill;
        if ((k.w != 0) == on) x.v[3] = fill;
        reinterpret_cast<V*>(z)[i] = x;
    }
}
"""
_BIAS = r"""
struct __align__(4 * sizeof(T)) V { T v[4]; };
// y (rows x n, row-major) += b (n) in place; vec: n % 4 == 0 and y, b aligned.
extern "C" __global__ void bias_add(T* y, const T* b, long long total, long long n, int vec) {
    const long long step = (long long)gridDim.x * blockDim.x;
    const long long tid = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (vec) {
        for (long long i = tid; i < total / 4; i += step) {
            V a = reinterpret_cast<V*>(y)[i];
            const V c = reinterpret_cast<const V*>(b)[i % (n / 4)];
            for (int j = 0; j < 4; ++j)
                a.v[j] = T(static_cast<float>(a.v[j]) + static_cast<float>(c.v[j]));
            reinterpret_cast<V*>(y)[i] = a;
        }
        return;
    }
    for (long long i = tid; i < total; i += step)
        y[i] = T(static_cast<float>(y[i]) + static_cast<float>(b[i % n]));
}
"""
_FILL = r"""
extern "C" __global__ void fill(T* y, long long n, A v) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = T(v);
}
"""
_HALF = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))
_F32 = np.dtype(np.float32)
_OPS = {"add": 0, "subtract": 1, "multiply": 2}
_NUMBERS = (int, float)
_THREADS = 256


def _aligned(*arrays):
    return all(a.flags.c_contiguous and a.data.ptr % (4 * a.itemsize) == 0 for a in arrays)


def _grid(n):
    """Blocks of :data:`_THREADS` threads covering ``n`` elements four at a time (at
    least one, at most 524280: the kernels stride over the rest)."""
    return (min(max((n // 4 + _THREADS - 1) // _THREADS, 1), 65535 * 8),)


def cast(a, dtype):
    """``a.astype(dtype)`` for float32 <-> half, or None where this kernel does not apply
    (autocast makes hundreds of these a step: the checks are kept few)."""
    pair = (a.dtype, dtype)
    k = _CASTS.get(pair)
    if k is None:
        k = _CASTS[pair] = _cast_kernel(*pair)
    n = a.size
    if k is False or not n or not a._c_contiguous or a.data.ptr % (4 * a.itemsize):
        return None
    out = empty(a.shape, dtype)
    k(_grid(n), (_THREADS,), (a, out, n))
    return out


_CASTS: dict = {}  # (source dtype, target dtype) -> the cast kernel, or False


def _cast_kernel(src, dst):
    dst = np.dtype(dst)
    if not ((src == _F32 and dst in _HALF) or (src in _HALF and dst == _F32)):
        return False
    return kernel(f"typedef {CTYPES[src]} S;\ntypedef {CTYPES[dst]} D;\n" + _CAST, "cast")


def binary(name, x, y):
    """``x (op) y`` for two half arrays of one shape and dtype, or a half array and a
    Python number (either side for ``add``/``multiply``); None otherwise."""
    if type(x) in _NUMBERS and name != "subtract":
        x, y = y, x
    if not isinstance(x, cupy.ndarray) or x.dtype not in _HALF or not x.size:
        return None
    if type(y) in _NUMBERS:
        if not _aligned(x):
            return None
        s, y = np.float32(np.asarray(y, x.dtype)), np.uint64(0)
    elif (
        not isinstance(y, cupy.ndarray)
        or y.dtype != x.dtype
        or x.shape != y.shape
        or not _aligned(x, y)
    ):
        return None
    else:
        s = np.float32(0)
    out = empty(x.shape, x.dtype)
    kernel(_BINARY, "binary", x.dtype)(
        _grid(x.size), (_THREADS,), (x, y, out, x.size, _OPS[name], s)
    )
    return out


def _fill(v, a):
    """A select's fill for array ``a``: a Python number, or a 0-d array of ``a``'s dtype
    (read on the device: no host sync)."""
    return type(v) in _NUMBERS or (
        isinstance(v, cupy.ndarray) and v.ndim == 0 and v.dtype == a.dtype
    )


def select(cond, x, y):
    """``where(cond, x, y)`` with one of ``x``, ``y`` the fill, a Python number or a 0-d
    array, and the other a contiguous half or float32 array ``a`` of more dims (the
    result in ``a``'s dtype, a number rounded to it), ``cond`` a contiguous boolean array
    equal to ``a``'s trailing dims (leading ones allowed) of a size divisible by four;
    None otherwise."""
    flip = not (type(x) in _NUMBERS or isinstance(x, cupy.ndarray) and x.ndim == 0)
    a, s = (x, y) if flip else (y, x)
    if (
        not isinstance(a, cupy.ndarray)
        or not a.ndim
        or not _fill(s, a)
        or a.dtype not in _HALF + (_F32,)
        or not isinstance(cond, cupy.ndarray)
        or cond.dtype != np.bool_
        or not cond.flags.c_contiguous
        or not a.size
        or cond.size % 4
        or not _aligned(a)
        or cond.data.ptr % 4
    ):
        return None
    shape = cond.shape
    while shape and shape[0] == 1:
        shape = shape[1:]
    if a.shape[a.ndim - len(shape) :] != shape or len(shape) > a.ndim:
        return None
    number = type(s) in _NUMBERS
    out = empty(a.shape, a.dtype)
    kernel(_SELECT, "select", a.dtype)(
        _grid(a.size),
        (_THREADS,),
        (
            a,
            cond,
            out,
            a.size,
            cond.size,
            flip,
            np.float32(np.asarray(s, a.dtype)) if number else np.float32(0),
            np.uint64(0) if number else s,
        ),
    )
    return out


def bias_add_(y, b):
    """``y += b`` in place for C-contiguous ``y`` of shape ``(rows, n)`` and ``b`` of shape
    ``(n,)`` in one half or float32 dtype; False (nothing done) where this does not apply."""
    if (
        y.ndim != 2
        or b.shape != y.shape[1:]
        or b.dtype != y.dtype
        or y.dtype not in _HALF + (_F32,)
        or not y.flags.c_contiguous
        or y.size == 0
    ):
        return False
    b = cupy.ascontiguousarray(b)
    n = y.shape[1]
    vec = int(n % 4 == 0 and _aligned(y, b))
    kernel(_BIAS, "bias_add", y.dtype)(_grid(y.size), (_THREADS,), (y, b, y.size, n, vec))
    return True


def ones(shape, dtype):
    """``cupy.ones(shape, dtype)`` for a float ``dtype``, else None."""
    dtype = np.dtype(dtype)
    if dtype not in CTYPES:
        return None
    out = empty(shape, dtype)
    if out.size:
        one = np.float64(1) if ACCUMULATE[dtype] == "double" else np.float32(1)
        kernel(_FILL, "fill", dtype)(
            _grid(4 * out.size),
            (_THREADS,),  # a thread each
            (out, np.int64(out.size), one),
        )
    return out
