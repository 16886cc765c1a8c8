"""InstanceNorm1d/2d/3d and LazyInstanceNorm1d/2d/3d."""

from __future__ import annotations

import warnings

from ...errors import ShapeError
from .. import functional as F
from ._norm_base import _NormBase
from .lazy_norm import _LazyNorm

__all__ = [
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]


class _InstanceNorm(_NormBase):
    """Per-sample, per-channel statistics over the spatial dims (``affine`` and
    ``track_running_stats`` off by default, as PyTorch); an unbatched input (one dim
    fewer) is normalised as a batch of one."""

    _no_batch_dim = 0

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=False,
        track_running_stats=False,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        super().__init__(
            num_features,
            eps,
            momentum,
            affine,
            track_running_stats,
            device=device,
            dtype=dtype,
            bias=bias,
        )

    def _check_input_dim(self, input):
        nd = self._no_batch_dim
        if input.dim() not in (nd, nd + 1):
            raise ShapeError(
                f"{type(self).__name__}: expected {nd}D or {nd + 1}D input "
                f"(got {input.dim()}D input)"
            )

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            msg = (
                f"{type(self).__name__}: expected input's size at dim={feature_dim} to "
                f"match num_features ({self.num_features}), but got: "
                f"{input.size(feature_dim)}."
            )
            if self.affine:
                raise ShapeError(msg)
            warnings.warn(msg + " num_features is not used because affine=False", stacklevel=2)
        if input.dim() == self._no_batch_dim:
            return self._instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._instance_norm(input)

    def _instance_norm(self, input):
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            0.0 if self.momentum is None else self.momentum,
            self.eps,
        )

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        if not self.track_running_stats:  # running stats of an older checkpoint
            dropped = [
                prefix + k for k in ("running_mean", "running_var") if prefix + k in state_dict
            ]
            if dropped:
                warnings.warn(
                    f"Unexpected running stats buffer(s) {dropped} for "
                    f"{type(self).__name__} with track_running_stats=False; they "
                    "are ignored",
                    stacklevel=2,
                )
                for k in dropped:
                    state_dict.pop(k)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


class InstanceNorm1d(_InstanceNorm):
    """Instance norm over ``(N, C, L)`` or unbatched ``(C, L)`` input."""

    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance norm over ``(N, C, H, W)`` or unbatched ``(C, H, W)`` input."""

    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance norm over ``(N, C, D, H, W)`` or unbatched ``(C, D, H, W)`` input."""

    _no_batch_dim = 4


class LazyInstanceNorm1d(_LazyNorm, InstanceNorm1d):
    """An :class:`InstanceNorm1d` whose ``num_features`` is inferred from its first input."""

    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNorm, InstanceNorm2d):
    """An :class:`InstanceNorm2d` whose ``num_features`` is inferred from its first input."""

    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNorm, InstanceNorm3d):
    """An :class:`InstanceNorm3d` whose ``num_features`` is inferred from its first input."""

    cls_to_become = InstanceNorm3d
