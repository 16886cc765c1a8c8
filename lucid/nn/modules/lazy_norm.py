"""What the lazy norms share: ``_LazyNorm``, the base of LazyBatchNorm1d/2d/3d
(batchnorm.py) and LazyInstanceNorm1d/2d/3d (instancenorm.py), PyTorch's homes for them:
norms whose ``num_features`` is read from their first input."""

from __future__ import annotations

from typing import Any

from ... import dtypes as _dt
from ..._tensor import tensor
from ...ops import empty
from ..parameter import UninitializedBuffer, UninitializedParameter, _Uninitialized
from ._norm_base import _NormBase

__all__ = []


class _LazyNorm:
    """A norm whose ``num_features`` is the channel dim of its first input (dim 1; dim 0
    of an unbatched instance-norm input): until then ``weight`` and ``bias`` are
    :class:`UninitializedParameter` (when ``affine``) and ``running_mean`` and
    ``running_var`` :class:`UninitializedBuffer` (when ``track_running_stats``;
    ``num_batches_tracked`` is an ordinary int64 0). The first call materialises them
    with shape ``(num_features,)``, initialises them as the layer does (ones, zeros,
    running mean 0 and variance 1) and turns the module into :attr:`cls_to_become`;
    loading a state dict first materialises them from its tensors instead, and the first
    call then only reads ``num_features`` off them. PyTorch's defaults: ``affine`` and
    ``track_running_stats`` on, for the instance norms too.

    Where PyTorch differs, the lazy layer here does what the eager one would: an unbatched
    instance-norm input gives its channel count (PyTorch's reads ``input.shape[1]``, the
    length, and then refuses the input when ``affine``), and ``num_features`` after a
    state dict is loaded is the loaded tensors' size (PyTorch's stays 0)."""

    cls_to_become: Any = None

    def __init__(
        self,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        # the base allocates nothing (no features, no affine, no statistics); the
        # placeholders follow
        _NormBase.__init__(
            self, 0, eps, momentum, False, False, device=device, dtype=dtype, bias=False
        )
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(empty(0, device=device, dtype=dtype))
            if bias:
                self.bias = UninitializedParameter(empty(0, device=device, dtype=dtype))
        if track_running_stats:
            self.running_mean = UninitializedBuffer(empty(0, device=device, dtype=dtype))
            self.running_var = UninitializedBuffer(empty(0, device=device, dtype=dtype))
            self.num_batches_tracked = tensor(0, dtype=_dt.int64, device=device)

    def reset_parameters(self):
        if self.num_features and not self.has_uninitialized_parameters():
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Materialise the parameters and running statistics for ``input``'s channels
        and initialise them (or, where a loaded state dict materialised them already,
        read ``num_features`` off them)."""
        self._check_input_dim(input)
        lazy = [
            t
            for t in (self.weight, self.bias, self.running_mean, self.running_var)
            if isinstance(t, _Uninitialized)
        ]
        loaded = [
            t
            for t in (self.weight, self.running_mean)
            if t is not None and not isinstance(t, _Uninitialized)
        ]
        if loaded and not lazy:
            self.num_features = loaded[0].shape[0]
        else:
            unbatched = input.dim() == getattr(self, "_no_batch_dim", None)
            self.num_features = input.shape[0 if unbatched else 1]
            for t in lazy:
                t.materialize((self.num_features,))
            self.reset_parameters()
        self.__class__ = self.cls_to_become

    def forward(self, input):
        self.initialize_parameters(input)
        return self.forward(input)
