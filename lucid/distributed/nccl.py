"""The ``"nccl"`` backend: collectives between GPUs through NCCL (CuPy's bindings).

One process per GPU: rank ``r`` uses ``cuda:LOCAL_RANK`` (or ``device_id``). Every
operation is queued on the current CUDA stream of that device, after the kernels that made
its inputs; its Work waits on a CUDA event recorded after it, polling with the group's
timeout and NCCL's asynchronous error state, and aborts the communicator when a peer
fails. NCCL has no gather, scatter or all-to-all: those are grouped sends and receives.
bool moves as uint8 (SUM as MAX, PRODUCT as MIN), int16 reduces in int32, complex as its
real and imaginary parts (SUM and AVG).
"""

from __future__ import annotations

from .. import dtypes as _dt
from .. import cuda
from .._device import device as _device
from ..backend import nccl as _nccl
from ..errors import DistributedError
from ..ops import zeros
from .group import ProcessGroup
from .rendezvous import env_int, share
from .work import ReduceOp, Work, done
from .._tensor import tensor

__all__ = ["NCCLGroup"]


class NCCLGroup(ProcessGroup):
    """A process group over an NCCL communicator ``comm`` on CUDA device ``dev``."""

    name = "nccl"
    complex_as_real = True

    def __init__(self, comm, ranks, rank, dev, timeout, global_rank):
        super().__init__(ranks, rank, timeout, global_rank)
        self.comm, self.dev = comm, dev
        self.errors = (_nccl.errors(),)
        self.native_avg = _nccl.redop("avg") is not None
        self.reduce_as = {_dt.int16: _dt.int32, _dt.bool: _dt.bool}
        if _nccl.datatype(_dt.bfloat16) is None:
            self.reduce_as[_dt.bfloat16] = _dt.float32

    @classmethod
    def world(cls, timeout, rank, world_size, init_method, device_id):
        op = "init_process_group"
        _nccl.load(op)
        if not cuda.is_available():
            raise DistributedError(
                f"{op}: the 'nccl' backend needs a CUDA GPU; none is "
                "visible (use backend='mpi' for CPU tensors)"
            )
        rank = (
            env_int(("RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK"), op)
            if rank in (-1, None)
            else rank
        )
        size = (
            env_int(("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"), op)
            if world_size in (-1, None)
            else world_size
        )
        if rank is None or size is None:
            raise DistributedError(
                f"{op}: rank and world_size not given and RANK / "
                "WORLD_SIZE not set; launch with python -m "
                "lucid.distributed.run"
            )
        if not 0 <= rank < size:
            raise DistributedError(f"{op}: rank {rank} is not in [0, {size})")
        if device_id is None:
            local = env_int(("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK"), op, rank)
            dev = _device("cuda", local % cuda.device_count())
        else:
            dev = _device(device_id)
        cuda.set_device(dev)
        addr = port = None
        if init_method is not None:
            if not str(init_method).startswith("tcp://"):
                raise DistributedError(
                    f"{op}: init_method {init_method!r}: only 'tcp://host:port' is supported"
                )
            addr, _, port = str(init_method)[len("tcp://") :].rpartition(":")
        uid = share(_nccl.unique_id() if rank == 0 else b"", rank, size, timeout, addr, port)
        comm = cls._make(op, size, uid, rank)
        return cls(comm, range(size), rank, dev, timeout, rank)

    @staticmethod
    def _make(op, size, uid, rank):
        try:
            return _nccl.communicator(size, uid, rank)
        except _nccl.errors() as e:
            raise DistributedError(
                f"{op}: NCCL could not make a communicator of {size} ranks on rank {rank}: {e}"
            ) from None

    def device_of(self, t, op):
        if t.device.type != "cuda":
            raise DistributedError(
                f"{op}: the 'nccl' backend moves CUDA tensors, got a "
                f"tensor on {t.device} (use backend='mpi' for CPU "
                "tensors)"
            )
        return self.dev

    def abort(self):
        self.comm.abort()

    # -- queueing ------------------------------------------------------------------------

    def _stream(self):
        return cuda.current_stream(self.dev).cuda_stream

    def _queue(self, op, calls, *bufs):
        """Queue ``calls`` (each ``f(stream)``), grouped when several, and a Work that
        waits on an event after them."""
        if all(b.numel() == 0 for b in bufs):
            return done(self, op)  # NCCL is not asked to move nothing
        stream = self._stream()

        def launch():
            if len(calls) > 1:
                _nccl.group_start()
            try:
                for c in calls:
                    c(stream)
            finally:
                if len(calls) > 1:
                    _nccl.group_end()

        self._guard(op, launch)
        event = cuda.Event()
        event.record(cuda.current_stream(self.dev))

        def test(bufs=bufs):
            self.comm.check_async_error()
            return event.query()

        return Work(self, op, test)

    def _fail(self, err):
        try:
            self.comm.abort()
        finally:
            super()._fail(err)

    @staticmethod
    def _dt(buf):
        return _nccl.datatype(buf.dtype)

    def allreduce(self, buf, op):
        p, n, d, o = buf.data_ptr(), buf.numel(), self._dt(buf), _nccl.redop(op.value)
        return self._queue("all_reduce", [lambda s: self.comm.allReduce(p, p, n, d, o, s)], buf)

    def broadcast(self, buf, root):
        p, n, d = buf.data_ptr(), buf.numel(), self._dt(buf)
        return self._queue("broadcast", [lambda s: self.comm.broadcast(p, p, n, d, root, s)], buf)

    def reduce(self, buf, op, root):
        p, n, d, o = buf.data_ptr(), buf.numel(), self._dt(buf), _nccl.redop(op.value)
        return self._queue("reduce", [lambda s: self.comm.reduce(p, p, n, d, o, root, s)], buf)

    def allgather(self, out, inp):
        ip, op_, n, d = inp.data_ptr(), out.data_ptr(), inp.numel(), self._dt(inp)
        return self._queue(
            "all_gather", [lambda s: self.comm.allGather(ip, op_, n, d, s)], out, inp
        )

    def reduce_scatter(self, out, inp, op):
        ip, op_, n, d = inp.data_ptr(), out.data_ptr(), out.numel(), self._dt(out)
        o = _nccl.redop(op.value)
        return self._queue(
            "reduce_scatter", [lambda s: self.comm.reduceScatter(ip, op_, n, d, o, s)], out, inp
        )

    def _p2p(self, op, sends, recvs, *bufs):
        """Grouped sends ``(buf, peer)`` and receives ``(buf, peer)``."""
        calls = [
            (lambda s, b=b, q=q: self.comm.send(b.data_ptr(), b.numel(), self._dt(b), q, s))
            for b, q in sends
        ]
        calls += [
            (lambda s, b=b, q=q: self.comm.recv(b.data_ptr(), b.numel(), self._dt(b), q, s))
            for b, q in recvs
        ]
        return self._queue(op, calls, *bufs)

    def _chunks(self, buf, n):
        k = buf.numel() // self.size
        return [buf[i * k : (i + 1) * k] for i in range(n)]

    def gather(self, out, inp, root):
        recvs = []
        if self.rank == root:
            chunks = self._chunks(out, self.size)
            chunks[root].copy_(inp)
            recvs = [(chunks[q], q) for q in range(self.size) if q != root]
        sends = [] if self.rank == root else [(inp, root)]
        return self._p2p("gather", sends, recvs, out, inp)

    def scatter(self, out, inp, root):
        sends = []
        if self.rank == root:
            chunks = self._chunks(inp, self.size)
            out.copy_(chunks[root])
            sends = [(chunks[q], q) for q in range(self.size) if q != root]
        recvs = [] if self.rank == root else [(out, root)]
        return self._p2p("scatter", sends, recvs, out, inp)

    def alltoall(self, out, inp, out_counts, in_counts):
        def parts(buf, counts):
            at, res = 0, []
            for c in counts:
                res.append(buf[at : at + c])
                at += c
            return res

        ins, outs = parts(inp, in_counts), parts(out, out_counts)
        outs[self.rank].copy_(ins[self.rank])
        others = [q for q in range(self.size) if q != self.rank]
        return self._p2p(
            "all_to_all",
            [(ins[q], q) for q in others if ins[q].numel()],
            [(outs[q], q) for q in others if outs[q].numel()],
            out,
            inp,
        )

    def send(self, buf, dst, tag):
        return self._p2p("send", [(buf, dst)], [], buf)

    def recv(self, buf, src, tag):
        if src is None:
            raise DistributedError(
                "recv: the 'nccl' backend needs src (NCCL cannot receive from any rank)"
            )
        work = self._p2p("recv", [], [(buf, src)], buf)
        work.result_value = self.ranks[src]
        return work

    def barrier(self):
        one = zeros(1, dtype=_dt.float32, device=self.dev)
        return self.allreduce(one, ReduceOp.SUM)

    def split(self, ranks, timeout):
        """All ranks of this group call it: group rank 0 of the new group makes the id and
        broadcasts it over this group's communicator as 128 bytes."""
        lead = ranks[0]
        uid = zeros(_nccl.UNIQUE_ID_BYTES, dtype=_dt.uint8, device=self.dev)
        if self.global_rank == lead:
            uid = tensor(list(_nccl.unique_id()), dtype=_dt.uint8, device=self.dev)
        self.broadcast(uid, self.ranks.index(lead)).wait()
        if self.global_rank not in ranks:
            return None
        rank = ranks.index(self.global_rank)
        comm = self._make("new_group", len(ranks), bytes(uid.tolist()), rank)
        return NCCLGroup(comm, ranks, rank, self.dev, timeout, self.global_rank)

    def destroy(self):
        if self.broken is None:
            self.comm.destroy()
