"""DistributedDataParallel: data-parallel training of one module replicated on every rank
of a process group, as ``torch.nn.parallel.DistributedDataParallel``."""

from __future__ import annotations

import contextlib

from ... import distributed as dist
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...errors import ArgumentError, DistributedError
from ..._tensor import tensor
from ...ops import cat
from ..modules.module import Module
from .reducer import Reducer

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    """Wraps ``module`` so that, on every rank of ``process_group`` (default: the world),
    ``loss.backward()`` leaves in each parameter's ``.grad`` the mean over the ranks of
    their gradients: training on ``W`` ranks with batches :math:`B_r` steps as training on
    their union would (for a loss that averages over the batch, and equal batch sizes).

    At construction the parameters and buffers of rank 0 are broadcast to every rank
    (after checking that every rank holds the same parameter shapes). Gradients are
    all-reduced in buckets of ``bucket_cap_mb`` MiB as the backward produces them, so
    communication overlaps the rest of the backward (:class:`~.reducer.Reducer`).

    ``broadcast_buffers``: broadcast rank 0's buffers (BatchNorm's running statistics) at
    the start of every forward. ``find_unused_parameters``: find, after each forward, the
    parameters its output does not depend on, and treat them as ready (without it, a
    parameter that gets no gradient stalls its bucket and the next forward raises); a
    parameter no rank used keeps its ``.grad``. ``gradient_as_bucket_view``: after the
    first reduction each ``.grad`` is a view of its bucket, which saves a copy each way.
    :meth:`no_sync` skips the reduction, so gradients accumulate locally until the first
    backward outside it. ``device_ids``, ``output_device``, ``dim``, ``check_reduction``
    and ``static_graph`` are accepted for PyTorch compatibility and change nothing (one
    device per process, the module's own; the reducer needs no hint of a static graph)."""

    def __init__(
        self,
        module,
        device_ids=None,
        output_device=None,
        dim=0,
        broadcast_buffers=True,
        process_group=None,
        bucket_cap_mb=25,
        find_unused_parameters=False,
        check_reduction=False,
        gradient_as_bucket_view=False,
        static_graph=False,
    ):
        super().__init__()
        if not dist.is_initialized():
            raise DistributedError(
                "DistributedDataParallel: the default process group has "
                "not been initialized; call "
                "lucid.distributed.init_process_group() first"
            )
        if not bucket_cap_mb > 0:
            raise ArgumentError(
                f"DistributedDataParallel: bucket_cap_mb must be positive, got {bucket_cap_mb}"
            )
        self.module = module
        self.process_group = process_group
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        seen, params = set(), []
        for p in module.parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                params.append(p)
        if not params:
            raise DistributedError(
                "DistributedDataParallel: the module has no parameter that requires a gradient"
            )
        self._params = params
        self._check_same_model(params)
        frozen = [p for p in module.parameters() if not p.requires_grad]
        self._broadcast(params + frozen + [b for b in module.buffers() if b is not None])
        self.reducer = Reducer(
            params, process_group, bucket_cap_mb, find_unused_parameters, gradient_as_bucket_view
        )

    def _check_same_model(self, params):
        """Every rank has as many parameters of the same shapes (compared by a checksum of
        the shapes, all-reduced as MIN and MAX)."""
        sig = [len(params)] + [
            sum((k + 1) * (d + 3) * (j + 7) for k, d in enumerate(p.shape))
            for j, p in enumerate(params)
        ]
        code = float(sum((i + 1) * s for i, s in enumerate(sig)) % 1000003)
        lo = tensor([code, float(len(params))], device=params[0].device)
        hi = lo.clone()
        dist.all_reduce(lo, dist.ReduceOp.MIN, self.process_group)
        dist.all_reduce(hi, dist.ReduceOp.MAX, self.process_group)
        if lo.tolist() != hi.tolist():
            raise DistributedError(
                "DistributedDataParallel: the ranks' modules differ (their "
                "parameter counts or shapes do not match); every rank "
                "must build the same model"
            )

    def _broadcast(self, tensors):
        """Rank 0's values of ``tensors`` on every rank: one broadcast per dtype and
        device, of the tensors flattened together."""
        groups = {}
        for t in tensors:
            groups.setdefault((t.dtype, t.device), []).append(t)
        src = dist.get_global_rank(self._pg(), 0)
        with no_grad():
            for ts in groups.values():
                flat = cat([t.detach().reshape(-1) for t in ts])
                dist.broadcast(flat, src, self.process_group)
                at = 0
                for t in ts:
                    t.copy_(flat[at : at + t.numel()].reshape(tuple(t.shape)))
                    at += t.numel()

    def _pg(self):
        return dist.group.WORLD if self.process_group is None else self.process_group

    def forward(self, *inputs, **kwargs):
        if self.broadcast_buffers:
            buffers = [b for b in self.module.buffers() if b is not None]
            if buffers:
                self._broadcast(buffers)
        out = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync:
            self.reducer.prepare(out)
        return out

    @contextlib.contextmanager
    def no_sync(self):
        """Within it, backward passes accumulate gradients locally without reducing them;
        the first backward after it reduces the accumulated sums."""
        prev = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = prev
