r"""ResNet (He et al., 2016, "Deep Residual Learning for Image Recognition") and its
grouped and wide variants, ResNeXt (Xie et al., 2017) and Wide ResNet (Zagoruyko and
Komodakis, 2016): a 7x7 stem, four stages of residual blocks, global average pooling and
a linear classifier.

.. math:: y = \mathrm{ReLU}\big(F(x) + S(x)\big)

with :math:`F` two 3x3 convolutions (the basic block) or a 1x1, a (grouped) 3x3 and a 1x1
expanding by 4 (the bottleneck, its stride on the 3x3 as torchvision's "ResNet v1.5"), each
followed by batch norm, and :math:`S` the identity or a strided 1x1 convolution with batch
norm where the shape changes. Module names are torchvision's (``layer1.0.conv1``,
``downsample.0``, ``fc``), so its ``state_dict`` files load as they are.
"""

from __future__ import annotations

from .. import nn
from ..errors import ArgumentError
from .registry import register_model

__all__ = ["BasicBlock", "Bottleneck", "ResNet"]


def _conv(cin, cout, k, stride=1, groups=1):
    return nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False)


class BasicBlock(nn.Module):
    """Two 3x3 convolutions; output channels = ``planes``."""

    expansion = 1

    def __init__(self, cin, planes, stride=1, downsample=None, groups=1, width_per_group=64):
        super().__init__()
        if groups != 1 or width_per_group != 64:
            raise ArgumentError("ResNet: BasicBlock takes groups=1 and width_per_group=64 only")
        self.conv1 = _conv(cin, planes, 3, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = _conv(planes, planes, 3)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        skip = x if self.downsample is None else self.downsample(x)
        y = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(y)) + skip)


class Bottleneck(nn.Module):
    """1x1 down to ``width``, a grouped 3x3 (the stride), 1x1 up to ``4 planes``."""

    expansion = 4

    def __init__(self, cin, planes, stride=1, downsample=None, groups=1, width_per_group=64):
        super().__init__()
        width = int(planes * width_per_group / 64) * groups
        self.conv1 = _conv(cin, width, 1)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = _conv(width, width, 3, stride, groups)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = _conv(width, planes * 4, 1)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        skip = x if self.downsample is None else self.downsample(x)
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)))
        return self.relu(self.bn3(self.conv3(y)) + skip)


class ResNet(nn.Module):
    """``block`` repeated ``layers[i]`` times in stage ``i`` (64, 128, 256, 512 planes;
    stride 2 from the second stage on); logits ``(N, num_classes)`` of ``(N, 3, H, W)``.
    ``zero_init_residual`` starts each block's last batch norm at zero (each block the
    identity), as torchvision's option."""

    def __init__(
        self,
        block,
        layers,
        num_classes=1000,
        zero_init_residual=False,
        groups=1,
        width_per_group=64,
    ):
        super().__init__()
        self.groups, self.width_per_group, self.inplanes = groups, width_per_group, 64
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        self.layer1 = self._stage(block, 64, layers[0], 1)
        self.layer2 = self._stage(block, 128, layers[1], 2)
        self.layer3 = self._stage(block, 256, layers[2], 2)
        self.layer4 = self._stage(block, 512, layers[3], 2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, Bottleneck):
                    nn.init.zeros_(m.bn3.weight)
                elif isinstance(m, BasicBlock):
                    nn.init.zeros_(m.bn2.weight)

    def _stage(self, block, planes, blocks, stride):
        out = planes * block.expansion
        down = None
        if stride != 1 or self.inplanes != out:
            down = nn.Sequential(_conv(self.inplanes, out, 1, stride), nn.BatchNorm2d(out))
        kw = dict(groups=self.groups, width_per_group=self.width_per_group)
        mods = [block(self.inplanes, planes, stride, down, **kw)]
        self.inplanes = out
        mods += [block(out, planes, **kw) for _ in range(1, blocks)]
        return nn.Sequential(*mods)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(self.avgpool(x).flatten(1))


_HE = "He et al. 2016, Deep Residual Learning for Image Recognition"
_CONFIGS = [
    # name, block, layers, extra, parameters (1000 classes), paper
    ("resnet18", BasicBlock, [2, 2, 2, 2], {}, 11_689_512, _HE),
    ("resnet34", BasicBlock, [3, 4, 6, 3], {}, 21_797_672, _HE),
    ("resnet50", Bottleneck, [3, 4, 6, 3], {}, 25_557_032, _HE),
    ("resnet101", Bottleneck, [3, 4, 23, 3], {}, 44_549_160, _HE),
    ("resnet152", Bottleneck, [3, 8, 36, 3], {}, 60_192_808, _HE),
    (
        "resnext50_32x4d",
        Bottleneck,
        [3, 4, 6, 3],
        dict(groups=32, width_per_group=4),
        25_028_904,
        "Xie et al. 2017, Aggregated Residual Transformations for Deep Neural Networks",
    ),
    (
        "wide_resnet50_2",
        Bottleneck,
        [3, 4, 6, 3],
        dict(width_per_group=128),
        68_883_240,
        "Zagoruyko and Komodakis 2016, Wide Residual Networks",
    ),
]


def _builder(block, layers, extra):
    def build(**cfg):
        return ResNet(block, layers, **{**extra, **cfg})

    return build


for _name, _block, _layers, _extra, _params, _paper in _CONFIGS:
    register_model(_name, "image-classification", _params, _paper)(
        _builder(_block, _layers, _extra)
    )
