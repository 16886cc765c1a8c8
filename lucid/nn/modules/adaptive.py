"""AdaptiveLogSoftmaxWithLoss: Grave et al.'s adaptive softmax, as PyTorch's
``torch.nn.AdaptiveLogSoftmaxWithLoss`` (same parameters and names, so a PyTorch state
dict loads by name).

The classes are split by ``cutoffs`` into a frequent *shortlist* ``[0, c_0)`` and tail
clusters ``[c_{k-1}, c_k)``. The ``head`` scores the shortlist plus one entry per cluster;
cluster ``k``'s ``tail[k]`` (two bias-free linears through ``in_features / div_value^{k+1}``
units) scores its classes. A class :math:`y` of cluster :math:`k` has

.. math:: \\log p(y \\mid x) = \\log p_{head}(k \\mid x) + \\log p_{tail_k}(y - c_{k-1} \\mid x),

and a shortlist class just its head term. Only the rows whose target falls in a cluster
run that cluster's projection.

References
----------
Grave, Joulin, Cissé, Grangier, Jégou, "Efficient softmax approximation for GPUs" (2017).
"""

from __future__ import annotations

from collections import namedtuple

from ...errors import ArgumentError, IndexingError, ShapeError
from ...ops import argmax, cat, index_add, nonzero, where, zeros_like
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """``forward(input, target)`` gives ``(output, loss)``: each row's target
    log-probability and the mean negative log-likelihood; :meth:`log_prob` gives the full
    ``(N, n_classes)`` log-probabilities and :meth:`predict` the most likely class."""

    def __init__(
        self,
        in_features,
        n_classes,
        cutoffs,
        div_value=4.0,
        head_bias=False,
        device=None,
        dtype=None,
    ):
        super().__init__()
        cutoffs = list(cutoffs)
        if not cutoffs:
            raise ArgumentError(
                "AdaptiveLogSoftmaxWithLoss: cutoffs should be a sequence of length larger than 0"
            )
        if (
            cutoffs != sorted(cutoffs)
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > n_classes - 1
        ):
            raise ArgumentError(
                "AdaptiveLogSoftmaxWithLoss: cutoffs should be a sequence of "
                "unique, positive integers sorted in an increasing order, "
                f"where each value is between 1 and n_classes-1; got "
                f"{cutoffs} for n_classes={n_classes}"
            )
        kw = dict(device=device, dtype=dtype)
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = [int(c) for c in cutoffs] + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for k in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (k + 1)))
            size = self.cutoffs[k + 1] - self.cutoffs[k]
            self.tail.append(
                Sequential(
                    Linear(in_features, hidden, bias=False, **kw),
                    Linear(hidden, size, bias=False, **kw),
                )
            )

    def reset_parameters(self):
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def _check(self, input, target):
        if target.ndim == 1:
            if input.ndim != 2 or input.shape[0] != target.shape[0]:
                raise ShapeError(
                    f"AdaptiveLogSoftmaxWithLoss: a 1-D target expects a 2-D "
                    f"input of the same batch size, got input "
                    f"{tuple(input.shape)} and target {tuple(target.shape)}"
                )
        elif target.ndim == 0:
            if input.ndim != 1:
                raise ShapeError(
                    f"AdaptiveLogSoftmaxWithLoss: a 0-D target expects a 1-D "
                    f"input, got input {tuple(input.shape)}"
                )
        else:
            raise ShapeError(
                f"AdaptiveLogSoftmaxWithLoss: 0-D or 1-D target expected "
                f"(multi-target not supported), got {tuple(target.shape)}"
            )

    def forward(self, input, target):
        self._check(input, target)
        batched = target.ndim > 0
        x = input if batched else input.unsqueeze(0)
        t = target if batched else target.unsqueeze(0)
        if t.numel() and (int(t.min()) < 0 or int(t.max()) >= self.n_classes):
            raise IndexingError(
                f"AdaptiveLogSoftmaxWithLoss: target values should be in "
                f"[0, {self.n_classes - 1}], but values in range "
                f"[{int(t.min())}, {int(t.max())}] were found"
            )
        # cluster of each target: 0 for the shortlist, k for [cutoffs[k-1], cutoffs[k])
        cluster = zeros_like(t)
        for c in self.cutoffs[:-1]:
            cluster = cluster + (t >= c).to(t.dtype)
        head_col = where(cluster == 0, t, cluster + (self.shortlist_size - 1))
        head_lp = F.log_softmax(self.head(x), dim=1)
        output = head_lp.gather(1, head_col.unsqueeze(1)).squeeze(1)
        for k in range(1, self.n_clusters + 1):
            rows = nonzero(cluster == k).squeeze(1)
            if not rows.numel():
                continue
            local = t.index_select(0, rows) - self.cutoffs[k - 1]
            tail_lp = F.log_softmax(self.tail[k - 1](x.index_select(0, rows)), dim=1)
            output = index_add(output, 0, rows, tail_lp.gather(1, local.unsqueeze(1)).squeeze(1))
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, x, head_out):
        head_lp = F.log_softmax(head_out, dim=1)
        parts = [head_lp[:, : self.shortlist_size]]
        for k, tail in enumerate(self.tail):
            parts.append(
                F.log_softmax(tail(x), dim=1) + head_lp[:, self.shortlist_size + k].unsqueeze(1)
            )
        return cat(parts, dim=1)

    def log_prob(self, input):
        """The ``(N, n_classes)`` (or ``(n_classes,)``) log-probabilities of every class."""
        x = input if input.ndim == 2 else input.unsqueeze(0)
        out = self._full_log_prob(x, self.head(x))
        return out if input.ndim == 2 else out.squeeze(0)

    def predict(self, input):
        """The most likely class of each row (the full distribution is computed only for
        rows whose head prefers a cluster)."""
        x = input if input.ndim == 2 else input.unsqueeze(0)
        head_out = self.head(x)
        best = argmax(head_out, dim=1)
        far = nonzero(best >= self.shortlist_size).squeeze(1)
        if far.numel():
            full = self._full_log_prob(x.index_select(0, far), head_out.index_select(0, far))
            best = best.index_copy(0, far, argmax(full, dim=1))
        return best if input.ndim == 2 else best.squeeze(0)
