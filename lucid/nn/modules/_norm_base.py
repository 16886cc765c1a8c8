"""The bases of the batch and instance norms: ``_NormBase`` (parameters, running
statistics, their reset and the old-checkpoint conversion) and ``_BatchNorm`` (the
forward over batch statistics or the running ones). PyTorch's path for both is
``torch.nn.modules.batchnorm``, which re-exports them."""

from __future__ import annotations

from typing import Any

from ... import dtypes as _dt
from ..._tensor import tensor
from ...autograd.grad_mode import no_grad
from ...errors import ShapeError
from ...ops import empty, ones, zeros
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = []


class _NormBase(Module):
    """``weight`` (ones) and ``bias`` (zeros; None unless ``bias``) of shape
    ``(num_features,)`` when ``affine``;
    buffers ``running_mean`` (zeros), ``running_var`` (ones) and ``num_batches_tracked``
    (int64 0) when ``track_running_stats``, else those are None."""

    _version = 2

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=_dt.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        """Running mean 0, running variance 1, no batch tracked."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError  # abstract: each layer checks its own input rank

    def extra_repr(self):
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (
            (version is None or version < 2) and self.track_running_stats and key not in state_dict
        ):  # checkpoints before num_batches_tracked
            state_dict[key] = (
                self.num_batches_tracked
                if self.num_batches_tracked is not None
                else tensor(0, dtype=_dt.int64)
            )
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


class _BatchNorm(_NormBase):
    """Batch statistics in training mode (updating the running ones, with ``momentum`` or,
    when it is None, their cumulative average), running statistics in evaluation mode."""

    _dims: Any = ()

    def _check_input_dim(self, input):
        if input.dim() not in self._dims:
            want = " or ".join(f"{d}D" for d in self._dims)
            raise ShapeError(
                f"{type(self).__name__}: expected {want} input (got {input.dim()}D input)"
            )

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.item())
        batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if track else None,
            self.running_var if track else None,
            self.weight,
            self.bias,
            batch_stats,
            factor,
            self.eps,
        )
