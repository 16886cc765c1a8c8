"""Matrix products through cuBLASLt (:mod:`.cublaslt`: one cached plan per shape), else
cuBLAS's ``cublasGemmStridedBatchedEx``, called directly.

CuPy's ``matmul`` has no batched bfloat16 path and no epilogues. A (stack of) row-major
products :math:`C_i = A_i B_i` is one strided-batched call: cuBLAS is column-major, so it
computes :math:`C_i^\\top = B_i^\\top A_i^\\top`, which in row-major memory is :math:`C_i`
itself. An operand is passed as it lies in memory when it can be: rows contiguous
(``op N``) or, for a transposed view such as ``w.T``, columns contiguous (``op T``), with
its row or column stride as the leading dimension; a batch axis that broadcasts gets
stride 0. Half types accumulate in float32; float32 uses TF32 tensor cores only where
asked. 2-D products may add a bias in the epilogue and apply ReLU or (tanh) GELU after
it, or sum an operand for a bias gradient (:func:`matmul`).
"""

import cupy
import ml_dtypes
import numpy as np
from cupy_backends.cuda.libs import cublas

from . import cublaslt
from .kernels import empty

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_COMPUTE_32F = getattr(cublas, "CUBLAS_COMPUTE_32F", 68)
_COMPUTE_TF32 = getattr(cublas, "CUBLAS_COMPUTE_32F_FAST_TF32", 77)
_COMPUTE_64F = getattr(cublas, "CUBLAS_COMPUTE_64F", 70)
# dtype -> (cudaDataType, compute type, alpha/beta dtype)
_TYPES = {
    np.dtype(np.float16): (2, _COMPUTE_32F, _F32),
    np.dtype(ml_dtypes.bfloat16): (14, _COMPUTE_32F, _F32),
    _F32: (0, _COMPUTE_32F, _F32),
    _F64: (1, _COMPUTE_64F, _F64),
}
_SCALAR_ARRAYS = [(np.ones(1, dt), np.zeros(1, dt)) for dt in (_F32, _F64)]
_SCALARS = {a.dtype: (a.ctypes.data, b.ctypes.data) for a, b in _SCALAR_ARRAYS}  # pointers
_SCALE_TYPE = {_F32: 0, _F64: 1}  # cudaDataType of alpha and beta
_OP_N, _OP_T, _ALGO_DEFAULT = 0, 1, -1


def supports(a, b):
    """Whether :func:`matmul` takes ``a @ b``: float matrices (or stacks) of one dtype."""
    return a.dtype == b.dtype and a.dtype in _TYPES and a.ndim >= 2 and b.ndim >= 2


