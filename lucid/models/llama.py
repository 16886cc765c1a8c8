r"""A LLaMA-style decoder (Touvron et al., 2023, "LLaMA: Open and Efficient Foundation
Language Models"): pre-norm blocks with RMSNorm, rotary position embeddings, grouped-query
attention (Ainslie et al., 2023) and a SwiGLU MLP (Shazeer, 2020), no biases.

.. math:: h' = h + W_o\,\mathrm{Attn}(R_t W_q x,\ R_t W_k x,\ W_v x), \quad x =
          \mathrm{RMSNorm}(h); \qquad
          h_{out} = h' + W_{down}\big(\mathrm{SiLU}(W_{gate} y) \odot W_{up} y\big), \quad
          y = \mathrm{RMSNorm}(h')

:math:`R_t` rotates each pair :math:`(x_i, x_{i + d/2})` of a head by the angle
:math:`t\,\theta^{-2i/d}` (the half-split layout of Hugging Face's checkpoints). Module
names follow Hugging Face's ``LlamaForCausalLM`` (``model.layers.0.self_attn.q_proj``, ...)
and its ``nn.Linear`` layout is Lucid's, so its checkpoints load as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .. import arange, cat, float32, nn, no_grad, outer
from ..errors import ArgumentError
from ..nn import functional as F
from .checkpoint import read_hf_checkpoint
from .config import ModelConfig
from .generation import GenerationMixin, attend, positions
from .registry import register_model

__all__ = ["LlamaConfig", "LlamaModel", "LlamaForCausalLM", "from_pretrained"]


@dataclass
class LlamaConfig(ModelConfig):
    """The hyperparameters, under Hugging Face's ``config.json`` names."""

    vocab_size: int = 32000
    hidden_size: int = 4096
    intermediate_size: int = 11008
    num_hidden_layers: int = 32
    num_attention_heads: int = 32
    num_key_value_heads: Optional[int] = None  # None: as many as the query heads
    head_dim: Optional[int] = None  # None: hidden_size / num_attention_heads
    max_position_embeddings: int = 2048
    rms_norm_eps: float = 1e-6
    rope_theta: float = 10000.0
    tie_word_embeddings: bool = False
    attention_dropout: float = 0.0
    initializer_range: float = 0.02

    def __post_init__(self):
        self.num_key_value_heads = self.num_key_value_heads or self.num_attention_heads
        self.head_dim = self.head_dim or self.hidden_size // self.num_attention_heads
        if self.num_attention_heads % self.num_key_value_heads:
            raise ArgumentError(
                f"Llama: num_attention_heads {self.num_attention_heads} is not a multiple of "
                f"num_key_value_heads {self.num_key_value_heads}"
            )

    def derived(self):
        return {
            "num_key_value_heads": self.num_key_value_heads == self.num_attention_heads,
            "head_dim": self.head_dim == self.hidden_size // self.num_attention_heads,
        }

    @classmethod
    def from_dict(cls, d):
        """The configuration from a ``config.json`` dict (newer files keep the rotary base
        in ``rope_parameters``; other keys ignored)."""
        kw = cls.known(d)
        rope = d.get("rope_parameters") or {}
        if "rope_theta" in rope:
            kw["rope_theta"] = rope["rope_theta"]
        return cls(**kw)


def _rotate(x, cos, sin):
    """:math:`R_t x`: ``x (B, H, T, d)`` with ``cos``/``sin`` ``(T, d)`` (each angle twice,
    once per half)."""
    half = x.shape[-1] // 2
    rotated = cat([-x[..., half:], x[..., :half]], -1)
    return x * cos + rotated * sin


class LlamaAttention(nn.Module):
    def __init__(self, cfg, layer):
        super().__init__()
        d, hd = cfg.hidden_size, cfg.head_dim
        self.heads, self.kv_heads, self.hd, self.layer = (
            cfg.num_attention_heads,
            cfg.num_key_value_heads,
            hd,
            layer,
        )
        self.p = cfg.attention_dropout
        self.q_proj = nn.Linear(d, self.heads * hd, bias=False)
        self.k_proj = nn.Linear(d, self.kv_heads * hd, bias=False)
        self.v_proj = nn.Linear(d, self.kv_heads * hd, bias=False)
        self.o_proj = nn.Linear(self.heads * hd, d, bias=False)

    def forward(self, x, cos, sin, cache=None):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.heads, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.kv_heads, self.hd).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.kv_heads, self.hd).transpose(1, 2)
        q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
        if cache is not None:
            k, v = cache.update(self.layer, k, v)
        p = self.p if self.training else 0.0
        y = attend(cache, q, k, v, p, enable_gqa=self.kv_heads != self.heads)
        return self.o_proj(y.transpose(1, 2).reshape(B, T, self.heads * self.hd))


class LlamaMLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d, m = cfg.hidden_size, cfg.intermediate_size
        self.gate_proj = nn.Linear(d, m, bias=False)
        self.up_proj = nn.Linear(d, m, bias=False)
        self.down_proj = nn.Linear(m, d, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaDecoderLayer(nn.Module):
    def __init__(self, cfg, layer):
        super().__init__()
        self.input_layernorm = nn.RMSNorm(cfg.hidden_size, eps=cfg.rms_norm_eps)
        self.self_attn = LlamaAttention(cfg, layer)
        self.post_attention_layernorm = nn.RMSNorm(cfg.hidden_size, eps=cfg.rms_norm_eps)
        self.mlp = LlamaMLP(cfg)

    def forward(self, x, cos, sin, cache=None):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, cache)
        return x + self.mlp(self.post_attention_layernorm(x))


class LlamaModel(nn.Module):
    """The embedding, the decoder layers and the final norm: hidden states ``(B, T, d)``."""

    def __init__(self, cfg):
        super().__init__()
        self.config = cfg
        self.embed_tokens = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
        self.layers = nn.ModuleList(LlamaDecoderLayer(cfg, i) for i in range(cfg.num_hidden_layers))
        self.norm = nn.RMSNorm(cfg.hidden_size, eps=cfg.rms_norm_eps)

    def rotary(self, positions):
        """``(cos, sin)`` of the angles :math:`t\\,\\theta^{-2i/d}`, ``(T, d)``, for the
        ``(T,)`` integer ``positions`` :math:`t` (float32, as Hugging Face's)."""
        hd = self.config.head_dim
        inv = 1.0 / self.config.rope_theta ** (
            arange(0, hd, 2, dtype=float32, device=positions.device) / hd
        )
        angles = outer(positions.to(float32), inv)
        angles = cat([angles, angles], -1)
        return angles.cos(), angles.sin()

    def forward(self, input_ids, cache=None):
        x = self.embed_tokens(input_ids)
        cos, sin = self.rotary(positions(cache, input_ids.shape[-1], x.device))
        cos, sin = cos.to(x.dtype), sin.to(x.dtype)
        for layer in self.layers:
            x = layer(x, cos, sin, cache)
        return self.norm(x)


class LlamaForCausalLM(GenerationMixin, nn.Module):
    """The decoder with its language-model head: logits ``(B, T, vocab)``."""

    def __init__(self, cfg=None, **overrides):
        super().__init__()
        cfg = (cfg or LlamaConfig()).updated("Llama", overrides)
        self.config = cfg
        self.model = LlamaModel(cfg)
        self.lm_head = nn.Linear(cfg.hidden_size, cfg.vocab_size, bias=False)
        if cfg.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight
        with no_grad():  # normal(0, initializer_range) matrices; the norms stay at one
            for name, p in self.named_parameters():
                if not name.endswith("layernorm.weight") and name != "model.norm.weight":
                    p.normal_(0.0, cfg.initializer_range)

    def forward(self, input_ids, cache=None):
        return self.lm_head(self.model(input_ids, cache))


def from_pretrained(path, device="cpu"):
    """A :class:`LlamaForCausalLM` from a Hugging Face checkpoint directory
    (``config.json`` and ``model.safetensors`` or ``pytorch_model.bin``)."""
    config, sd = read_hf_checkpoint(path, "llama.from_pretrained")
    cfg = LlamaConfig.from_dict(config)
    if cfg.tie_word_embeddings:
        sd.setdefault("lm_head.weight", sd["model.embed_tokens.weight"])
    model = LlamaForCausalLM(cfg)
    model.load_state_dict(sd)
    return model.to(device)


@register_model(
    "smollm-135m",
    "text-generation",
    134_515_008,
    "Touvron et al. 2023, LLaMA; the configuration of Hugging Face's SmolLM-135M",
)
def smollm_135m(**cfg):
    return LlamaForCausalLM(
        LlamaConfig(
            vocab_size=49152,
            hidden_size=576,
            intermediate_size=1536,
            num_hidden_layers=30,
            num_attention_heads=9,
            num_key_value_heads=3,
            max_position_embeddings=2048,
            rms_norm_eps=1e-5,
            tie_word_embeddings=True,
        ),
        **cfg,
    )
