r"""RegNet (Radosavovic et al., 2020, "Designing Network Design Spaces"), the Y variant
(with squeeze and excitation), in torchvision's form and module names.

The widths come from a quantised linear rule: block :math:`j` of ``depth`` gets
:math:`u_j = w_0 + w_a j`, rounded in log space to :math:`w_0 w_m^{s_j}` with
:math:`s_j = \mathrm{round}(\log_{w_m}(u_j / w_0))` and then to a multiple of 8; runs of
equal widths form the four stages, each width made a multiple of the group width. Every
block is a bottleneck of a 1x1 convolution, a grouped 3x3 (the stage's stride on its first
block), squeeze and excitation (a quarter of the block's input width) and a 1x1
convolution, added to the input (projected where the shape changes) before a ReLU.
"""

from __future__ import annotations

import math

from .. import nn
from .mobile import SqueezeExcitation, conv_bn_act
from .registry import register_model

__all__ = ["RegNet", "block_params"]


def block_params(depth, w_0, w_a, w_m, group_width):
    """``[(width, depth, group width), ...]`` per stage of the rule above."""
    widths = []
    for j in range(depth):
        s = round(math.log((w_0 + w_a * j) / w_0) / math.log(w_m))
        widths.append(int(round(w_0 * w_m**s / 8)) * 8)
    stages = []
    for w in widths:
        if stages and stages[-1][0] == w:
            stages[-1][1] += 1
        else:
            stages.append([w, 1])
    out = []
    for w, d in stages:
        g = min(group_width, w)
        out.append((int(round(w / g) * g), d, g))
    return out


def _cba(cin, cout, k, stride=1, groups=1, act=True):
    return conv_bn_act(cin, cout, k, stride, groups, nn.ReLU if act else None)


class BottleneckTransform(nn.Sequential):
    def __init__(self, cin, cout, stride, group_width, se_ratio):
        super().__init__()
        self.add_module("a", _cba(cin, cout, 1))
        self.add_module("b", _cba(cout, cout, 3, stride, cout // group_width))
        self.add_module(
            "se", SqueezeExcitation(cout, int(round(se_ratio * cin)), nn.ReLU, nn.Sigmoid)
        )
        self.add_module("c", _cba(cout, cout, 1, act=False))


class ResBottleneckBlock(nn.Module):
    def __init__(self, cin, cout, stride, group_width, se_ratio):
        super().__init__()
        self.proj = None
        if cin != cout or stride != 1:
            self.proj = _cba(cin, cout, 1, stride, act=False)
        self.f = BottleneckTransform(cin, cout, stride, group_width, se_ratio)
        self.activation = nn.ReLU(inplace=True)

    def forward(self, x):
        skip = x if self.proj is None else self.proj(x)
        return self.activation(skip + self.f(x))


class RegNet(nn.Module):
    """The stem (3x3 stride 2 to 32 channels), the stages of :func:`block_params` (stride 2
    each), pooling and a linear classifier."""

    def __init__(self, depth, w_0, w_a, w_m, group_width, se_ratio=0.25, num_classes=1000):
        super().__init__()
        self.stem = _cba(3, 32, 3, 2)
        trunk, c = nn.Sequential(), 32
        for i, (w, d, g) in enumerate(block_params(depth, w_0, w_a, w_m, group_width)):
            stage = nn.Sequential()
            for j in range(d):
                stage.add_module(
                    f"block{i + 1}-{j}",
                    ResBottleneckBlock(c, w, 2 if j == 0 else 1, g, se_ratio),
                )
                c = w
            trunk.add_module(f"block{i + 1}", stage)
        self.trunk_output = trunk
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(c, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                fan_out = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
                nn.init.normal_(m.weight, 0.0, math.sqrt(2.0 / fan_out))
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0.0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.fc(self.avgpool(self.trunk_output(self.stem(x))).flatten(1))


register_model(
    "regnet_y_400mf",
    "image-classification",
    4_344_144,
    "Radosavovic et al. 2020, Designing Network Design Spaces",
)(lambda **kw: RegNet(16, 48, 27.89, 2.09, 8, **kw))
