"""The CUDA backend: every kernel of :class:`~lucid.backend.Backend` on CuPy arrays.

Most kernels are the array-module code the CPU shares (``lucid.backend.array``) run with
``xp = cupy``. This module overrides what CuPy does differently: host transfers (pinned,
optionally asynchronous), DLPack, batched half-precision GEMM (:mod:`.gemm`), the TF32
switch, scans (CuPy's ufuncs have no ``accumulate``) and dtype-keeping fixes where CuPy
promotes bfloat16 to float32. The mixins before :class:`CudaCore` hold the fused kernels
(softmax, norms, losses, optimizers, attention, convolution, pooling) and the
counter-based generator.

One backend instance serves one device; arrays are created with that device current, and
kernels run on the current stream (``lucid.cuda.stream``).
"""

import functools
import math

import cupy
import numpy as np

from ...errors import ArgumentError, DeviceError, ExportError, LucidError
from ..array import ArrayBackend
from ..array.indexing import index_error
from . import checks, elementwise, gemm, joins, kernels, runtime, scatter
from .attention import CudaAttention
from .conv import CudaConv
from .loss import CudaLoss
from .norm import CudaNorm
from .optim import CudaOptim
from .pooling import CudaPooling
from .random import CudaRandom, DropoutKey
from .softmax import CudaSoftmax
from .xp import xp as _xp
from ... import backends

_KDL_CUDA, _KDL_CPU = 2, 1


_FLAGS: list = []  # lucid.backends.cuda.matmul, on first use


def _tf32_wanted():
    if not _FLAGS:
        _FLAGS.append(backends.cuda.matmul)
    return bool(_FLAGS[0].allow_tf32)


