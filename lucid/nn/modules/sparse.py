"""Embedding, EmbeddingBag."""

from __future__ import annotations

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...errors import ArgumentError, ShapeError
from ...ops import empty
from .. import functional as F
from .. import init
from ..functional.sparse import _padding_idx
from ..parameter import Parameter
from .module import Module

__all__ = ["Embedding", "EmbeddingBag"]


def _make_weight(cls, num_embeddings, embedding_dim, _weight, _freeze, device, dtype):
    if _weight is None:
        return Parameter(
            empty((num_embeddings, embedding_dim), device=device, dtype=dtype),
            requires_grad=not _freeze,
        ), True
    if not isinstance(_weight, Tensor) or tuple(_weight.shape) != (num_embeddings, embedding_dim):
        got = list(_weight.shape) if isinstance(_weight, Tensor) else type(_weight).__name__
        raise ShapeError(
            f"{cls}: shape of weight does not match num_embeddings and "
            f"embedding_dim: expected {[num_embeddings, embedding_dim]}, got {got}"
        )
    return Parameter(_weight, requires_grad=not _freeze), False


def _pretrained_shape(cls, embeddings):
    if not isinstance(embeddings, Tensor) or embeddings.dim() != 2:
        raise ShapeError(
            f"{cls.__name__}.from_pretrained: embeddings parameter is expected to be 2-dimensional"
        )
    return tuple(embeddings.shape)


class Embedding(Module):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``; ``weight``
    starts :math:`\\mathcal N(0, 1)` with the ``padding_idx`` row zero (it gets no
    gradient)."""

    def __init__(
        self,
        num_embeddings,
        embedding_dim,
        padding_idx=None,
        max_norm=None,
        norm_type=2.0,
        scale_grad_by_freq=False,
        sparse=False,
        _weight=None,
        _freeze=False,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _padding_idx(padding_idx, num_embeddings, "Embedding")
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if sparse:
            raise ArgumentError("Embedding: sparse=True (sparse gradients) is not supported")
        self.sparse = sparse
        self.weight, fresh = _make_weight(
            "Embedding", num_embeddings, embedding_dim, _weight, _freeze, device, dtype
        )
        if fresh:
            self.reset_parameters()

    def reset_parameters(self):
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(
            input,
            self.weight,
            self.padding_idx,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.sparse,
        )

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        return s

    @classmethod
    def from_pretrained(
        cls,
        embeddings,
        freeze=True,
        padding_idx=None,
        max_norm=None,
        norm_type=2.0,
        scale_grad_by_freq=False,
        sparse=False,
    ):
        """An Embedding whose weight is ``embeddings`` (shared, not copied); ``freeze``
        turns its gradient off."""
        rows, cols = _pretrained_shape(cls, embeddings)
        return cls(
            rows,
            cols,
            padding_idx=padding_idx,
            max_norm=max_norm,
            norm_type=norm_type,
            scale_grad_by_freq=scale_grad_by_freq,
            sparse=sparse,
            _weight=embeddings,
            _freeze=freeze,
        )


class EmbeddingBag(Module):
    """Sums, means or maxima of bags of embeddings (see :func:`F.embedding_bag`);
    ``weight`` starts :math:`\\mathcal N(0, 1)` with the ``padding_idx`` row zero."""

    def __init__(
        self,
        num_embeddings,
        embedding_dim,
        max_norm=None,
        norm_type=2.0,
        scale_grad_by_freq=False,
        mode="mean",
        sparse=False,
        _weight=None,
        include_last_offset=False,
        padding_idx=None,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = _padding_idx(padding_idx, num_embeddings, "EmbeddingBag")
        if sparse:
            raise ArgumentError("EmbeddingBag: sparse=True (sparse gradients) is not supported")
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset
        self.weight, fresh = _make_weight(
            "EmbeddingBag", num_embeddings, embedding_dim, _weight, False, device, dtype
        )
        if fresh:
            self.reset_parameters()

    reset_parameters = Embedding.reset_parameters
    _fill_padding_idx_with_zero = Embedding._fill_padding_idx_with_zero

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(
            input,
            self.weight,
            offsets,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.mode,
            self.sparse,
            per_sample_weights,
            self.include_last_offset,
            self.padding_idx,
        )

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(
        cls,
        embeddings,
        freeze=True,
        max_norm=None,
        norm_type=2.0,
        scale_grad_by_freq=False,
        mode="mean",
        sparse=False,
        include_last_offset=False,
        padding_idx=None,
    ):
        """An EmbeddingBag whose weight is ``embeddings`` (shared); ``freeze`` turns its
        gradient off."""
        rows, cols = _pretrained_shape(cls, embeddings)
        bag = cls(
            rows,
            cols,
            max_norm=max_norm,
            norm_type=norm_type,
            scale_grad_by_freq=scale_grad_by_freq,
            mode=mode,
            sparse=sparse,
            _weight=embeddings,
            include_last_offset=include_last_offset,
            padding_idx=padding_idx,
        )
        bag.weight.requires_grad_(not freeze)
        return bag
