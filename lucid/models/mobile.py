r"""MobileNet v2 (Sandler et al., 2018, "MobileNetV2: Inverted Residuals and Linear
Bottlenecks"), MobileNet v3 (Howard et al., 2019, "Searching for MobileNetV3": squeeze
and excitation in the blocks, hard-swish, searched block lists), EfficientNet-B0 (Tan and
Le, 2019) and DenseNet-121 (Huang et al., 2017, "Densely Connected Convolutional
Networks"): the compact ImageNet classifiers of torchvision, under its module names.

MobileNet v2's inverted residual widens ``t``-fold with a 1x1 convolution, filters each
channel with a 3x3 depthwise one, and projects back linearly (no activation), adding the
input where the shape is kept; ReLU6 elsewhere. DenseNet's layer concatenates its
``growth_rate`` new maps (BN-ReLU-1x1-BN-ReLU-3x3) to everything before it in its block;
transitions halve the channels and the resolution.
"""

from __future__ import annotations

from .. import cat, nn
from .convnext import StochasticDepth
from .registry import register_model

__all__ = ["MobileNetV2", "MobileNetV3", "EfficientNet", "DenseNet"]


def _divisible(v, d=8):
    """``v`` rounded to a multiple of ``d``, never below 90% of ``v`` (torchvision's)."""
    out = max(d, int(v + d / 2) // d * d)
    return out + d if out < 0.9 * v else out


def conv_bn_act(cin, cout, k, stride=1, groups=1, act=None, eps=1e-5, momentum=0.1):
    """A bias-free convolution (same padding), batch norm and the activation ``act`` (a
    class, made in place; None: none), torchvision's ``Conv2dNormActivation``."""
    layers = [
        nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout, eps=eps, momentum=momentum),
    ]
    if act is not None:
        layers.append(act(inplace=True))
    return nn.Sequential(*layers)


def _init_weights(model, linear):
    """Kaiming-normal convolutions (fan out) with zero biases, ``linear`` for each
    linear layer's weight and zero biases."""
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out")
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear):
            linear(m)
            nn.init.zeros_(m.bias)


def _normal_001(m):
    nn.init.normal_(m.weight, 0, 0.01)


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, t):
        super().__init__()
        hidden = int(round(cin * t))
        self.use_res_connect = stride == 1 and cin == cout
        layers = [] if t == 1 else [conv_bn_act(cin, hidden, 1, act=nn.ReLU6)]
        layers += [
            conv_bn_act(hidden, hidden, 3, stride, hidden, nn.ReLU6),
            nn.Conv2d(hidden, cout, 1, bias=False),
            nn.BatchNorm2d(cout),
        ]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        y = self.conv(x)
        return x + y if self.use_res_connect else y


class MobileNetV2(nn.Module):
    """Logits ``(N, num_classes)``; ``width_mult`` scales every width (to multiples of
    8)."""

    # (expansion t, channels c, repeats n, first stride s)
    SETTINGS = [
        (1, 16, 1, 1),
        (6, 24, 2, 2),
        (6, 32, 3, 2),
        (6, 64, 4, 2),
        (6, 96, 3, 1),
        (6, 160, 3, 2),
        (6, 320, 1, 1),
    ]

    def __init__(self, num_classes=1000, width_mult=1.0, dropout=0.2):
        super().__init__()
        c = _divisible(32 * width_mult)
        last = _divisible(1280 * max(1.0, width_mult))
        feats = [conv_bn_act(3, c, 3, 2, act=nn.ReLU6)]
        for t, ch, n, s in self.SETTINGS:
            out = _divisible(ch * width_mult)
            for i in range(n):
                feats.append(InvertedResidual(c, out, s if i == 0 else 1, t))
                c = out
        feats.append(conv_bn_act(c, last, 1, act=nn.ReLU6))
        self.features = nn.Sequential(*feats)
        self.classifier = nn.Sequential(nn.Dropout(dropout), nn.Linear(last, num_classes))
        _init_weights(self, _normal_001)

    def forward(self, x):
        x = nn.functional.adaptive_avg_pool2d(self.features(x), (1, 1))
        return self.classifier(x.flatten(1))


def _conv_bn_act(cin, cout, k, stride=1, groups=1, act=None):
    """:func:`conv_bn_act` with MobileNet v3's batch norm (eps 0.001, momentum 0.01)."""
    return conv_bn_act(cin, cout, k, stride, groups, act, eps=0.001, momentum=0.01)


