"""Collectives on Tensors, in place as ``torch.distributed``'s: each checks its
arguments, stages the tensors into the group's wire buffers, starts the backend's
operation, and either waits for it or (``async_op=True``) returns its :class:`Work`, whose
``wait()`` leaves the results in the output tensors.

With ``W`` ranks holding :math:`x_0 \\dots x_{W-1}`: ``all_reduce`` leaves
:math:`\\bigoplus_r x_r` on every rank; ``reduce`` on ``dst`` only; ``broadcast`` copies
:math:`x_{src}` everywhere; ``all_gather`` gives every rank the list :math:`[x_0, \\dots]`
(``all_gather_into_tensor``: their concatenation along dim 0); ``reduce_scatter`` gives
rank :math:`r` the reduction of chunk :math:`r` of every rank's input; ``gather`` /
``scatter`` are ``all_gather`` to one rank and its inverse; ``all_to_all`` sends chunk
:math:`j` of rank :math:`i` to slot :math:`i` of rank :math:`j`.

``LUCID_DISTRIBUTED_DEBUG=DETAIL`` makes every collective first compare the shapes and
dtypes of the ranks' tensors (one extra all-gather), raising a ShapeError that lists them
instead of leaving a mismatch to the backend (which detects some, as a truncation).
"""

from __future__ import annotations

import os

from .. import dtypes as _dt
from .._tensor import Tensor, tensor as _tensor
from ..autograd.grad_mode import no_grad
from ..errors import ArgumentError, ArgumentTypeError, DTypeError, ShapeError
from ..ops import cat, empty, stack
from .work import ReduceOp, done
from .world import group_rank_of, resolve

__all__ = [
    "all_reduce",
    "broadcast",
    "reduce",
    "all_gather",
    "all_gather_into_tensor",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "gather",
    "scatter",
    "all_to_all",
    "all_to_all_single",
    "send",
    "recv",
    "isend",
    "irecv",
    "barrier",
]

_DTYPES = [
    _dt.bool,
    _dt.uint8,
    _dt.int8,
    _dt.int16,
    _dt.int32,
    _dt.int64,
    _dt.float16,
    _dt.bfloat16,
    _dt.float32,
    _dt.float64,
    _dt.complex64,
    _dt.complex128,
]


def _debug():
    return os.environ.get("LUCID_DISTRIBUTED_DEBUG", "").upper() == "DETAIL"


def _tensor_arg(op, name, t):
    if not isinstance(t, Tensor):
        raise ArgumentTypeError(f"{op}: {name} must be a Tensor, got {type(t).__name__}")
    return t


def _tensor_list(op, name, ts, n, like=None):
    """``ts``: a list of ``n`` Tensors (of ``like``'s shape and dtype, when given)."""
    if not isinstance(ts, (list, tuple)):
        raise ArgumentTypeError(f"{op}: {name} must be a list of Tensors, got {type(ts).__name__}")
    if len(ts) != n:
        raise ArgumentError(f"{op}: {name} must hold one tensor per rank ({n}), got {len(ts)}")
    for i, t in enumerate(ts):
        _tensor_arg(op, f"{name}[{i}]", t)
        if like is not None:
            _same_as(op, f"{name}[{i}]", t, like)
    return ts


def _same_as(op, name, t, like):
    if t.dtype != like.dtype:
        raise DTypeError(f"{op}: {name} has dtype {t.dtype}, expected {like.dtype}")
    if tuple(t.shape) != tuple(like.shape):
        raise ShapeError(f"{op}: {name} has shape {tuple(t.shape)}, expected {tuple(like.shape)}")


def _reduce_op(op, name, t, pg):
    if not isinstance(op, ReduceOp):
        raise ArgumentTypeError(f"{name}: op must be a lucid.distributed.ReduceOp, got {op!r}")
    if op is ReduceOp.AVG and not (t.dtype.is_floating_point or t.dtype.is_complex):
        raise DTypeError(f"{name}: ReduceOp.AVG needs a floating or complex tensor, got {t.dtype}")
    return pg.wire_op(op, t.dtype, name)


def _check_across(pg, op, t):
    """Under LUCID_DISTRIBUTED_DEBUG=DETAIL: every rank's ``t`` has one shape and dtype."""
    if not _debug() or pg.size == 1:
        return
    shape = tuple(t.shape)
    sig = _tensor(
        [len(shape), _DTYPES.index(t.dtype)] + list(shape[:6]) + [0] * (6 - len(shape[:6])),
        dtype=_dt.int64,
        device=t.device,
    )
    out = empty((pg.size, sig.numel()), dtype=_dt.int64, device=t.device)
    ob, oback = pg.stage(out, op, read=False)
    ib, _ = pg.stage(sig, op)
    pg.allgather(ob, ib).wait()
    oback()
    rows = out.tolist()
    if any(r != rows[0] for r in rows):
        seen = ", ".join(
            f"rank {pg.ranks[i]}: {_DTYPES[r[1]]} {tuple(r[2 : 2 + r[0]])}"
            for i, r in enumerate(rows)
        )
        raise ShapeError(f"{op}: the ranks' tensors differ ({seen})")


