"""The profiler's recording: timed ranges of ops, backward nodes and annotations
(PyTorch's ``torch.autograd.profiler``; :mod:`lucid.profiler` is the newer interface over
the same recording).

While a profile records, ``STATE.profiler`` holds its :class:`Collector`. The places that
run work read that one flag and, when it is set, hand the call to the collector, which
times it on the host clock (``time.perf_counter_ns``) and, for the GPU, between two CUDA
events on the current stream:

- :meth:`lucid.ops.core.base.Op.apply`: every op, under its registry name (``matmul``);
  an op called inside another's call (a restart with cast inputs) is part of the outer one;
- the autograd engine: every backward node (``MatmulBackward``) with the sequence number
  of the forward op that made it, and each leaf's ``AccumulateGrad``;
- in-place writes (``add_``), each optimizer's ``step`` (``Optimizer.step#Adam.step``),
  ``lucid.compile``'s replays, and :class:`record_function` ranges of the user's own.

Off, the flag read is the whole cost. With ``record_shapes`` an op's range keeps its
inputs' shapes, with ``profile_memory`` the bytes its outputs allocated, with
``with_stack`` the user's frames that called it (the frames inside ``lucid`` left out).
The collector is one per profile and not per thread: ops of other threads that run while
one thread is inside an op are not recorded.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import traceback
import weakref

from .._state import STATE
from .._tensor import Tensor
from ..errors import ProfilerError
from .profiler_util import EventList, FunctionEvent, Interval

__all__ = ["Collector", "record_function", "profile", "emit_nvtx", "EventList", "FunctionEvent"]

_now = time.perf_counter_ns
_native_id = threading.get_native_id
_LUCID = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class _Range:
    """One open or finished range of the collector (times in host nanoseconds)."""

    __slots__ = (
        "name",
        "kind",
        "tid",
        "parent",
        "start",
        "end",
        "shapes",
        "stack",
        "seq",
        "fwd_tid",
        "mem",
        "dev_mem",
        "dev",
        "events",
        "stream",
        "flops",
    )

    def __init__(self, name, kind, tid, parent):
        self.name = name
        self.kind = kind
        self.tid = tid
        self.parent = parent
        self.end = None
        self.shapes = self.stack = self.events = None
        self.seq = -1
        self.fwd_tid = None
        self.mem = self.dev_mem = self.flops = 0
        self.dev = -1
        self.stream = 0


class Collector:
    """The recording of one profile: its ranges and the options they keep."""

    def __init__(
        self,
        record_shapes=False,
        profile_memory=False,
        with_stack=False,
        with_flops=False,
        cuda=False,
    ):
        self.record_shapes = record_shapes or with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.idle = True  # False while an op runs: the ops it calls are part of it
        self.ranges: list = []  # finished, in order of ending
        self.open: dict = {}  # thread id -> its open ranges, innermost last
        self.seq = 0
        self.node_seq: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.gpu = _GpuClock() if cuda else None

    # -- ranges ----------------------------------------------------------------------

    def begin(self, name, kind="annotation"):
        tid = _native_id()
        stack = self.open.get(tid)
        if stack is None:
            stack = self.open[tid] = []
        r = _Range(name, kind, tid, stack[-1] if stack else None)
        if self.with_stack:
            r.stack = _user_stack()
        stack.append(r)
        r.start = _now()
        return r

    def end(self, r):
        r.end = _now()
        stack = self.open.get(r.tid, [])
        if stack and stack[-1] is r:
            stack.pop()
        elif r in stack:  # ranges closed out of order (a record_function left open)
            stack.remove(r)
        self.ranges.append(r)

    def close_all(self):
        """End every range still open (the profile stops inside them)."""
        for stack in list(self.open.values()):
            while stack:
                self.end(stack[-1])

    # -- what the hot paths hand over -----------------------------------------------

    def _run(self, r, dev, opaque, fn, /, *args, **kwargs):
        """``fn(*args, **kwargs)`` inside the open range ``r``, device-timed when ``dev``
        is a GPU; ``opaque``: the ops ``fn`` calls are part of ``r``, not ranges."""
        gpu = self.gpu is not None and dev is not None and self.gpu.begin(r, dev)
        if opaque:
            self.idle = False
        try:
            return fn(*args, **kwargs)
        finally:
            if opaque:
                self.idle = True
            if gpu:
                self.gpu.end(r)
            self.end(r)

    def op(self, cls, inputs, params):
        """Run ``cls.apply`` on ``inputs`` inside the op's range."""
        r = self.begin(cls.schema_v1.name, "op")
        if self.record_shapes:
            r.shapes = [list(t._data.shape) if isinstance(t, Tensor) else [] for t in inputs]
        dev = next((t._device for t in inputs if isinstance(t, Tensor)), None)
        out = self._run(r, dev, True, cls.apply, *inputs, **params)
        first = out[0] if out.__class__ is tuple and out else out
        if isinstance(first, Tensor):
            node = first._grad_fn
            if node is not None and node not in self.node_seq:
                self.node_seq[node] = (self.seq, r.tid)
                r.seq = self.seq
                self.seq += 1
            if self.profile_memory and not cls._view:
                _count_memory(r, dev, out if out.__class__ is tuple else (out,))
            if self.with_flops:
                r.flops = _flops(r.name, inputs, first, params)
        return out

    def inplace(self, apply_inplace, fn, self_t, args, kwargs):
        """An in-place write ``fn_`` as one op (the out-of-place op it runs is inside)."""
        r = self.begin(getattr(fn, "__name__", "op") + "_", "op")
        if self.record_shapes:
            r.shapes = [list(self_t._data.shape)]
            r.shapes += [list(t._data.shape) if isinstance(t, Tensor) else [] for t in args]
        return self._run(r, self_t._device, True, apply_inplace, fn, self_t, *args, **kwargs)

    def call(self, name, kind, dev, fn, *args):
        """``fn(*args)`` inside a range named ``name`` (work on device ``dev``)."""
        return self._run(self.begin(name, kind), dev, False, fn, *args)

    def node(self, node, grads, create_graph, dev):
        """A backward node's formula inside its range, with its forward's number."""
        r = self.begin(node.name(), "node")
        s = self.node_seq.get(node)
        if s is not None:
            r.seq, r.fwd_tid = s
        if self.record_shapes:
            r.shapes = [[] if g is None else list(g.shape) for g in grads]
        fn = node.apply_graph if create_graph else node.apply_eager
        out = self._run(r, dev, False, fn, grads)
        if self.profile_memory and out is not None:
            _count_memory(r, dev, [g for g in out if g is not None])
        return out

    # -- the result ------------------------------------------------------------------

    def events(self):
        """The finished ranges as :class:`FunctionEvent` s in order of starting, with
        their parents and children linked."""
        self.close_all()
        if self.gpu is not None:
            self.gpu.finish(self.ranges)
        ranges = sorted(self.ranges, key=lambda r: (r.start, -r.end))
        made = {}
        out = []
        for i, r in enumerate(ranges):
            dr = None
            if r.events is not None and len(r.events) == 2:
                dr = Interval(*r.events)
            e = FunctionEvent(
                i,
                r.name,
                r.tid,
                r.start / 1e3,
                r.end / 1e3,
                kind=r.kind,
                input_shapes=r.shapes,
                stack=r.stack,
                sequence_nr=r.seq,
                fwd_thread=r.fwd_tid,
                device_index=r.dev,
                device_range=dr,
                stream=r.stream,
                cpu_memory_usage=r.mem,
                cuda_memory_usage=r.dev_mem,
                flops=r.flops,
            )
            made[id(r)] = e
            p = made.get(id(r.parent)) if r.parent is not None else None
            if p is not None:
                e.cpu_parent = p
                p.cpu_children.append(e)
            out.append(e)
        return out


