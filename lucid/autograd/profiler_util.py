r"""The profiler's results: events, their averages by key, and the table and trace made from
them (PyTorch's ``torch.autograd.profiler_util``).

A :class:`FunctionEvent` is one timed range of one thread: an op call under the op's own
name (``exp``), a backward node (``ExpBackward``), a ``record_function`` range, an
optimizer's ``step``. Ranges nest, and an event's *self* time is its time less its
children's:

.. math::

    \text{self}(e) = (t_\text{end} - t_\text{start}) - \sum_{c \in \text{children}(e)}
    (t_\text{end}(c) - t_\text{start}(c)),

so the self times of a thread's events add up to the time its outermost events cover. A
range on a GPU also has a *device* time, measured by a pair of CUDA events around it on the
current stream (the GPU time from the first to the last of its kernels, including any gap
the GPU waited for the host inside it); a range that launched nothing itself (a
``record_function``) has its children's. Memory is what a range's outputs allocated (a view
allocates nothing), by device.

:class:`EventList` is a list of events with :meth:`~EventList.key_averages` (one
:class:`FunctionEventAvg` per name, and per input shapes or call stack when asked),
:meth:`~EventList.table` and :meth:`~EventList.export_chrome_trace` (Chrome's trace-event
JSON, which Perfetto and ``chrome://tracing`` open).
"""

from __future__ import annotations

import json
import os
from typing import NamedTuple

from ..errors import ProfilerError

__all__ = ["FunctionEvent", "FunctionEventAvg", "EventList", "Interval", "Kernel"]

#: the trace-event category of each kind of range
_CATEGORY = {"op": "cpu_op", "node": "cpu_op", "annotation": "user_annotation"}


class Interval:
    """A time range in microseconds."""

    __slots__ = ("start", "end")

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start

    def __repr__(self):
        return f"Interval(start={self.start:.3f}, end={self.end:.3f})"


class Kernel(NamedTuple):
    """The device work of one range: named after it, its device, microseconds."""

    name: str
    device: str
    duration: float


class FunctionEvent:
    """One timed range (see the module doc). Times are microseconds, memory bytes."""

    def __init__(
        self,
        id,
        name,
        thread,
        start_us,
        end_us,
        kind="op",
        input_shapes=None,
        stack=None,
        sequence_nr=-1,
        fwd_thread=None,
        device_index=-1,
        device_range=None,
        stream=0,
        cpu_memory_usage=0,
        cuda_memory_usage=0,
        flops=0,
    ):
        self.id = id
        self.name = name
        self.key = name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.kind = kind
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack if stack is not None else []
        self.sequence_nr = sequence_nr
        self.fwd_thread = fwd_thread
        self.device_index = device_index
        self.device_range = device_range  # Interval on the GPU's timeline, or None
        self.stream = stream  # the CUDA stream of the device range (its handle)
        self.self_cpu_memory_usage = cpu_memory_usage
        self.self_cuda_memory_usage = cuda_memory_usage
        self.flops = flops
        self.count = 1
        self.cpu_parent = None
        self.cpu_children: list = []

    # -- times -----------------------------------------------------------------------

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def device_time_total(self):
        if self.device_range is not None:
            return self.device_range.elapsed_us()
        return sum(c.device_time_total for c in self.cpu_children)

    @property
    def self_device_time_total(self):
        if self.device_range is None:
            return 0.0
        return max(
            0.0, self.device_time_total - sum(c.device_time_total for c in self.cpu_children)
        )

    cuda_time_total = device_time_total
    self_cuda_time_total = self_device_time_total

    @property
    def cpu_time(self):
        return self.cpu_time_total

    @property
    def device_time(self):
        return self.device_time_total

    cuda_time = device_time

    # -- memory ----------------------------------------------------------------------

    @property
    def cpu_memory_usage(self):
        return self.self_cpu_memory_usage + sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def cuda_memory_usage(self):
        return self.self_cuda_memory_usage + sum(c.cuda_memory_usage for c in self.cpu_children)

    device_memory_usage = cuda_memory_usage

    @property
    def self_device_memory_usage(self):
        return self.self_cuda_memory_usage

    # -- what it is ------------------------------------------------------------------

    @property
    def is_user_annotation(self):
        return self.kind == "annotation"

    @property
    def is_async(self):
        return False

    @property
    def device_type(self):
        return "CUDA" if self.device_index >= 0 else "CPU"

    @property
    def kernels(self):
        """The device work this range launched itself (empty on the CPU)."""
        if self.device_range is None:
            return []
        return [Kernel(self.name, f"cuda:{self.device_index}", self.self_device_time_total)]

    def __repr__(self):
        return (
            f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
            f"cpu_time={_fmt_time(self.cpu_time_total)} "
            f"self_cpu_time={_fmt_time(self.self_cpu_time_total)} "
            f"device_time={_fmt_time(self.device_time_total)} "
            f"input_shapes={self.input_shapes} sequence_nr={self.sequence_nr}>"
        )