class SqueezeExcitation(nn.Module):
    r"""Channel gates :math:`\sigma(W_2\,\phi(W_1\,\bar x))` from the spatial mean
    :math:`\bar x` (Hu et al., 2018), multiplying ``x``: :math:`\phi` ReLU and
    :math:`\sigma` the hard sigmoid in MobileNet v3, SiLU and the sigmoid in EfficientNet."""

    def __init__(self, channels, squeeze, activation=nn.ReLU, scale_activation=nn.Hardsigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(channels, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def forward(self, x):
        s = self.fc2(self.activation(self.fc1(self.avgpool(x))))
        return x * self.scale_activation(s)


class InvertedResidualV3(nn.Module):
    def __init__(self, cin, k, exp, cout, se, act, stride):
        super().__init__()
        self.use_res_connect = stride == 1 and cin == cout
        layers = [] if exp == cin else [_conv_bn_act(cin, exp, 1, act=act)]
        layers.append(_conv_bn_act(exp, exp, k, stride, exp, act))
        if se:
            layers.append(SqueezeExcitation(exp, _divisible(exp // 4)))
        layers.append(_conv_bn_act(exp, cout, 1))
        self.block = nn.Sequential(*layers)

    def forward(self, x):
        y = self.block(x)
        return x + y if self.use_res_connect else y


_RE, _HS = nn.ReLU, nn.Hardswish
# (in, kernel, expanded, out, squeeze-excitation, activation, stride) per block
_V3 = {
    "large": (
        [
            (16, 3, 16, 16, False, _RE, 1),
            (16, 3, 64, 24, False, _RE, 2),
            (24, 3, 72, 24, False, _RE, 1),
            (24, 5, 72, 40, True, _RE, 2),
            (40, 5, 120, 40, True, _RE, 1),
            (40, 5, 120, 40, True, _RE, 1),
            (40, 3, 240, 80, False, _HS, 2),
            (80, 3, 200, 80, False, _HS, 1),
            (80, 3, 184, 80, False, _HS, 1),
            (80, 3, 184, 80, False, _HS, 1),
            (80, 3, 480, 112, True, _HS, 1),
            (112, 3, 672, 112, True, _HS, 1),
            (112, 5, 672, 160, True, _HS, 2),
            (160, 5, 960, 160, True, _HS, 1),
            (160, 5, 960, 160, True, _HS, 1),
        ],
        1280,
    ),
    "small": (
        [
            (16, 3, 16, 16, True, _RE, 2),
            (16, 3, 72, 24, False, _RE, 2),
            (24, 3, 88, 24, False, _RE, 1),
            (24, 5, 96, 40, True, _HS, 2),
            (40, 5, 240, 40, True, _HS, 1),
            (40, 5, 240, 40, True, _HS, 1),
            (40, 5, 120, 48, True, _HS, 1),
            (48, 5, 144, 48, True, _HS, 1),
            (48, 5, 288, 96, True, _HS, 2),
            (96, 5, 576, 96, True, _HS, 1),
            (96, 5, 576, 96, True, _HS, 1),
        ],
        1024,
    ),
}


class MobileNetV3(nn.Module):
    """The ``"large"`` or ``"small"`` block list; logits ``(N, num_classes)``."""

    def __init__(self, arch="large", num_classes=1000, dropout=0.2):
        super().__init__()
        blocks, last = _V3[arch]
        feats = [_conv_bn_act(3, 16, 3, 2, act=_HS)]
        feats += [InvertedResidualV3(*b) for b in blocks]
        c = blocks[-1][3]
        feats.append(_conv_bn_act(c, 6 * c, 1, act=_HS))
        self.features = nn.Sequential(*feats)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(
            nn.Linear(6 * c, last),
            nn.Hardswish(inplace=True),
            nn.Dropout(dropout, inplace=True),
            nn.Linear(last, num_classes),
        )
        _init_weights(self, _normal_001)

    def forward(self, x):
        return self.classifier(self.avgpool(self.features(x)).flatten(1))


def _silu_conv(cin, cout, k, stride=1, groups=1, act=True):
    return conv_bn_act(cin, cout, k, stride, groups, nn.SiLU if act else None)


class MBConv(nn.Module):
    """EfficientNet's block: MobileNet v2's inverted residual with SiLU, squeeze and
    excitation, and stochastic depth on the residual branch."""

    def __init__(self, cin, cout, k, stride, expand, sd_prob):
        super().__init__()
        exp = _divisible(cin * expand)
        self.use_res_connect = stride == 1 and cin == cout
        layers = [] if exp == cin else [_silu_conv(cin, exp, 1)]
        layers += [
            _silu_conv(exp, exp, k, stride, exp),
            SqueezeExcitation(exp, max(1, cin // 4), nn.SiLU, nn.Sigmoid),
            _silu_conv(exp, cout, 1, act=False),
        ]
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(sd_prob)

    def forward(self, x):
        y = self.block(x)
        return x + self.stochastic_depth(y) if self.use_res_connect else y


# (expansion, kernel, stride, in, out, layers) per stage of EfficientNet-B0
_B0 = [
    (1, 3, 1, 32, 16, 1),
    (6, 3, 2, 16, 24, 2),
    (6, 5, 2, 24, 40, 2),
    (6, 3, 2, 40, 80, 3),
    (6, 5, 1, 80, 112, 3),
    (6, 5, 2, 112, 192, 4),
    (6, 3, 1, 192, 320, 1),
]


def _uniform_by_width(m):
    r = 1.0 / m.out_features**0.5
    nn.init.uniform_(m.weight, -r, r)


class EfficientNet(nn.Module):
    """EfficientNet-B0 (Tan and Le, 2019): a SiLU stem, the stages of MBConv blocks
    (stochastic depth growing to ``stochastic_depth_prob``), a 1x1 convolution to 1280
    channels, pooling and a linear classifier after dropout."""

    def __init__(self, num_classes=1000, dropout=0.2, stochastic_depth_prob=0.2):
        super().__init__()
        total, k = sum(s[-1] for s in _B0), 0
        feats = [_silu_conv(3, 32, 3, 2)]
        for t, kern, stride, cin, cout, n in _B0:
            stage = []
            for i in range(n):
                p = stochastic_depth_prob * k / total
                stage.append(
                    MBConv(cin if i == 0 else cout, cout, kern, stride if i == 0 else 1, t, p)
                )
                k += 1
            feats.append(nn.Sequential(*stage))
        feats.append(_silu_conv(320, 1280, 1))
        self.features = nn.Sequential(*feats)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(
            nn.Dropout(dropout, inplace=True), nn.Linear(1280, num_classes)
        )
        _init_weights(self, _uniform_by_width)

    def forward(self, x):
        return self.classifier(self.avgpool(self.features(x)).flatten(1))


class _DenseLayer(nn.Module):
    def __init__(self, cin, growth, bn_size):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(cin)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(cin, bn_size * growth, 1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(bn_size * growth, growth, 3, padding=1, bias=False)

    def forward(self, x):
        y = self.conv1(self.relu1(self.norm1(x)))
        return cat([x, self.conv2(self.relu2(self.norm2(y)))], 1)


class _Transition(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__()
        self.add_module("norm", nn.BatchNorm2d(cin))
        self.add_module("relu", nn.ReLU(inplace=True))
        self.add_module("conv", nn.Conv2d(cin, cout, 1, bias=False))
        self.add_module("pool", nn.AvgPool2d(2, 2))


class DenseNet(nn.Module):
    """Dense blocks of ``block_config`` layers each adding ``growth_rate`` maps, from a
    7x7 stem of ``num_init_features``; logits ``(N, num_classes)``."""

    def __init__(
        self,
        growth_rate=32,
        block_config=(6, 12, 24, 16),
        num_init_features=64,
        bn_size=4,
        num_classes=1000,
    ):
        super().__init__()
        f = nn.Sequential()
        f.add_module("conv0", nn.Conv2d(3, num_init_features, 7, 2, 3, bias=False))
        f.add_module("norm0", nn.BatchNorm2d(num_init_features))
        f.add_module("relu0", nn.ReLU(inplace=True))
        f.add_module("pool0", nn.MaxPool2d(3, 2, 1))
        c = num_init_features
        for i, n in enumerate(block_config):
            block = nn.Sequential()
            for j in range(n):
                block.add_module(
                    f"denselayer{j + 1}", _DenseLayer(c + j * growth_rate, growth_rate, bn_size)
                )
            f.add_module(f"denseblock{i + 1}", block)
            c += n * growth_rate
            if i != len(block_config) - 1:
                f.add_module(f"transition{i + 1}", _Transition(c, c // 2))
                c //= 2
        f.add_module("norm5", nn.BatchNorm2d(c))
        self.features = f
        self.classifier = nn.Linear(c, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight)
            elif isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = nn.functional.adaptive_avg_pool2d(self.features(x).relu(), (1, 1))
        return self.classifier(x.flatten(1))


register_model(
    "mobilenet_v2",
    "image-classification",
    3_504_872,
    "Sandler et al. 2018, MobileNetV2: Inverted Residuals and Linear Bottlenecks",
)(MobileNetV2)
_HOWARD = "Howard et al. 2019, Searching for MobileNetV3"
register_model("mobilenet_v3_large", "image-classification", 5_483_032, _HOWARD)(
    lambda **kw: MobileNetV3("large", **kw)
)
register_model("mobilenet_v3_small", "image-classification", 2_542_856, _HOWARD)(
    lambda **kw: MobileNetV3("small", **kw)
)
register_model(
    "efficientnet_b0",
    "image-classification",
    5_288_548,
    "Tan and Le 2019, EfficientNet: Rethinking Model Scaling for Convolutional Neural Networks",
)(EfficientNet)
register_model(
    "densenet121",
    "image-classification",
    7_978_856,
    "Huang et al. 2017, Densely Connected Convolutional Networks",
)(DenseNet)