def _count_memory(r, dev, outputs):
    """Add the bytes of ``outputs`` (Tensors or arrays on ``dev``) to the range."""
    n = sum((t._data if isinstance(t, Tensor) else t).nbytes for t in outputs)
    if dev is not None and dev.type == "cuda":
        r.dev_mem += n
    else:
        r.mem += n


def _flops(name, inputs, out, params):
    """Multiply-adds times two of the ops whose count is known from shapes (matmul,
    linear, convolution, attention); 0 for the rest."""
    shapes = [tuple(t._data.shape) if isinstance(t, Tensor) else () for t in inputs]
    n_out = _numel(tuple(out._data.shape))
    if name in ("matmul", "linear", "fused_linear") and len(shapes) >= 2 and shapes[0]:
        k = shapes[0][-1]
        return 2 * n_out * k
    if name == "convolution" and len(shapes) >= 2 and len(shapes[1]) >= 3:
        w = shapes[1]
        return 2 * n_out * w[1] * _numel(w[2:])
    if name == "conv_transpose" and len(shapes) >= 2 and len(shapes[1]) >= 3:
        w = shapes[1]
        return 2 * _numel(shapes[0]) * w[1] * _numel(w[2:])
    if name in ("scaled_dot_product_attention", "flash_attention") and len(shapes) >= 3:
        q, k = shapes[0], shapes[1]
        if len(q) >= 2 and len(k) >= 2:
            return 4 * _numel(q[:-1]) * k[-2] * q[-1]
    return 0


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _user_stack():
    """The calling frames outside the ``lucid`` package, innermost first, as PyTorch
    writes them: ``path(line): function``."""
    out = []
    for f in reversed(traceback.extract_stack()[:-2]):
        if not os.path.abspath(f.filename).startswith(_LUCID):
            out.append(f"{f.filename}({f.lineno}): {f.name}")
    return out


