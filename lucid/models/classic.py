r"""The classic convolutional networks: LeNet-5 (LeCun et al., 1998), AlexNet (Krizhevsky
et al., 2012, in torchvision's one-GPU form) and VGG (Simonyan and Zisserman, 2015), each a
stack of convolutions, ReLUs and max pools, then fully connected layers.

Module names are torchvision's (``features.0``, ``classifier.6``) for AlexNet and VGG, so
their ``state_dict`` files load as they are. LeNet-5 is the paper's for 32x32 inputs
(``conv1``, ``conv2``, ``fc1`` to ``fc3``), with ReLU and max pooling in place of its
scaled tanh and trainable subsampling, as the network is written today.
"""

from __future__ import annotations

from .. import nn
from .registry import register_model

__all__ = ["LeNet5", "AlexNet", "VGG"]


class LeNet5(nn.Module):
    """Two 5x5 convolutions (6 and 16 maps) with 2x2 max pools, then 120, 84 and
    ``num_classes`` units: logits of ``(N, in_channels, 32, 32)``."""

    def __init__(self, num_classes=10, in_channels=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)

    def forward(self, x):
        x = self.pool(self.conv1(x).relu())
        x = self.pool(self.conv2(x).relu()).flatten(1)
        return self.fc3(self.fc2(self.fc1(x).relu()).relu())


class AlexNet(nn.Module):
    """Five convolutions (11x11 stride 4, 5x5, three 3x3) with three max pools, pooled
    to 6x6, then two 4096-unit layers with dropout."""

    def __init__(self, num_classes=1000, dropout=0.5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, 11, 4, 2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(3, 2),
            nn.Conv2d(64, 192, 5, padding=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(3, 2),
            nn.Conv2d(192, 384, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(384, 256, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(256, 256, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(3, 2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(dropout),
            nn.Linear(256 * 6 * 6, 4096),
            nn.ReLU(inplace=True),
            nn.Dropout(dropout),
            nn.Linear(4096, 4096),
            nn.ReLU(inplace=True),
            nn.Linear(4096, num_classes),
        )

    def forward(self, x):
        return self.classifier(self.avgpool(self.features(x)).flatten(1))


# VGG's configurations: channels of each 3x3 convolution, "M" a 2x2 max pool
_VGG = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
}


class VGG(nn.Module):
    """3x3 convolutions (with batch norm for ``batch_norm``) and ReLUs in the blocks of
    ``cfg`` between 2x2 max pools, pooled to 7x7, then two 4096-unit layers with dropout.
    Initialised as torchvision's: Kaiming-normal convolutions (fan out), normal(0, 0.01)
    linear layers, zero biases."""

    def __init__(self, cfg, batch_norm=False, num_classes=1000, dropout=0.5):
        super().__init__()
        layers, c = [], 3
        for v in cfg:
            if v == "M":
                layers.append(nn.MaxPool2d(2, 2))
                continue
            layers.append(nn.Conv2d(c, v, 3, padding=1))
            if batch_norm:
                layers.append(nn.BatchNorm2d(v))
            layers.append(nn.ReLU(inplace=True))
            c = v
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096),
            nn.ReLU(True),
            nn.Dropout(dropout),
            nn.Linear(4096, 4096),
            nn.ReLU(True),
            nn.Dropout(dropout),
            nn.Linear(4096, num_classes),
        )
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.classifier(self.avgpool(self.features(x)).flatten(1))


register_model(
    "lenet5",
    "image-classification",
    61_706,
    "LeCun et al. 1998, Gradient-Based Learning Applied to Document Recognition",
)(LeNet5)
register_model(
    "alexnet",
    "image-classification",
    61_100_840,
    "Krizhevsky et al. 2012, ImageNet Classification with Deep Convolutional Neural Networks",
)(AlexNet)

_SZ = (
    "Simonyan and Zisserman 2015, Very Deep Convolutional Networks for Large-Scale Image "
    "Recognition"
)


def _vgg(cfg, bn):
    def build(**kw):
        return VGG(_VGG[cfg], bn, **kw)

    return build


for _name, _cfg, _bn, _params in [
    ("vgg11", "A", False, 132_863_336),
    ("vgg11_bn", "A", True, 132_868_840),
    ("vgg16", "D", False, 138_357_544),
    ("vgg16_bn", "D", True, 138_365_992),
]:
    register_model(_name, "image-classification", _params, _SZ)(_vgg(_cfg, _bn))
