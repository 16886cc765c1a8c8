r"""U-Net (Ronneberger et al., 2015, "U-Net: Convolutional Networks for Biomedical Image
Segmentation"): a contracting path of double convolutions and 2x2 max-pooling, an
expanding path of 2x2 transposed convolutions, each concatenated with the contracting
path's map of its resolution, and a 1x1 convolution to per-pixel class scores.

.. math:: D(x) = \mathrm{ReLU}(\mathrm{BN}(W_2 * \mathrm{ReLU}(\mathrm{BN}(W_1 * x)))),
          \quad e_0 = D(x), \quad e_{l+1} = D(\mathrm{MaxPool}_{2}(e_l)), \quad
          d_l = D([e_l;\ \mathrm{ConvT}_{2}(d_{l+1})]), \quad y = W_{1\times1} * d_0

In the widely used padded form: 3x3 convolutions with padding 1 (no bias, batch norm
after each) keep the size, so the output has the input's height and width; where a size
is odd the upsampled map is zero-padded to its skip's size. Widths double from
``base_width`` at each of the ``depth`` poolings (64 to 1024 in the paper).
"""

from __future__ import annotations

from .. import cat, nn
from ..errors import ArgumentError
from ..nn import functional as F
from .registry import register_model

__all__ = ["DoubleConv", "UNetUp", "UNet"]


class DoubleConv(nn.Sequential):
    """Two 3x3 convolutions (padding 1, no bias), each followed by batch norm and ReLU."""

    def __init__(self, cin, cout):
        super().__init__(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )


class UNetUp(nn.Module):
    """A 2x2 stride-2 transposed convolution halving the width, the skip concatenated
    (the upsampled map zero-padded to its size), a :class:`DoubleConv`."""

    def __init__(self, cin, cout):
        super().__init__()
        self.up = nn.ConvTranspose2d(cin, cin // 2, 2, stride=2)
        self.conv = DoubleConv(cin // 2 + cout, cout)

    def forward(self, x, skip):
        x = self.up(x)
        dh, dw = skip.shape[2] - x.shape[2], skip.shape[3] - x.shape[3]
        if dh or dw:
            x = F.pad(x, (dw // 2, dw - dw // 2, dh // 2, dh - dh // 2))
        return self.conv(cat([skip, x], 1))


class UNet(nn.Module):
    """Per-pixel logits ``(N, num_classes, H, W)`` of ``(N, in_channels, H, W)``, any
    ``H, W`` of at least :math:`2^{depth}`."""

    def __init__(self, in_channels=1, num_classes=2, base_width=64, depth=4):
        super().__init__()
        if depth < 1 or base_width < 1:
            raise ArgumentError(f"UNet: depth {depth} and base_width {base_width} must be >= 1")
        self.in_channels, self.depth = in_channels, depth
        widths = [base_width * 2**i for i in range(depth + 1)]
        self.inc = DoubleConv(in_channels, widths[0])
        self.downs = nn.ModuleList(DoubleConv(widths[i], widths[i + 1]) for i in range(depth))
        self.pool = nn.MaxPool2d(2)
        self.ups = nn.ModuleList(UNetUp(widths[i + 1], widths[i]) for i in reversed(range(depth)))
        self.head = nn.Conv2d(widths[0], num_classes, 1)

    def forward(self, x):
        k = 2**self.depth
        if x.ndim != 4 or x.shape[1] != self.in_channels:
            raise ArgumentError(
                f"UNet: expected images (N, {self.in_channels}, H, W), got {tuple(x.shape)}"
            )
        if x.shape[2] < k or x.shape[3] < k:
            raise ArgumentError(
                f"UNet: images of {x.shape[2]}x{x.shape[3]} are smaller than {k}x{k} "
                f"({self.depth} 2x2 poolings)"
            )
        skips = [self.inc(x)]
        for down in self.downs:
            skips.append(down(self.pool(skips[-1])))
        x = skips.pop()
        for up in self.ups:
            x = up(x, skips.pop())
        return self.head(x)


register_model(
    "unet",
    "segmentation",
    31_036_546,
    "Ronneberger et al. 2015, U-Net: Convolutional Networks for Biomedical Image Segmentation",
)(UNet)