def _operand(x, batch):
    """``(array, op, leading dim, batch stride)`` of matrix stack ``x`` broadcast over
    ``batch``, copied only where its layout has no cuBLAS description."""
    if x.ndim == 2:  # the common case, without the generality
        # (a matrix beside a stack is the same matrix for each: batch stride 0)
        it = x.itemsize
        (r, c), (rs, cs) = x.shape, x.strides
        if cs == it and rs >= c * it and rs % it == 0:
            return x, _OP_N, rs // it, 0
        if rs == it and cs >= r * it and cs % it == 0:
            return x, _OP_T, cs // it, 0
    r, c = x.shape[-2:]
    if x.shape[:-2] != batch:
        x = cupy.broadcast_to(x, batch + (r, c))
    it = x.itemsize
    st = [s // it if s % it == 0 and s >= 0 else -1 for s in x.strides]
    rs, cs = st[-2], st[-1]
    if (cs == 1 or c == 1) and rs >= max(c, 1):
        op, ld = _OP_N, rs
    elif (rs == 1 or r == 1) and cs >= max(r, 1):
        op, ld = _OP_T, cs
    else:
        x = cupy.ascontiguousarray(x)
        return _operand(x, batch)
    bst = st[:-2]
    if not bst or all(s == 0 for s in bst):
        return x, op, ld, 0
    # the batch axes must flatten into one stride (size-1 axes may have any stride)
    dims = [(s, n) for s, n in zip(bst, batch) if n != 1]
    for (s0, _), (s1, n1) in zip(dims, dims[1:]):
        if s0 != s1 * n1 or s1 <= 0:
            return _operand(cupy.ascontiguousarray(x), batch)
    return x, op, ld, (dims[-1][0] if dims else 0)


def _epilogue(out, batch, bias, bias_grad, act, aux):
    """``(epilogue, bias pointer, aux pointer)`` of the product ``out`` (m, n) for what
    :func:`matmul` is asked, or the default epilogue and no pointers where cuBLASLt cannot
    take all of it (a batch, a vector or matrix of another dtype, shape or layout).

    cuBLAS is column-major: it computes C^T = B^T A^T, so BIAS adds along the rows of C^T
    (``b``'s columns, n), BGRADB sums its B over k (``a``'s rows, m), and the auxiliary
    matrix has C^T's leading dimension n, which cuBLASLt wants a multiple of 8."""
    m, n = out.shape[-2:]
    default = (cublaslt.EPILOGUE_DEFAULT, 0, 0)
    if bias is not None:
        vec, length, epilogue = bias, n, cublaslt.EPILOGUE_BIAS
    elif bias_grad is not None:
        vec, length, epilogue = bias_grad, m, cublaslt.EPILOGUE_BGRADB
    else:
        vec, epilogue = None, 0
    if batch or (vec is None and act is None):
        return default
    pbias = paux = 0
    if vec is not None:
        if vec.dtype != out.dtype or vec.shape != (length,) or not vec.flags.c_contiguous:
            return default
        pbias = vec.data.ptr
    if act is not None:
        epilogue |= cublaslt.EPILOGUE_RELU if act == "relu" else cublaslt.EPILOGUE_GELU
        if aux is not None:
            if aux.shape != out.shape or aux.dtype != out.dtype or n % 8:
                return default
            epilogue |= cublaslt.EPILOGUE_AUX
            paux = aux.data.ptr
    return epilogue, pbias, paux


def matmul(a, b, tf32=False, bias=None, bias_grad=None, out_dtype=None, act=None, aux=None):
    """``a @ b`` for float arrays of at least 2 dims (batch axes broadcast), in their
    dtype, or float32 for half operands where ``out_dtype`` says so (the float32
    accumulator written as it is); ``tf32`` lets float32 products use TF32 tensor cores.
    2-D products may carry an epilogue where cuBLASLt takes it: ``bias`` (a vector of
    ``b``'s column count) added to every row, or ``bias_grad`` (an empty vector of ``a``'s
    row count, in the output's dtype) filled with the row sums of ``a`` (a linear layer's
    weight gradient ``g.T @ x`` then brings the bias gradient, the column sums of ``g``,
    along). ``act`` (``"relu"`` or ``"gelu"``, cuBLASLt's tanh GELU) applies an activation
    after the bias; with GELU, ``aux`` (an empty array of the output's shape and dtype,
    whose row length is a multiple of 8) receives the activation's input. The result says
    whether the whole epilogue ran (else ``out`` is the bare product): ``(out, done)``."""
    if a.ndim == 2 or b.ndim == 2 or a.shape[:-2] == b.shape[:-2]:
        batch = b.shape[:-2] if a.ndim == 2 else a.shape[:-2]
    else:
        batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    m, k = a.shape[-2:]
    n = b.shape[-1]
    out = empty(batch + (m, n), dtype=a.dtype if out_dtype is None else out_dtype)
    if out.size == 0:
        return out, False
    if k == 0:
        out.fill(0)
        return out, False
    count = out.size // (m * n)
    aa, opa, lda, sa = _operand(a, batch)
    bb, opb, ldb, sb = _operand(b, batch)
    t, compute, sdt = _TYPES[a.dtype]
    tc = t if out_dtype is None else _TYPES[out.dtype][0]
    if tf32 and a.dtype == _F32:
        compute = _COMPUTE_TF32
    one, zero = _SCALARS[sdt]
    stream = cupy.cuda.get_current_stream().ptr
    pa, pb, pc = bb.data.ptr, aa.data.ptr, out.data.ptr
    # cuBLAS is column-major: C^T = B^T A^T, so cuBLAS's A is our b and its B our a
    epilogue, pbias, paux = _epilogue(out, batch, bias, bias_grad, act, aux)
    al = cublaslt.alignment
    key = (
        t,
        tc,
        compute,
        _SCALE_TYPE[sdt],
        opb,
        opa,
        n,
        m,
        k,
        ldb,
        lda,
        n,
        count,
        sb,
        sa,
        m * n,
        epilogue,
        (al(pa), al(pb), al(pc), al(pbias)),
        n if paux else 0,
    )
    if cublaslt.matmul(key, one, pa, pb, zero, pc, stream, pbias, paux):
        return out, epilogue != cublaslt.EPILOGUE_DEFAULT
    handle = cupy.cuda.device.get_cublas_handle()
    if cublas.getStream(handle) != stream:  # setStream also resets cuBLAS's workspace:
        cublas.setStream(handle, stream)  # only when the stream changed
    cublas.gemmStridedBatchedEx(
        handle,
        opb,
        opa,
        n,
        m,
        k,
        one,
        pa,
        t,
        ldb,
        sb,
        pb,
        t,
        lda,
        sa,
        zero,
        pc,
        tc,
        n,
        m * n,
        count,
        compute,
        _ALGO_DEFAULT,
    )
    return out, False
