r"""Vector quantisation (VQ-VAE, van den Oord et al. 2017): the nearest code of a
codebook, the quantised vectors, and the straight-through estimator that carries the
decoder's gradient past the quantiser to the encoder."""

from __future__ import annotations

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...errors import ArgumentTypeError, DTypeError, ShapeError, reports_as
from ...ops import argmin, matmul
from ...ops.nn.straight_through import StraightThroughBackward
from .sparse import embedding

__all__ = ["nearest_codebook", "vector_quantize", "straight_through"]


def _check(op, x, codebook):
    for name, t in (("input", x), ("codebook", codebook)):
        if not isinstance(t, Tensor):
            raise ArgumentTypeError(
                f"{op}: argument '{name}' must be a Tensor, got {type(t).__name__}"
            )
    if codebook.ndim != 2 or codebook.shape[0] == 0:
        raise ShapeError(
            f"{op}: codebook must be 2-D (num_embeddings, embedding_dim) with "
            f"at least one code, got shape {tuple(codebook.shape)}"
        )
    if x.ndim == 0 or x.shape[-1] != codebook.shape[1]:
        raise ShapeError(
            f"{op}: input of shape {tuple(x.shape)} does not match codebook "
            f"of shape {tuple(codebook.shape)} (expected last dim "
            f"{codebook.shape[1]})"
        )
    if not x.dtype.is_floating_point or x.dtype is not codebook.dtype:
        raise DTypeError(
            f"{op}: input ({x.dtype.name}) and codebook "
            f"({codebook.dtype.name}) must be floating tensors of one dtype"
        )


@reports_as("nearest_codebook")
def nearest_codebook(input, codebook):
    r"""The index of the code nearest to each vector: ``input`` (..., D), ``codebook``
    (K, D) -> int64 indices (...),

    .. math:: k^*(x) = \arg\min_k \|x - e_k\|_2^2 = \arg\min_k \big(\|e_k\|^2 - 2\,x\cdot e_k\big)

    (:math:`\|x\|^2` is the same for every code and dropped): one GEMM with the codebook
    and an ``argmin``, never a (..., K, D) difference tensor. Ties go to the lowest index.
    Not differentiable (integer result); computed without recording a graph. The expanded
    form loses relative precision where a vector is much farther from the origin than
    from its codes (as ``torch.cdist``'s matmul path does).
    """
    _check("nearest_codebook", input, codebook)
    with no_grad():
        flat = input.reshape(-1, codebook.shape[1])
        scores = (codebook * codebook).sum(-1) - 2 * matmul(flat, codebook.T)
        return argmin(scores, -1).reshape(input.shape[:-1])


@reports_as("vector_quantize")
def vector_quantize(input, codebook):
    r"""Quantise each vector of ``input`` (..., D) to its nearest code of ``codebook``
    (K, D), straight-through: ``(quantized, indices)``, :math:`z_q = e_{k^*(x)}` (..., D)
    in value with the gradient of ``input`` (the identity), and the indices (...) of
    :func:`nearest_codebook` (Lucid³'s contract).

    ``quantized`` passes **no** gradient to the codebook: the straight-through path goes
    around it. Training the codebook needs the term :math:`\|\operatorname{sg}[x] -
    e\|^2` on the codes themselves (``embedding(indices, codebook)``), which
    :class:`~lucid.nn.VectorQuantizer` adds with the commitment term.
    """
    indices = nearest_codebook(input, codebook)
    return straight_through(embedding(indices, codebook.detach()), input), indices


@reports_as("straight_through")
def straight_through(hard, soft):
    r"""The straight-through estimator: the value of ``hard``, the gradient of ``soft``
    (Lucid³'s order: ``straight_through(hard, soft)``),

    .. math:: z = s + \operatorname{sg}[h - s], \qquad z = h, \qquad
              \frac{\partial z}{\partial s} = I, \qquad \frac{\partial z}{\partial h} = 0

    (``sg`` stop-gradient), broadcasting the two against each other. One node
    (:class:`~lucid.ops.nn.straight_through.StraightThroughBackward`) whose value is ``hard``
    exactly (the composed ``soft + (hard - soft).detach()`` rounds).
    """
    return StraightThroughBackward.call(hard, soft)
