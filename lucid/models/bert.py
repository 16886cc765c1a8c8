r"""BERT (Devlin et al., 2019, "BERT: Pre-training of Deep Bidirectional Transformers for
Language Understanding"): an encoder of post-norm blocks over token, position and segment
embeddings, GELU, and a pooler (the first token through a tanh layer).

.. math:: h' = \mathrm{LN}\big(h + W_o\,\mathrm{Attn}(W_q h, W_k h, W_v h; m)\big), \qquad
          h_{out} = \mathrm{LN}\big(h' + W_2\,\mathrm{GELU}(W_1 h')\big)

where the attention mask :math:`m` hides padding keys. Module names follow Hugging Face's
``BertModel`` (``encoder.layer.0.attention.self.query``, ...) and its ``nn.Linear`` layout
is Lucid's, so its checkpoints load as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import arange, nn, no_grad, zeros_like
from .. import bool as bool_
from ..errors import ArgumentError
from ..nn import functional as F
from .checkpoint import read_hf_checkpoint
from .config import ModelConfig
from .registry import register_model

__all__ = ["BertConfig", "BertModel", "from_pretrained"]


@dataclass
class BertConfig(ModelConfig):
    """The hyperparameters, under Hugging Face's ``config.json`` names."""

    vocab_size: int = 30522
    hidden_size: int = 768
    num_hidden_layers: int = 12
    num_attention_heads: int = 12
    intermediate_size: int = 3072
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.1
    initializer_range: float = 0.02


class BertEmbeddings(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.word_embeddings = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
        self.position_embeddings = nn.Embedding(cfg.max_position_embeddings, cfg.hidden_size)
        self.token_type_embeddings = nn.Embedding(cfg.type_vocab_size, cfg.hidden_size)
        self.LayerNorm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)
        self.dropout = nn.Dropout(cfg.hidden_dropout_prob)

    def forward(self, input_ids, token_type_ids):
        pos = arange(input_ids.shape[-1], device=input_ids.device)
        x = (
            self.word_embeddings(input_ids)
            + self.position_embeddings(pos)
            + self.token_type_embeddings(token_type_ids)
        )
        return self.dropout(self.LayerNorm(x))


class BertSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg.hidden_size
        self.heads, self.p = cfg.num_attention_heads, cfg.attention_probs_dropout_prob
        self.query, self.key, self.value = (nn.Linear(d, d) for _ in range(3))

    def forward(self, x, mask):
        B, T, C = x.shape
        q, k, v = (
            f(x).view(B, T, self.heads, C // self.heads).transpose(1, 2)
            for f in (self.query, self.key, self.value)
        )
        y = F.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, dropout_p=self.p if self.training else 0.0
        )
        return y.transpose(1, 2).reshape(B, T, C)


class BertResidual(nn.Module):
    """``LayerNorm(x + dropout(dense(h)))``: the output of an attention or MLP branch
    (Hugging Face's ``BertSelfOutput`` and ``BertOutput``)."""

    def __init__(self, cfg, width):
        super().__init__()
        self.dense = nn.Linear(width, cfg.hidden_size)
        self.LayerNorm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)
        self.dropout = nn.Dropout(cfg.hidden_dropout_prob)

    def forward(self, h, x):
        return self.LayerNorm(x + self.dropout(self.dense(h)))


class BertAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.self = BertSelfAttention(cfg)
        self.output = BertResidual(cfg, cfg.hidden_size)

    def forward(self, x, mask):
        return self.output(self.self(x, mask), x)


class BertIntermediate(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.dense = nn.Linear(cfg.hidden_size, cfg.intermediate_size)

    def forward(self, x):
        return F.gelu(self.dense(x))


class BertLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.attention = BertAttention(cfg)
        self.intermediate = BertIntermediate(cfg)
        self.output = BertResidual(cfg, cfg.intermediate_size)

    def forward(self, x, mask):
        x = self.attention(x, mask)
        return self.output(self.intermediate(x), x)


class BertEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layer = nn.ModuleList(BertLayer(cfg) for _ in range(cfg.num_hidden_layers))

    def forward(self, x, mask):
        for layer in self.layer:
            x = layer(x, mask)
        return x


class BertPooler(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.dense = nn.Linear(cfg.hidden_size, cfg.hidden_size)

    def forward(self, x):
        return self.dense(x[:, 0]).tanh()


class BertModel(nn.Module):
    """The encoder: ``(last hidden states (B, T, d), pooled (B, d))``.

    ``attention_mask (B, T)``: 1 for tokens, 0 for padding (keys that no query attends
    to); ``token_type_ids (B, T)``: the segment of each token (0 where omitted)."""

    def __init__(self, cfg=None, add_pooling_layer=True, **overrides):
        super().__init__()
        cfg = (cfg or BertConfig()).updated("Bert", overrides)
        if cfg.hidden_size % cfg.num_attention_heads:
            raise ArgumentError(
                f"Bert: hidden_size {cfg.hidden_size} is not a multiple of "
                f"num_attention_heads {cfg.num_attention_heads}"
            )
        self.config = cfg
        self.embeddings = BertEmbeddings(cfg)
        self.encoder = BertEncoder(cfg)
        self.pooler = BertPooler(cfg) if add_pooling_layer else None
        with no_grad():  # normal(0, 0.02) matrices and embeddings, zero biases, unit norms
            for name, p in self.named_parameters():
                if name.endswith("bias"):
                    p.zero_()
                elif "LayerNorm" in name:
                    p.fill_(1.0)
                else:
                    p.normal_(0.0, cfg.initializer_range)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        if token_type_ids is None:
            token_type_ids = zeros_like(input_ids)
        mask = None
        if attention_mask is not None:  # (B, 1, 1, T): a padding key is hidden from all
            mask = attention_mask.to(bool_)[:, None, None, :]
        x = self.encoder(self.embeddings(input_ids, token_type_ids), mask)
        return x, (None if self.pooler is None else self.pooler(x))


def from_pretrained(path, device="cpu"):
    """A :class:`BertModel` from a Hugging Face checkpoint directory (``config.json`` and
    ``model.safetensors`` or ``pytorch_model.bin``); the keys of a ``BertFor...`` head
    model's body (``bert.`` in front) are taken, its head's dropped."""
    config, sd = read_hf_checkpoint(path, "bert.from_pretrained")
    if any(k.startswith("bert.") for k in sd):
        sd = {k[5:]: v for k, v in sd.items() if k.startswith("bert.")}
    sd = {k: v for k, v in sd.items() if not k.endswith("position_ids")}
    model = BertModel(BertConfig.from_dict(config), add_pooling_layer="pooler.dense.weight" in sd)
    model.load_state_dict(sd)
    return model.to(device)


@register_model(
    "bert-base-uncased",
    "feature-extraction",
    109_482_240,
    "Devlin et al. 2019, BERT: Pre-training of Deep Bidirectional Transformers",
)
def bert_base_uncased(**cfg):
    return BertModel(BertConfig(), **cfg)
