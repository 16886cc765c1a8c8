"""``lucid.profiler.profile``: PyTorch's profiler interface over Lucid's recording.

A :class:`profile` records the ops, backward nodes, optimizer steps and ``record_function``
ranges of a block (:mod:`lucid.autograd.profiler` times them), on the CPU and, with
``ProfilerActivity.CUDA``, on the GPU. With a :func:`schedule` it records only some steps of
a training loop: each :meth:`profile.step` moves to the next step, and the schedule's
action for the step number says what the profiler does:

- ``NONE``: nothing is recorded; ``WARMUP``: nothing is recorded either (Lucid's recording
  has no start-up cost to warm away, so the warm-up steps only keep their place);
- ``RECORD``: the step is recorded; ``RECORD_AND_SAVE``: recorded, and the cycle ends with
  it: ``on_trace_ready(prof)`` is called (with :func:`tensorboard_trace_handler`, a trace
  file is written) and ``key_averages()`` / ``events()`` answer for that cycle.

Each recorded step is also a ``ProfilerStep#N`` range. Without a schedule the whole block
is one cycle, saved when it ends.
"""

from __future__ import annotations

import enum
import gzip
import json
import os
import socket
import time

from ..autograd.profiler import Collector, start, stop
from ..autograd.profiler_util import EventList, chrome_trace
from ..errors import ProfilerError
from ..cuda import is_available as _cuda_available

__all__ = [
    "ProfilerActivity",
    "ProfilerAction",
    "profile",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]


class ProfilerActivity(enum.Enum):
    """What a profile times: the host's ranges, and the GPU's."""

    CPU = 0
    CUDA = 1


class ProfilerAction(enum.Enum):
    """What the profiler does at a step (see the module doc)."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities():
    """The activities this machine can time: the CPU, and CUDA where a GPU is present."""
    out = {ProfilerActivity.CPU}
    if _cuda_available():
        out.add(ProfilerActivity.CUDA)
    return out


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """The action of each step number: ``skip_first`` steps of ``NONE``, then cycles of
    ``wait`` steps ``NONE``, ``warmup`` steps ``WARMUP`` and ``active`` steps ``RECORD``
    (the last ``RECORD_AND_SAVE``), ``repeat`` cycles (0: without end). With
    ``skip_first_wait=1`` the first cycle has no wait steps."""
    for name, v, least in (("wait", wait, 0), ("warmup", warmup, 0), ("active", active, 1)):
        if not isinstance(v, int) or v < least:
            raise ProfilerError(f"schedule: {name}={v!r}; expected an int >= {least}")
    if repeat < 0 or skip_first < 0:
        raise ProfilerError(
            f"schedule: repeat={repeat!r}, skip_first={skip_first!r}; expected ints >= 0"
        )

    def action(step):
        if step < 0:
            raise ProfilerError(f"schedule: step {step}; expected a step number >= 0")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        k = step % cycle
        if k < wait:
            return ProfilerAction.NONE
        if k < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if k < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return action


def _always_record(step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` that writes each saved cycle as a trace file in ``dir_name``:
    ``{worker_name}.{time in ms}.pt.trace.json`` (``.gz`` with ``use_gzip``), the file
    name TensorBoard's profiler plugin and Perfetto read; ``worker_name`` defaults to
    ``{host name}_{process id}``."""

    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{time.time_ns() // 1_000_000}.pt.trace.json")
        if use_gzip:
            path += ".gz"
        prof.export_chrome_trace(path)

    return handler


class profile:
    """The profiler (see the module doc): a context manager, or ``start()`` / ``stop()``
    around the work, ``step()`` at the end of each step of a loop."""

    def __init__(
        self,
        *,
        activities=None,
        schedule=None,
        on_trace_ready=None,
        record_shapes=False,
        profile_memory=False,
        with_stack=False,
        with_flops=False,
        with_modules=False,
        experimental_config=None,
        execution_trace_observer=None,
        acc_events=False,
        use_cuda=None,
        custom_trace_id_callback=None,
    ):
        if activities is None:
            activities = supported_activities()
        activities = set(activities)
        if use_cuda:
            activities.add(ProfilerActivity.CUDA)
        bad = [a for a in activities if not isinstance(a, ProfilerActivity)]
        if bad:
            raise ProfilerError(
                f"profile: activities {bad!r}; expected ProfilerActivity.CPU or "
                "ProfilerActivity.CUDA"
            )
        self.activities = activities
        self.schedule = schedule if schedule is not None else _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.step_num = 0
        self.current_action = ProfilerAction.NONE
        self.collector = None
        self.metadata: dict = {}
        self._events = None  # the EventList of the last saved cycle
        self._step_range = None

    # -- running ---------------------------------------------------------------------

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        self.step_num = 0
        self.current_action = self.schedule(0)
        if self._recording(self.current_action):
            self._begin_cycle()

    def stop(self):
        if self.collector is not None:
            self._save_cycle()
        self.current_action = ProfilerAction.NONE

    def step(self):
        """End the current step and move to the next (the schedule's next action)."""
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if prev == ProfilerAction.RECORD_AND_SAVE or (
            self._recording(prev) and not self._recording(self.current_action)
        ):
            self._save_cycle()
        if self.collector is None and self._recording(self.current_action):
            self._begin_cycle()
        elif self.collector is not None:
            self._next_step_range()

    @staticmethod
    def _recording(action):
        return action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)

    def _begin_cycle(self):
        self.collector = Collector(
            self.record_shapes,
            self.profile_memory,
            self.with_stack,
            self.with_flops,
            ProfilerActivity.CUDA in self.activities,
        )
        start(self.collector)
        self._next_step_range()

    def _next_step_range(self):
        c = self.collector
        if self._step_range is not None:
            c.end(self._step_range)
        if self.schedule is _always_record:
            self._step_range = None
            return
        self._step_range = c.begin(f"ProfilerStep#{self.step_num}", "annotation")

    def _save_cycle(self):
        c = self.collector
        if self._step_range is not None:
            c.end(self._step_range)
            self._step_range = None
        stop(c)
        self.collector = None
        self._events = EventList(
            c.events(),
            use_device="cuda" if ProfilerActivity.CUDA in self.activities else None,
            profile_memory=self.profile_memory,
            with_flops=self.with_flops,
        )
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    # -- results ---------------------------------------------------------------------

    def events(self):
        """The events of the last saved cycle."""
        if self._events is None:
            raise ProfilerError(
                "profile: no recorded cycle yet; the results are ready once the profiler "
                "stops (or its schedule saves a cycle)"
            )
        return self._events

    def key_averages(
        self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False
    ):
        """The last saved cycle's events averaged by name (and by input shapes, and by
        call stack, when asked); Lucid's ops have no overloads, so
        ``group_by_overload_name`` changes nothing."""
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path):
        """The last saved cycle as Chrome trace-event JSON (gzip when ``path`` ends in
        ``.gz``)."""
        doc = chrome_trace(self.events(), self.metadata)
        if path.endswith(".gz"):
            with gzip.open(path, "wt") as f:
                json.dump(doc, f)
        else:
            with open(path, "w") as f:
                json.dump(doc, f)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        self.events().export_stacks(path, metric)

    def add_metadata(self, key, value):
        """A string entry in the trace file's top level."""
        self.metadata[key] = value

    def add_metadata_json(self, key, value):
        """A JSON entry (given as its text) in the trace file's top level."""
        self.metadata[key] = json.loads(value)
