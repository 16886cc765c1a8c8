r"""VectorQuantizer: the discrete bottleneck of VQ-VAE (van den Oord et al. 2017)."""

from __future__ import annotations

from ...errors import ArgumentError
from .. import functional as F
from .. import init
from .module import Module
from .sparse import Embedding

__all__ = ["VectorQuantizer"]


class VectorQuantizer(Module):
    r"""Quantise each vector of the last dim of its input to the nearest of
    ``num_embeddings`` learned codes of size ``embedding_dim``.

    ``forward(input)`` with ``input`` (..., embedding_dim) (channels last: permute an
    (N, C, H, W) feature map first) returns ``(quantized, loss, indices)``:

    - ``quantized`` (..., embedding_dim): the nearest codes :math:`e_{k^*}`, with the
      straight-through gradient: the decoder's gradient reaches ``input`` unchanged
      (:func:`~lucid.nn.functional.straight_through`);
    - ``loss`` (0-d): the codebook and commitment terms,

      .. math:: \mathcal L_{VQ} = \overline{\|\operatorname{sg}[z_e] - e\|^2}
                + \beta\,\overline{\|z_e - \operatorname{sg}[e]\|^2}

      each a mean of squares over all elements (``mse_loss``): the first moves the codes
      towards the encoder outputs, the second (weight ``commitment_cost`` :math:`\beta`)
      keeps the encoder committed to its codes;
    - ``indices`` (...) int64: :func:`~lucid.nn.functional.nearest_codebook`.

    The codebook is ``embedding.weight`` (num_embeddings, embedding_dim), an
    :class:`~lucid.nn.Embedding` as in the common PyTorch implementations (so their state
    dicts load by name); it starts :math:`\mathcal U(-1/K, 1/K)`.
    """

    def __init__(
        self, num_embeddings, embedding_dim, commitment_cost=0.25, device=None, dtype=None
    ):
        super().__init__()
        for name, v in (("num_embeddings", num_embeddings), ("embedding_dim", embedding_dim)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ArgumentError(f"VectorQuantizer: {name} must be a positive int, got {v!r}")
        if commitment_cost < 0:
            raise ArgumentError(
                f"VectorQuantizer: commitment_cost must be >= 0, got {commitment_cost}"
            )
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.commitment_cost = commitment_cost
        self.embedding = Embedding(num_embeddings, embedding_dim, device=device, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        k = self.num_embeddings
        init.uniform_(self.embedding.weight, -1.0 / k, 1.0 / k)

    def forward(self, input):
        quantized, indices = F.vector_quantize(input, self.embedding.weight)
        codes = F.embedding(indices, self.embedding.weight)  # the codebook's gradient
        loss = F.mse_loss(codes, input.detach()) + self.commitment_cost * F.mse_loss(
            input, codes.detach()
        )
        return quantized, loss, indices

    def extra_repr(self):
        return (
            f"num_embeddings={self.num_embeddings}, embedding_dim={self.embedding_dim}, "
            f"commitment_cost={self.commitment_cost}"
        )
