"""``lucid.profiler``: where a program spends its time, op by op (PyTorch's
``torch.profiler``).

>>> with lucid.profiler.profile(record_shapes=True) as prof:
...     loss = model(x).sum(); loss.backward()
>>> print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))
>>> prof.export_chrome_trace("trace.json")   # open in Perfetto or chrome://tracing

:class:`profile` (with :func:`schedule` and :func:`tensorboard_trace_handler` for training
loops) lives in :mod:`.profiler`; the recording it reads, and :class:`record_function`,
in :mod:`lucid.autograd.profiler`.
"""

from ..autograd.profiler import record_function
from .profiler import (
    ProfilerAction,
    ProfilerActivity,
    profile,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)

__all__ = [
    "ProfilerAction",
    "ProfilerActivity",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]
