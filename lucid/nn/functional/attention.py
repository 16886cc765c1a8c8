"""Attention: ``scaled_dot_product_attention`` (one fused op) and
``multi_head_attention_forward`` (projections around it, as PyTorch's)."""

from __future__ import annotations

import math

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import ArgumentError, ArgumentTypeError, DTypeError, ShapeError
from ...ops.nn import attention as _attn
from ...ops import cat, zeros
from .linear import linear

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def scaled_dot_product_attention(
    query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False
):
    r"""Attention :math:`\mathrm{softmax}(QK^\top s + B)\,V`, one fused op with an analytic
    backward (see :class:`~lucid.ops.nn.attention.ScaledDotProductAttentionBackward`).

    ``query`` ``(..., L, E)``, ``key`` ``(..., S, E)``, ``value`` ``(..., S, Ev)``; batch dims
    broadcast. ``attn_mask``: bool (True: takes part) or a float tensor of ``query``'s dtype
    added to the scores (it gets a gradient), broadcasting to ``(..., L, S)``.
    ``is_causal``: only keys ``j <= i`` (top-left aligned; no ``attn_mask`` with it).
    ``scale`` defaults to :math:`1/\sqrt{E}`. ``dropout_p`` drops attention weights with
    Lucid's generator whenever it is positive (pass 0 in evaluation). ``enable_gqa``: the
    ``H`` query heads (dim -3) share ``H / Hkv`` consecutive heads per key/value head.
    A row whose every key is masked gives 0.
    """
    return _attn.scaled_dot_product_attention(
        query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa
    )


def _mask(m, name, query):
    """A mask as PyTorch's ``_canonical_mask`` accepts it: bool (True: masked out) or a
    float added to the scores, cast to ``query``'s dtype."""
    if m is None:
        return None
    if not isinstance(m, Tensor):
        raise ArgumentTypeError(
            f"multi_head_attention_forward: {name} must be a Tensor or None, got {type(m).__name__}"
        )
    if m.dtype is _dt.bool:
        return m
    if not m.dtype.is_floating_point:
        raise DTypeError(
            f"multi_head_attention_forward: only bool and floating types of "
            f"{name} are supported, got {m.dtype.name}"
        )
    return m if m.dtype is query.dtype else m.to(query.dtype)


def _pad_key(m):
    """A mask with one more key column that is not masked (for ``bias_k``, zero attn)."""
    if m is None:
        return None
    return cat([m, zeros(tuple(m.shape[:-1]) + (1,), dtype=m.dtype, device=m.device)], -1)


def _merge(attn_mask, key_padding_mask, dtype):
    """The one mask sdpa takes: bool (True: takes part) when both masks are bool, else the
    float sum with masked positions at -inf."""
    masks = [m for m in (attn_mask, key_padding_mask) if m is not None]
    if not masks:
        return None
    if all(m.dtype is _dt.bool for m in masks):
        masked = masks[0] if len(masks) == 1 else masks[0] | masks[1]
        return ~masked
    out = None
    for m in masks:
        if m.dtype is _dt.bool:
            m = zeros(tuple(m.shape), dtype=dtype, device=m.device).masked_fill(m, -math.inf)
        out = m if out is None else out + m
    return out


def _heads(x, n, h, d):
    """``(S, N, E)`` -> ``(N, H, S, d)``, a view."""
    return x.reshape(x.shape[0], n, h, d).permute(1, 2, 0, 3)


