"""Unbuffered in-place reductions ``ufunc.at`` for every dtype and ufunc Lucid scatters with.

CuPy has ``add.at`` (no bfloat16), ``maximum.at`` / ``minimum.at`` (no half types) and no
``multiply.at``. What CuPy lacks runs on a working copy: half types in float32 (exact for
max/min, one rounding for sums), and products through a compare-and-swap loop kernel
(:data:`_MUL_AT`) in float32, float64 or int64. The working copy is flat, and the index is
turned into flat positions once: ``arange(a.size).reshape(a.shape)[index]`` selects, for
any index NumPy accepts, the positions the reduction visits.

An embedding's lookup is one gather kernel (:func:`embedding`) instead of ``take``
(tens of microseconds of host time a call), and its weight gradient one kernel
(:func:`embedding_backward`) instead of the generic positions-then-``add.at`` (six
launches).
"""

import cupy
import ml_dtypes
import numpy as np

from .kernels import CTYPES, blocks, kernel

_MUL_AT = r"""
__device__ float cas_mul(float* p, float v) {
    unsigned int* q = (unsigned int*)p; unsigned int old = *q, seen;
    do { seen = old; old = atomicCAS(q, seen, __float_as_uint(__uint_as_float(seen) * v)); }
    while (seen != old);
    return __uint_as_float(old);
}
__device__ double cas_mul(double* p, double v) {
    unsigned long long* q = (unsigned long long*)p; unsigned long long old = *q, seen;
    do { seen = old;
         old = atomicCAS(q, seen, __double_as_longlong(__longlong_as_double(seen) * v)); }
    while (seen != old);
    return __longlong_as_double(old);
}
__device__ long long cas_mul(long long* p, long long v) {
    unsigned long long* q = (unsigned long long*)p; unsigned long long old = *q, seen;
    do { seen = old; old = atomicCAS(q, seen, (unsigned long long)((long long)seen * v)); }
    while (seen != old);
    return (long long)old;
}
extern "C" __global__ void mul_at_f(float* a, const long long* pos, const float* v, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) cas_mul(a + pos[i], v[i]);
}
extern "C" __global__ void mul_at_d(double* a, const long long* pos, const double* v, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) cas_mul(a + pos[i], v[i]);
}
extern "C" __global__ void mul_at_q(long long* a, const long long* pos, const long long* v,
                                    long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) cas_mul(a + pos[i], v[i]);
}
"""
_MUL_ENTRY = {
    np.dtype(np.float32): "mul_at_f",
    np.dtype(np.float64): "mul_at_d",
    np.dtype(np.int64): "mul_at_q",
}
_BF16 = np.dtype(ml_dtypes.bfloat16)
_NATIVE = {"add": "efdIlLiq", "maximum": "fdIlLiq", "minimum": "fdIlLiq"}


def _work_dtype(dt):
    """The dtype a reduction of ``dt`` runs in on the working copy (bfloat16, whose NumPy
    kind is "V", is a float type too)."""
    if dt.kind == "f" or dt == _BF16:
        return np.dtype(np.float64) if dt == np.float64 else np.dtype(np.float32)
    return np.dtype(np.int64)


def ufunc_at(ufunc, a, index, v):
    """``ufunc.at(a, index, v)`` in place, for ``add``, ``maximum``, ``minimum`` and
    ``multiply`` over every dtype."""
    name = ufunc.__name__.removeprefix("cupy_")
    if name != "multiply" and a.dtype.char in _NATIVE.get(name, ""):
        ufunc.at(a, index, v)
        return
    pos = cupy.arange(a.size, dtype=cupy.int64).reshape(a.shape)[index]
    work = _work_dtype(a.dtype)
    flat = a.astype(work).reshape(-1)
    vals = cupy.ascontiguousarray(cupy.broadcast_to(cupy.asarray(v, dtype=work), pos.shape))
    pos = cupy.ascontiguousarray(pos).reshape(-1)
    if name == "multiply":
        n = pos.size
        if n:
            kernel(_MUL_AT, _MUL_ENTRY[work])(
                blocks(n), (256,), (flat, pos, vals.reshape(-1), np.int64(n))
            )
    else:
        ufunc.at(flat, pos, vals.reshape(-1))
    a[...] = flat.reshape(a.shape).astype(a.dtype, copy=False)


_EMBEDDING = r"""
// out[r W + j] = w[idx[r] W + j] over the n = R W elements of out; an index outside
// [0, rows) reads the nearest row (the range check, queued on the device, reports it).
extern "C" __global__ void embedding_fwd(const T* w, const long long* idx, T* out,
                                         long long n, long long width, long long rows) {
    long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        long long r = i / width;
        long long row = min(max(idx[r], 0LL), rows - 1);
        out[i] = w[row * width + (i - r * width)];
    }
}
// out[idx[r] W + j] += g[r W + j] over the n = R W elements of g (atomically, in A),
// the rows whose index is pad skipped.
extern "C" __global__ void embedding_bwd(const T* g, const long long* idx, A* out,
                                         long long n, long long width, long long pad) {
    long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        long long r = i / width;
        long long row = idx[r];
        if (row != pad) atomicAdd(out + row * width + (i - r * width), static_cast<A>(g[i]));
    }
}
"""
_GRID_CAP = 4096


def embedding(weight, idx):
    """``weight[idx]``, the rows of ``weight`` that ``idx`` names, or None where the kernel
    does not take the dtypes or the weight is empty (``take`` then)."""
    if weight.dtype not in CTYPES or idx.dtype.kind not in "iu" or not weight.size:
        return None
    out = cupy.ndarray(idx.shape + weight.shape[1:], weight.dtype)
    if out.size:
        width = out.size // idx.size
        kernel(_EMBEDDING, "embedding_fwd", weight.dtype)(
            (min(-(-out.size // 256), _GRID_CAP),),
            (256,),
            (
                cupy.ascontiguousarray(weight),
                cupy.ascontiguousarray(idx, dtype=np.int64),
                out,
                out.size,
                width,
                weight.shape[0],
            ),
        )
    return out


def embedding_backward(g, idx, num_weights, padding_idx):
    """The weight gradient of an embedding, ``(num_weights, *g.shape[idx.ndim:])`` in
    ``g``'s dtype: each row of ``g`` added into the row its index names (float32 for half
    types, then cast), the row ``padding_idx`` (None: none) left zero. None where the
    kernel does not take the dtypes (the generic kernels then)."""
    if g.dtype not in CTYPES or idx.dtype.kind not in "iu" or not g.size:
        return None
    d = g.shape[idx.ndim :]
    width = g.size // max(idx.size, 1)
    acc = np.dtype(np.float64) if g.dtype == np.float64 else np.dtype(np.float32)
    out = cupy.zeros((num_weights,) + d, acc)
    pad = -1 if padding_idx is None else padding_idx % num_weights
    kernel(_EMBEDDING, "embedding_bwd", g.dtype)(
        (min(-(-g.size // 256), _GRID_CAP),),
        (256,),
        (
            cupy.ascontiguousarray(g),
            cupy.ascontiguousarray(idx, dtype=np.int64),
            out,
            g.size,
            width,
            pad,
        ),
    )
    return out.astype(g.dtype, copy=False)
