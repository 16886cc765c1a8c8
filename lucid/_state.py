"""The global switches the op path reads, in the bottom layer so every layer can read them.

``STATE`` holds every flag the hot path checks, so a feature that is off costs one
attribute read: whether ops record a graph, inference mode, autocast (``None`` when off,
else ``{device type: dtype}`` of the enabled device types), anomaly mode, whether
deterministic algorithms are required, the number of active ``lucid.func.vmap``
levels, the collector of a running profiler, and the arrays a ``lucid.compile`` recording
holds a reference to. The context managers that set them live
in :mod:`lucid.autograd.grad_mode`, :mod:`lucid.amp` (vmap levels: :mod:`lucid.func.vmap`)
and :mod:`lucid.autograd.profiler`.
"""

from __future__ import annotations

__all__ = ["STATE"]


class _State:
    __slots__ = (
        "grad_enabled",
        "inference",
        "autocast",
        "anomaly",
        "anomaly_nan",
        "deterministic",
        "deterministic_warn_only",
        "vmap",
        "profiler",
        "compile_held",
    )

    def __init__(self):
        self.grad_enabled = True
        self.inference = False
        self.autocast = None  # {device type: dtype} while autocast is on for any
        self.anomaly = False
        self.anomaly_nan = True
        self.deterministic = False
        self.deterministic_warn_only = False
        self.vmap = 0  # number of active vmap levels (lucid.func.vmap)
        self.profiler = None  # the collector of a running lucid.profiler, or None
        # id(array) -> slot of every array a lucid.compile recording in progress holds one
        # reference to (the engine discounts it when it asks who else holds a gradient)
        self.compile_held = None


STATE = _State()
