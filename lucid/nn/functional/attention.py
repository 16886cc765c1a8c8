"""Attention: ``scaled_dot_product_attention`` (one fused op)."""

from ...ops import attention as _attn

__all__ = ["scaled_dot_product_attention"]


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    r"""Attention :math:`\mathrm{softmax}(QK^\top s + B)\,V`, one fused op with an analytic
    backward (see :class:`~lucid.ops.attention.ScaledDotProductAttentionBackward`).

    ``query`` ``(..., L, E)``, ``key`` ``(..., S, E)``, ``value`` ``(..., S, Ev)``; batch dims
    broadcast. ``attn_mask``: bool (True: takes part) or a float tensor of ``query``'s dtype
    added to the scores (it gets a gradient), broadcasting to ``(..., L, S)``.
    ``is_causal``: only keys ``j <= i`` (top-left aligned; no ``attn_mask`` with it).
    ``scale`` defaults to :math:`1/\sqrt{E}`. ``dropout_p`` drops attention weights with
    Lucid's generator whenever it is positive (pass 0 in evaluation). ``enable_gqa``: the
    ``H`` query heads (dim -3) share ``H / Hkv`` consecutive heads per key/value head.
    A row whose every key is masked gives 0.
    """
    return _attn.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p,
                                              is_causal, scale, enable_gqa)
