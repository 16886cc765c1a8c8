r"""GPT-2 (Radford et al., 2019, "Language Models are Unsupervised Multitask Learners"):
a decoder-only transformer of pre-norm blocks, learned positions, GELU (tanh form) and a
language-model head tied to the token embedding.

.. math:: h_0 = W_{te}[x] + W_{pe}[t], \quad
          h_{l+1} = h'_l + \mathrm{MLP}(\mathrm{LN}_2(h'_l)), \quad
          h'_l = h_l + \mathrm{Attn}(\mathrm{LN}_1(h_l)), \quad
          \mathrm{logits} = \mathrm{LN}_f(h_L)\,W_{te}^\top

Module names follow Hugging Face's ``GPT2LMHeadModel`` (``transformer.h.0.attn.c_attn``,
...), so its checkpoints load by name; its ``Conv1D`` layers keep their weights as ``(in,
out)`` where Lucid's :class:`~lucid.nn.Linear` keeps ``(out, in)``, and
:func:`convert_hf_state_dict` transposes them. Generation with a key/value cache:
:mod:`.generation`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from .. import nn, no_grad
from ..errors import ArgumentError
from ..nn import functional as F
from .checkpoint import read_hf_checkpoint
from .config import ModelConfig
from .generation import GenerationMixin, KVCache, attend, positions
from .registry import register_model

__all__ = [
    "GPT2Config",
    "KVCache",
    "GPT2Model",
    "GPT2LMHeadModel",
    "convert_hf_state_dict",
    "from_pretrained",
]


@dataclass
class GPT2Config(ModelConfig):
    """The hyperparameters, under Hugging Face's ``config.json`` names."""

    vocab_size: int = 50257
    n_positions: int = 1024
    n_embd: int = 768
    n_layer: int = 12
    n_head: int = 12
    n_inner: Optional[int] = None  # the MLP's width; None: 4 n_embd
    layer_norm_epsilon: float = 1e-5
    embd_pdrop: float = 0.1
    resid_pdrop: float = 0.1
    attn_pdrop: float = 0.1
    initializer_range: float = 0.02


class GPT2Attention(nn.Module):
    """Causal multi-head self-attention (with a cache: the cache's, :func:`.generation.attend`)."""

    def __init__(self, cfg, layer):
        super().__init__()
        d = cfg.n_embd
        if d % cfg.n_head:
            raise ArgumentError(f"GPT2: n_embd {d} is not a multiple of n_head {cfg.n_head}")
        self.n_head, self.layer, self.p = cfg.n_head, layer, cfg.attn_pdrop
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.resid_dropout = nn.Dropout(cfg.resid_pdrop)

    def forward(self, x, cache=None):
        B, T, C = x.shape
        q, k, v = (
            t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            for t in self.c_attn(x).split(C, dim=2)
        )
        if cache is not None:
            k, v = cache.update(self.layer, k, v)
        y = attend(cache, q, k, v, self.p if self.training else 0.0)
        return self.resid_dropout(self.c_proj(y.transpose(1, 2).reshape(B, T, C)))


class GPT2MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        inner = cfg.n_inner or 4 * cfg.n_embd
        self.c_fc = nn.Linear(cfg.n_embd, inner)
        self.c_proj = nn.Linear(inner, cfg.n_embd)
        self.dropout = nn.Dropout(cfg.resid_pdrop)

    def forward(self, x):
        return self.dropout(self.c_proj(F.gelu(self.c_fc(x), approximate="tanh")))


class GPT2Block(nn.Module):
    def __init__(self, cfg, layer):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.n_embd, eps=cfg.layer_norm_epsilon)
        self.attn = GPT2Attention(cfg, layer)
        self.ln_2 = nn.LayerNorm(cfg.n_embd, eps=cfg.layer_norm_epsilon)
        self.mlp = GPT2MLP(cfg)

    def forward(self, x, cache=None):
        x = x + self.attn(self.ln_1(x), cache)
        return x + self.mlp(self.ln_2(x))


