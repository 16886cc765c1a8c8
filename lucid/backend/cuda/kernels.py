"""CUDA C kernels through CuPy's ``RawModule``: compiled once per (source, dtype), cached.

A kernel source is written once over two type names: ``T``, the C type of the arrays'
dtype, and ``A``, the type it accumulates in (``float`` for float16/bfloat16/float32,
``double`` for float64). :func:`kernel` prefixes the matching ``typedef``\\ s and the half
precision headers, so ``static_cast<A>(x[i])`` reads an element and ``T(acc)`` writes one.
Scalars passed to a launch must be NumPy scalars of the C parameter's type
(``np.int64(n)``, ``np.float32(eps)``), as ``RawKernel`` requires.
"""

import functools

import cupy
import ml_dtypes
import numpy as np

CTYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double",
          np.dtype(np.float16): "__half", np.dtype(ml_dtypes.bfloat16): "__nv_bfloat16"}
ACCUMULATE = {d: ("double" if c == "double" else "float") for d, c in CTYPES.items()}
# (T, A) of every dtype a kernel may be compiled for: the float types, and int64 (indices)
_TYPEDEFS = {**{d: (c, ACCUMULATE[d]) for d, c in CTYPES.items()},
             np.dtype(np.int64): ("long long", "double")}
_PRELUDE = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"
_OPTIONS = ("--std=c++17",)


@functools.lru_cache(maxsize=None)
def kernel(source, name, dtype=None):
    """The function ``name`` of ``source`` compiled with ``T``/``A`` for ``dtype``
    (a NumPy float dtype or int64, or None for a source that names no ``T``)."""
    head = _PRELUDE
    if dtype is not None:
        head += "typedef {} T;\ntypedef {} A;\n".format(*_TYPEDEFS[np.dtype(dtype)])
    return cupy.RawModule(code=head + source, options=_OPTIONS).get_function(name)


def blocks(n, threads=256):
    """The grid size covering ``n`` items with ``threads`` per block (at least one block)."""
    return (max((int(n) + threads - 1) // threads, 1),)


def ptr_arg(a):
    """``a`` as a raw kernel's pointer argument: C-contiguous (a copy only where it is
    not; the kernel indexes it linearly, so its shape does not matter), or a null pointer
    for None (CuPy passes None to a raw kernel as an invalid address, not NULL)."""
    return np.uint64(0) if a is None else cupy.ascontiguousarray(a)
