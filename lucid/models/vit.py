r"""The Vision Transformer (Dosovitskiy et al., 2021, "An Image is Worth 16x16 Words"):
an image cut into patches, each linearly embedded, a learned class token and positions in
front, pre-norm transformer blocks, and a classifier on the class token.

.. math:: z_0 = [x_{cls};\ E\,p_1;\ \dots;\ E\,p_N] + E_{pos}, \quad
          z' = z + \mathrm{MSA}(\mathrm{LN}(z)), \quad
          z_{next} = z' + \mathrm{MLP}(\mathrm{LN}(z')), \quad
          y = W\,\mathrm{LN}(z_L)_{cls}

Module names follow Hugging Face's ``ViTForImageClassification`` (``vit.embeddings``,
``vit.encoder.layer.0.attention.attention.query``, ``classifier``), so its checkpoints
load as they are; the names transformers 5 gives its modules in memory (``vit.layers.0
.attention.q_proj``, ``mlp.fc1``) map to them through :func:`convert_hf_state_dict`, and
torchvision's ``VisionTransformer`` (``encoder.layers.encoder_layer_0.self_attention
.in_proj_weight``, one packed query/key/value projection) through
:func:`convert_torchvision_state_dict` (its layer norms' epsilon is 1e-6: ``ViTConfig(
layer_norm_eps=1e-6)``, as ``vit_b_16``'s torchvision weights set).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import cat, nn, no_grad, zeros
from ..errors import ArgumentError
from ..nn import functional as F
from .checkpoint import read_hf_checkpoint
from .config import ModelConfig
from .registry import register_model

__all__ = [
    "ViTConfig",
    "ViTModel",
    "ViTForImageClassification",
    "convert_hf_state_dict",
    "convert_torchvision_state_dict",
    "from_pretrained",
]


@dataclass
class ViTConfig(ModelConfig):
    """The hyperparameters, under Hugging Face's ``config.json`` names."""

    image_size: int = 224
    patch_size: int = 16
    num_channels: int = 3
    hidden_size: int = 768
    num_hidden_layers: int = 12
    num_attention_heads: int = 12
    intermediate_size: int = 3072
    layer_norm_eps: float = 1e-12
    hidden_dropout_prob: float = 0.0
    attention_probs_dropout_prob: float = 0.0
    qkv_bias: bool = True
    num_labels: int = 1000
    initializer_range: float = 0.02

    @classmethod
    def from_dict(cls, d):
        """The configuration from a ``config.json`` dict (``id2label`` gives the number of
        classes; other keys ignored)."""
        kw = cls.known(d)
        if "id2label" in d:
            kw["num_labels"] = len(d["id2label"])
        return cls(**kw)


