"""Reduction operators and the handle of a collective in flight.

:class:`Work` is what ``async_op=True`` returns: ``wait()`` blocks until the operation has
completed on this rank (its output tensors then hold the result), ``is_completed()`` polls.
A wait that outlasts the process group's timeout raises
:class:`~lucid.errors.DistributedTimeoutError` and marks the group broken, so that a rank
that died or never called the collective cannot hang its peers forever.
"""

from __future__ import annotations

import enum
import time

from ..errors import ArgumentError, DistributedTimeoutError

__all__ = ["ReduceOp", "Work"]


class ReduceOp(enum.Enum):
    """How ``all_reduce`` / ``reduce`` / ``reduce_scatter`` combine the ranks' tensors
    element-wise: ``SUM`` :math:`\\sum_r x_r`, ``AVG`` :math:`\\frac1W\\sum_r x_r`
    (floating dtypes), ``PRODUCT`` :math:`\\prod_r x_r`, ``MIN``, ``MAX``."""

    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"


# after this many polls that found the operation unfinished, sleep between polls so that
# ranks oversubscribing the cores leave them to the peers they wait for
_SPINS = 64
_NAP_S = 5e-5


class Work:
    """A collective in flight on one process group.

    ``test()`` (one poll of the backend, returns whether it completed) is what a backend
    supplies; the callbacks in ``_then`` run once, in order, when it has completed
    (copying a staged result back into the user's tensor)."""

    def __init__(self, group, op, test):
        self._group, self._op, self._test = group, op, test
        self._then = []
        self._done = False
        self.result_value = None

    def is_completed(self) -> bool:
        """Whether the operation has completed (one poll; progresses it too)."""
        if not self._done and self._group._guard(self._op, self._test):
            self._finish()
        return self._done

    def wait(self, timeout=None) -> bool:
        """Block until completed, at most ``timeout`` seconds (the group's timeout by
        default); returns True, or raises :class:`DistributedTimeoutError`."""
        if self._done:
            return True
        limit = self._group.timeout if timeout is None else _seconds(timeout)
        deadline = time.monotonic() + limit
        spins = 0
        while not self._group._guard(self._op, self._test):
            if time.monotonic() > deadline:
                self._group._fail(
                    DistributedTimeoutError(
                        f"{self._op}: timed out after {limit:g} s on rank "
                        f"{self._group.global_rank}: a rank died, hangs, or did not call "
                        f"{self._op} (process group of ranks {list(self._group.ranks)})"
                    )
                )
            spins += 1
            if spins > _SPINS:
                time.sleep(_NAP_S)
        self._finish()
        return True

    def result(self):
        """The value of the operation: the sender's rank for ``recv``, else None."""
        self.wait()
        return self.result_value

    def _finish(self):
        self._done = True
        for f in self._then:
            f()
        self._then = []

    def __repr__(self):
        return f"Work({self._op}, completed={self._done})"


def done(group, op):
    """A :class:`Work` for an operation with nothing left to wait for (its callbacks run
    at the first wait or poll, as any Work's)."""
    return Work(group, op, lambda: True)


def _seconds(timeout):
    """Seconds from a number or a ``datetime.timedelta``."""
    s = timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout)
    if not s > 0:
        raise ArgumentError(f"timeout: expected a positive duration, got {timeout!r}")
    return s
