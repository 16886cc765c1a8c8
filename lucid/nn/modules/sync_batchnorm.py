"""SyncBatchNorm: batch norm whose batch statistics span every rank of a process group."""

from __future__ import annotations

from ...autograd.grad_mode import no_grad
from ...errors import ShapeError
from ...ops import cat, full
from ._norm_base import _BatchNorm
from ...distributed.nn.functional import all_reduce
from ... import distributed as dist

__all__ = ["SyncBatchNorm"]


class SyncBatchNorm(_BatchNorm):
    """Batch norm over ``(N, C, *)`` input whose training statistics are those of the
    global batch: the union of every rank's batch in ``process_group`` (default: the
    world).

    With :math:`n` elements per channel over all ranks, the channel's mean and (biased)
    variance are

    .. math:: \\mu = \\frac1n \\sum_r \\sum_{i \\in r} x_i, \\qquad
              \\sigma^2 = \\frac1n \\sum_r \\sum_{i \\in r} (x_i - \\mu)^2

    computed as two all-reduces of per-channel sums (the second of the centred squares,
    which keeps the variance exact where :math:`E[x^2] - \\mu^2` cancels). Both are
    differentiable collectives, so the backward all-reduces the two per-channel sums of
    the gradient that the statistics need, as PyTorch's. The running statistics take the
    unbiased :math:`\\sigma^2 n / (n-1)`. In evaluation mode, or when no process group is
    initialised or it has one rank, it is plain batch norm."""

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        process_group=None,
        device=None,
        dtype=None,
    ):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ShapeError(
                f"SyncBatchNorm: expected at least 2D input (got {input.dim()}D input)"
            )

    def forward(self, input):
        self._check_input_dim(input)
        if not (
            self.training and dist.is_initialized() and dist.get_world_size(self.process_group) > 1
        ):
            return super().forward(input)
        c = input.shape[1]
        dims = [0] + list(range(2, input.dim()))
        shape = (1, c) + (1,) * (input.dim() - 2)
        local = full((1,), float(input.numel() // c), dtype=input.dtype, device=input.device)
        sums = all_reduce(cat([input.sum(dims), local]), group=self.process_group)
        n = float(sums[c].item())
        if n <= 1:
            raise ShapeError(
                f"SyncBatchNorm: expected more than 1 value per channel when "
                f"training over all ranks, got {int(n)}"
            )
        mean = sums[:c] / n
        xc = input - mean.reshape(shape)
        var = all_reduce((xc * xc).sum(dims), group=self.process_group) / n
        out = xc * (var + self.eps).rsqrt().reshape(shape)
        if self.weight is not None:
            out = out * self.weight.reshape(shape)
        if self.bias is not None:
            out = out + self.bias.reshape(shape)
        if self.track_running_stats and self.running_mean is not None:
            self._update_running(mean.detach(), var.detach() * (n / (n - 1)))
        return out

    def _update_running(self, mean, var):
        with no_grad():
            self.num_batches_tracked.add_(1)
            f = (
                1.0 / float(self.num_batches_tracked.item())
                if self.momentum is None
                else self.momentum
            )
            self.running_mean.mul_(1 - f).add_(mean.to(self.running_mean.dtype) * f)
            self.running_var.mul_(1 - f).add_(var.to(self.running_var.dtype) * f)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every ``BatchNorm*d`` in it replaced by a SyncBatchNorm that
        takes over its parameters, buffers and mode (``module`` itself when it is one)."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            out = cls(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
            )
            if module.affine:
                out.weight, out.bias = module.weight, module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.train(module.training)
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