class FunctionEventAvg:
    """The events of one key summed: totals, ``count``, and averages per call."""

    _SUMMED = (
        "cpu_time_total",
        "self_cpu_time_total",
        "device_time_total",
        "self_device_time_total",
        "cpu_memory_usage",
        "self_cpu_memory_usage",
        "cuda_memory_usage",
        "self_cuda_memory_usage",
        "flops",
    )

    def __init__(self):
        self.key = None
        self.count = 0
        self.input_shapes = None
        self.stack = None
        self.is_user_annotation = False
        self.device_index = -1
        for name in self._SUMMED:
            setattr(self, name, 0)

    def add(self, ev):
        if self.key is None:
            self.key = ev.key
            self.input_shapes = ev.input_shapes
            self.stack = ev.stack
            self.is_user_annotation = ev.is_user_annotation
        elif ev.key != self.key:
            raise ProfilerError(
                f"FunctionEventAvg.add: an event of key {ev.key!r} added to the average "
                f"of {self.key!r}"
            )
        return self._accumulate(ev)

    def _accumulate(self, ev):
        self.count += ev.count
        self.device_index = max(self.device_index, ev.device_index)
        for name in self._SUMMED:
            setattr(self, name, getattr(self, name) + getattr(ev, name))
        return self

    __iadd__ = add

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def device_time(self):
        return self.device_time_total / self.count if self.count else 0.0

    cuda_time = device_time

    @property
    def cuda_time_total(self):
        return self.device_time_total

    @property
    def self_cuda_time_total(self):
        return self.self_device_time_total

    @property
    def device_memory_usage(self):
        return self.cuda_memory_usage

    @property
    def self_device_memory_usage(self):
        return self.self_cuda_memory_usage

    def __repr__(self):
        return (
            f"<FunctionEventAvg key={self.key} count={self.count} "
            f"self_cpu_time={_fmt_time(self.self_cpu_time_total)} "
            f"cpu_time={_fmt_time(self.cpu_time_total)} "
            f"self_device_time={_fmt_time(self.self_device_time_total)} "
            f"input_shapes={self.input_shapes}>"
        )


