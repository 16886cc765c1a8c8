"""The image classifiers of lucid.models: each configuration's declared parameter count
(torchvision's published one) against the built model, logits of a small batch, and,
where torchvision is installed, logits and gradients against torchvision's model on the
same weights (the CPU test environment has no torchvision build for its torch; the GPU
machine has one)."""

import numpy as np
import pytest

import lucid
import lucid.models as models

from .parity import lucid_state

IMAGE = models.list_models(task="image-classification")
TORCHVISION = [
    "alexnet",
    "vgg11_bn",
    "resnet18",
    "resnet50",
    "resnext50_32x4d",
    "mobilenet_v2",
    "mobilenet_v3_small",
    "efficientnet_b0",
    "densenet121",
    "convnext_tiny",
    "regnet_y_400mf",
    "swin_t",
]


@pytest.mark.parametrize("name", IMAGE)
def test_declared_parameter_count(name):
    model = models.create_model(name)
    assert sum(p.numel() for p in model.parameters()) == models.model_entry(name).params


@pytest.mark.parametrize(
    "name",
    [
        "lenet5",
        "mobilenet_v2",
        "densenet121",
        "resnet18",
        "convnext_tiny",
        "regnet_y_400mf",
        "swin_t",
    ],
)
def test_logits_of_a_small_batch(name):
    size, ch = (32, 1) if name == "lenet5" else (64, 3)
    model = models.create_model(name, num_classes=7).eval()
    with lucid.no_grad():
        out = model(lucid.randn(2, ch, size, size))
    assert tuple(out.shape) == (2, 7) and bool(out.isfinite().all())


def _torchvision():
    try:
        import torch
        import torchvision
    except Exception:  # noqa: BLE001 (absent, or a build for another torch: skip)
        pytest.skip("torchvision is not importable here")
    return torch, torchvision


@pytest.mark.parametrize("name", TORCHVISION)
def test_logits_and_gradients_match_torchvision(name):
    torch, tv = _torchvision()
    torch.manual_seed(0)
    ref = getattr(tv.models, name)(num_classes=7)
    model = models.create_model(name, num_classes=7)
    model.load_state_dict(lucid_state(ref))
    x = np.random.default_rng(1).standard_normal((2, 3, 96, 96)).astype(np.float32)
    ref.eval(), model.eval()
    with torch.no_grad():
        want = ref(torch.from_numpy(x)).numpy()
    got = model(lucid.from_numpy(x)).detach().numpy()
    assert np.abs(got - want).max() <= 1e-4 * np.abs(want).max()
    # One training step's gradients, in float64: with batch statistics over two samples a
    # deep net's backward is too ill-conditioned for float32 to agree with itself (Lucid's
    # own float32 and float64 gradients of ResNet-50's conv1 differ by 1%). Train mode
    # without the random layers (dropout, stochastic depth).
    ref.double().train(), model.double().train()
    for mod in list(ref.modules()) + list(model.modules()):
        if type(mod).__name__ in ("Dropout", "StochasticDepth"):
            mod.p = 0.0
    x = x.astype(np.float64)
    ref(torch.from_numpy(x)).square().sum().backward()
    model(lucid.from_numpy(x)).square().sum().backward()
    want_g = dict(ref.named_parameters())
    scale = max(float(p.grad.abs().max()) for p in want_g.values())
    for k, p in model.named_parameters():
        w = want_g[k].grad.numpy()
        assert np.abs(p.grad.numpy() - w).max() <= 1e-7 * max(np.abs(w).max(), 1e-3 * scale), k


def test_stochastic_depth_drops_whole_samples_in_training_only():
    sd = models.convnext.StochasticDepth(0.5)
    x = lucid.ones(400, 3, 2, 2)
    lucid.manual_seed(0)
    y = sd(x).numpy()
    per = y.reshape(400, -1)
    assert set(np.unique(per)) <= {0.0, 2.0} and (per == per[:, :1]).all()
    assert 0.35 < (per[:, 0] == 0).mean() < 0.65
    sd.eval()
    np.testing.assert_array_equal(sd(x).numpy(), x.numpy())


def test_regnet_widths_follow_the_quantised_linear_rule():
    # RegNet-Y-400MF's stages as the paper's rule gives them (torchvision's too)
    assert models.regnet.block_params(16, 48, 27.89, 2.09, 8) == [
        (48, 1, 8),
        (104, 3, 8),
        (208, 6, 8),
        (440, 6, 8),
    ]


def test_swin_relative_position_index_is_the_offsets_row():
    m = 7
    idx = models.swin._relative_index([m, m]).numpy().reshape(m * m, m * m)
    for a in range(m * m):
        for b in range(m * m):
            dy, dx = a // m - b // m, a % m - b % m
            assert idx[a, b] == (dy + m - 1) * (2 * m - 1) + dx + m - 1


def test_unshifted_window_attention_is_attention_with_the_position_bias():
    lucid.manual_seed(0)
    attn = models.swin.ShiftedWindowAttention(12, [4, 4], [0, 0], 3).eval()
    x = lucid.randn(2, 4, 4, 12)  # one window: no padding, no shift
    with lucid.no_grad():
        got = attn(x).numpy()
        q, k, v = attn.qkv(x.reshape(2, 16, 12)).reshape(2, 16, 3, 3, 4).permute(2, 0, 3, 1, 4)
        bias = attn.relative_position_bias_table[attn.relative_position_index]
        bias = bias.view(16, 16, 3).permute(2, 0, 1)
        y = lucid.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        want = attn.proj(y.transpose(1, 2).reshape(2, 16, 12)).reshape(2, 4, 4, 12).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_shifted_windows_keep_rolled_regions_apart():
    """With the shift, a position's output must not depend on a position that the roll
    brought into its window from the far side of the map."""
    lucid.manual_seed(1)
    attn = models.swin.ShiftedWindowAttention(8, [4, 4], [2, 2], 2).eval()
    x = lucid.randn(1, 8, 8, 8)
    y = x.clone()
    y[0, 0, 0] += 5.0  # top-left corner: after the roll it shares a window with (6..7, 6..7)
    with lucid.no_grad():
        a, b = attn(x).numpy(), attn(y).numpy()
    np.testing.assert_allclose(a[0, 6:, 6:], b[0, 6:, 6:], rtol=1e-5, atol=1e-6)
    assert np.abs(a[0, 0, 0] - b[0, 0, 0]).max() > 1e-3
