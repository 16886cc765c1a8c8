"""Collectives of picklable Python objects (``all_gather_object``,
``broadcast_object_list``, ``gather_object``), as ``torch.distributed``'s: each object
travels as the bytes of its pickle in a uint8 tensor, padded to the longest, after an
all-gather of the lengths. Unpickling runs code of the sender's choosing: use them only
between the ranks of one job, as PyTorch warns.
"""

from __future__ import annotations

import pickle

from .. import dtypes as _dt
from .._tensor import tensor
from ..errors import ArgumentError, ArgumentTypeError
from ..ops import zeros
from . import collectives as _c
from .world import group_rank_of, resolve

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object"]


def _bytes(obj, dev):
    data = pickle.dumps(obj)
    return (
        tensor(list(data), dtype=_dt.uint8, device=dev)
        if data
        else zeros(0, dtype=_dt.uint8, device=dev)
    )


def _padded_all(pg, group, obj):
    """``(every rank's pickle length, this rank's pickle padded to the longest, that
    length)``."""
    dev = pg.dev  # the CPU for MPI, this rank's GPU for NCCL
    mine = _bytes(obj, dev)
    sizes = [zeros(1, dtype=_dt.int64, device=dev) for _ in range(pg.size)]
    _c.all_gather(sizes, tensor([mine.numel()], dtype=_dt.int64, device=dev), group)
    lengths = [int(s.item()) for s in sizes]
    width = max(lengths)
    pad = zeros(width, dtype=_dt.uint8, device=dev)
    pad[: mine.numel()] = mine
    return lengths, pad, width


def _load(t, n):
    return pickle.loads(bytes(t[:n].tolist()))


def all_gather_object(object_list, obj, group=None):
    """Fill ``object_list[r]`` with rank ``r``'s ``obj`` on every rank."""
    pg = resolve(group, "all_gather_object")
    if pg is None:
        return
    _list(object_list, pg.size, "all_gather_object", "object_list")
    lengths, pad, width = _padded_all(pg, group, obj)
    out = [zeros(width, dtype=_dt.uint8, device=pad.device) for _ in range(pg.size)]
    _c.all_gather(out, pad, group)
    for r in range(pg.size):
        object_list[r] = _load(out[r], lengths[r])


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    """Fill rank ``dst``'s ``object_gather_list[r]`` with rank ``r``'s ``obj``."""
    pg = resolve(group, "gather_object")
    if pg is None:
        return
    root = group_rank_of(pg, int(dst), "gather_object (dst)")
    if pg.rank == root:
        _list(object_gather_list, pg.size, "gather_object", "object_gather_list")
    lengths, pad, width = _padded_all(pg, group, obj)
    out = (
        [zeros(width, dtype=_dt.uint8, device=pad.device) for _ in range(pg.size)]
        if pg.rank == root
        else None
    )
    _c.gather(pad, out, dst, group)
    if out is not None:
        for r in range(pg.size):
            object_gather_list[r] = _load(out[r], lengths[r])


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """Replace every rank's ``object_list`` items by rank ``src``'s (lists of one length);
    ``device``: where the bytes travel (default: the group's own device)."""
    pg = resolve(group, "broadcast_object_list")
    if pg is None:
        return
    if not isinstance(object_list, list):
        raise ArgumentTypeError(
            f"broadcast_object_list: object_list must be a list, got {type(object_list).__name__}"
        )
    dev = device or pg.dev
    root = group_rank_of(pg, int(src), "broadcast_object_list (src)")
    mine = _bytes(object_list, dev) if pg.rank == root else None
    size = tensor([0 if mine is None else mine.numel()], dtype=_dt.int64, device=dev)
    _c.broadcast(size, src, group)
    data = mine if mine is not None else zeros(int(size.item()), dtype=_dt.uint8, device=dev)
    _c.broadcast(data, src, group)
    got = _load(data, int(size.item()))
    if len(got) != len(object_list):
        raise ArgumentError(
            f"broadcast_object_list: rank {pg.ranks[root]} sent "
            f"{len(got)} objects, this rank's list holds "
            f"{len(object_list)}"
        )
    object_list[:] = got


def _list(lst, n, op, name):
    if not isinstance(lst, list) or len(lst) != n:
        got = f"a list of {len(lst)}" if isinstance(lst, list) else type(lst).__name__
        raise ArgumentError(f"{op}: {name} must be a list of one slot per rank ({n}), got {got}")