class EventList(list):
    """A list of :class:`FunctionEvent` (or of their averages) with the views of them."""

    def __init__(self, events=(), use_device=None, profile_memory=False, with_flops=False):
        super().__init__(events)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops

    def _like(self, events):
        return EventList(events, self._use_device, self._profile_memory, self._with_flops)

    @property
    def self_cpu_time_total(self):
        """The self CPU time of every event: the time the outermost ranges cover."""
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0):
        """One :class:`FunctionEventAvg` per name (and per input shapes, and per the first
        ``group_by_stack_n`` frames of the call stack, when asked), in order of first
        appearance; the shapes and stacks are kept only where they split the groups."""
        groups: dict = {}
        for e in self:
            key = (
                e.key,
                str(e.input_shapes) if group_by_input_shapes else None,
                tuple(e.stack[:group_by_stack_n]) if group_by_stack_n > 0 else None,
            )
            avg = groups.get(key)
            if avg is None:
                avg = groups[key] = FunctionEventAvg()
            avg.add(e)
        out = self._like(groups.values())
        for a in out:  # what the grouping did not split by is not shown
            a.stack = a.stack[:group_by_stack_n] if group_by_stack_n > 0 else []
            if not group_by_input_shapes:
                a.input_shapes = []
        return out

    def total_average(self):
        """Every event summed into one :class:`FunctionEventAvg` (key ``Total``)."""
        total = FunctionEventAvg()
        total.key = "Total"
        for e in self:
            total._accumulate(e)
        return total

    def table(
        self,
        sort_by=None,
        row_limit=100,
        max_src_column_width=75,
        max_name_column_width=55,
        max_shapes_column_width=80,
        header=None,
        top_level_events_only=False,
        time_unit=None,
    ):
        """The events as a text table, sorted by the attribute ``sort_by`` (largest first:
        ``"self_cpu_time_total"``, ``"cpu_time_total"``, ``"cuda_time_total"``,
        ``"self_cpu_memory_usage"``, ``"count"``, ...)."""
        return _table(
            self,
            sort_by,
            row_limit,
            max_src_column_width,
            max_name_column_width,
            max_shapes_column_width,
            header,
            top_level_events_only,
            time_unit,
        )

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Write the events as Chrome trace-event JSON (Perfetto, ``chrome://tracing``)."""
        with open(path, "w") as f:
            json.dump(chrome_trace(self), f)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Write one line per event with a call stack, ``frame;frame;name value``, the
        folded-stack input of flame-graph tools (``with_stack=True`` keeps the stacks)."""
        with open(path, "w") as f:
            for e in self:
                if e.stack:
                    frames = ";".join(reversed([s.replace(" ", "_") for s in e.stack]))
                    f.write(f"{frames};{e.name.replace(' ', '_')} {int(getattr(e, metric))}\n")


# -- the table ----------------------------------------------------------------------------


def _fmt_time(us, unit=None):
    if unit == "s" or (unit is None and us >= 1e6):
        return f"{us / 1e6:.3f}s"
    if unit == "ms" or (unit is None and us >= 1e3):
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _fmt_mem(b):
    for unit, size in (("Gb", 1024**3), ("Mb", 1024**2), ("Kb", 1024)):
        if abs(b) >= size:
            return f"{b / size:.2f} {unit}"
    return f"{b} b"


def _pct(part, total):
    return f"{100.0 * part / total:.2f}%" if total else "0.00%"


def _cut(text, width):
    return text if len(text) <= width else text[: width - 3] + "..."


def _table(
    events,
    sort_by,
    row_limit,
    max_src,
    max_name,
    max_shapes,
    header,
    top_level_only,
    time_unit,
):
    if time_unit not in (None, "s", "ms", "us"):
        raise ProfilerError(f"table: time_unit {time_unit!r}; expected 's', 'ms' or 'us'")
    rows = list(events)
    if top_level_only:
        rows = [e for e in rows if getattr(e, "cpu_parent", None) is None]
    if sort_by is not None:
        if rows and not hasattr(rows[0], sort_by):
            raise ProfilerError(
                f"table: cannot sort by {sort_by!r}; expected an event attribute such as "
                "'self_cpu_time_total', 'cpu_time_total', 'cuda_time_total', "
                "'self_cuda_time_total', 'cpu_memory_usage', 'self_cpu_memory_usage', 'count'"
            )
        rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
    self_cpu = sum(e.self_cpu_time_total for e in events)
    self_dev = sum(e.self_device_time_total for e in events)
    has_dev = bool(events._use_device) or any(e.device_time_total > 0 for e in events)
    has_mem = events._profile_memory
    has_cuda_mem = has_mem and any(e.self_cuda_memory_usage for e in events)
    has_shapes = any(e.input_shapes for e in events)
    has_stack = any(e.stack for e in events)
    has_flops = events._with_flops and any(e.flops for e in events)
    if row_limit is not None and row_limit > 0:
        rows = rows[:row_limit]

    name_w = min(max((len(e.key) for e in rows), default=4) + 4, max_name)
    t = lambda us: _fmt_time(us, time_unit)
    cols = [
        ("Self CPU %", lambda e: _pct(e.self_cpu_time_total, self_cpu)),
        ("Self CPU", lambda e: t(e.self_cpu_time_total)),
        ("CPU total %", lambda e: _pct(e.cpu_time_total, self_cpu)),
        ("CPU total", lambda e: t(e.cpu_time_total)),
        ("CPU time avg", lambda e: t(e.cpu_time_total / max(e.count, 1))),
    ]
    if has_dev:
        cols += [
            ("Self CUDA", lambda e: t(e.self_device_time_total)),
            ("Self CUDA %", lambda e: _pct(e.self_device_time_total, self_dev)),
            ("CUDA total", lambda e: t(e.device_time_total)),
            ("CUDA time avg", lambda e: t(e.device_time_total / max(e.count, 1))),
        ]
    if has_mem:
        cols += [
            ("CPU Mem", lambda e: _fmt_mem(e.cpu_memory_usage)),
            ("Self CPU Mem", lambda e: _fmt_mem(e.self_cpu_memory_usage)),
        ]
    if has_cuda_mem:
        cols += [
            ("CUDA Mem", lambda e: _fmt_mem(e.cuda_memory_usage)),
            ("Self CUDA Mem", lambda e: _fmt_mem(e.self_cuda_memory_usage)),
        ]
    cols.append(("# of Calls", lambda e: str(e.count)))
    if has_flops:
        cols.append(("Total MFLOPs", lambda e: f"{e.flops / 1e6:.3f}"))

    widths = [name_w] + [max(12, len(h) + 2) for h, _ in cols]
    heads = ["Name"] + [h for h, _ in cols]
    extra = []  # left-aligned trailing columns
    if has_shapes:
        extra.append(("Input Shapes", max_shapes, lambda e: str(e.input_shapes)))
    if has_stack:
        extra.append(("Source Location", max_src, None))

    line = "  ".join("-" * w for w in widths + [w for _, w, _ in extra])
    out = []
    if header is not None:
        out += ["=" * len(line), header]
    out += [line]
    head = "  ".join(h.rjust(w) for h, w in zip(heads, widths))
    for h, w, _ in extra:
        head += "  " + h.ljust(w)
    out += [head.rstrip(), line]
    for e in rows:
        cells = [_cut(e.key, name_w).rjust(name_w)]
        cells += [f(e).rjust(w) for (_, f), w in zip(cols, widths[1:])]
        row = "  ".join(cells)
        stack = list(e.stack or ())
        for _, w, f in extra:
            text = f(e) if f is not None else (stack.pop(0) if stack else "")
            row += "  " + _cut(text, w).ljust(w)
        out.append(row.rstrip())
        for frame in stack:  # the rest of the stack, one frame per line
            pad = sum(widths) + 2 * len(widths)
            pad += sum(w + 2 for _, w, f in extra if f is not None)
            out.append((" " * pad + _cut(frame, max_src)).rstrip())
    out.append(line)
    out.append(f"Self CPU time total: {t(self_cpu)}")
    if has_dev:
        out.append(f"Self CUDA time total: {t(self_dev)}")
    return "\n".join(out) + "\n"


# -- the trace ----------------------------------------------------------------------------


def chrome_trace(events, metadata=None):
    """The events as a Chrome trace-event document: one complete (``"X"``) event per CPU
    range on its thread, one per device range on its GPU's track (the ranges that launched
    work themselves), flow arrows from each forward op to its backward node (``fwdbwd``)
    and from each CPU range to its device range (``ac2g``)."""
    pid = os.getpid()
    trace: list = [{"ph": "M", "name": "process_name", "pid": pid, "args": {"name": "python"}}]
    gpus: set = set()
    fwd = {}
    for e in events:
        if e.kind == "op" and e.sequence_nr >= 0:
            fwd[e.sequence_nr] = e
    for e in events:
        args: dict = {"External id": e.id}
        if e.sequence_nr >= 0:
            args["Sequence number"] = e.sequence_nr
        if e.fwd_thread is not None:
            args["Fwd thread id"] = e.fwd_thread
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
        if e.stack:
            args["Call stack"] = ";".join(e.stack)
        if e.flops:
            args["flops"] = e.flops
        trace.append(
            {
                "ph": "X",
                "cat": _CATEGORY[e.kind],
                "name": e.name,
                "pid": pid,
                "tid": e.thread,
                "ts": e.time_range.start,
                "dur": e.cpu_time_total,
                "args": args,
            }
        )
        if e.kind == "node" and e.sequence_nr in fwd:
            f = fwd[e.sequence_nr]
            flow = {"id": e.sequence_nr, "cat": "fwdbwd", "name": "fwdbwd", "pid": pid}
            trace.append({**flow, "ph": "s", "tid": f.thread, "ts": f.time_range.start})
            trace.append({**flow, "ph": "f", "bp": "e", "tid": e.thread, "ts": e.time_range.start})
        if e.device_range is not None and not any(c.device_range for c in e.cpu_children):
            gpus.add((e.device_index, e.stream))
            dr = e.device_range
            trace.append(
                {
                    "ph": "X",
                    "cat": "kernel",
                    "name": e.name,
                    "pid": _gpu_pid(e.device_index),
                    "tid": e.stream,
                    "ts": dr.start,
                    "dur": dr.elapsed_us(),
                    "args": {"External id": e.id, "device": e.device_index},
                }
            )
            flow = {"id": e.id, "cat": "ac2g", "name": "ac2g"}
            trace.append({**flow, "ph": "s", "pid": pid, "tid": e.thread, "ts": e.time_range.start})
            trace.append(
                {
                    **flow,
                    "ph": "f",
                    "bp": "e",
                    "pid": _gpu_pid(e.device_index),
                    "tid": e.stream,
                    "ts": dr.start,
                }
            )
    for i, stream in sorted(gpus):
        pid_i = _gpu_pid(i)
        trace.append(
            {"ph": "M", "name": "process_name", "pid": pid_i, "args": {"name": f"GPU {i}"}}
        )
        trace.append(
            {
                "ph": "M",
                "name": "thread_name",
                "pid": pid_i,
                "tid": stream,
                "args": {"name": f"stream {stream:#x}"},
            }
        )
    doc = {"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": trace}
    if metadata:
        doc.update(metadata)
    return doc


def _gpu_pid(index):
    """The trace's process id of GPU ``index`` (above every Linux process id, 2**22)."""
    return (1 << 30) + index