class GPT2Model(nn.Module):
    """The embeddings, the blocks and the final layer norm: hidden states ``(B, T, d)``."""

    def __init__(self, cfg):
        super().__init__()
        self.config = cfg
        self.wte = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.wpe = nn.Embedding(cfg.n_positions, cfg.n_embd)
        self.drop = nn.Dropout(cfg.embd_pdrop)
        self.h = nn.ModuleList(GPT2Block(cfg, i) for i in range(cfg.n_layer))
        self.ln_f = nn.LayerNorm(cfg.n_embd, eps=cfg.layer_norm_epsilon)

    def forward(self, input_ids, cache=None):
        T = input_ids.shape[-1]
        reach = T if cache is None else cache.extent(T)
        if reach > self.config.n_positions:
            raise ArgumentError(
                f"GPT2: {reach} positions (with the cache's, {T} new) exceed n_positions "
                f"{self.config.n_positions}"
            )
        x = self.drop(self.wte(input_ids) + self.wpe(positions(cache, T, input_ids.device)))
        for block in self.h:
            x = block(x, cache)
        return self.ln_f(x)


class GPT2LMHeadModel(GenerationMixin, nn.Module):
    """GPT-2 with its language-model head (the token embedding, transposed): logits
    ``(B, T, vocab)``."""

    def __init__(self, cfg=None, **overrides):
        super().__init__()
        cfg = (cfg or GPT2Config()).updated("GPT2", overrides)
        self.config = cfg
        self.transformer = GPT2Model(cfg)
        self.lm_head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)
        self.lm_head.weight = self.transformer.wte.weight
        self._init_weights()

    def _init_weights(self):
        """GPT-2's: normal(0, 0.02) matrices and embeddings, zero biases, unit norms, and
        each residual branch's output projection scaled by :math:`1/\\sqrt{2 L}`."""
        std = self.config.initializer_range
        with no_grad():
            for name, p in self.named_parameters():
                if name.endswith("bias"):
                    p.zero_()
                elif ".ln_" in name or name.startswith("transformer.ln_f"):
                    p.fill_(1.0)
                elif name.endswith("c_proj.weight"):
                    p.normal_(0.0, std / math.sqrt(2 * self.config.n_layer))
                else:
                    p.normal_(0.0, std)

    def forward(self, input_ids, cache=None):
        return self.lm_head(self.transformer(input_ids, cache))


_CONV1D = (".attn.c_attn.weight", ".attn.c_proj.weight", ".mlp.c_fc.weight", ".mlp.c_proj.weight")


def convert_hf_state_dict(sd):
    """A Hugging Face GPT-2 state dict (``GPT2LMHeadModel``'s or ``GPT2Model``'s keys, as
    a ``model.safetensors`` or ``pytorch_model.bin`` holds them) as
    :class:`GPT2LMHeadModel`'s: ``transformer.`` in front of the body's keys, the
    ``Conv1D`` weights transposed, the causal-mask buffers of old checkpoints dropped,
    and the head tied to the embedding where the file omits it."""
    out = {}
    for k, v in sd.items():
        if k.endswith((".attn.bias", ".attn.masked_bias")):
            continue
        if not k.startswith(("transformer.", "lm_head.")):
            k = "transformer." + k
        out[k] = v.t().contiguous() if k.endswith(_CONV1D) else v
    out.setdefault("lm_head.weight", out["transformer.wte.weight"])
    return out


def from_pretrained(path, device="cpu"):
    """A :class:`GPT2LMHeadModel` from a Hugging Face checkpoint directory (``config.json``
    and ``model.safetensors`` or ``pytorch_model.bin``)."""
    config, sd = read_hf_checkpoint(path, "gpt2.from_pretrained")
    cfg = GPT2Config.from_dict(config)
    model = GPT2LMHeadModel(cfg)
    model.load_state_dict(convert_hf_state_dict(sd))
    return model.to(device)


_PAPER = "Radford et al. 2019, Language Models are Unsupervised Multitask Learners"


@register_model("gpt2", "text-generation", 124_439_808, _PAPER)
def gpt2(**cfg):
    return GPT2LMHeadModel(GPT2Config(), **cfg)


@register_model("gpt2-medium", "text-generation", 354_823_168, _PAPER)
def gpt2_medium(**cfg):
    return GPT2LMHeadModel(GPT2Config(n_embd=1024, n_layer=24, n_head=16), **cfg)
