"""CUDA C kernels through CuPy's ``RawModule``: compiled once per (source, dtype), cached.

A kernel source is written once over two type names: ``T``, the C type of the arrays'
dtype, and ``A``, the type it accumulates in (``float`` for float16/bfloat16/float32,
``double`` for float64). :func:`kernel` prefixes the matching ``typedef``\\ s and the half
precision headers, so ``static_cast<A>(x[i])`` reads an element and ``T(acc)`` writes one.

A launch packs its arguments itself (:class:`Kernel`): the scalars and the arrays' device
pointers are written with ``struct`` into one buffer, laid out as C lays out the
parameters (each at its natural alignment), and ``cuLaunchKernel`` reads them through a
per-layout array of pointers into that buffer. CuPy's own launch converts each argument
to an object first, about 0.4 us each on the H200's host: a kernel with twenty
geometry scalars (im2col, pooling) cost 19 us a launch there, and costs 11.5 us so.

The layout comes from the kernel's declaration in its source (:func:`signature`), or from
the parameter list given to :func:`kernel` where a macro declares it: a pointer parameter
takes an array (or a NumPy ``uint64`` address, 0 for NULL), a scalar one a Python or
NumPy number, converted as C converts it. Where neither gives plain C types (a typedef
other than ``T``'s accumulator ``A``), each scalar must be a NumPy scalar of the
parameter's type (``np.int64(n)``, ``np.float32(eps)``), which gives the layout instead.
"""

import ctypes
import functools
import re
import struct
import threading

import cupy
import ml_dtypes
import numpy as np
from cupy.cuda import driver

CTYPES = {
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.float16): "__half",
    np.dtype(ml_dtypes.bfloat16): "__nv_bfloat16",
}
ACCUMULATE = {d: ("double" if c == "double" else "float") for d, c in CTYPES.items()}
# (T, A) of every dtype a kernel may be compiled for: the float types, and int64 (indices)
_TYPEDEFS = {
    **{d: (c, ACCUMULATE[d]) for d, c in CTYPES.items()},
    np.dtype(np.int64): ("long long", "double"),
}
empty = cupy.ndarray  # cupy.empty(shape, dtype) without its Python wrapper (a microsecond)
_PRELUDE = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"
_OPTIONS = ("--std=c++17",)


@functools.lru_cache(maxsize=None)
def kernel(source, name, dtype=None, params=None):
    """The function ``name`` of ``source`` compiled with ``T``/``A`` for ``dtype``
    (a NumPy float dtype or int64, or None for a source that names no ``T``); ``params``,
    its C parameter list, lays out its launches where ``source`` declares it through a
    macro (see the module doc)."""
    head = _PRELUDE
    acc = None
    if dtype is not None:
        t, acc = _TYPEDEFS[np.dtype(dtype)]
        head += f"typedef {t} T;\ntypedef {acc} A;\n"
    fmt = layout(params, acc) if params is not None else signature(source, name, acc)
    return Kernel(cupy.RawModule(code=head + source, options=_OPTIONS).get_function(name), fmt)


# struct codes of the C scalar types a declaration may name
_C_CODES = {
    "long long": "q",
    "int": "i",
    "unsigned long long": "Q",
    "unsigned int": "I",
    "float": "f",
    "double": "d",
}


def signature(source, name, acc=None):
    """The :func:`layout` of kernel ``name`` as ``source`` declares it (``extern "C"
    __global__ void name(...)``); None where no such declaration is found."""
    m = re.search(
        r'extern "C" __global__ void\s+(?:__launch_bounds__\([^)]*\)\s*)?'
        + re.escape(name)
        + r"\s*\(([^)]*)\)",
        source,
    )
    return None if m is None else layout(m.group(1), acc)


def layout(params, acc=None):
    """The ``struct`` format (``"@"`` then one code per parameter) of the C parameter list
    ``params``, ``A`` standing for the C type ``acc``; None where a parameter is neither a
    pointer nor of a scalar type of :data:`_C_CODES`."""
    fmt = "@"
    for param in params.split(","):
        if "*" in param:
            fmt += "Q"
            continue
        words = param.replace("const ", " ").split()
        ctype = " ".join(words[:-1])
        code = _C_CODES.get(acc if ctype == "A" else ctype)
        if code is None:
            return None
        fmt += code
    return fmt


# struct codes of the scalar types a launch takes (arrays are 8-byte pointers, "Q")
_CODES = {
    np.int64: "q",
    np.int32: "i",
    np.uint64: "Q",
    np.uint32: "I",
    np.float32: "f",
    np.float64: "d",
}
_BUFFER_BYTES = 4096  # CUDA's classic limit on a launch's parameters


