r"""The Swin Transformer (Liu et al., 2021, "Swin Transformer: Hierarchical Vision
Transformer using Shifted Windows"), Swin-T, in torchvision's form and module names.

Attention runs inside non-overlapping 7x7 windows of the ``(N, H, W, C)`` feature map,
with a learned bias per relative position :math:`B_{ij}` (one table entry per offset in
:math:`(2M - 1)^2`) and per head:

.. math:: \mathrm{Attn}(Q, K, V) = \mathrm{softmax}(Q K^\top / \sqrt{d} + B + A)\,V

every second block shifting the windows by half a window (a cyclic roll of the map), where
:math:`A` is -100 between positions that the roll brought together from different regions.
Patch merging halves the resolution between stages: each 2x2 neighbourhood concatenated
(4C), layer-normed and projected to 2C.
"""

from __future__ import annotations

from .. import arange, cat, meshgrid, nn, stack, zeros
from ..nn import functional as F
from .convnext import Permute, StochasticDepth
from .registry import register_model

__all__ = ["ShiftedWindowAttention", "SwinTransformerBlock", "PatchMerging", "SwinTransformer"]


def _relative_index(ws):
    """Each pair of positions of a ``ws`` window as its offset's row in the bias table."""
    coords = stack(meshgrid(arange(ws[0]), arange(ws[1]), indexing="ij")).flatten(1)
    rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0)
    return ((rel[..., 0] + ws[0] - 1) * (2 * ws[1] - 1) + rel[..., 1] + ws[1] - 1).flatten()


