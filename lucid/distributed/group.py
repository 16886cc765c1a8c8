"""Process groups: the ranks that take part in a collective and the backend communicator
they share, plus the default group that :func:`init_process_group` makes.

A backend subclasses :class:`ProcessGroup` and implements the primitives on *wire
buffers*: flat contiguous tensors on the backend's device in a dtype it can move (and, for
reductions, reduce). :mod:`lucid.distributed.collectives` turns the user's tensors into
wire buffers (:meth:`ProcessGroup.stage`) and copies staged results back.
"""

from __future__ import annotations

from typing import Any

import atexit
import os
from abc import ABC, abstractmethod

from .. import dtypes as _dt
from .._device import CPU
from ..autograd.grad_mode import no_grad
from ..errors import DistributedError, DTypeError
from ..ops import empty
from .work import ReduceOp

__all__ = ["ProcessGroup", "GroupMember", "group"]


class ProcessGroup(ABC):
    """Ranks ``ranks`` (global ranks, in group-rank order) of which this process is group
    rank ``rank``; collectives that wait longer than ``timeout`` seconds fail.

    Subclass attributes: ``name`` (the backend), ``native_avg`` (the backend averages
    itself; else AVG is SUM then a division), ``reduce_as`` (dtype -> the dtype a
    reduction runs in, for dtypes the backend cannot reduce natively),
    ``complex_as_real`` (complex tensors reduce as their parts), ``errors`` (the
    exception types of the backend library that :meth:`_guard` translates), ``dev``
    (the device of this rank's buffers of its own making)."""

    name: Any = None
    dev = CPU
    native_avg = False
    reduce_as: dict = {}
    complex_as_real = False
    errors: tuple[type[BaseException], ...] = ()

    def __init__(self, ranks, rank, timeout, global_rank):
        self.ranks, self.rank, self.size = tuple(ranks), rank, len(ranks)
        self.timeout, self.global_rank = timeout, global_rank
        self.broken = None

    def __repr__(self):
        return f"ProcessGroup({self.name}, ranks={list(self.ranks)}, rank={self.rank})"

    # -- failure -------------------------------------------------------------------------

    def _guard(self, op, fn, *args):
        """``fn(*args)``, with the backend library's errors raised as DistributedError."""
        if self.broken is not None:
            raise DistributedError(
                f"{op}: the process group is unusable after an earlier failure: {self.broken}"
            )
        try:
            return fn(*args)
        except self.errors as e:
            err = DistributedError(
                f"{op}: {self.describe(e)} (rank {self.global_rank}, "
                f"process group of ranks {list(self.ranks)})"
            )
        self._fail(err)

    def _fail(self, err):
        """Mark the group broken by ``err`` and raise it; at exit the job is aborted
        rather than finalised (a peer may never answer)."""
        self.broken = err
        _BROKEN.append(self)
        raise err

    def describe(self, e):
        return str(e)

    def abort(self):  # noqa: B027  (a no-op where the backend has nothing to end)
        """End every process of the job (after a failure)."""

    # -- wire buffers ----------------------------------------------------------------------

    @abstractmethod
    def device_of(self, t, op):
        """The device the wire buffer of ``t`` lives on (raises where it cannot be)."""

    def stage(self, t, op, reduce=False, read=True):
        """``(buffer, writeback)``: a flat contiguous tensor holding ``t`` on the wire
        device — as bytes (``uint8``) for moves, in a reducible dtype for reductions —
        sharing ``t``'s memory when it can, and the function that puts what the backend
        wrote into it back into ``t`` (a version bump, or a copy). ``read=False``: the
        backend only writes it."""
        dev = self.device_of(t, op)
        wire_dt = self.reduce_as.get(t.dtype, t.dtype) if reduce else t.dtype
        if t.dtype == wire_dt and t.device == dev and t.is_contiguous():
            s = t.detach()
            vc = t._vc

            def back():
                vc[0] += 1
        else:
            s = (
                t.detach().to(device=dev, dtype=wire_dt).contiguous()
                if read
                else empty(tuple(t.shape), dtype=wire_dt, device=dev)
            )

            def back():
                with no_grad():
                    t.copy_(s.to(device=t.device))

        return self.wire_view(s.reshape(-1), reduce), back

    def wire_view(self, flat, reduce):
        """The flat contiguous ``flat`` as the backend moves it: bytes unless reduced;
        bool reduced as uint8; complex, on a backend without complex reductions
        (``complex_as_real``), as its real and imaginary parts."""
        if not reduce or flat.dtype == _dt.bool:
            return flat.view(_dt.uint8)
        if flat.dtype.is_complex and self.complex_as_real:
            return flat.view(flat.dtype.to_real())
        return flat

    def wire_op(self, op, dtype, name):
        """The backend's reduction for ``op`` on ``dtype``: bool reduces as uint8, where
        SUM (logical or) is MAX and PRODUCT (logical and) is MIN; complex has no order,
        and on a ``complex_as_real`` backend no product."""
        if dtype == _dt.bool:
            return {ReduceOp.SUM: ReduceOp.MAX, ReduceOp.PRODUCT: ReduceOp.MIN}.get(op, op)
        if dtype.is_complex and (
            op in (ReduceOp.MIN, ReduceOp.MAX) or (op is ReduceOp.PRODUCT and self.complex_as_real)
        ):
            raise DTypeError(
                f"{name}: ReduceOp.{op.name} is not supported for {dtype} "
                f"tensors on the {self.name!r} backend"
            )
        return op

    # -- primitives on wire buffers (group ranks; each returns a Work) ---------------------

    @abstractmethod
    def allreduce(self, buf, op):
        """Reduce ``buf`` with ``op`` over the group, in place on every rank."""

    @abstractmethod
    def broadcast(self, buf, root):
        """Copy group rank ``root``'s ``buf`` into every rank's."""

    @abstractmethod
    def reduce(self, buf, op, root):
        """Reduce ``buf`` with ``op`` into rank ``root``'s (the others' are left as sent)."""

    @abstractmethod
    def allgather(self, out, inp):
        """Every rank's ``inp``, in rank order, into every rank's ``out``."""

    @abstractmethod
    def reduce_scatter(self, out, inp, op):
        """Rank r's ``out``: slice r of the ``op``-reduction of every rank's ``inp``."""

    @abstractmethod
    def gather(self, out, inp, root):
        """Every rank's ``inp``, in rank order, into rank ``root``'s ``out``."""

    @abstractmethod
    def scatter(self, out, inp, root):
        """Slice r of rank ``root``'s ``inp`` into rank r's ``out``."""

    @abstractmethod
    def alltoall(self, out, inp, out_counts, in_counts):
        """Each rank's ``inp`` split by ``in_counts`` (elements per peer) to the peers;
        ``out`` filled from them by ``out_counts``."""

    @abstractmethod
    def send(self, buf, dst, tag):
        """``buf`` to group rank ``dst`` with ``tag``."""

    @abstractmethod
    def recv(self, buf, src, tag):
        """Into ``buf`` from group rank ``src`` (None: any) with ``tag``; the Work's
        ``result_value`` is the sender's global rank."""

    @abstractmethod
    def barrier(self):
        """Done once every rank of the group has reached it."""

    @abstractmethod
    def split(self, ranks, timeout):
        """The group of global ``ranks`` (every rank of this group calls it): a new
        ProcessGroup where this rank is a member, else None."""

    def destroy(self):  # noqa: B027  (a no-op where the backend holds no communicator)
        """Release the communicator."""


class _NonMember:
    def __repr__(self):
        return "GroupMember.NON_GROUP_MEMBER"


class GroupMember:
    """``NON_GROUP_MEMBER``: what :func:`new_group` returns on ranks outside the group."""

    NON_GROUP_MEMBER = _NonMember()


class _Groups:
    """``lucid.distributed.group.WORLD``: the default process group (None before
    :func:`~lucid.distributed.init_process_group`)."""

    WORLD = None


group = _Groups()
_BROKEN: list = []


@atexit.register
def _abort_if_broken():
    """A group broke (a peer died or timed out): abort the job, since finalising it would
    wait for that peer."""
    if _BROKEN:
        record_failure(_BROKEN[0])
        _BROKEN[0].abort()


def record_failure(g):
    """Mark the failure of group ``g`` for the launcher (:mod:`lucid.distributed.run`),
    in the directory ``LUCID_RUN_FAILURES`` names where it is set: ``mpiexec`` may report
    success for a job that a dead rank ended."""
    marks = os.environ.get("LUCID_RUN_FAILURES")
    if marks:
        try:
            with open(os.path.join(marks, f"rank{g.global_rank}"), "w") as f:
                f.write(str(g.broken))
        except OSError:
            pass
