"""MultiheadAttention."""

from __future__ import annotations

from ...errors import ArgumentError
from ...ops import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["MultiheadAttention"]


class MultiheadAttention(Module):
    r"""Multi-head attention :math:`\mathrm{Concat}(\mathrm{head}_1, \dots,
    \mathrm{head}_H) W^O` with :math:`\mathrm{head}_i = \mathrm{Attention}(Q W_i^Q, K W_i^K,
    V W_i^V)`, PyTorch's parameters and initialisation.

    Parameters as PyTorch's, so its ``state_dict`` loads by name: ``in_proj_weight``
    ``(3E, E)`` (or ``q_proj_weight``, ``k_proj_weight`` ``(E, kdim)``, ``v_proj_weight``
    ``(E, vdim)`` when ``kdim``/``vdim`` differ from ``embed_dim``) with
    ``xavier_uniform_``, ``in_proj_bias`` ``(3E,)`` zero, ``out_proj`` a Linear with zero
    bias, and with ``add_bias_kv`` ``bias_k``/``bias_v`` ``(1, 1, E)`` (``xavier_normal_``).
    ``dropout`` applies to the attention weights in training. Inputs are ``(L, N, E)``
    (``(N, L, E)`` with ``batch_first``) or unbatched ``(L, E)``; see
    :func:`lucid.nn.functional.multi_head_attention_forward` for the masks.

    ``num_kv_heads`` (Lucid's; None keeps PyTorch's attention exactly) makes it grouped-query
    attention (Ainslie et al., 2023; 1: multi-query, Shazeer, 2019): keys and values have
    ``num_kv_heads`` heads of ``head_dim``, each shared by ``num_heads / num_kv_heads``
    consecutive query heads, so ``in_proj_weight`` is ``(E + 2 E_kv, E)`` with
    :math:`E_{kv} = \text{num\_kv\_heads} \cdot \text{head\_dim}` (``k_proj_weight``
    ``(E_kv, kdim)``, ``v_proj_weight`` ``(E_kv, vdim)``, ``in_proj_bias`` ``(E + 2 E_kv,)``,
    ``bias_k``/``bias_v`` ``(1, 1, E_kv)``), initialised as the packed matrix is.
    """

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
        *,
        num_kv_heads=None,
    ):
        if embed_dim <= 0 or num_heads <= 0:
            raise ArgumentError(
                f"MultiheadAttention: embed_dim and num_heads must be greater "
                f"than 0, got embed_dim={embed_dim} and num_heads={num_heads}"
            )
        if embed_dim % num_heads:
            raise ArgumentError(
                f"MultiheadAttention: embed_dim ({embed_dim}) must be "
                f"divisible by num_heads ({num_heads})"
            )
        if num_kv_heads is not None and (
            isinstance(num_kv_heads, bool)
            or not isinstance(num_kv_heads, int)
            or num_kv_heads <= 0
            or num_heads % num_kv_heads
        ):
            raise ArgumentError(
                f"{type(self).__name__}: num_kv_heads must be a positive "
                f"divisor of num_heads ({num_heads}), got {num_kv_heads!r}"
            )
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        self.num_kv_heads = num_heads if num_kv_heads is None else num_kv_heads
        kv_dim = self.num_kv_heads * self.head_dim
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty((embed_dim + 2 * kv_dim, embed_dim), **kw))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(empty((kv_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(empty((kv_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(embed_dim + 2 * kv_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, kv_dim), **kw))
            self.bias_v = Parameter(empty((1, 1, kv_dim), **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def __setstate__(self, state):
        """Unpickling: a whole PyTorch ``MultiheadAttention`` (which has no ``num_kv_heads``,
        and in old files no ``_qkv_same_embed_dim``) loads as plain multi-head attention."""
        self.__dict__.update(state)
        self.__dict__.setdefault("num_kv_heads", self.num_heads)
        self.__dict__.setdefault("_qkv_same_embed_dim", True)

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def forward(
        self,
        query,
        key,
        value,
        key_padding_mask=None,
        need_weights=True,
        attn_mask=None,
        average_attn_weights=True,
        is_causal=False,
    ):
        """``(output, weights)``: output shaped like ``query``; weights ``(N, L, S)``
        (``(N, H, L, S)`` without ``average_attn_weights``) or None without
        ``need_weights``. With ``need_weights=False`` no weights are copied out of the
        fused op."""
        batched = query.ndim == 3
        if self.batch_first and batched:  # keep "query is key is value" true
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = query.transpose(1, 0), key.transpose(1, 0)
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        out, weights = F.multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal,
            num_kv_heads=self.num_kv_heads,
        )
        if self.batch_first and batched:
            out = out.transpose(1, 0)
        return out, weights