class CudaCore:
    """Transfers, DLPack and the kernels where CuPy's behaviour differs from NumPy's."""

    name = "cuda"
    xp = _xp
    ndarray = cupy.ndarray
    # what a kernel may return as a value (lucid.compile records each as a buffer of its
    # replay): arrays, and the dropout key a replay's forward makes afresh for its backward
    value_types = (cupy.ndarray, DropoutKey)

    def __init__(self, ordinal=0):
        self.ordinal = ordinal
        self._device = cupy.cuda.Device(ordinal)

    # -- host and device transfers ---------------------------------------------------

    def to_numpy(self, a, non_blocking=False):
        """A host copy; with ``non_blocking`` into page-locked memory, ordered on the
        current stream (valid once the stream has reached it). A blocking read first
        reports the device-side checks queued so far (:mod:`.checks`)."""
        if not non_blocking:
            checks.flush()
            return a.get()
        out = runtime.pinned_empty(a.shape, a.dtype)
        cupy.ascontiguousarray(a).get(
            stream=cupy.cuda.get_current_stream(), out=out, blocking=False
        )
        return out

    def from_backend(self, a, other, non_blocking=False):
        if other is self:
            return a
        with self._device:
            if other.name != "cpu":
                return cupy.array(a, copy=True)  # device to device (peer copy)
            if non_blocking and runtime.is_pinned(a):
                out = cupy.empty(a.shape, a.dtype)
                out.set(np.ascontiguousarray(a), stream=cupy.cuda.get_current_stream())
                return out
            return cupy.asarray(a)

    def astype(self, a, npdtype):
        """float32 <-> half casts (autocast's weight and gradient traffic) through the
        vector kernel of :mod:`.elementwise`; others through CuPy."""
        out = elementwise.cast(a, npdtype)
        return a.astype(npdtype) if out is None else out

    def concatenate(self, arrays, axis):
        """One copy kernel for up to eight pieces (:mod:`.joins`: ``cat``, ``stack`` and
        the backward of ``split``/``chunk``); CuPy's call where it does not apply."""
        out = joins.concatenate(arrays, axis)
        return super().concatenate(arrays, axis) if out is None else out

    def data_ptr(self, a):
        return a.data.ptr

    def is_shared(self, a):
        return False

    def to_shared(self, a):
        raise DeviceError(
            "share_memory_: CUDA tensors cannot be moved to shared host "
            "memory; move the tensor to the CPU first"
        )

    def pin_host(self, a):
        """NumPy array ``a`` copied into page-locked host memory."""
        out = runtime.pinned_empty(a.shape, a.dtype)
        out[...] = a
        return out

    def is_pinned(self, a):
        return runtime.is_pinned(a)

    # -- DLPack -----------------------------------------------------------------------

    def to_dlpack(self, a, stream=None, max_version=None, dl_device=None, copy=None):
        if dl_device is not None and tuple(int(x) for x in dl_device) != (_KDL_CUDA, self.ordinal):
            raise ExportError(
                f"__dlpack__: can't export a tensor on cuda:{self.ordinal} to "
                f"DLPack device {tuple(dl_device)} without moving it"
            )
        kwargs = {
            k: v
            for k, v in (("stream", stream), ("max_version", max_version), ("copy", copy))
            if v is not None
        }
        try:
            return a.__dlpack__(**kwargs)
        except (BufferError, RuntimeError, TypeError, ValueError) as e:
            raise ExportError(f"__dlpack__: {e}") from e

    def from_dlpack(self, obj):
        try:
            with self._device:
                return cupy.from_dlpack(obj)
        except (BufferError, RuntimeError, TypeError, ValueError) as e:
            if isinstance(e, LucidError):
                raise
            raise ArgumentError(f"from_dlpack: {e}") from e

    # -- GEMM -------------------------------------------------------------------------

    def matmul(self, a, b):
        """cuBLAS, called directly (:mod:`.gemm`) for float operands; float32 uses TF32
        tensor cores only where ``lucid.backends.cuda.matmul.allow_tf32`` is set (off by
        default, as in PyTorch). Vectors multiply as one-row or one-column matrices."""
        a2 = a[None] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        if not gemm.supports(a2, b2):
            return cupy.matmul(a, b)
        out = gemm.matmul(a2, b2, _tf32_wanted() if a.dtype == np.float32 else False)[0]
        if b.ndim == 1:
            out = out[..., 0]
        if a.ndim == 1:
            out = out[..., 0, :] if b.ndim > 1 else out[..., 0]
        return out

    def linear(self, x, w, b):
        """One cuBLAS GEMM against ``w`` as it lies (``w.T`` is a transposed view), with
        the bias added in its epilogue (cuBLASLt), else in place by one vector kernel
        (:func:`.elementwise.bias_add_`)."""
        x2 = x if x.ndim == 2 else x.reshape(math.prod(x.shape[:-1]), x.shape[-1])
        if gemm.supports(x2, w):
            tf32 = _tf32_wanted() if x.dtype == np.float32 else False
            out, added = gemm.matmul(x2, w.T, tf32, b)
        else:
            out, added = cupy.matmul(x2, w.T), False
        if b is not None and not added and not elementwise.bias_add_(out, b):
            out += b
        return out if x.ndim == 2 else out.reshape(x.shape[:-1] + (w.shape[0],))

    def linear_act(self, x, w, b, activation, approximate):
        """One cuBLASLt GEMM with the activation in its epilogue: ``RELU(_BIAS)``, or for
        the tanh GELU ``GELU_AUX(_BIAS)`` writing the pre-activation to the auxiliary
        matrix (``out`` a multiple of 8; not float64, whose epilogue GELU is accurate to
        about 1e-8 only); exact GELU (cuBLASLt has only the tanh form), and the problems
        cuBLASLt does not take, as the shared kernel: :meth:`linear`, then the
        activation."""
        tanh = approximate == "tanh" and x.dtype != np.float64
        x2 = x if x.ndim == 2 else x.reshape(math.prod(x.shape[:-1]), x.shape[-1])
        if (activation == "relu" or tanh) and gemm.supports(x2, w):
            tf32 = _tf32_wanted() if x.dtype == np.float32 else False
            aux = (
                None if activation == "relu" else kernels.empty((x2.shape[0], w.shape[0]), x.dtype)
            )
            out, done = gemm.matmul(x2, w.T, tf32, b, act=activation, aux=aux)
            if done:
                shape = x.shape[:-1] + (w.shape[0],)
                y = out if x.ndim == 2 else out.reshape(shape)
                return y if aux is None else (y, aux if x.ndim == 2 else aux.reshape(shape))
            # ``out`` is the bare product: the bias and the activation follow
            if b is not None and not elementwise.bias_add_(out, b):
                out += b
            z = out if x.ndim == 2 else out.reshape(x.shape[:-1] + (w.shape[0],))
            return self._activate(z, activation, approximate)
        return super().linear_act(x, w, b, activation, approximate)

    def linear_weight_grad(self, g, x, npdtype=None):
        """One cuBLASLt GEMM whose epilogue also sums ``g``'s columns (``BGRADB``), else
        the GEMM and :meth:`sum_rows`; half ``g``, ``x`` with float32 results: the same
        GEMM writing its float32 accumulator (no rounding, no cast kernels)."""
        out = None if npdtype is None or npdtype == g.dtype else np.dtype(npdtype)
        fits = gemm.supports(g, x)
        if out is not None and (out != np.float32 or g.itemsize != 2 or not fits):
            return super().linear_weight_grad(g, x, npdtype)
        if not fits:
            return cupy.matmul(g.T, x), self.sum_rows(g)
        gb = kernels.empty(g.shape[1], out or g.dtype)
        tf32 = _tf32_wanted() if g.dtype == np.float32 else False
        gw, done = gemm.matmul(g.T, x, tf32, bias_grad=gb, out_dtype=out)
        return gw, gb if done else self._sum_rows(g, out is not None)

    def relu_backward(self, y, g):
        """One element-wise kernel (select, not compare then select) where the dtypes
        allow it, else CuPy's where (two kernels)."""
        if y.dtype == g.dtype and y.dtype in _RELU_DTYPES:
            return _relu_backward(y, g)
        return self.xp.where(y <= 0, 0, g)

    def ones(self, shape, npdtype):
        """A fill on the device, 0-d included (``asarray(1)`` would copy from the host and
        wait: the seed of every ``backward()``), by one kernel for float dtypes."""
        out = elementwise.ones(shape, npdtype)
        return cupy.ones(shape, dtype=npdtype) if out is None else out

    def sum_rows(self, a):
        """One reduction, accumulating half types in float32."""
        return self._sum_rows(a)

    @staticmethod
    def _sum_rows(a, f32=False):
        """:meth:`sum_rows`; with ``f32`` a half ``a``'s float32 accumulator as it is."""
        if a.itemsize == 2 and a.dtype.kind in "fV":  # float16, bfloat16
            s = a.sum(axis=0, dtype=np.float32)
            return s if f32 else s.astype(a.dtype)
        return a.sum(axis=0)

    # -- checks on the device -----------------------------------------------------------

    def check_index_bounds(self, a, low, high, describe=None):
        checks.defer(a, low, high, False, lambda v: index_error(v, describe))

    def check_range(self, a, low, high, message):
        checks.defer(a, low, high, True, lambda v: ArgumentError(message))

    # -- scatters and segments -----------------------------------------------------------

    def _ufunc_at(self, ufunc, a, index, v):
        scatter.ufunc_at(ufunc, a, index, v)

    def embedding(self, weight, idx):
        out = scatter.embedding(weight, idx)
        return super().embedding(weight, idx) if out is None else out

    def embedding_backward(self, g, idx, num_weights, padding_idx, scale_grad_by_freq):
        out = (
            None
            if scale_grad_by_freq
            else scatter.embedding_backward(g, idx, num_weights, padding_idx)
        )
        if out is None:
            return super().embedding_backward(g, idx, num_weights, padding_idx, scale_grad_by_freq)
        return out

    def _segment_ids(self, counts, n):
        """For each of ``n`` items, the segment holding it (``counts`` items each)."""
        ends = cupy.cumsum(cupy.asarray(counts, dtype=cupy.int64))
        return cupy.searchsorted(ends, cupy.arange(n, dtype=cupy.int64), side="right")

    def repeat_indices(self, counts):
        n = int(counts.sum()) if counts.size else 0  # the output's size: one read
        return self._segment_ids(counts, n)

    def segment_sum(self, a, counts, axis):
        k = len(counts)
        out = cupy.zeros(a.shape[:axis] + (k,) + a.shape[axis + 1 :], dtype=a.dtype)
        n = a.shape[axis]
        if n and k:
            self._ufunc_at(
                cupy.add,
                cupy.moveaxis(out, axis, 0),
                self._segment_ids(counts, n),
                cupy.moveaxis(a, axis, 0),
            )
        return out

    # -- scans ------------------------------------------------------------------------

    def _accumulate(self, ufunc, a, axis):
        """``ufunc.accumulate(a, axis)`` as a Hillis-Steele scan: ``log2(n)`` passes, pass
        ``s`` combining each element with the one ``2**s`` before it."""
        out = cupy.array(a, copy=True)
        n = a.shape[axis]
        lead = (slice(None),) * (axis % a.ndim) if a.ndim else ()
        step = 1
        while step < n:
            hi, lo = lead + (slice(step, None),), lead + (slice(0, n - step),)
            out[hi] = ufunc(out[hi], out[lo])
            step *= 2
        return out


_RELU_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_relu_backward = cupy.ElementwiseKernel(
    "T y, T g", "T o", "o = y <= (T)0 ? (T)0 : g", "lucid_relu_backward"
)


def _on_device(inner):
    """Wrap creation kernel ``inner`` so its arrays land on the backend's own device."""

    @functools.wraps(inner)
    def wrapped(self, *args, **kwargs):
        with self._device:
            return inner(self, *args, **kwargs)

    return wrapped


class CudaBackend(
    CudaAttention,
    CudaOptim,
    CudaLoss,
    CudaNorm,
    CudaSoftmax,
    CudaConv,
    CudaPooling,
    CudaRandom,
    CudaCore,
    ArrayBackend,
):
    """Every kernel of :class:`~lucid.backend.Backend` on CuPy arrays of one GPU."""


for _name in ("asarray", "empty", "full", "ones", "arange", "linspace", "logspace", "eye"):
    setattr(CudaBackend, _name, _on_device(getattr(CudaBackend, _name)))
