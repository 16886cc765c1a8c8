"""Half-precision batched GEMM through cuBLAS (``cublasGemmStridedBatchedEx``).

CuPy multiplies 2-D bfloat16/float16 matrices, but not stacks of them (its batched path has
no bfloat16 type). Here a stack of row-major products :math:`C_i = A_i B_i` is one
strided-batched call with float32 accumulation: cuBLAS is column-major, so it computes
:math:`C_i^\\top = B_i^\\top A_i^\\top`, which in row-major memory is :math:`C_i` itself.
A batch axis that broadcasts (size 1, or absent) gets stride 0: one matrix serves every
product without being copied.
"""

import cupy
import ml_dtypes
import numpy as np
from cupy_backends.cuda.libs import cublas

_CUDA_R = {np.dtype(np.float16): 2, np.dtype(ml_dtypes.bfloat16): 14}   # cudaDataType
_COMPUTE_32F = 68                                                       # CUBLAS_COMPUTE_32F
_ALGO_DEFAULT = -1                                                      # CUBLAS_GEMM_DEFAULT
_OP_N = 0                                                               # CUBLAS_OP_N
_ONE, _ZERO = np.ones(1, np.float32), np.zeros(1, np.float32)


def supports(a, b):
    """Whether :func:`matmul` handles ``a @ b``: a batched product of half matrices."""
    return (a.dtype in _CUDA_R and a.dtype == b.dtype and a.ndim >= 2 and b.ndim >= 2
            and max(a.ndim, b.ndim) > 2)


def _batched(x, batch):
    """``x`` as ``(count, r, c)`` contiguous matrices over ``batch``, and its batch stride
    in elements (0 when one matrix broadcasts over the whole batch)."""
    r, c = x.shape[-2:]
    if all(n == 1 for n in x.shape[:-2]):
        return cupy.ascontiguousarray(x.reshape(r, c)), 0
    x = cupy.ascontiguousarray(cupy.broadcast_to(x, batch + (r, c)))
    return x, r * c


def matmul(a, b):
    """``a @ b`` for half arrays with broadcast batch axes, in the inputs' dtype."""
    batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    m, k = a.shape[-2:]
    n = b.shape[-1]
    count = int(np.prod(batch, dtype=np.int64))
    out = cupy.empty(batch + (m, n), dtype=a.dtype)
    if out.size == 0:
        return out
    if k == 0:
        out.fill(0)
        return out
    aa, sa = _batched(a, batch)
    bb, sb = _batched(b, batch)
    t = _CUDA_R[a.dtype]
    handle = cupy.cuda.device.get_cublas_handle()
    cublas.setStream(handle, cupy.cuda.get_current_stream().ptr)
    cublas.gemmStridedBatchedEx(
        handle, _OP_N, _OP_N, n, m, k,
        _ONE.ctypes.data, bb.data.ptr, t, n, sb, aa.data.ptr, t, k, sa,
        _ZERO.ctypes.data, out.data.ptr, t, n, m * n, count, _COMPUTE_32F, _ALGO_DEFAULT)
    return out
