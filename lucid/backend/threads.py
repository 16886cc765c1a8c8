"""The CPU's intra-op threads: how many threads one op may use, for BLAS and for Lucid's own
element-wise passes.

NumPy runs a ufunc, a copy or an ``einsum`` on one thread, but releases the GIL while it
does, so a memory-bound pass over a large array split in ``n`` contiguous pieces runs on
``n`` cores at once: batch norm's backward passes over a ``(32, 64, 56, 56)`` batch take
15 -> 7.6 ms on two threads. OpenBLAS keeps its own pool for GEMMs; :func:`set_num_threads`
sets both, as ``torch.set_num_threads`` sets PyTorch's intra-op pool.

The default is the number of cores this process may run on (OpenBLAS's own default), or
``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` where set.
"""

import ctypes
import glob
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..errors import ArgumentError

_BLAS_SET = (
    "scipy_openblas_set_num_threads64_",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not Linux)
        return os.cpu_count() or 1


def _default_threads():
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        value = os.environ.get(var, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    return _cores()


def _blas_setter():
    """OpenBLAS's ``set_num_threads`` in the library NumPy loaded; None when NumPy's BLAS
    is not a bundled OpenBLAS (then only Lucid's own passes follow the setting)."""
    where = os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs", "*openblas*")
    for path in glob.glob(where):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in _BLAS_SET:
            if hasattr(lib, name):
                fn = getattr(lib, name)
                fn.argtypes = (ctypes.c_int,)
                return fn
    return None


class _IntraOp:
    """The thread count and the pool that runs an op's pieces (``n - 1`` workers: the
    calling thread runs the first piece itself)."""

    def __init__(self):
        self.threads = _default_threads()
        self._pool = None
        self._lock = threading.Lock()
        self._blas = None

    def set(self, n):
        with self._lock:
            self.threads = n
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None
        if self._blas is None:
            self._blas = _blas_setter() or False
        if self._blas:
            self._blas(n)

    def forget_pool(self):
        """In a forked child the parent's workers don't exist: start afresh on next use."""
        self._pool = None
        self._lock = threading.Lock()

    def pool(self):
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    self.threads - 1, thread_name_prefix="lucid-intra-op"
                )
            return self._pool


INTRA_OP = _IntraOp()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=INTRA_OP.forget_pool)


def get_num_threads():
    """The threads one CPU op may use (BLAS's and Lucid's element-wise passes)."""
    return INTRA_OP.threads


def set_num_threads(n):
    """Let one CPU op use ``n`` threads: OpenBLAS's GEMMs and Lucid's element-wise passes
    over large arrays (``torch.set_num_threads``)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ArgumentError(f"set_num_threads: expected a positive int, got {n!r}")
    INTRA_OP.set(n)


def split(n, pieces, least=1):
    """``[start, stop)`` ranges cutting ``range(n)`` into at most ``pieces`` runs of near
    equal length, each at least ``least`` long (one run when ``n < 2 least``)."""
    pieces = max(1, min(pieces, n // max(least, 1)))
    step, extra = divmod(n, pieces)
    out, start = [], 0
    for i in range(pieces):
        stop = start + step + (i < extra)
        out.append((start, stop))
        start = stop
    return out


_WORKER = threading.local()


def _run_as_worker(fn, part):
    _WORKER.busy = True
    try:
        return fn(part)
    finally:
        _WORKER.busy = False


def parallel(fn, parts):
    """``[fn(p) for p in parts]``, the parts run on the intra-op threads at once (the first
    on the calling thread). ``fn`` must only call code that releases the GIL for its
    work (NumPy's) and write disjoint memory. Every part has finished when this returns
    or raises (the first part's exception, else the first failed worker's). Called from
    a worker, the parts run in turn: a worker never waits on the pool it belongs to."""
    if len(parts) < 2 or INTRA_OP.threads < 2 or getattr(_WORKER, "busy", False):
        return [fn(p) for p in parts]
    futures = [INTRA_OP.pool().submit(_run_as_worker, fn, p) for p in parts[1:]]
    try:
        first = fn(parts[0])
    finally:
        rest = [f.exception() for f in futures]  # (waits for each)
    for err in rest:
        if err is not None:
            raise err
    return [first] + [f.result() for f in futures]
