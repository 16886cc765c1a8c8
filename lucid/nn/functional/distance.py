"""Distances: cosine_similarity, pairwise_distance, normalize, pdist."""

from __future__ import annotations

from ...errors import ArgumentError, DTypeError, ShapeError, reports_as
from ...ops import broadcast_tensors, cdist, triu_indices

__all__ = ["cosine_similarity", "pairwise_distance", "normalize", "pdist"]


@reports_as("normalize")
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """:math:`v / \\max(\\lVert v \\rVert_p, \\epsilon)` along ``dim``; with ``out`` the
    result is written into it."""
    res = input / input.norm(p, dim, keepdim=True).clamp_min(eps)
    if out is None:
        return res
    out.copy_(res)
    return out


@reports_as("cosine_similarity")
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """:math:`\\sum \\frac{x_1}{\\max(\\lVert x_1 \\rVert_2, \\epsilon)}
    \\frac{x_2}{\\max(\\lVert x_2 \\rVert_2, \\epsilon)}` along ``dim``, the inputs
    broadcast (PyTorch's formula: each input scaled by its own clamped norm)."""
    x1, x2 = broadcast_tensors(x1, x2)
    if x1.dtype.is_complex or x2.dtype.is_complex:
        raise DTypeError(
            f"cosine_similarity: expected floating point inputs, got "
            f"{x1.dtype.name} and {x2.dtype.name} (as PyTorch: no complex)"
        )
    n1 = x1.norm(2, dim, keepdim=True).clamp_min(eps)
    n2 = x2.norm(2, dim, keepdim=True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


@reports_as("pairwise_distance")
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """:math:`\\lVert x_1 - x_2 + \\epsilon \\rVert_p` over the last dim (inputs
    broadcast)."""
    if x1.ndim == 0 or x2.ndim == 0:
        raise ShapeError(
            f"pairwise_distance: inputs must have at least 1 dimension, got "
            f"shapes {tuple(x1.shape)} and {tuple(x2.shape)}"
        )
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


@reports_as("pdist")
def pdist(input, p=2.0):
    """The ``p``-norm distances between every pair of rows ``i < j`` of the 2-D ``input``
    (N, M), as a vector of :math:`N(N-1)/2` in row-major order of the upper triangle."""
    if input.ndim != 2:
        raise ShapeError(f"pdist: only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise ArgumentError(f"pdist: only supports non-negative p values, got {p}")
    n = input.shape[0]
    i, j = triu_indices(n, n, 1, device=input.device)
    return cdist(input, input, p)[i, j] if n > 1 else input.new_zeros((0,))
