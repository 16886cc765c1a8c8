"""Grouped-query attention helpers: ``repeat_kv`` (LLaMA's), which lays out what
:func:`scaled_dot_product_attention`'s ``enable_gqa`` computes without copying."""

from __future__ import annotations

from ..._tensor import Tensor
from ...errors import ArgumentError, ArgumentTypeError, ShapeError

__all__ = ["repeat_kv"]


def repeat_kv(x, n_rep):
    r"""Each key/value head repeated ``n_rep`` times consecutively along the heads dim:
    ``(B, H_kv, S, D) -> (B, H_kv * n_rep, S, D)`` (any leading dims; heads at dim -3),

    .. math:: y_{b,\,h n + r,\,s,\,d} = x_{b,h,s,d}, \quad 0 \le r < n, \qquad
              \frac{\partial \mathcal{L}}{\partial x_{b,h,s,d}} =
              \sum_{r} g_{b,\,h n + r,\,s,\,d},

    so query head :math:`j` meets key/value head :math:`\lfloor j / n \rfloor`, as in
    LLaMA and sdpa's ``enable_gqa``. An expand (a view) and one copy; ``n_rep == 1``
    returns ``x`` itself.
    """
    op = "repeat_kv"
    if not isinstance(x, Tensor):
        raise ArgumentTypeError(f"{op}: x must be a Tensor, got {type(x).__name__}")
    if isinstance(n_rep, bool) or not isinstance(n_rep, int) or n_rep <= 0:
        raise ArgumentError(f"{op}: n_rep must be a positive int, got {n_rep!r}")
    if x.ndim < 3:
        raise ShapeError(f"{op}: x must be (..., H_kv, S, D), got shape {tuple(x.shape)}")
    if n_rep == 1:
        return x
    lead, (h, s, d) = tuple(x.shape[:-3]), tuple(x.shape[-3:])
    return x.unsqueeze(-3).expand(lead + (h, n_rep, s, d)).reshape(lead + (h * n_rep, s, d))
