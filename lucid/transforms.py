r"""``lucid.transforms``: the image preprocessing of torchvision's ``transforms.v2``, on
Lucid tensors of shape ``(..., C, H, W)``.

:class:`ToTensor` turns an ``(H, W, C)`` uint8 image (a NumPy array, or a PIL image where
Pillow is installed) into a float tensor in :math:`[0, 1]`; the geometric transforms
(:class:`Resize`, :class:`CenterCrop`, :class:`RandomResizedCrop`, the flips) and
:class:`ColorJitter` then work on float tensors, and :class:`Normalize` maps each channel
to :math:`(x - \mu_c) / \sigma_c`. Resizing is :func:`lucid.nn.functional.interpolate`
(bilinear or bicubic, antialiased when shrinking, as torchvision's tensor path). The random
transforms draw from Lucid's default generator, so ``lucid.manual_seed`` fixes them.
"""

from __future__ import annotations

import math

from . import as_tensor, cat, float32, rand, randint, randperm, stack, tensor
from .errors import ArgumentError
from .nn import functional as F

__all__ = [
    "Compose",
    "ToTensor",
    "Resize",
    "CenterCrop",
    "RandomResizedCrop",
    "RandomHorizontalFlip",
    "RandomVerticalFlip",
    "ColorJitter",
    "Normalize",
]


class Compose:
    """The transforms in turn."""

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x

    def __repr__(self):
        inner = "".join(f"\n    {t!r}" for t in self.transforms)
        return f"Compose({inner}\n)"


class ToTensor:
    """An ``(H, W, C)`` or ``(H, W)`` uint8 image (NumPy array, PIL image, Lucid tensor) as
    a float32 ``(C, H, W)`` tensor divided by 255; a float image is only transposed."""

    def __call__(self, img):
        t = as_tensor(img)
        if t.ndim == 2:
            t = t[:, :, None]
        if t.ndim != 3:
            raise ArgumentError(
                f"ToTensor: expected an (H, W, C) image, got shape {tuple(t.shape)}"
            )
        t = t.permute(2, 0, 1)
        return t.to(float32) / 255.0 if not t.is_floating_point() else t.to(float32)

    def __repr__(self):
        return "ToTensor()"


def _hw(x, who):
    if x.ndim < 3:
        raise ArgumentError(f"{who}: expected a (..., C, H, W) tensor, got shape {tuple(x.shape)}")
    return x.shape[-2], x.shape[-1]


def _pair(size, who):
    if isinstance(size, int):
        return size, size
    if len(size) == 1:
        return size[0], size[0]
    if len(size) != 2:
        raise ArgumentError(f"{who}: size must be an int or (h, w), got {size!r}")
    return tuple(size)


def _resize(x, hw, interpolation, antialias):
    """``x`` resized to ``hw`` by ``interpolate`` over its last two dims."""
    lead = x.shape[:-3]
    x4 = x.reshape(-1, *x.shape[-3:])
    out = F.interpolate(x4, size=hw, mode=interpolation, align_corners=False, antialias=antialias)
    return out.reshape(*lead, *out.shape[-3:])


class Resize:
    """To ``size``: ``(h, w)``, or an int that the shorter side becomes (the longer one
    scaled alike, truncated; capped by ``max_size``), as torchvision's."""

    def __init__(self, size, interpolation="bilinear", max_size=None, antialias=True):
        if interpolation not in ("bilinear", "bicubic", "nearest"):
            raise ArgumentError(
                f"Resize: interpolation {interpolation!r}; expected bilinear, bicubic or nearest"
            )
        self.size, self.interpolation = size, interpolation
        self.max_size, self.antialias = max_size, antialias

    def _target(self, h, w):
        size = self.size
        if not isinstance(size, int) and len(size) == 2:
            return tuple(size)
        s = size if isinstance(size, int) else size[0]
        short, long = (h, w) if h <= w else (w, h)
        new_short, new_long = s, int(s * long / short)
        if self.max_size is not None and new_long > self.max_size:
            new_short, new_long = int(self.max_size * new_short / new_long), self.max_size
        return (new_short, new_long) if h <= w else (new_long, new_short)

    def __call__(self, x):
        h, w = _hw(x, "Resize")
        hw = self._target(h, w)
        if hw == (h, w):
            return x
        aa = self.antialias and self.interpolation != "nearest"
        return _resize(x, hw, self.interpolation, aa)

    def __repr__(self):
        return f"Resize(size={self.size}, interpolation={self.interpolation})"


