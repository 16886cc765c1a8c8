"""CUDA graphs: the kernels a block of code queues, captured once and replayed by one launch.

While a stream captures, the kernels queued on it are recorded, not run; ending the
capture gives a graph whose replay runs them all again, with the same arguments and the
same device addresses, for the cost of one launch instead of one Python dispatch per op.
What a replay cannot redo is what happened on the host during the capture, so:

- Memory: arrays made during a capture come from a pool private to the graph (or to the
  graphs sharing it, :class:`Pool`), never handed to arrays outside it, so that the
  addresses baked into the graph stay the graph's. (``lucid.cuda.memory_allocated``
  counts the default pool only.)
- Host-to-device copies (an optimizer's table of parameter addresses) read a page-locked
  copy of the host data that the graph keeps alive (:func:`to_device`): each replay copies
  it again; a copy from pageable memory could not be captured.
- Value checks queued on the device (:mod:`.checks`) write into a buffer of the graph's
  own; each replay makes them pending again, read at the next host read.
- Host state that a step advances cannot be replayed: capturing an optimizer whose update
  reads a host step count (Adam, AdamW, NAdam, RAdam, Adamax, Adagrad, RMSprop) or a
  random op (whose generator counter moves on the host) raises a ``DeviceError``
  (:func:`refuse`). Other Python numbers (a learning rate) are captured as they were.
"""

import cupy

from ...errors import DeviceError
from . import checks
from .runtime import pinned_empty

_ACTIVE: list = []  # the captures in progress on this process (innermost last)


class Pool:
    """A memory pool for the arrays of one or more graphs' captures."""

    def __init__(self):
        self.pool = cupy.cuda.MemoryPool()


def refuse(what, why):
    """Raise the error for host state that a capture in progress cannot replay."""
    if _ACTIVE:
        raise DeviceError(
            f"{what} cannot be captured in a CUDA graph: {why}; run it outside the captured block"
        )


def to_device(host):
    """``cupy.asarray`` of NumPy array ``host``, also inside a capture (see module doc)."""
    if not _ACTIVE:
        return cupy.asarray(host)
    pinned = pinned_empty(host.shape, host.dtype)
    pinned[...] = host
    out = cupy.empty(host.shape, host.dtype)
    rt = cupy.cuda.runtime  # (CuPy's ndarray.set refuses a capturing stream)
    rt.memcpyAsync(
        out.data.ptr,
        pinned.ctypes.data,
        pinned.nbytes,
        rt.memcpyHostToDevice,
        cupy.cuda.get_current_stream().ptr,
    )
    _ACTIVE[-1].keep.append(pinned)
    return out


class Capture:
    """One capture on a CuPy stream: begun by :meth:`begin`, ended by :meth:`end`, which
    returns the graph to :meth:`replay`."""

    def __init__(self, pool):
        self.pool = pool
        self.keep = []  # host memory the replays read
        self.ledger = None  # the graph's value checks
        self.graph = None
        self._stream = self._allocator = None

    def begin(self, stream):
        if stream.ptr == 0:
            raise DeviceError(
                "CUDAGraph.capture_begin: the default stream cannot capture; "
                "capture inside lucid.cuda.stream(lucid.cuda.Stream()) or "
                "use lucid.cuda.graph(...), which does"
            )
        self.ledger = checks.begin_capture()
        self._allocator = cupy.cuda.using_allocator(self.pool.pool.malloc)
        self._allocator.__enter__()
        try:
            stream.begin_capture()
        except Exception:
            self._release()
            raise
        self._stream = stream
        _ACTIVE.append(self)

    def end(self):
        try:
            self.graph = self._stream.end_capture()
        finally:
            self._release()
        return self.graph

    def abort(self):
        """End a capture that failed, dropping what it recorded."""
        try:
            self._stream.end_capture()
        except Exception:  # the capture was already invalidated by the failure
            pass
        finally:
            self._release()

    def _release(self):
        if self in _ACTIVE:
            _ACTIVE.remove(self)
        checks.end_capture(self.ledger)
        if self._allocator is not None:
            self._allocator.__exit__(None, None, None)
            self._allocator = None

    def replay(self):
        """Launch the graph on the current stream; its value checks become pending."""
        self.graph.launch()
        checks.replayed(self.ledger)


def stream_capturing():
    """Whether the current stream is capturing."""
    s = cupy.cuda.get_current_stream()
    return s.ptr != 0 and s.is_capturing()


def capture_call(fn, pool=None):
    """``(capture, fn())``: ``fn`` captured into a graph on a side stream of the current
    device, after the device finished its queued work (``lucid.compile``'s replays). An
    error inside ``fn`` aborts the capture and propagates."""
    cupy.cuda.Device().synchronize()
    cap = Capture(Pool() if pool is None else pool)
    side = cupy.cuda.Stream(non_blocking=True)
    with side:
        cap.begin(side)
        try:
            out = fn()
        except BaseException:
            cap.abort()
            raise
        cap.end()
    return cap, out
