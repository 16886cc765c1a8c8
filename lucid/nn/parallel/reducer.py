"""The gradient reducer of DistributedDataParallel: parameters grouped into buckets, each
bucket all-reduced asynchronously as soon as every gradient in it is ready.

Buckets follow the parameters in reverse registration order (the order a backward
usually produces their gradients in), at most ``bucket_cap_mb`` MiB each — the first at
most 1 MiB, as PyTorch's, so that the first all-reduce starts early in the backward — one
dtype and device per bucket. A hook after each parameter's gradient accumulation copies
the gradient into its bucket's flat buffer; a bucket whose gradients are all in is divided
by the world size and all-reduced (SUM) at once, in bucket order on every rank (so the
ranks issue the same collectives in the same order), while the backward goes on. When
the last bucket is launched the reducer waits for all of them (``wait_s`` adds up that
waiting: the communication the backward did not hide) and puts the averages into
``.grad``: when ``backward()`` returns, the gradients are the mean over the ranks.
"""

from __future__ import annotations

import time

from ... import distributed as dist
from ...autograd.grad_mode import no_grad
from ...errors import DistributedError
from ..._tensor import tensor
from ...ops import zeros
from ..._tensor import Tensor

__all__ = ["Reducer"]

FIRST_BUCKET_BYTES = 1024 * 1024


class _Bucket:
    __slots__ = ("index", "params", "offsets", "flat", "pending", "work")

    def __init__(self, index, params):
        self.index, self.params = index, params
        self.offsets, at = [], 0
        for p in params:
            self.offsets.append(at)
            at += p.numel()
        self.flat = zeros(at, dtype=params[0].dtype, device=params[0].device)
        self.pending = len(params)
        self.work = None

    def slot(self, k):
        """The part of the flat buffer that holds parameter ``k``'s gradient."""
        return self.flat[self.offsets[k] : self.offsets[k] + self.params[k].numel()]


