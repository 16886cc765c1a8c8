"""Grouped- and multi-query attention: :class:`MultiheadAttention` with fewer key/value
heads than query heads."""

from __future__ import annotations

from .attention import MultiheadAttention

__all__ = ["GroupedQueryAttention", "MultiQueryAttention"]


class GroupedQueryAttention(MultiheadAttention):
    r"""Grouped-query attention (Ainslie et al., 2023): ``num_heads`` query heads share
    ``num_kv_heads`` key/value heads, each key/value head serving ``num_heads /
    num_kv_heads`` consecutive query heads,

    .. math:: \mathrm{head}_j = \mathrm{Attention}(Q W^Q_j,\; K W^K_{\lfloor j/g \rfloor},
              \; V W^V_{\lfloor j/g \rfloor}), \qquad g = H / H_{kv},

    which shrinks the key/value projections (and a decoder's KV cache) by :math:`g`.
    :class:`MultiheadAttention` with ``num_kv_heads`` (its parameters, masks, ``forward``
    and return values); ``num_kv_heads == num_heads`` is standard multi-head attention.
    """

    def __init__(
        self,
        embed_dim,
        num_heads,
        num_kv_heads,
        dropout=0.0,
        bias=True,
        add_bias_kv=False,
        add_zero_attn=False,
        kdim=None,
        vdim=None,
        batch_first=False,
        device=None,
        dtype=None,
    ):
        super().__init__(
            embed_dim,
            num_heads,
            dropout=dropout,
            bias=bias,
            add_bias_kv=add_bias_kv,
            add_zero_attn=add_zero_attn,
            kdim=kdim,
            vdim=vdim,
            batch_first=batch_first,
            device=device,
            dtype=dtype,
            num_kv_heads=num_kv_heads,
        )


class MultiQueryAttention(GroupedQueryAttention):
    r"""Multi-query attention (Shazeer, 2019): every query head shares one key/value head,
    :class:`GroupedQueryAttention` with ``num_kv_heads=1``."""

    def __init__(
        self,
        embed_dim,
        num_heads,
        dropout=0.0,
        bias=True,
        add_bias_kv=False,
        add_zero_attn=False,
        kdim=None,
        vdim=None,
        batch_first=False,
        device=None,
        dtype=None,
    ):
        super().__init__(
            embed_dim,
            num_heads,
            1,
            dropout=dropout,
            bias=bias,
            add_bias_kv=add_bias_kv,
            add_zero_attn=add_zero_attn,
            kdim=kdim,
            vdim=vdim,
            batch_first=batch_first,
            device=device,
            dtype=dtype,
        )