class CenterCrop:
    """The central ``size`` window; an image smaller than it is first padded with zeros
    (half each side, the odd row or column after), as torchvision's."""

    def __init__(self, size):
        self.size = _pair(size, "CenterCrop")

    def __call__(self, x):
        H, W = _hw(x, "CenterCrop")
        h, w = self.size
        if h > H or w > W:
            dh, dw = max(h - H, 0), max(w - W, 0)
            x = F.pad(x, (dw // 2, (dw + 1) // 2, dh // 2, (dh + 1) // 2))
            H, W = x.shape[-2], x.shape[-1]
        top, left = int(round((H - h) / 2.0)), int(round((W - w) / 2.0))
        return x[..., top : top + h, left : left + w]

    def __repr__(self):
        return f"CenterCrop(size={self.size})"


class RandomResizedCrop:
    """A random window of area ``scale`` (fractions of the image's) and aspect ``ratio``
    (log-uniform), resized to ``size``: torchvision's draw, ten tries, then the central
    window of the aspect clamped into ``ratio``."""

    def __init__(
        self,
        size,
        scale=(0.08, 1.0),
        ratio=(3 / 4, 4 / 3),
        interpolation="bilinear",
        antialias=True,
    ):
        self.size, self.scale, self.ratio = _pair(size, "RandomResizedCrop"), scale, ratio
        self.interpolation, self.antialias = interpolation, antialias

    def params(self, H, W):
        """``(top, left, h, w)`` of the window."""
        area = H * W
        lo, hi = math.log(self.ratio[0]), math.log(self.ratio[1])
        for _ in range(10):
            target = area * (self.scale[0] + float(rand(())) * (self.scale[1] - self.scale[0]))
            aspect = math.exp(lo + float(rand(())) * (hi - lo))
            w = int(round(math.sqrt(target * aspect)))
            h = int(round(math.sqrt(target / aspect)))
            if 0 < w <= W and 0 < h <= H:
                top = int(randint(0, H - h + 1, ()))
                left = int(randint(0, W - w + 1, ()))
                return top, left, h, w
        aspect = W / H
        if aspect < min(self.ratio):
            w, h = W, int(round(W / min(self.ratio)))
        elif aspect > max(self.ratio):
            h, w = H, int(round(H * max(self.ratio)))
        else:
            w, h = W, H
        return (H - h) // 2, (W - w) // 2, h, w

    def __call__(self, x):
        H, W = _hw(x, "RandomResizedCrop")
        top, left, h, w = self.params(H, W)
        window = x[..., top : top + h, left : left + w]
        return _resize(window, self.size, self.interpolation, self.antialias)

    def __repr__(self):
        return f"RandomResizedCrop(size={self.size}, scale={self.scale}, ratio={self.ratio})"


class _RandomFlip:
    dim = -1

    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, x):
        _hw(x, type(self).__name__)
        return x.flip(self.dim) if float(rand(())) < self.p else x

    def __repr__(self):
        return f"{type(self).__name__}(p={self.p})"


class RandomHorizontalFlip(_RandomFlip):
    """Mirrored left to right with probability ``p``."""

    dim = -1


class RandomVerticalFlip(_RandomFlip):
    """Mirrored top to bottom with probability ``p``."""

    dim = -2


def _gray(x):
    """ITU-R 601 luma of an RGB ``(..., 3, H, W)`` image, keeping the channel dim."""
    r, g, b = x[..., 0, :, :], x[..., 1, :, :], x[..., 2, :, :]
    return (0.2989 * r + 0.587 * g + 0.114 * b)[..., None, :, :]


def _blend(a, b, ratio):
    return (ratio * a + (1.0 - ratio) * b).clamp(0.0, 1.0)


def _rgb_to_hsv(x):
    r, g, b = x[..., 0, :, :], x[..., 1, :, :], x[..., 2, :, :]
    mx, mn = x.amax(-3), x.amin(-3)
    c = mx - mn
    same = c == 0
    s = c / mx.where(mx != 0, tensor(1.0))
    cd = c.where(~same, tensor(1.0))
    rc, gc, bc = (mx - r) / cd, (mx - g) / cd, (mx - b) / cd
    h = (
        (mx == r).to(x.dtype) * (bc - gc)
        + ((mx == g) & (mx != r)).to(x.dtype) * (2.0 + rc - bc)
        + ((mx != g) & (mx != r)).to(x.dtype) * (4.0 + gc - rc)
    )
    h = ((h / 6.0) + 1.0).remainder(1.0)
    return stack([h, s, mx], -3)


def _hsv_to_rgb(x):
    h, s, v = x[..., 0, :, :], x[..., 1, :, :], x[..., 2, :, :]
    i = (h * 6.0).floor()
    f = h * 6.0 - i
    i = i.remainder(6.0)
    p, q, t = ((v * (1.0 - a)).clamp(0.0, 1.0) for a in (s, s * f, s * (1.0 - f)))
    table = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = [0.0 * v, 0.0 * v, 0.0 * v]
    for k, rgb in enumerate(table):
        m = (i == k).to(x.dtype)
        out = [o + m * c for o, c in zip(out, rgb)]
    return stack(out, -3)


def _range(v, who, center=1.0, bound=(0.0, float("inf"))):
    """A jitter amount as its ``(lo, hi)``: ``v`` gives ``(center - v, center + v)``
    clipped to ``bound``; a pair is taken as it is."""
    if v is None:
        return None
    if isinstance(v, (int, float)):
        if v < 0:
            raise ArgumentError(f"ColorJitter: {who} must be non-negative, got {v}")
        lo, hi = max(center - v, bound[0]), min(center + v, bound[1])
    else:
        lo, hi = v
    return None if lo == hi == center else (float(lo), float(hi))


class ColorJitter:
    """Brightness, contrast, saturation and hue, each scaled by a factor drawn uniformly
    in its range, in a random order (torchvision's): brightness blends with black,
    contrast with the mean gray level, saturation with the gray image, hue rotates in HSV
    (its range within :math:`[-0.5, 0.5]`). On float RGB images in :math:`[0, 1]`."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        self.brightness = _range(brightness, "brightness")
        self.contrast = _range(contrast, "contrast")
        self.saturation = _range(saturation, "saturation")
        self.hue = _range(hue, "hue", center=0.0, bound=(-0.5, 0.5))
        if self.hue is not None and not (-0.5 <= self.hue[0] <= self.hue[1] <= 0.5):
            raise ArgumentError(f"ColorJitter: hue must lie in [-0.5, 0.5], got {hue!r}")

    def __call__(self, x):
        _hw(x, "ColorJitter")
        for k in randperm(4).tolist():
            rng = (self.brightness, self.contrast, self.saturation, self.hue)[k]
            if rng is None:
                continue
            f = rng[0] + float(rand(())) * (rng[1] - rng[0])
            if k == 0:
                x = _blend(x, 0.0 * x, f)
            elif k == 1:
                x = _blend(x, _gray(x).mean((-3, -2, -1), keepdim=True), f)
            elif k == 2:
                x = _blend(x, _gray(x), f)
            else:
                hsv = _rgb_to_hsv(x)
                h = (hsv[..., 0:1, :, :] + f).remainder(1.0)
                x = _hsv_to_rgb(cat([h, hsv[..., 1:, :, :]], -3))
        return x

    def __repr__(self):
        return (
            f"ColorJitter(brightness={self.brightness}, contrast={self.contrast}, "
            f"saturation={self.saturation}, hue={self.hue})"
        )


class Normalize:
    r"""Each channel :math:`c` as :math:`(x_c - \mu_c) / \sigma_c`."""

    def __init__(self, mean, std):
        if any(s == 0 for s in std):
            raise ArgumentError(f"Normalize: std must not contain zeros, got {std!r}")
        self.mean, self.std = list(mean), list(std)

    def __call__(self, x):
        _hw(x, "Normalize")
        if x.shape[-3] != len(self.mean):
            raise ArgumentError(f"Normalize: {len(self.mean)} means for {x.shape[-3]} channels")
        m = tensor(self.mean, dtype=x.dtype, device=x.device)[:, None, None]
        s = tensor(self.std, dtype=x.dtype, device=x.device)[:, None, None]
        return (x - m) / s

    def __repr__(self):
        return f"Normalize(mean={self.mean}, std={self.std})"