class Reducer:
    """Buckets of ``params`` reduced over ``group`` (see the module docstring)."""

    def __init__(self, params, group, bucket_cap_mb, find_unused, as_view):
        self.params, self.group, self.find_unused = params, group, find_unused
        self.as_view = as_view
        self.wait_s = 0.0  # time spent waiting for all-reduces after the backward
        self.world = dist.get_world_size(group)
        self.buckets, self.where = self._assign(params, bucket_cap_mb * 1024 * 1024)
        self.armed = False  # a forward prepared a backward that syncs
        self.started = False  # and that backward has produced a gradient
        self.ready = [False] * len(params)
        self.next = 0  # the next bucket to launch, in order
        self.used = None  # globally used flags (find_unused_parameters)
        self.used_work = None
        for i, p in enumerate(params):
            p.register_post_accumulate_grad_hook(self._hook(i))

    @staticmethod
    def _assign(params, cap):
        buckets, where, cur, size = [], {}, [], 0
        for i in reversed(range(len(params))):
            p = params[i]
            nbytes = p.numel() * p.element_size()
            limit = min(cap, FIRST_BUCKET_BYTES) if not buckets else cap
            if cur and (
                size + nbytes > limit or p.dtype != cur[0][1].dtype or p.device != cur[0][1].device
            ):
                buckets.append(cur)
                cur, size = [], 0
            cur.append((i, p))
            size += nbytes
        if cur:
            buckets.append(cur)
        out = []
        for b, members in enumerate(buckets):
            for k, (i, _) in enumerate(members):
                where[i] = (b, k)
            out.append(_Bucket([i for i, _ in members], [p for _, p in members]))
        return out, where

    # -- one iteration -------------------------------------------------------------------

    def prepare(self, outputs):
        """Called by a forward whose backward syncs: arm the hooks; with
        ``find_unused_parameters``, mark ready every parameter the graph of ``outputs``
        does not reach and start all-reducing the flags of which ranks used which."""
        if self.armed:
            if self.started:
                raise DistributedError(
                    "DistributedDataParallel: the previous iteration's gradients were not "
                    "all reduced: some parameters got no gradient in its backward. Pass "
                    "find_unused_parameters=True when part of the model does not take "
                    "part in the loss"
                )
            self._drain()  # a forward without backward: start again
        self.armed, self.started = True, False
        self.ready = [False] * len(self.params)
        self.next = 0
        for b in self.buckets:
            b.pending, b.work = len(b.params), None
        if not self.find_unused:
            return
        reached = _reached_leaves(outputs)
        local = [id(p) in reached for p in self.params]
        flat = self.buckets[0].flat
        self.used = tensor([float(u) for u in local], dtype=flat.dtype, device=flat.device)
        self.used_work = dist.all_reduce(self.used, dist.ReduceOp.MAX, self.group, async_op=True)
        for i, u in enumerate(local):
            if not u:
                self._mark(i)

    def _hook(self, i):
        def hook(p):
            if self.armed:
                self.started = True
                self._mark(i)

        return hook

    def _drain(self):
        """Complete what a forward that got no backward launched (the flags of used
        parameters, buckets of unused ones): every rank launched the same."""
        for b in self.buckets[: self.next]:
            b.work.wait()
        if self.used_work is not None:
            self.used_work.wait()
            self.used_work = None

    def _mark(self, i):
        if self.ready[i]:
            raise DistributedError(
                f"DistributedDataParallel: parameter {i} got its gradient twice in one "
                "iteration (a second backward through the same forward, or a parameter "
                "used by reentrant backward); call the DDP forward once per backward"
            )
        self.ready[i] = True
        b, k = self.where[i]
        bucket = self.buckets[b]
        p = bucket.params[k]
        with no_grad():
            part = bucket.slot(k)
            g = p.grad
            if g is None:
                part.zero_()
            elif not (self.as_view and g.data_ptr() == part.data_ptr()):
                part.copy_(g.reshape(-1))
        bucket.pending -= 1
        while self.next < len(self.buckets) and self.buckets[self.next].pending == 0:
            nb = self.buckets[self.next]
            if self.world > 1:
                with no_grad():
                    nb.flat.div_(self.world)
            nb.work = dist.all_reduce(nb.flat, dist.ReduceOp.SUM, self.group, async_op=True)
            self.next += 1
        if self.next == len(self.buckets):
            self._finish()
        else:
            for nb in self.buckets[: self.next]:  # let MPI progress the ones in flight
                if not nb.work.is_completed():
                    break

    def _finish(self):
        """Wait for every bucket and put the averaged gradients into ``.grad`` (as views
        of the bucket with ``gradient_as_bucket_view``: later backward passes then
        accumulate straight into the bucket)."""
        self.armed = False
        t0 = time.perf_counter()
        used = None
        if self.used_work is not None:
            self.used_work.wait()
            used = self.used.tolist()
            self.used_work = None
        for bucket in self.buckets:
            bucket.work.wait()
        self.wait_s += time.perf_counter() - t0
        with no_grad():
            for bucket in self.buckets:
                for k, (i, p) in enumerate(zip(bucket.index, bucket.params)):
                    if used is not None and not used[i]:
                        continue  # no rank used it: its .grad stays as it was
                    g = bucket.slot(k).reshape(tuple(p.shape))
                    if self.as_view:
                        if p.grad is None or p.grad.data_ptr() != g.data_ptr():
                            p.grad = g
                    elif p.grad is None:
                        p.grad = g.clone()
                    else:
                        p.grad.copy_(g)


def _reached_leaves(outputs):
    """The ids of the leaf tensors the autograd graph of ``outputs`` reaches."""
    stack, seen, leaves = [], set(), set()

    def visit(o):
        if isinstance(o, Tensor):
            if o.grad_fn is not None:
                stack.append(o.grad_fn)
            elif o.requires_grad:
                leaves.add(id(o))
        elif isinstance(o, (list, tuple)):
            for x in o:
                visit(x)
        elif isinstance(o, dict):
            for x in o.values():
                visit(x)

    visit(outputs)
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        var = getattr(node, "variable", None)
        if var is not None:
            leaves.add(id(var))
        for nxt, _ in node.next_functions:
            if nxt is not None:
                stack.append(nxt)
    return leaves
