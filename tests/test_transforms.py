"""lucid.transforms against references no one here wrote: PyTorch's antialiased
interpolate (torchvision's tensor Resize), Python's colorsys (the hue rotation), and the
documented formulas of torchvision's transforms (crop offsets, padding, the resized-crop
draw's bounds, blending)."""

import colorsys

import numpy as np
import pytest

import lucid
import lucid.transforms as T
from lucid.errors import ArgumentError

torch = pytest.importorskip("torch")


def _img(c=3, h=37, w=52, seed=0):
    return np.random.default_rng(seed).random((c, h, w)).astype(np.float32)


def test_to_tensor_scales_uint8_and_moves_channels_first():
    a = np.random.default_rng(1).integers(0, 256, (5, 7, 3)).astype(np.uint8)
    t = T.ToTensor()(a)
    assert t.dtype is lucid.float32 and tuple(t.shape) == (3, 5, 7)
    np.testing.assert_allclose(t.numpy(), a.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    assert tuple(T.ToTensor()(a[..., 0]).shape) == (1, 5, 7)


@pytest.mark.parametrize("size", [20, (17, 90), 64])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_resize_matches_torch_antialiased_interpolate(size, mode):
    x = _img()
    got = T.Resize(size, interpolation=mode)(lucid.from_numpy(x)).numpy()
    if isinstance(size, int):  # the shorter side (37) becomes size, 52 scales alike
        hw = (size, int(size * 52 / 37))
    else:
        hw = size
    want = torch.nn.functional.interpolate(
        torch.from_numpy(x)[None], size=hw, mode=mode, align_corners=False, antialias=True
    )[0].numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=2e-5)


def test_resize_max_size_caps_the_longer_side():
    x = lucid.from_numpy(_img(h=20, w=80))
    assert tuple(T.Resize(40, max_size=100)(x).shape) == (3, 25, 100)


def test_center_crop_offsets_and_padding():
    x = _img(h=9, w=10)
    got = T.CenterCrop((4, 5))(lucid.from_numpy(x)).numpy()
    np.testing.assert_array_equal(got, x[:, 2:6, 2:7])  # round(2.5) = 2, round(2.5) = 2
    big = T.CenterCrop((12, 11))(lucid.from_numpy(x)).numpy()
    want = np.zeros((3, 12, 11), np.float32)
    want[:, 1:10, 0:10] = x  # (3 rows: 1 above, 2 below; 1 column: after)
    np.testing.assert_array_equal(big, want)


def test_random_resized_crop_draws_within_bounds_and_is_seeded():
    t = T.RandomResizedCrop(16, scale=(0.2, 0.9))
    for seed in range(20):
        lucid.manual_seed(seed)
        top, left, h, w = t.params(37, 52)
        assert 0 <= top and top + h <= 37 and 0 <= left and left + w <= 52
        assert 0.2 * 37 * 52 * 0.8 <= h * w <= 0.9 * 37 * 52 * 1.2  # (rounding)
    x = lucid.from_numpy(_img())
    lucid.manual_seed(3)
    a = t(x).numpy()
    lucid.manual_seed(3)
    np.testing.assert_array_equal(a, t(x).numpy())
    assert a.shape == (3, 16, 16)
    # an impossible area falls back to the central window of the clamped aspect
    assert T.RandomResizedCrop(8, scale=(5.0, 6.0)).params(10, 40) == (0, 13, 10, 13)


def test_flips():
    x = lucid.from_numpy(_img())
    np.testing.assert_array_equal(T.RandomHorizontalFlip(1.0)(x).numpy(), x.numpy()[..., ::-1])
    np.testing.assert_array_equal(T.RandomVerticalFlip(1.0)(x).numpy(), x.numpy()[:, ::-1])
    np.testing.assert_array_equal(T.RandomHorizontalFlip(0.0)(x).numpy(), x.numpy())


def test_color_jitter_factors_follow_torchvision_formulas():
    x = _img(h=6, w=5)
    t = lucid.from_numpy(x)
    np.testing.assert_allclose(
        T.ColorJitter(brightness=(1.5, 1.5))(t).numpy(), np.clip(1.5 * x, 0, 1), rtol=1e-6
    )
    gray = 0.2989 * x[0] + 0.587 * x[1] + 0.114 * x[2]
    np.testing.assert_allclose(
        T.ColorJitter(contrast=(0.5, 0.5))(t).numpy(),
        np.clip(0.5 * x + 0.5 * gray.mean(), 0, 1),
        rtol=1e-5,
    )
    np.testing.assert_allclose(
        T.ColorJitter(saturation=(0.0, 0.0))(t).numpy(), np.broadcast_to(gray, x.shape), rtol=1e-5
    )


def test_hue_rotation_matches_colorsys():
    x = _img(h=4, w=6, seed=5)
    got = T.ColorJitter(hue=(0.2, 0.2))(lucid.from_numpy(x)).numpy()
    want = np.empty_like(x)
    for i in range(4):
        for j in range(6):
            h, s, v = colorsys.rgb_to_hsv(*x[:, i, j])
            want[:, i, j] = colorsys.hsv_to_rgb((h + 0.2) % 1.0, s, v)
    np.testing.assert_allclose(got, want, atol=1e-5)


def test_normalize_compose_and_errors():
    x = _img()
    pipe = T.Compose([T.CenterCrop(32), T.Normalize([0.5, 0.4, 0.3], [0.2, 0.25, 0.5])])
    got = pipe(lucid.from_numpy(x)).numpy()
    crop = x[:, 2:34, 10:42]
    want = (crop - np.array([0.5, 0.4, 0.3])[:, None, None]) / np.array([0.2, 0.25, 0.5])[
        :, None, None
    ]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ArgumentError, match="std must not contain zeros"):
        T.Normalize([0.0], [0.0])
    with pytest.raises(ArgumentError, match="2 means for 3 channels"):
        T.Normalize([0.0, 0.0], [1.0, 1.0])(lucid.from_numpy(x))
    with pytest.raises(ArgumentError, match="hue must lie"):
        T.ColorJitter(hue=(0.0, 0.7))
    with pytest.raises(ArgumentError, match=r"expected a \(\.\.\., C, H, W\)"):
        T.CenterCrop(2)(lucid.ones(4, 4))
