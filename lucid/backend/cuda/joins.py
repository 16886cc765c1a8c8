r"""``concatenate`` (and so ``stack``, ``cat``, and the backward of ``split`` and ``chunk``)
as one copy kernel for up to eight pieces, instead of CuPy's one strided copy a piece.

Along axis :math:`a`, C-contiguous pieces :math:`x_k` of shapes :math:`(\ldots, n_k,
\ldots)` are matrices :math:`(O, w_k)` with :math:`O = \prod_{i<a} s_i` rows and
:math:`w_k = n_k \prod_{i>a} s_i` elements a row, and the result is the matrix :math:`(O,
\sum_k w_k)` whose row :math:`r` is the rows :math:`r` of the pieces side by side. The
kernel copies bytes in the widest unit (16, 8, 4, 2 or 1 bytes) that divides every row
width and every address, so one source serves every dtype (booleans, integers, complex
included). Past eight pieces it launches once per eight, each filling its columns.
"""

import itertools
import math

import cupy
import numpy as np

from .kernels import blocks, empty, kernel

_SOURCE = r"""
// out (rows x W units) columns c0 .. c0 + off[n]: piece k (rows x (off[k+1] - off[k]))
// at columns c0 + off[k]; pieces past n have off = off[n].
template <class U>
__device__ void concat(U* out, long long rows, long long W, long long c0,
                       const U* const* p, const long long* off) {
    const long long width = off[8], total = rows * width;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        const long long r = i / width, c = i - r * width;
        const U* src = p[0];
        long long start = 0, w = off[1];
        #pragma unroll
        for (int j = 1; j < 8; ++j)         // unrolled: p and off stay in registers
            if (c >= off[j]) { src = p[j]; start = off[j]; w = off[j + 1] - off[j]; }
        out[r * W + c0 + c] = src[r * w + c - start];
    }
}
#define CONCAT(NAME, U)                                                                  \
    extern "C" __global__ void NAME(U* out, long long rows, long long W, long long c0,   \
        const U* p0, const U* p1, const U* p2, const U* p3, const U* p4, const U* p5,    \
        const U* p6, const U* p7, long long o1, long long o2, long long o3, long long o4, \
        long long o5, long long o6, long long o7, long long o8) {                        \
        const U* p[8] = {p0, p1, p2, p3, p4, p5, p6, p7};                                \
        const long long off[9] = {0, o1, o2, o3, o4, o5, o6, o7, o8};                    \
        concat<U>(out, rows, W, c0, p, off);                                             \
    }
CONCAT(concat16, uint4)
CONCAT(concat8, unsigned long long)
CONCAT(concat4, unsigned int)
CONCAT(concat2, unsigned short)
CONCAT(concat1, unsigned char)
"""
_PIECES = 8
_UNITS = (16, 8, 4, 2, 1)
_THREADS = 256


def concatenate(arrays, axis):
    """``cupy.concatenate(arrays, axis)`` in one launch per eight pieces, or None where
    this does not apply (fewer than two arrays, dtypes or ranks that differ, shapes that
    differ off the axis, an empty result: CuPy's own call then decides and raises)."""
    if len(arrays) < 2:
        return None
    a0 = arrays[0]
    nd, dt = a0.ndim, a0.dtype
    if not nd or not -nd <= axis < nd:
        return None
    axis %= nd
    for a in arrays:
        if (
            not isinstance(a, cupy.ndarray)
            or a.dtype != dt
            or a.ndim != nd
            or a.shape[:axis] != a0.shape[:axis]
            or a.shape[axis + 1 :] != a0.shape[axis + 1 :]
        ):
            return None
    rows = math.prod(a0.shape[:axis])
    inner = math.prod(a0.shape[axis + 1 :]) * dt.itemsize  # bytes per unit of n_k
    shape = a0.shape[:axis] + (sum(a.shape[axis] for a in arrays),) + a0.shape[axis + 1 :]
    out = empty(shape, dt)
    if not out.size:
        return out
    pieces = [cupy.ascontiguousarray(a) for a in arrays if a.shape[axis]]
    widths = [a.shape[axis] * inner for a in pieces]  # bytes a row
    unit = next(
        u
        for u in _UNITS
        if all(w % u == 0 for w in widths) and all(a.data.ptr % u == 0 for a in pieces + [out])
    )
    fn = kernel(_SOURCE, f"concat{unit}")
    total = sum(widths) // unit
    c0 = 0
    for s in range(0, len(pieces), _PIECES):
        group, ws = pieces[s : s + _PIECES], widths[s : s + _PIECES]
        offsets = list(itertools.accumulate(w // unit for w in ws))
        offsets += [offsets[-1]] * (_PIECES - len(offsets))
        ptrs = [a.data.ptr for a in group] + [0] * (_PIECES - len(group))
        fn(
            (min(blocks(rows * offsets[-1], _THREADS)[0], 65535 * 8),),
            (_THREADS,),
            (
                out,
                np.int64(rows),
                np.int64(total),
                np.int64(c0),
                *(np.uint64(p) for p in ptrs),
                *(np.int64(o) for o in offsets),
            ),
        )
        c0 += offsets[-1]
    return out
