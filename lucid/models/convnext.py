r"""ConvNeXt (Liu et al., 2022, "A ConvNet for the 2020s"): a ResNet modernised towards
the vision transformers, in torchvision's form and module names.

A block is a 7x7 depthwise convolution, LayerNorm over channels, a 4x wider pointwise MLP
with GELU, a learned per-channel scale :math:`\gamma` (initialised at :math:`10^{-6}`) and
stochastic depth (Huang et al., 2016) on the residual branch:

.. math:: y = x + \mathrm{drop}_p\big(\gamma \odot W_2\,\mathrm{GELU}(W_1\,
          \mathrm{LN}(\mathrm{DWConv}_{7\times7}(x)))\big)

where :math:`\mathrm{drop}_p` zeroes the branch of a whole sample with probability
:math:`p` in training (scaling the kept ones by :math:`1/(1-p)`), :math:`p` growing
linearly from 0 to ``stochastic_depth_prob`` over the blocks. A 4x4 stride-4 patchify stem,
and between stages LayerNorm and a 2x2 stride-2 convolution.
"""

from __future__ import annotations

from .. import bernoulli, full, nn
from .registry import register_model

__all__ = ["LayerNorm2d", "StochasticDepth", "Permute", "CNBlock", "ConvNeXt"]


class LayerNorm2d(nn.LayerNorm):
    """LayerNorm over the channels of ``(N, C, H, W)``."""

    def forward(self, x):
        return super().forward(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)


class StochasticDepth(nn.Module):
    """In training, each sample's input zeroed with probability ``p`` and the others
    scaled by :math:`1/(1-p)` (torchvision's ``"row"`` mode); the identity in eval."""

    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        if not self.training or self.p == 0.0:
            return x
        keep = 1.0 - self.p
        noise = bernoulli(full((x.shape[0],) + (1,) * (x.ndim - 1), keep, device=x.device))
        return x * noise / keep if keep > 0 else x * noise

    def extra_repr(self):
        return f"p={self.p}"


class Permute(nn.Module):
    """``x.permute(*dims)`` as a module (torchvision's ``Permute``)."""

    def __init__(self, dims):
        super().__init__()
        self.dims = dims

    def forward(self, x):
        return x.permute(*self.dims)


class CNBlock(nn.Module):
    def __init__(self, dim, sd_prob, layer_scale=1e-6):
        super().__init__()
        self.block = nn.Sequential(
            nn.Conv2d(dim, dim, 7, padding=3, groups=dim),
            Permute((0, 2, 3, 1)),
            nn.LayerNorm(dim, eps=1e-6),
            nn.Linear(dim, 4 * dim),
            nn.GELU(),
            nn.Linear(4 * dim, dim),
            Permute((0, 3, 1, 2)),
        )
        self.layer_scale = nn.Parameter(full((dim, 1, 1), layer_scale))
        self.stochastic_depth = StochasticDepth(sd_prob)

    def forward(self, x):
        return x + self.stochastic_depth(self.layer_scale * self.block(x))


class ConvNeXt(nn.Module):
    """Stages of ``depths`` blocks at widths ``dims``; logits ``(N, num_classes)``."""

    def __init__(
        self,
        depths=(3, 3, 9, 3),
        dims=(96, 192, 384, 768),
        stochastic_depth_prob=0.1,
        num_classes=1000,
    ):
        super().__init__()
        stem = nn.Sequential(nn.Conv2d(3, dims[0], 4, 4), LayerNorm2d(dims[0], eps=1e-6))
        layers, total, k = [stem], sum(depths), 0
        for i, (n, d) in enumerate(zip(depths, dims)):
            blocks = []
            for _ in range(n):
                blocks.append(CNBlock(d, stochastic_depth_prob * k / (total - 1.0)))
                k += 1
            layers.append(nn.Sequential(*blocks))
            if i + 1 < len(dims):
                layers.append(
                    nn.Sequential(LayerNorm2d(d, eps=1e-6), nn.Conv2d(d, dims[i + 1], 2, 2))
                )
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(
            LayerNorm2d(dims[-1], eps=1e-6), nn.Flatten(1), nn.Linear(dims[-1], num_classes)
        )
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.trunc_normal_(m.weight, std=0.02)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.classifier(self.avgpool(self.features(x)))


register_model(
    "convnext_tiny",
    "image-classification",
    28_589_128,
    "Liu et al. 2022, A ConvNet for the 2020s",
)(ConvNeXt)
