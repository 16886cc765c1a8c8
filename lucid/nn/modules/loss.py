"""Loss layers: each holds ``reduction`` and its options (class weights as buffers, so they
move with ``.to`` and appear in ``state_dict`` as in PyTorch); ``forward`` is one call of
:mod:`lucid.nn.functional`."""

from __future__ import annotations

from typing import Any

from ...errors import ArgumentError
from .. import functional as F
from ..functional.loss import _check
from .distance import PairwiseDistance
from .module import Module

__all__ = [
    "L1Loss",
    "MSELoss",
    "SmoothL1Loss",
    "HuberLoss",
    "CrossEntropyLoss",
    "NLLLoss",
    "NLLLoss2d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "KLDivLoss",
    "PoissonNLLLoss",
    "GaussianNLLLoss",
    "CTCLoss",
    "MarginRankingLoss",
    "HingeEmbeddingLoss",
    "CosineEmbeddingLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
    "MultiMarginLoss",
    "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss",
    "SoftMarginLoss",
]


class _Loss(Module):
    """Holds ``reduction`` (the legacy ``size_average``/``reduce`` must be None)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            _check(reduction, type(self).__name__, size_average, reduce)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    """A loss with a per-class ``weight`` buffer (None when not given)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class _PairLoss(_Loss):
    """``fn(input, target, reduction=...)``."""

    _fn: Any = None

    def forward(self, input, target):
        return type(self)._fn(input, target, reduction=self.reduction)


class L1Loss(_PairLoss):
    """:func:`~lucid.nn.functional.l1_loss`."""

    _fn = staticmethod(F.l1_loss)


class MSELoss(_PairLoss):
    """:func:`~lucid.nn.functional.mse_loss`."""

    _fn = staticmethod(F.mse_loss)


class SoftMarginLoss(_PairLoss):
    """:func:`~lucid.nn.functional.soft_margin_loss`."""

    _fn = staticmethod(F.soft_margin_loss)


class MultiLabelMarginLoss(_PairLoss):
    """:func:`~lucid.nn.functional.multilabel_margin_loss`."""

    _fn = staticmethod(F.multilabel_margin_loss)


class SmoothL1Loss(_Loss):
    """:func:`~lucid.nn.functional.smooth_l1_loss` with ``beta``."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """:func:`~lucid.nn.functional.huber_loss` with ``delta``."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class NLLLoss(_WeightedLoss):
    """:func:`~lucid.nn.functional.nll_loss` with ``weight`` and ``ignore_index``."""

    def __init__(
        self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"
    ):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
        )


class NLLLoss2d(NLLLoss):
    """PyTorch's old name of :class:`NLLLoss` for ``(N, C, H, W)`` input, which
    :class:`NLLLoss` takes as it is; kept, as PyTorch keeps it."""


class CrossEntropyLoss(_WeightedLoss):
    """:func:`~lucid.nn.functional.cross_entropy` with ``weight``, ``ignore_index`` and
    ``label_smoothing``."""

    def __init__(
        self,
        weight=None,
        size_average=None,
        ignore_index=-100,
        reduce=None,
        reduction="mean",
        label_smoothing=0.0,
    ):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class BCELoss(_WeightedLoss):
    """:func:`~lucid.nn.functional.binary_cross_entropy` with an element ``weight``."""

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """:func:`~lucid.nn.functional.binary_cross_entropy_with_logits` with ``weight`` and
    ``pos_weight`` (both buffers)."""

    def __init__(
        self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
    ):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(
            input, target, weight=self.weight, reduction=self.reduction, pos_weight=self.pos_weight
        )


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """:func:`~lucid.nn.functional.multilabel_soft_margin_loss` with ``weight``."""

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(
            input, target, weight=self.weight, reduction=self.reduction
        )


class KLDivLoss(_Loss):
    """:func:`~lucid.nn.functional.kl_div` (``reduction`` also ``"batchmean"``;
    ``log_target``)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class PoissonNLLLoss(_Loss):
    """:func:`~lucid.nn.functional.poisson_nll_loss` with ``log_input``, ``full`` and
    ``eps``."""

    def __init__(
        self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"
    ):
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(
            log_input,
            target,
            log_input=self.log_input,
            full=self.full,
            eps=self.eps,
            reduction=self.reduction,
        )


class GaussianNLLLoss(_Loss):
    """:func:`~lucid.nn.functional.gaussian_nll_loss` with ``full`` and ``eps``."""

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction=reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(
            input, target, var, full=self.full, eps=self.eps, reduction=self.reduction
        )


class CTCLoss(_Loss):
    """:func:`~lucid.nn.functional.ctc_loss` with ``blank`` and ``zero_infinity``."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(
            log_probs,
            targets,
            input_lengths,
            target_lengths,
            self.blank,
            self.reduction,
            self.zero_infinity,
        )


class _MarginLoss(_Loss):
    def __init__(self, margin, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin


class MarginRankingLoss(_MarginLoss):
    """:func:`~lucid.nn.functional.margin_ranking_loss` with ``margin``."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class HingeEmbeddingLoss(_MarginLoss):
    """:func:`~lucid.nn.functional.hinge_embedding_loss` with ``margin``."""

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_MarginLoss):
    """:func:`~lucid.nn.functional.cosine_embedding_loss` with ``margin``."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class MultiMarginLoss(_WeightedLoss):
    """:func:`~lucid.nn.functional.multi_margin_loss` with ``p``, ``margin`` and
    ``weight``."""

    def __init__(
        self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"
    ):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ArgumentError(f"MultiMarginLoss: only p == 1 and p == 2 supported, got {p}")
        self.p = p
        self.margin = margin

    def forward(self, input, target):
        return F.multi_margin_loss(
            input,
            target,
            p=self.p,
            margin=self.margin,
            weight=self.weight,
            reduction=self.reduction,
        )


class TripletMarginLoss(_MarginLoss):
    """:func:`~lucid.nn.functional.triplet_margin_loss` with ``margin``, ``p``, ``eps`` and
    ``swap``."""

    def __init__(
        self,
        margin=1.0,
        p=2.0,
        eps=1e-6,
        swap=False,
        size_average=None,
        reduce=None,
        reduction="mean",
    ):
        super().__init__(margin, size_average, reduce, reduction)
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(
            anchor,
            positive,
            negative,
            margin=self.margin,
            p=self.p,
            eps=self.eps,
            swap=self.swap,
            reduction=self.reduction,
        )


class TripletMarginWithDistanceLoss(_Loss):
    """:func:`~lucid.nn.functional.triplet_margin_with_distance_loss` with
    ``distance_function`` (default: a :class:`PairwiseDistance` submodule, as PyTorch),
    ``margin`` and ``swap``."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(reduction=reduction)
        self.distance_function = (
            distance_function if distance_function is not None else PairwiseDistance()
        )
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(
            anchor,
            positive,
            negative,
            distance_function=self.distance_function,
            margin=self.margin,
            swap=self.swap,
            reduction=self.reduction,
        )