def _shift_mask(pad_h, pad_w, ws, shift, device):
    """:math:`A`: 0 within a region of the rolled map, -100 across regions, per window."""
    label = zeros(pad_h, pad_w, device=device)
    count = 0
    for h in ((0, -ws[0]), (-ws[0], -shift[0]), (-shift[0], None)):
        for w in ((0, -ws[1]), (-ws[1], -shift[1]), (-shift[1], None)):
            label[h[0] : h[1], w[0] : w[1]] = count
            count += 1
    label = label.view(pad_h // ws[0], ws[0], pad_w // ws[1], ws[1]).permute(0, 2, 1, 3)
    label = label.reshape(-1, ws[0] * ws[1])
    diff = label[:, None, :] - label[:, :, None]
    return diff.masked_fill(diff != 0, -100.0)


class ShiftedWindowAttention(nn.Module):
    def __init__(self, dim, window_size, shift_size, num_heads, attention_dropout=0.0, dropout=0.0):
        super().__init__()
        self.window_size, self.shift_size, self.num_heads = window_size, shift_size, num_heads
        self.attention_dropout, self.dropout = attention_dropout, dropout
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        n = (2 * window_size[0] - 1) * (2 * window_size[1] - 1)
        self.relative_position_bias_table = nn.Parameter(zeros(n, num_heads))
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)
        self.register_buffer("relative_position_index", _relative_index(window_size))

    def forward(self, x):
        B, H, W, C = x.shape
        ws, heads = self.window_size, self.num_heads
        pad_r, pad_b = (ws[1] - W % ws[1]) % ws[1], (ws[0] - H % ws[0]) % ws[0]
        x = F.pad(x, (0, 0, 0, pad_r, 0, pad_b))
        ph, pw = x.shape[1], x.shape[2]
        shift = [0 if ws[0] >= ph else self.shift_size[0], 0 if ws[1] >= pw else self.shift_size[1]]
        if sum(shift):
            x = x.roll((-shift[0], -shift[1]), (1, 2))
        nw, n = (ph // ws[0]) * (pw // ws[1]), ws[0] * ws[1]
        x = x.view(B, ph // ws[0], ws[0], pw // ws[1], ws[1], C).permute(0, 1, 3, 2, 4, 5)
        x = x.reshape(B * nw, n, C)
        q, k, v = self.qkv(x).reshape(B * nw, n, 3, heads, C // heads).permute(2, 0, 3, 1, 4)
        attn = (q * (C // heads) ** -0.5).matmul(k.transpose(-2, -1))
        bias = self.relative_position_bias_table[self.relative_position_index]
        attn = attn + bias.view(n, n, -1).permute(2, 0, 1)[None]
        if sum(shift):
            mask = _shift_mask(ph, pw, ws, shift, x.device)
            attn = (attn.view(B, nw, heads, n, n) + mask[None, :, None]).view(-1, heads, n, n)
        attn = F.dropout(attn.softmax(-1), self.attention_dropout, self.training)
        x = attn.matmul(v).transpose(1, 2).reshape(B * nw, n, C)
        x = F.dropout(self.proj(x), self.dropout, self.training)
        x = x.view(B, ph // ws[0], pw // ws[1], ws[0], ws[1], C).permute(0, 1, 3, 2, 4, 5)
        x = x.reshape(B, ph, pw, C)
        if sum(shift):
            x = x.roll((shift[0], shift[1]), (1, 2))
        return x[:, :H, :W, :]


class SwinTransformerBlock(nn.Module):
    def __init__(self, dim, num_heads, window_size, shift_size, sd_prob, mlp_ratio=4.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-5)
        self.attn = ShiftedWindowAttention(dim, window_size, shift_size, num_heads)
        self.stochastic_depth = StochasticDepth(sd_prob)
        self.norm2 = nn.LayerNorm(dim, eps=1e-5)
        hidden = int(dim * mlp_ratio)
        self.mlp = nn.Sequential(
            nn.Linear(dim, hidden),
            nn.GELU(),
            nn.Dropout(0.0),
            nn.Linear(hidden, dim),
            nn.Dropout(0.0),
        )

    def forward(self, x):
        x = x + self.stochastic_depth(self.attn(self.norm1(x)))
        return x + self.stochastic_depth(self.mlp(self.norm2(x)))


class PatchMerging(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = nn.LayerNorm(4 * dim, eps=1e-5)

    def forward(self, x):
        H, W = x.shape[-3], x.shape[-2]
        x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))
        parts = [
            x[..., 0::2, 0::2, :],
            x[..., 1::2, 0::2, :],
            x[..., 0::2, 1::2, :],
            x[..., 1::2, 1::2, :],
        ]
        return self.reduction(self.norm(cat(parts, -1)))


class SwinTransformer(nn.Module):
    """A 4x4 patch embedding, stages of ``depths`` blocks (windows of ``window_size``,
    every second block shifted) with patch merging between them, a final norm, pooling and
    a linear head."""

    def __init__(
        self,
        embed_dim=96,
        depths=(2, 2, 6, 2),
        num_heads=(3, 6, 12, 24),
        window_size=(7, 7),
        stochastic_depth_prob=0.2,
        num_classes=1000,
    ):
        super().__init__()
        layers = [
            nn.Sequential(
                nn.Conv2d(3, embed_dim, 4, 4),
                Permute((0, 2, 3, 1)),
                nn.LayerNorm(embed_dim, eps=1e-5),
            )
        ]
        total, k = sum(depths), 0
        for i, (d, h) in enumerate(zip(depths, num_heads)):
            dim = embed_dim * 2**i
            blocks = []
            for j in range(d):
                shift = [0 if j % 2 == 0 else w // 2 for w in window_size]
                p = stochastic_depth_prob * k / (total - 1)
                blocks.append(SwinTransformerBlock(dim, h, list(window_size), shift, p))
                k += 1
            layers.append(nn.Sequential(*blocks))
            if i + 1 < len(depths):
                layers.append(PatchMerging(dim))
        self.features = nn.Sequential(*layers)
        width = embed_dim * 2 ** (len(depths) - 1)
        self.norm = nn.LayerNorm(width, eps=1e-5)
        self.permute = Permute((0, 3, 1, 2))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten(1)
        self.head = nn.Linear(width, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.permute(self.norm(self.features(x)))
        return self.head(self.flatten(self.avgpool(x)))


register_model(
    "swin_t",
    "image-classification",
    28_288_354,
    "Liu et al. 2021, Swin Transformer: Hierarchical Vision Transformer using Shifted Windows",
)(SwinTransformer)
