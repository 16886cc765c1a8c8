"""Value checks that run on the GPU and report at the next host read.

A bounds check that read its verdict back at once would stop the host until the GPU had
caught up, every step (an embedding, a cross-entropy target). Here a check is one kernel
that writes into a slot of a small device buffer; the verdicts are read with the next copy
to the host (``Tensor.item()``, ``.numpy()``, ``.cpu()``, printing) or
``lucid.cuda.synchronize()``, which wait for the GPU anyway, and the first failed check
raises its error there, naming the op that queued it. Kernels that consume the checked
values clamp or wrap them, so a bad index never reads outside its array in between.

A check queued while a CUDA graph captures (:mod:`.graphs`) writes into the graph's own
buffer (its :class:`Ledger`); each replay of the graph makes its checks pending again.
"""

import cupy
import numpy as np

from ...errors import DeviceError
from .kernels import blocks, kernel

_CHECK = r"""
extern "C" __global__ void in_range(const T* a, long long n, double lo, double hi,
                                    int inclusive, unsigned long long* slot) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        double v = (double)static_cast<A>(a[i]);
        bool bad = !(v >= lo) || (inclusive ? !(v <= hi) : !(v < hi));
        if (bad && atomicCAS(slot, 0ull, 1ull) == 0ull)      // the first offender's value
            slot[1] = (unsigned long long)__double_as_longlong(v);
    }
}
"""
_INT = np.dtype(np.int64)  # checked as it lies (other integer and bool arrays: as float64)
_SLOTS = 256  # pending checks before a forced read
_pending: list = []  # (slot index, make_error(value)) per queued check
_buffer: list = []  # the device buffer: two uint64 words per slot
_capturing: list = []  # the ledger of each capture in progress (innermost last)
_replayed: list = []  # the ledgers of graphs replayed since the last read


class Ledger:
    """A captured graph's checks: its device buffer and ``(slot, make_error)`` per check."""

    def __init__(self):
        self.buffer = cupy.zeros(2 * _SLOTS, dtype=cupy.uint64)
        self.entries = []


def begin_capture():
    """A new ledger for the checks of a capture about to begin (made before it begins)."""
    ledger = Ledger()
    _capturing.append(ledger)
    return ledger


def end_capture(ledger):
    if ledger in _capturing:
        _capturing.remove(ledger)


def replayed(ledger):
    """Make the checks of a replayed graph pending."""
    if ledger.entries and not any(r is ledger for r in _replayed):
        _replayed.append(ledger)


def _slots():
    if not _buffer:
        _buffer.append(cupy.zeros(2 * _SLOTS, dtype=cupy.uint64))
    return _buffer[0]


def slot(make_error):
    """A fresh slot (two device words: a flag, then the first offender as float64 bits)
    for a kernel that checks values itself; ``make_error(value)`` builds the error."""
    if _capturing:
        ledger = _capturing[-1]
        k = len(ledger.entries)
        if k == _SLOTS:
            raise DeviceError(f"a CUDA graph may capture at most {_SLOTS} value checks")
        ledger.entries.append((k, make_error))
        return ledger.buffer[2 * k :]
    if len(_pending) == _SLOTS:
        flush()
    k = len(_pending)
    _pending.append((k, make_error))
    return _slots()[2 * k :]


def defer(a, lo, hi, inclusive, make_error):
    """Queue the check that every element of ``a`` lies in ``[lo, hi)`` (``[lo, hi]`` if
    ``inclusive``); ``make_error(value)`` builds the error for the first offender."""
    if a.size == 0:
        return
    keep = a.dtype.kind == "f" or a.dtype == _INT
    src = cupy.ascontiguousarray(a) if keep else a.astype(np.float64)  # read linearly
    kernel(_CHECK, "in_range", src.dtype)(
        blocks(min(a.size, 1 << 20)), (256,), (src, a.size, lo, hi, inclusive, slot(make_error))
    )


def flush():
    """Read the verdicts of the queued checks (and of the graphs replayed since the last
    read); raise the first failure's error."""
    found = None
    if _pending:
        found = _first_failure(_buffer[0], list(_pending))
        _pending.clear()
    while _replayed:
        ledger = _replayed.pop(0)
        found = found or _first_failure(ledger.buffer, ledger.entries)
    if found is not None:
        raise found


def _first_failure(buffer, entries):
    """The error of the first failed check of ``entries`` in ``buffer`` (None if all
    passed); the buffer's words are reset."""
    n = len(entries)
    words = buffer[: 2 * n].get()
    buffer[: 2 * n].fill(0)
    for k, make_error in entries:
        if words[2 * k]:
            return make_error(float(words[2 * k + 1 : 2 * k + 2].view(np.float64)[0]))
    return None