def multi_head_attention_forward(
    query,
    key,
    value,
    embed_dim_to_check,
    num_heads,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn,
    dropout_p,
    out_proj_weight,
    out_proj_bias,
    training=True,
    key_padding_mask=None,
    need_weights=True,
    attn_mask=None,
    use_separate_proj_weight=False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights=True,
    is_causal=False,
    *,
    num_kv_heads=None,
):
    """Multi-head attention on sequence-first inputs ``(L, N, E)`` (or unbatched ``(L, E)``),
    as PyTorch's: in-projections (one GEMM for self-attention), optional ``bias_k``/``bias_v``
    and zero-attention keys, the fused :func:`scaled_dot_product_attention` over the
    ``(N, H, L, E/H)`` heads, and the out-projection.

    Returns ``(output, weights)``: weights ``(N, L, S)`` averaged over heads (or
    ``(N, H, L, S)`` without ``average_attn_weights``), after dropout, when
    ``need_weights``; else None. ``key_padding_mask`` ``(N, S)`` and ``attn_mask``
    ``(L, S)`` or ``(N*H, L, S)`` are bool (True: masked out) or float (added).
    ``is_causal`` is a hint that ``attn_mask`` is the causal mask: it must be given, and is
    replaced by the fused causal path when no weights or padding mask are asked for.
    A query whose every key is masked gets output 0 and weights 0 (PyTorch's weights path
    gives nan there).

    ``num_kv_heads`` (Lucid's; None: ``num_heads``, PyTorch's attention) gives grouped- or
    multi-query attention: keys and values are projected to ``num_kv_heads * head_dim``
    features (``in_proj_weight`` ``(E + 2 E_kv, E)``, ``k_proj_weight``/``v_proj_weight``
    ``(E_kv, kdim/vdim)``, ``bias_k``/``bias_v`` ``(1, 1, E_kv)``, ``static_k``/``static_v``
    ``(N * num_kv_heads, S, head_dim)``), and each key/value head serves ``num_heads /
    num_kv_heads`` consecutive query heads (sdpa's ``enable_gqa``, no copies).
    """
    op = "multi_head_attention_forward"
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise ArgumentTypeError(f"{op}: {name} must be a Tensor, got {type(t).__name__}")
    batched = query.ndim == 3
    if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
        raise ShapeError(
            f"{op}: query, key and value must all be 3-D (batched) or 2-D "
            f"(unbatched), got shapes {tuple(query.shape)}, "
            f"{tuple(key.shape)} and {tuple(value.shape)}"
        )
    key_padding_mask = _mask(key_padding_mask, "key_padding_mask", query)
    attn_mask = _mask(attn_mask, "attn_mask", query)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise ShapeError(
            f"{op}: was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    if embed_dim % num_heads:
        raise ShapeError(f"{op}: embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if key.shape[:2] != value.shape[:2]:
        raise ShapeError(
            f"{op}: key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}"
        )
    head_dim = embed_dim // num_heads
    kv_heads = num_heads if num_kv_heads is None else num_kv_heads
    if (
        isinstance(kv_heads, bool)
        or not isinstance(kv_heads, int)
        or kv_heads <= 0
        or num_heads % kv_heads
    ):
        raise ArgumentError(
            f"{op}: num_kv_heads must be a positive divisor of num_heads "
            f"({num_heads}), got {num_kv_heads!r}"
        )
    kv_dim = kv_heads * head_dim
    if is_causal and attn_mask is None:
        raise ArgumentError(
            f"{op}: need attn_mask if specifying the is_causal hint; you may "
            "use Transformer.generate_square_subsequent_mask to create it"
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the fused op's causal path replaces the mask
    else:
        is_causal = False
    if key_padding_mask is not None and tuple(key_padding_mask.shape) != (bsz, src_len):
        raise ShapeError(
            f"{op}: expecting key_padding_mask shape of {(bsz, src_len)}, but "
            f"got {tuple(key_padding_mask.shape)}"
        )

    # -- in-projections, then heads (N, H, S, d) --------------------------------------
    parts = [embed_dim, kv_dim, kv_dim]  # the rows of in_proj for q, k and v
    if use_separate_proj_weight:
        bq = bk = bv = None
        if in_proj_bias is not None:
            bq, bk, bv = in_proj_bias.split(parts)
        q, k, v = (
            _heads(linear(x, w, b), bsz, h, head_dim)
            for x, w, b, h in (
                (query, q_proj_weight, bq, num_heads),
                (key, k_proj_weight, bk, kv_heads),
                (value, v_proj_weight, bv, kv_heads),
            )
        )
    elif query is key and key is value and kv_heads != num_heads:  # one GEMM, then split
        q, k, v = linear(query, in_proj_weight, in_proj_bias).split(parts, -1)
        q = _heads(q, bsz, num_heads, head_dim)
        k, v = _heads(k, bsz, kv_heads, head_dim), _heads(v, bsz, kv_heads, head_dim)
    elif query is key and key is value:  # self-attention: one GEMM
        proj = linear(query, in_proj_weight, in_proj_bias)
        proj = proj.reshape(tgt_len, bsz, 3, num_heads, head_dim)
        q, k, v = proj.permute(2, 1, 3, 0, 4).unbind(0)
    else:
        w = in_proj_weight.split(parts)
        b = (None,) * 3 if in_proj_bias is None else in_proj_bias.split(parts)
        q = linear(query, w[0], b[0])
        if key is value:
            k, v = linear(
                key, cat([w[1], w[2]]), None if b[1] is None else cat([b[1], b[2]])
            ).chunk(2, -1)
        else:
            k, v = linear(key, w[1], b[1]), linear(value, w[2], b[2])
        q = _heads(q, bsz, num_heads, head_dim)
        k, v = _heads(k, bsz, kv_heads, head_dim), _heads(v, bsz, kv_heads, head_dim)

    if attn_mask is not None:
        want = (tgt_len, src_len) if attn_mask.ndim == 2 else (bsz * num_heads, tgt_len, src_len)
        if attn_mask.ndim not in (2, 3) or tuple(attn_mask.shape) != want:
            raise ShapeError(
                f"{op}: the shape of the {attn_mask.ndim}D attn_mask is "
                f"{tuple(attn_mask.shape)}, but should be {want}"
            )
        attn_mask = attn_mask.reshape(
            (1, 1) + want if len(want) == 2 else (bsz, num_heads, tgt_len, src_len)
        )
    if key_padding_mask is not None:
        key_padding_mask = key_padding_mask.reshape(bsz, 1, 1, src_len)
    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise ArgumentError(f"{op}: bias cannot be added to static key or value")
        k = cat([k, bias_k.reshape(1, kv_heads, 1, head_dim).expand(bsz, -1, -1, -1)], 2)
        v = cat([v, bias_v.reshape(1, kv_heads, 1, head_dim).expand(bsz, -1, -1, -1)], 2)
        attn_mask, key_padding_mask = _pad_key(attn_mask), _pad_key(key_padding_mask)
    elif (bias_k is None) != (bias_v is None):
        raise ArgumentError(f"{op}: bias_k and bias_v must both be given or both be None")
    for name, st in (("static_k", static_k), ("static_v", static_v)):
        if st is not None and (
            st.ndim != 3 or st.shape[0] != bsz * kv_heads or st.shape[2] != head_dim
        ):
            raise ShapeError(
                f"{op}: expecting {name} of shape ({bsz * kv_heads}, S, "
                f"{head_dim}), got {tuple(st.shape)}"
            )
    if static_k is not None:
        k = static_k.reshape(bsz, kv_heads, static_k.shape[1], head_dim)
    if static_v is not None:
        v = static_v.reshape(bsz, kv_heads, static_v.shape[1], head_dim)
    if add_zero_attn:
        z = zeros((bsz, kv_heads, 1, head_dim), dtype=k.dtype, device=k.device)
        k, v = cat([k, z], 2), cat([v, z], 2)
        attn_mask, key_padding_mask = _pad_key(attn_mask), _pad_key(key_padding_mask)

    mask = _merge(attn_mask, key_padding_mask, query.dtype)
    p = dropout_p if training else 0.0
    res = _attn.scaled_dot_product_attention(
        q, k, v, mask, p, is_causal, enable_gqa=kv_heads != num_heads, need_weights=need_weights
    )
    out, weights = res if need_weights else (res, None)
    out = out.permute(2, 0, 1, 3).reshape(tgt_len, bsz, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    if weights is not None and average_attn_weights:
        weights = weights.mean(1)
    if not batched:
        out = out.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return out, weights