def _run(work, async_op, *then):
    work._then.extend(then)
    if async_op:
        return work
    work.wait()
    return None


def _root(pg, rank, op, name):
    return group_rank_of(pg, int(rank), f"{op} ({name})")


def _divide(buf, n):
    def f():
        with no_grad():
            buf.div_(n)

    return f


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` across the ranks with ``op``, leaving the result in every rank's
    ``tensor``."""
    pg = resolve(group, "all_reduce")
    if pg is None:
        return None
    _tensor_arg("all_reduce", "tensor", tensor)
    wire = _reduce_op(op, "all_reduce", tensor, pg)
    _check_across(pg, "all_reduce", tensor)
    buf, back = pg.stage(tensor, "all_reduce", reduce=True)
    then = [back]
    if wire is ReduceOp.AVG and not pg.native_avg:
        wire, then = ReduceOp.SUM, [_divide(buf, pg.size), back]
    return _run(pg.allreduce(buf, wire), async_op, *then)


def broadcast(tensor, src=0, group=None, async_op=False):
    """Copy rank ``src``'s ``tensor`` (a global rank) into every rank's ``tensor``."""
    pg = resolve(group, "broadcast")
    if pg is None:
        return None
    _tensor_arg("broadcast", "tensor", tensor)
    root = _root(pg, src, "broadcast", "src")
    _check_across(pg, "broadcast", tensor)
    buf, back = pg.stage(tensor, "broadcast")
    return _run(pg.broadcast(buf, root), async_op, back)


def reduce(tensor, dst=0, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` across the ranks with ``op`` into rank ``dst``'s ``tensor`` (the
    others' are left as they were)."""
    pg = resolve(group, "reduce")
    if pg is None:
        return None
    _tensor_arg("reduce", "tensor", tensor)
    wire = _reduce_op(op, "reduce", tensor, pg)
    root = _root(pg, dst, "reduce", "dst")
    _check_across(pg, "reduce", tensor)
    buf, back = pg.stage(tensor, "reduce", reduce=True)
    then = [back] if pg.rank == root else []
    if wire is ReduceOp.AVG and not pg.native_avg:
        wire = ReduceOp.SUM
        if pg.rank == root:
            then = [_divide(buf, pg.size), back]
    return _run(pg.reduce(buf, wire, root), async_op, *then)


def _stacked(pg, op, ts, reduce=False):
    """One contiguous wire buffer holding the tensors ``ts`` one after the other."""
    dev = pg.device_of(ts[0], op)
    dt = pg.reduce_as.get(ts[0].dtype, ts[0].dtype) if reduce else ts[0].dtype
    s = stack([t.detach().to(device=dev, dtype=dt) for t in ts])
    return pg.wire_view(s.reshape(-1), reduce), s


def _gathered(pg, op, like):
    """An uninitialised ``(W, *like.shape)`` tensor on the wire device and its bytes."""
    s = empty((pg.size,) + tuple(like.shape), dtype=like.dtype, device=pg.device_of(like, op))
    return s.reshape(-1).view(_dt.uint8), s


