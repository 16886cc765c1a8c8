"""Scheduled garbage collection for training loops.

Lucid's autograd graph is Python objects: a step records a node, a tensor and a tuple or two
per op, and keeps them (with the arrays they save) until the backward. Python's cyclic
collector starts a collection whenever the count of live container objects has grown by
``gc.get_threshold()[0]`` (700) since the last one, so a large step triggers several,
each scanning the graph built so far, and the objects that survive two of them reach the
oldest generation, whose growth then triggers full collections of every object in the
process. In ``benchmarks/gpt2.py``'s process (two libraries' models resident) that took
about a quarter of the bfloat16 step's host time on an H200.

:class:`GarbageCollection` replaces the automatic collections inside its ``with`` block by
one collection of the young generations every ``every`` steps, as large PyTorch training
stacks do. Reference counting still frees everything that is not part of a cycle at once;
cycles made during training wait for the next scheduled collection (those that reached the
oldest generation, for the first automatic collection after the block).
"""

from __future__ import annotations

import gc

from ..errors import ArgumentError

__all__ = ["GarbageCollection"]


class GarbageCollection:
    """``with GarbageCollection(every=100) as collect:`` ... ``collect.step()`` once per
    training step: the automatic collector off in the block, ``gc.collect(generation)``
    every ``every`` calls of :meth:`step`, and the collector's former state restored on
    leaving (also on an exception)."""

    def __init__(self, every=100, generation=1):
        if not isinstance(every, int) or isinstance(every, bool) or every < 1:
            raise ArgumentError(f"GarbageCollection: every must be a positive int, got {every!r}")
        if generation not in (0, 1, 2):
            raise ArgumentError(
                f"GarbageCollection: generation must be 0, 1 or 2, got {generation!r}"
            )
        self.every, self.generation = every, generation
        self.steps = 0
        self._was_enabled = None

    def __enter__(self):
        if self._was_enabled is not None:
            raise ArgumentError("GarbageCollection: the block is already entered")
        self._was_enabled = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exc):
        if self._was_enabled:
            gc.enable()
        self._was_enabled = None
        return False

    def step(self):
        """Count a step; every ``every``-th runs the scheduled collection."""
        self.steps += 1
        if self.steps % self.every == 0:
            gc.collect(self.generation)