class _GpuClock:
    """Device times: a CUDA event before and after each range, read back when the profile
    ends, placed on the host's clock through one event recorded at the start."""

    def __init__(self):
        from ..backend import cuda

        self.rt = cuda.runtime if cuda.AVAILABLE else None
        if self.rt is None:
            return
        from ..backend.cuda.graphs import stream_capturing

        self.capturing = stream_capturing
        self.base = self.rt.new_event(True)
        self.base.record()
        self.base_host = _now()

    def begin(self, r, dev):
        if self.rt is None or dev.type != "cuda" or self.capturing():
            return False
        e = self.rt.new_event(True)
        e.record()
        r.events = [e]
        r.dev = dev.index or 0
        r.stream = self.rt.current_stream().ptr
        return True

    def end(self, r):
        e = self.rt.new_event(True)
        e.record()
        r.events.append(e)

    def finish(self, ranges):
        if self.rt is None:
            return
        timed = [r for r in ranges if r.events is not None and len(r.events) == 2]
        if not timed:
            return
        for index in {r.dev for r in timed}:
            self.rt.synchronize(index)
        base_us = self.base_host / 1e3
        for r in timed:
            r.events = [
                base_us + 1e3 * self.rt.elapsed_ms(self.base, r.events[0]),
                base_us + 1e3 * self.rt.elapsed_ms(self.base, r.events[1]),
            ]


class _NvtxCollector(Collector):
    """A collector whose ranges are NVTX ranges: pushed when they begin, popped when
    they end, kept nowhere (Nsight Systems records them)."""

    def __init__(self, rt, record_shapes):
        super().__init__(record_shapes)
        self.rt = rt

    def begin(self, name, kind="annotation"):
        self.rt.nvtx_push(name)
        return _Range(name, kind, 0, None)

    def end(self, r):
        self.rt.nvtx_pop()


class emit_nvtx:
    """Every op, backward node and ``record_function`` of the block as an NVTX range, for
    NVIDIA's profilers (``nsys profile python train.py``); nothing is recorded here. Needs
    the CUDA backend."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.collector = None

    def __enter__(self):
        if self.enabled:
            from ..backend import cuda

            if not cuda.AVAILABLE:
                raise ProfilerError(
                    "emit_nvtx: NVTX ranges need the CUDA backend (CuPy and a GPU), "
                    "which is not available here"
                )
            self.collector = _NvtxCollector(cuda.runtime, self.record_shapes)
            start(self.collector)
        return self

    def __exit__(self, *exc):
        if self.collector is not None:
            stop(self.collector)
            self.collector = None
        return False


class record_function(contextlib.ContextDecorator):
    """A named range of the user's own in the profile: a context manager, and a decorator
    (each call of the decorated function one range). Outside a profile it does nothing."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._range = None
        self._collector = None

    def _recreate_cm(self):  # a fresh range for each call of a decorated function
        return record_function(self.name, self.args)

    def __enter__(self):
        c = STATE.profiler
        if c is not None:
            self._collector = c
            self._range = c.begin(self.name, "annotation")
        return self

    def __exit__(self, *exc):
        if self._range is not None:
            self._collector.end(self._range)
            self._range = self._collector = None
        return False


def start(collector):
    """Make ``collector`` the one that records; :class:`ProfilerError` if one already
    does."""
    if STATE.profiler is not None:
        raise ProfilerError(
            "profile: another profiler is already recording; stop it before starting one"
        )
    STATE.profiler = collector


def stop(collector):
    """Stop ``collector`` recording (when it is the one that records)."""
    if STATE.profiler is collector:
        STATE.profiler = None


class profile:
    """The autograd profiler (PyTorch's legacy ``torch.autograd.profiler.profile``): a
    context manager that records every op, backward node and ``record_function`` range of
    its block; ``key_averages()``, ``table()`` and ``export_chrome_trace()`` once it
    exits. ``use_cuda=True`` (or ``use_device="cuda"``) adds device times."""

    def __init__(
        self,
        enabled=True,
        *,
        use_cuda=False,
        use_device=None,
        record_shapes=False,
        with_flops=False,
        profile_memory=False,
        with_stack=False,
        with_modules=False,
        use_kineto=False,
        use_cpu=True,
        experimental_config=None,
        acc_events=False,
    ):
        if use_device not in (None, "cuda"):
            raise ProfilerError(f"profile: use_device={use_device!r}; expected None or 'cuda'")
        self.enabled = enabled
        self.use_device = "cuda" if (use_cuda or use_device == "cuda") else None
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.collector = None
        self.function_events = None

    def __enter__(self):
        if self.enabled:
            self.collector = Collector(
                self.record_shapes,
                self.profile_memory,
                self.with_stack,
                self.with_flops,
                self.use_device == "cuda",
            )
            start(self.collector)
        return self

    def __exit__(self, *exc):
        if self.collector is not None:
            stop(self.collector)
            self.function_events = EventList(
                self.collector.events(),
                use_device=self.use_device,
                profile_memory=self.profile_memory,
                with_flops=self.with_flops,
            )
            self.collector = None
        return False

    def _events(self):
        if self.function_events is None:
            raise ProfilerError("profile: the profiler has not finished; exit its block first")
        return self.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        return self._events().key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by=None, row_limit=100, **kwargs):
        return self._events().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self):
        return self._events().total_average()

    def export_chrome_trace(self, path):
        self._events().export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        self._events().export_stacks(path, metric)

    @property
    def self_cpu_time_total(self):
        return self._events().self_cpu_time_total

    def __str__(self):
        return self.table()