class _Params(threading.local):
    """A thread's parameter buffer and, per layout (a struct format), the array of
    pointers to its parameters' places in that buffer."""

    def __init__(self):
        self.buffer = ctypes.create_string_buffer(_BUFFER_BYTES)
        self.base = ctypes.addressof(self.buffer)
        self.layouts = {}

    def pointers(self, fmt):
        ptrs = self.layouts.get(fmt)
        if ptrs is None:
            offsets = [
                struct.calcsize(fmt[: i + 1]) - struct.calcsize(c) for i, c in enumerate(fmt) if i
            ]  # fmt[0] is "@"
            table = (ctypes.c_void_p * len(offsets))(*(self.base + o for o in offsets))
            ptrs = self.layouts[fmt] = (table, ctypes.addressof(table))
        return ptrs[1]


_PARAMS = _Params()
_NDARRAY = cupy.ndarray
_get_device, _stream, _launch = (
    cupy.cuda.runtime.getDevice,
    cupy.cuda.get_current_stream,
    driver.launchKernel,
)


class Kernel:
    """A compiled kernel, launched as CuPy's ``RawKernel`` is, ``k(grid, block, args,
    shared_mem=0)``, on the current stream, with the arguments packed as the module
    docstring says (arguments of other types take CuPy's launch)."""

    __slots__ = ("raw", "fmt", "_functions")

    def __init__(self, raw, fmt=None):
        self.raw = raw
        self.fmt = fmt  # the declared layout (None: read from the args)
        self._functions = {}  # device -> CUfunction

    @property
    def max_dynamic_shared_size_bytes(self):
        return self.raw.max_dynamic_shared_size_bytes

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, n):
        self.raw.max_dynamic_shared_size_bytes = n

    def __call__(self, grid, block, args, shared_mem=0):
        fmt = self.fmt
        if fmt is not None:
            vals = [a.data.ptr if a.__class__ is _NDARRAY else a for a in args]
        else:
            fmt, vals = self._layout_of(args)
            if fmt is None:
                return self.raw(grid, block, args, shared_mem=shared_mem)
        params = _PARAMS.pointers(fmt)
        try:
            struct.pack_into(fmt, _PARAMS.buffer, 0, *vals)
        except struct.error as e:
            raise TypeError(
                f"kernel {self.raw.name!r} declares parameters "
                f"{fmt[1:]!r} but got {len(args)} arguments of types "
                f"{[type(a).__name__ for a in args]}: {e}"
            ) from None
        device = _get_device()
        fn = self._functions.get(device)
        if fn is None:
            fn = self._functions[device] = self.raw.kernel.ptr
        g = (grid[0], 1, 1) if grid.__class__ is tuple and len(grid) == 1 else _dims(grid)
        b = (block[0], 1, 1) if block.__class__ is tuple and len(block) == 1 else _dims(block)
        _launch(fn, g[0], g[1], g[2], b[0], b[1], b[2], shared_mem, _stream().ptr, params, 0)

    def _layout_of(self, args):
        """``(format, values)`` of a kernel without a declared layout, read from the
        arguments' types (NumPy scalars; arrays are pointers), or ``(None, None)`` where an
        argument has another type (CuPy's launch takes it)."""
        fmt, vals = "@", []
        for a in args:
            k = a.__class__
            if k is _NDARRAY:
                fmt += "Q"
                vals.append(a.data.ptr)
                continue
            code = _CODES.get(k)
            if code is None:
                if k is int or k is float:
                    raise TypeError(
                        f"kernel {self.raw.name!r}: its declaration gives no "
                        "layout, so scalars must be NumPy scalars of their C "
                        f"types; got a Python {k.__name__}"
                    )
                return None, None
            fmt += code
            vals.append(a)
        return fmt, vals


def _dims(d):
    """A launch's grid or block as three extents."""
    if type(d) is int:
        return d, 1, 1
    n = len(d)
    return (d[0], 1, 1) if n == 1 else (d[0], d[1], 1) if n == 2 else d


def blocks(n, threads=256):
    """The grid size covering ``n`` items with ``threads`` per block (at least one block)."""
    return (max((int(n) + threads - 1) // threads, 1),)


@functools.lru_cache(maxsize=1024)
def geometry(rows, fills):
    """The window kernels' geometry scalars: each row of per-dim ints (extents, kernel,
    stride, ...) as ``np.int64``, padded in front to three dims with its fill (1 for an
    extent, 0 for a padding)."""
    lead = 3 - len(rows[0])
    return tuple(np.int64(v) for r, fill in zip(rows, fills) for v in (fill,) * lead + r)


NULL = np.uint64(0)  # a null pointer argument


def ptr_arg(a):
    """``a`` as a raw kernel's pointer argument: C-contiguous (a copy only where it is
    not; the kernel indexes it linearly, so its shape does not matter), or a null pointer
    for None (CuPy passes None to a raw kernel as an invalid address, not NULL)."""
    return NULL if a is None else cupy.ascontiguousarray(a)