def _unstack_into(ts, s):
    def f():
        with no_grad():
            for t, part in zip(ts, s.unbind(0)):
                t.copy_(part.to(device=t.device))

    return f


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fill ``tensor_list[r]`` with rank ``r``'s ``tensor`` on every rank."""
    pg = resolve(group, "all_gather")
    if pg is None:
        return None
    _tensor_arg("all_gather", "tensor", tensor)
    _tensor_list("all_gather", "tensor_list", tensor_list, pg.size, tensor)
    _check_across(pg, "all_gather", tensor)
    ib, _ = pg.stage(tensor, "all_gather")
    ob, s = _gathered(pg, "all_gather", tensor)
    return _run(pg.allgather(ob, ib), async_op, _unstack_into(tensor_list, s))


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Rank ``r``'s ``input_tensor`` becomes chunk ``r`` (along dim 0) of every rank's
    ``output_tensor``, of ``W`` times its size (``(W*n, ...)`` or ``(W, n, ...)``)."""
    op = "all_gather_into_tensor"
    pg = _chunked(op, group, output_tensor, input_tensor, "output_tensor", "input_tensor")
    if pg is None:
        return None
    _check_across(pg, op, input_tensor)
    ib, _ = pg.stage(input_tensor, op)
    ob, back = pg.stage(output_tensor, op, read=False)
    return _run(pg.allgather(ob, ib), async_op, back)


def _chunked(op, group, big, small, big_name, small_name):
    """The group of an operation between ``big``, the ``W`` chunks along dim 0, and
    ``small``, one chunk (same dtype, ``W`` times the elements); None off the group."""
    pg = resolve(group, op)
    if pg is None:
        return None
    _tensor_arg(op, small_name, small)
    _tensor_arg(op, big_name, big)
    n = pg.size
    if big.dtype != small.dtype:
        raise DTypeError(f"{op}: {big_name} has dtype {big.dtype}, {small_name} {small.dtype}")
    if big.numel() != n * small.numel() or (
        big.dim()
        and small.dim()
        and tuple(big.shape[1:]) != tuple(small.shape[1:])
        and tuple(big.shape[1:]) != tuple(small.shape)
    ):
        raise ShapeError(
            f"{op}: {big_name} of shape {tuple(big.shape)} must be the world "
            f"size ({n}) times {small_name} of shape {tuple(small.shape)} "
            "along dim 0"
        )
    return pg


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Rank ``r``'s ``output`` becomes the reduction of every rank's ``input_list[r]``."""
    name = "reduce_scatter"
    pg = resolve(group, name)
    if pg is None:
        return None
    _tensor_arg(name, "output", output)
    _tensor_list(name, "input_list", input_list, pg.size, output)
    wire = _reduce_op(op, name, output, pg)
    _check_across(pg, name, output)
    ib, _ = _stacked(pg, name, input_list, reduce=True)
    return _reduce_scatter(pg, name, output, ib, wire, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Rank ``r``'s ``output`` becomes the reduction of chunk ``r`` (along dim 0) of every
    rank's ``input``, of ``W`` times ``output``'s size."""
    name = "reduce_scatter_tensor"
    pg = _chunked(name, group, input, output, "input", "output")
    if pg is None:
        return None
    wire = _reduce_op(op, name, output, pg)
    _check_across(pg, name, input)
    ib, _ = pg.stage(input, name, reduce=True)
    return _reduce_scatter(pg, name, output, ib, wire, async_op)


def _reduce_scatter(pg, name, output, ib, wire, async_op):
    ob, back = pg.stage(output, name, reduce=True, read=False)
    then = [back]
    if wire is ReduceOp.AVG and not pg.native_avg:
        wire, then = ReduceOp.SUM, [_divide(ob, pg.size), back]
    return _run(pg.reduce_scatter(ob, ib, wire), async_op, *then)


def _rooted(op, tensor, ts, rank, group, list_name, rank_name):
    """What gather and scatter check: ``(group, root's group rank, the list)`` with the
    list None off the root, or None when this rank is not in the group."""
    pg = resolve(group, op)
    if pg is None:
        return None
    _tensor_arg(op, "tensor", tensor)
    root = _root(pg, rank, op, rank_name)
    if pg.rank == root:
        _tensor_list(op, list_name, ts, pg.size, tensor)
    elif ts:
        raise ArgumentError(
            f"{op}: {list_name} must be None or empty on a rank that is not "
            f"the root (rank {pg.ranks[root]})"
        )
    else:
        ts = None
    _check_across(pg, op, tensor)
    return pg, root, ts


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """Fill rank ``dst``'s ``gather_list[r]`` with rank ``r``'s ``tensor``."""
    checked = _rooted("gather", tensor, gather_list, dst, group, "gather_list", "dst")
    if checked is None:
        return None
    pg, root, ts = checked
    ib, _ = pg.stage(tensor, "gather")
    if ts is None:
        return _run(pg.gather(ib[:0], ib, root), async_op)
    ob, s = _gathered(pg, "gather", tensor)
    return _run(pg.gather(ob, ib, root), async_op, _unstack_into(ts, s))


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """Rank ``r``'s ``tensor`` becomes rank ``src``'s ``scatter_list[r]``."""
    checked = _rooted("scatter", tensor, scatter_list, src, group, "scatter_list", "src")
    if checked is None:
        return None
    pg, root, ts = checked
    ob, back = pg.stage(tensor, "scatter", read=False)
    ib = ob[:0] if ts is None else _stacked(pg, "scatter", ts)[0]
    return _run(pg.scatter(ob, ib, root), async_op, back)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Rank ``j``'s ``output_tensor_list[i]`` becomes rank ``i``'s
    ``input_tensor_list[j]`` (sizes may differ per pair, dtypes may not)."""
    op = "all_to_all"
    pg = resolve(group, op)
    if pg is None:
        return None
    outs = _tensor_list(op, "output_tensor_list", output_tensor_list, pg.size)
    ins = _tensor_list(op, "input_tensor_list", input_tensor_list, pg.size)
    for name, ts in (("output_tensor_list", outs), ("input_tensor_list", ins)):
        for i, t in enumerate(ts):
            if t.dtype != ins[0].dtype:
                raise DTypeError(f"{op}: {name}[{i}] has dtype {t.dtype}, expected {ins[0].dtype}")
    dev = pg.device_of(ins[0], op)
    flat_in = _cat_bytes([t.detach().to(device=dev).contiguous() for t in ins], dev)
    out_sizes = [t.numel() * t.element_size() for t in outs]
    flat_out = empty((sum(out_sizes),), dtype=_dt.uint8, device=dev)
    in_sizes = [t.numel() * t.element_size() for t in ins]

    def back():
        with no_grad():
            at = 0
            for t, n in zip(outs, out_sizes):
                part = flat_out[at : at + n].view(t.dtype).reshape(tuple(t.shape))
                t.copy_(part.to(device=t.device))
                at += n

    return _run(pg.alltoall(flat_out, flat_in, out_sizes, in_sizes), async_op, back)


def _cat_bytes(ts, dev):
    parts = [t.reshape(-1).view(_dt.uint8) for t in ts]
    return cat(parts) if parts else empty((0,), dtype=_dt.uint8, device=dev)


def all_to_all_single(
    output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False
):
    """:func:`all_to_all` over chunks of dim 0 of ``input`` and ``output`` (equal chunks,
    or of ``*_split_sizes`` rows)."""
    op = "all_to_all_single"
    pg = resolve(group, op)
    if pg is None:
        return None
    _tensor_arg(op, "output", output)
    _tensor_arg(op, "input", input)
    outs = _split(op, output, output_split_sizes, pg.size, "output")
    ins = _split(op, input, input_split_sizes, pg.size, "input")
    return all_to_all(outs, ins, group=group, async_op=async_op)


def _split(op, t, sizes, n, name):
    rows = t.shape[0] if t.dim() else 1
    if sizes is None:
        if rows % n:
            raise ShapeError(
                f"{op}: dim 0 of {name} ({rows}) is not divisible by the world "
                f"size {n}; give {name}_split_sizes"
            )
        sizes = [rows // n] * n
    sizes = [int(s) for s in sizes]
    if len(sizes) != n or sum(sizes) != rows:
        raise ShapeError(
            f"{op}: {name}_split_sizes {sizes} must be {n} sizes summing to "
            f"dim 0 of {name} ({rows})"
        )
    return list(t.split(sizes, 0))


def isend(tensor, dst, group=None, tag=0):
    """Start sending ``tensor`` to global rank ``dst``; returns a Work."""
    pg = resolve(group, "isend")
    if pg is None:
        return None
    _tensor_arg("isend", "tensor", tensor)
    peer = _root(pg, dst, "isend", "dst")
    if peer == pg.rank:
        raise ArgumentError(f"isend: dst {dst} is this process's own rank")
    buf, _ = pg.stage(tensor, "isend")
    return pg.send(buf, peer, int(tag))


def irecv(tensor, src=None, group=None, tag=0):
    """Start receiving into ``tensor`` from global rank ``src`` (None: any rank); the
    Work's ``result()`` is the sender's rank."""
    pg = resolve(group, "irecv")
    if pg is None:
        return None
    _tensor_arg("irecv", "tensor", tensor)
    peer = None if src is None else _root(pg, src, "irecv", "src")
    if peer == pg.rank:
        raise ArgumentError(f"irecv: src {src} is this process's own rank")
    buf, back = pg.stage(tensor, "irecv", read=False)
    work = pg.recv(buf, peer, int(tag))
    work._then.insert(0, back)
    return work


def send(tensor, dst, group=None, tag=0):
    """Send ``tensor`` to global rank ``dst`` and wait until it has gone."""
    work = isend(tensor, dst, group, tag)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0):
    """Receive into ``tensor`` from global rank ``src`` (None: any); returns the sender."""
    work = irecv(tensor, src, group, tag)
    return -1 if work is None else work.result()


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank of ``group`` has reached the barrier."""
    pg = resolve(group, "barrier")
    if pg is None:
        return None
    if pg.size == 1:
        return _run(done(pg, "barrier"), async_op)
    return _run(pg.barrier(), async_op)