class ViTPatchEmbeddings(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        if cfg.image_size % cfg.patch_size:
            raise ArgumentError(
                f"ViT: image_size {cfg.image_size} is not a multiple of patch_size {cfg.patch_size}"
            )
        p = cfg.patch_size
        self.projection = nn.Conv2d(cfg.num_channels, cfg.hidden_size, p, p)

    def forward(self, x):
        return self.projection(x).flatten(2).transpose(1, 2)  # (N, patches, d)


class ViTEmbeddings(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        n = (cfg.image_size // cfg.patch_size) ** 2
        self.image_size = cfg.image_size
        self.cls_token = nn.Parameter(zeros(1, 1, cfg.hidden_size))
        self.position_embeddings = nn.Parameter(zeros(1, n + 1, cfg.hidden_size))
        self.patch_embeddings = ViTPatchEmbeddings(cfg)
        self.dropout = nn.Dropout(cfg.hidden_dropout_prob)

    def forward(self, x):
        if tuple(x.shape[-2:]) != (self.image_size, self.image_size):
            raise ArgumentError(
                f"ViT: expected images of {self.image_size}x{self.image_size}, got "
                f"{tuple(x.shape[-2:])}"
            )
        p = self.patch_embeddings(x)
        z = cat([self.cls_token.expand(p.shape[0], -1, -1), p], 1)
        return self.dropout(z + self.position_embeddings)


class ViTSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg.hidden_size
        if d % cfg.num_attention_heads:
            raise ArgumentError(
                f"ViT: hidden_size {d} is not a multiple of num_attention_heads "
                f"{cfg.num_attention_heads}"
            )
        self.heads, self.p = cfg.num_attention_heads, cfg.attention_probs_dropout_prob
        self.query, self.key, self.value = (nn.Linear(d, d, bias=cfg.qkv_bias) for _ in range(3))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = (
            f(x).view(B, T, self.heads, C // self.heads).transpose(1, 2)
            for f in (self.query, self.key, self.value)
        )
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.p if self.training else 0.0)
        return y.transpose(1, 2).reshape(B, T, C)


class ViTBranchOutput(nn.Module):
    """``dropout(dense(h))``, plus ``x`` when given (the MLP's residual): Hugging Face's
    ``ViTSelfOutput`` and ``ViTOutput``."""

    def __init__(self, cfg, width):
        super().__init__()
        self.dense = nn.Linear(width, cfg.hidden_size)
        self.dropout = nn.Dropout(cfg.hidden_dropout_prob)

    def forward(self, h, x=None):
        h = self.dropout(self.dense(h))
        return h if x is None else h + x


class ViTAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.attention = ViTSelfAttention(cfg)
        self.output = ViTBranchOutput(cfg, cfg.hidden_size)

    def forward(self, x):
        return self.output(self.attention(x))


class ViTIntermediate(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.dense = nn.Linear(cfg.hidden_size, cfg.intermediate_size)

    def forward(self, x):
        return F.gelu(self.dense(x))


class ViTLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layernorm_before = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)
        self.attention = ViTAttention(cfg)
        self.layernorm_after = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)
        self.intermediate = ViTIntermediate(cfg)
        self.output = ViTBranchOutput(cfg, cfg.intermediate_size)

    def forward(self, x):
        x = x + self.attention(self.layernorm_before(x))
        return self.output(self.intermediate(self.layernorm_after(x)), x)


class ViTEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layer = nn.ModuleList(ViTLayer(cfg) for _ in range(cfg.num_hidden_layers))

    def forward(self, x):
        for layer in self.layer:
            x = layer(x)
        return x


class ViTModel(nn.Module):
    """The encoder: the normed states ``(N, 1 + patches, d)`` of ``(N, C, H, W)``."""

    def __init__(self, cfg):
        super().__init__()
        self.embeddings = ViTEmbeddings(cfg)
        self.encoder = ViTEncoder(cfg)
        self.layernorm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)

    def forward(self, pixel_values):
        return self.layernorm(self.encoder(self.embeddings(pixel_values)))


class ViTForImageClassification(nn.Module):
    """The encoder with a linear classifier on the class token: logits ``(N, classes)``."""

    def __init__(self, cfg=None, **overrides):
        super().__init__()
        cfg = (cfg or ViTConfig()).updated("ViT", overrides)
        self.config = cfg
        self.vit = ViTModel(cfg)
        self.classifier = nn.Linear(cfg.hidden_size, cfg.num_labels)
        with no_grad():  # truncated-normal-like: normal(0, 0.02) weights, zero biases
            for name, p in self.named_parameters():
                if name.endswith("bias"):
                    p.zero_()
                elif "layernorm" in name:
                    p.fill_(1.0)
                else:
                    p.normal_(0.0, cfg.initializer_range)

    def forward(self, pixel_values):
        return self.classifier(self.vit(pixel_values)[:, 0])


_V5 = {  # transformers 5's in-memory names -> the checkpoint files' (and Lucid's)
    "attention.q_proj": "attention.attention.query",
    "attention.k_proj": "attention.attention.key",
    "attention.v_proj": "attention.attention.value",
    "attention.o_proj": "attention.output.dense",
    "mlp.fc1": "intermediate.dense",
    "mlp.fc2": "output.dense",
}
_LAYER = re.compile(r"^vit\.layers\.(\d+)\.(.*)$")


def convert_hf_state_dict(sd):
    """A ``ViTForImageClassification`` state dict under the checkpoint files' names:
    those of transformers 5's modules (``vit.layers.N...``) renamed, any other unchanged."""
    out = {}
    for k, v in sd.items():
        m = _LAYER.match(k)
        if m:
            rest = m.group(2)
            for new, old in _V5.items():
                if rest.startswith(new + "."):
                    rest = old + rest[len(new) :]
            k = f"vit.encoder.layer.{m.group(1)}.{rest}"
        out[k] = v
    return out


_TV_LAYER = re.compile(r"^encoder\.layers\.encoder_layer_(\d+)\.(.*)$")
_TV_NAMES = {  # torchvision's names -> Lucid's (Hugging Face's), outside the packed QKV
    "class_token": "vit.embeddings.cls_token",
    "conv_proj": "vit.embeddings.patch_embeddings.projection",
    "encoder.pos_embedding": "vit.embeddings.position_embeddings",
    "encoder.ln": "vit.layernorm",
    "heads.head": "classifier",
    "ln_1": "layernorm_before",
    "ln_2": "layernorm_after",
    "self_attention.out_proj": "attention.output.dense",
    "mlp.0": "intermediate.dense",
    "mlp.3": "output.dense",
}


def _renamed(name):
    stem, _, leaf = name.rpartition(".")
    for key in (name, stem):
        if key in _TV_NAMES:
            return _TV_NAMES[key] + ("" if key == name else "." + leaf)
    raise ArgumentError(f"vit.convert_torchvision_state_dict: unexpected key {name!r}")


def convert_torchvision_state_dict(sd):
    """A torchvision ``VisionTransformer`` state dict under this module's names: each
    layer's packed ``in_proj_weight`` ``(3d, d)`` (and bias) split into the query, key and
    value projections, the other keys renamed (:data:`_TV_NAMES`)."""
    out = {}
    for k, v in sd.items():
        m = _TV_LAYER.match(k)
        if m is None:
            out[_renamed(k)] = v
            continue
        i, rest = m.groups()
        at = f"vit.encoder.layer.{i}."
        if rest.startswith("self_attention.in_proj_"):
            kind = rest.rsplit("_", 1)[1]  # weight or bias
            d = v.shape[0] // 3
            for j, name in enumerate(("query", "key", "value")):
                out[f"{at}attention.attention.{name}.{kind}"] = v[j * d : (j + 1) * d]
        else:
            out[at + _renamed(rest)] = v
    return out


def from_pretrained(path, device="cpu"):
    """A :class:`ViTForImageClassification` from a Hugging Face checkpoint directory
    (``config.json`` and ``model.safetensors`` or ``pytorch_model.bin``)."""
    config, sd = read_hf_checkpoint(path, "vit.from_pretrained")
    model = ViTForImageClassification(ViTConfig.from_dict(config))
    model.load_state_dict(convert_hf_state_dict(sd))
    return model.to(device)


@register_model(
    "vit_b_16",
    "image-classification",
    86_567_656,
    "Dosovitskiy et al. 2021, An Image is Worth 16x16 Words",
)
def vit_b_16(**cfg):
    return ViTForImageClassification(ViTConfig(), **cfg)
