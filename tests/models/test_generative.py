"""The U-Net (lucid.models.unet): its declared parameter count against a count by formula,
odd sizes, a gradient check and a training step. The DDPM U-Net (lucid.models.diffusion)
and the VAE (lucid.models.vae) against diffusers' UNet2DModel and AutoencoderKL on the
same random weights, in their full registered configurations: outputs, the declared
parameter counts, one backward pass, checkpoint directories; the DDPM schedule against
diffusers' DDPMScheduler; errors."""

import numpy as np
import pytest

import lucid
import lucid.models as models
from lucid.errors import ArgumentError, NotSupportedError
from lucid.models import diffusion as ldm
from lucid.models import unet as lunet
from lucid.models import vae as lvae

from .parity import close, lucid_state

# -- U-Net (no reference library: the count by formula, shapes, gradients) -----------------


def _double_conv(cin, cout):  # two bias-free 3x3 convolutions, each with a BN (weight, bias)
    return 9 * cin * cout + 2 * cout + 9 * cout * cout + 2 * cout


def _unet_params(cin, classes, base, depth):
    w = [base * 2**i for i in range(depth + 1)]
    n = _double_conv(cin, w[0]) + sum(_double_conv(w[i], w[i + 1]) for i in range(depth))
    for i in range(depth):  # 2x2 transposed conv to half the width (with bias), then D
        half = w[i + 1] // 2
        n += 4 * w[i + 1] * half + half + _double_conv(half + w[i], w[i])
    return n + w[0] * classes + classes  # the 1x1 head


def test_unet_declared_parameter_count_is_the_formulas():
    entry = models.model_entry("unet")
    assert entry.task == "segmentation"
    assert entry.params == _unet_params(1, 2, 64, 4)
    assert sum(p.numel() for p in models.create_model("unet").parameters()) == entry.params
    small = models.create_model("unet", in_channels=3, num_classes=5, base_width=8, depth=3)
    assert sum(p.numel() for p in small.parameters()) == _unet_params(3, 5, 8, 3)


def test_unet_keeps_odd_sizes_and_names_bad_input():
    model = models.create_model("unet", in_channels=3, num_classes=5, base_width=4).eval()
    with lucid.no_grad():
        assert tuple(model(lucid.randn(2, 3, 37, 53)).shape) == (2, 5, 37, 53)
        assert tuple(model(lucid.randn(1, 3, 16, 16)).shape) == (1, 5, 16, 16)
    with pytest.raises(ArgumentError, match=r"UNet: images of 12x40 are smaller than 16x16"):
        model(lucid.randn(1, 3, 12, 40))
    with pytest.raises(ArgumentError, match=r"UNet: expected images \(N, 3, H, W\)"):
        model(lucid.randn(1, 1, 32, 32))


def test_unet_gradcheck_on_a_tiny_config():
    lucid.manual_seed(0)
    model = lunet.UNet(1, 2, base_width=2, depth=2).double()  # train mode: batch statistics
    x = lucid.randn(2, 1, 5, 6, dtype=lucid.float64, requires_grad=True)  # odd: the padding
    w = lucid.randn(2, 2, 5, 6, dtype=lucid.float64)
    assert lucid.autograd.gradcheck(lambda x: (model(x) * w).sum(), (x,))


def test_unet_training_steps_reduce_the_loss():
    lucid.manual_seed(1)
    model = lunet.UNet(1, 2, base_width=4, depth=2)
    x = lucid.randn(4, 1, 16, 16)
    y = (x[:, 0] > 0).long()  # segment the positive pixels
    opt = lucid.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(8):
        opt.zero_grad()
        loss = lucid.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(float(loss))
    assert losses[-1] < 0.7 * losses[0], losses


# -- DDPM and the VAE against diffusers ------------------------------------------------------

torch = pytest.importorskip("torch")
diffusers = pytest.importorskip("diffusers")


def _kw(cfg, **over):
    """A Lucid configuration as diffusers' constructor arguments."""
    d = {k: list(v) if isinstance(v, tuple) else v for k, v in vars(cfg).items()}
    return {**d, **over}


def _images(shape, seed=1):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.fixture(scope="module")
def ddpm_pair():
    torch.manual_seed(0)
    ref = diffusers.UNet2DModel(**_kw(ldm.UNet2DConfig())).eval()
    model = models.create_model("ddpm-cifar10").eval()
    model.load_state_dict(lucid_state(ref))
    return ref, model


def test_ddpm_matches_diffusers_in_the_full_configuration(ddpm_pair):
    ref, model = ddpm_pair
    x, t = _images((2, 3, 32, 32)), np.array([0, 999])
    with torch.no_grad():
        want = ref(torch.from_numpy(x), torch.from_numpy(t)).sample.numpy()
        want_scalar = ref(torch.from_numpy(x), 500).sample.numpy()
    with lucid.no_grad():
        got = model(lucid.from_numpy(x), lucid.from_numpy(t)).numpy()
        got_scalar = model(lucid.from_numpy(x), 500).numpy()
    close(got, want)
    close(got_scalar, want_scalar)


def test_ddpm_declared_parameter_count(ddpm_pair):
    ref, model = ddpm_pair
    entry = models.model_entry("ddpm-cifar10")
    assert entry.task == "generation"
    assert sum(p.numel() for p in ref.parameters()) == entry.params
    assert sum(p.numel() for p in model.parameters()) == entry.params
    names = {n for n, _ in model.named_parameters()}
    assert "down_blocks.1.attentions.0.to_q.weight" in names  # the 16x16 level's attention
    assert not any(n.startswith("down_blocks.0.attentions") for n in names)


SMALL_UNET = dict(
    block_out_channels=(16, 32, 32),
    down_block_types=("DownBlock2D", "AttnDownBlock2D", "DownBlock2D"),
    up_block_types=("UpBlock2D", "AttnUpBlock2D", "UpBlock2D"),
    layers_per_block=1,
    norm_num_groups=8,
    attention_head_dim=8,  # two heads of 16, four of 32
    sample_size=16,
)


def _small_ddpm(seed, **over):
    torch.manual_seed(seed)
    ref = diffusers.UNet2DModel(**_kw(ldm.UNet2DConfig(**SMALL_UNET), **over))
    model = ldm.UNet2DModel(ldm.UNet2DConfig.from_dict(ref.config))
    model.load_state_dict(lucid_state(ref))
    return ref, model


def test_ddpm_one_backward_pass_matches_diffusers():
    ref, model = _small_ddpm(2, resnet_time_scale_shift="scale_shift", flip_sin_to_cos=True)
    x, noise, t = _images((2, 3, 16, 16), 3), _images((2, 3, 16, 16), 4), np.array([7, 420])
    out = ref(torch.from_numpy(x), torch.from_numpy(t)).sample
    torch.nn.functional.mse_loss(out, torch.from_numpy(noise)).backward()
    got = model(lucid.from_numpy(x), lucid.from_numpy(t))
    lucid.nn.functional.mse_loss(got, lucid.from_numpy(noise)).backward()
    close(got.detach().numpy(), out.detach().numpy())
    want = dict(ref.named_parameters())
    scale = max(float(p.grad.abs().max()) for p in want.values())
    mine = dict(model.named_parameters())
    assert set(mine) == set(want)
    for name in (
        "conv_in.weight",
        "time_embedding.linear_1.weight",
        "down_blocks.1.attentions.0.to_q.weight",
        "down_blocks.1.attentions.0.to_v.bias",
        "mid_block.resnets.0.time_emb_proj.weight",
        "up_blocks.1.attentions.1.group_norm.weight",
        "up_blocks.2.resnets.1.conv_shortcut.weight",
        "conv_out.bias",
    ):
        close(mine[name].grad.numpy(), want[name].grad.numpy(), rtol=2e-4, floor=1e-3 * scale)


def test_ddpm_checkpoint_directory_and_older_attention_names(tmp_path):
    ref, _ = _small_ddpm(5)
    ref.save_pretrained(tmp_path / "unet")
    model = ldm.from_pretrained(str(tmp_path), subfolder="unet").eval()
    x = _images((1, 3, 16, 16), 6)
    with torch.no_grad():
        want = ref.eval()(torch.from_numpy(x), 10).sample.numpy()
    with lucid.no_grad():
        close(model(lucid.from_numpy(x), 10).numpy(), want)
    old = {
        k.replace(".to_q.", ".query.").replace(".to_out.0.", ".proj_attn."): v
        for k, v in lucid_state(ref).items()
    }
    assert "mid_block.attentions.0.proj_attn.weight" in old
    assert ldm.convert_diffusers_state_dict(old).keys() == lucid_state(ref).keys()


@pytest.mark.parametrize("variance_type", ["fixed_small", "fixed_large"])
def test_ddpm_schedule_matches_diffusers_scheduler(variance_type):
    ref = diffusers.DDPMScheduler(variance_type=variance_type)  # linear 1e-4..0.02, 1000
    mine = ldm.DDPMSchedule(variance_type=variance_type)
    close(mine.alphas_cumprod.numpy(), ref.alphas_cumprod.numpy(), rtol=1e-6)
    x0, eps = _images((3, 3, 8, 8), 7), _images((3, 3, 8, 8), 8)
    t = np.array([0, 500, 999])
    want = ref.add_noise(torch.from_numpy(x0), torch.from_numpy(eps), torch.from_numpy(t))
    got = mine.add_noise(lucid.from_numpy(x0), lucid.from_numpy(eps), lucid.from_numpy(t))
    close(got.numpy(), want.numpy())
    x_t = 3 * x0  # an x_0 estimate outside [-1, 1]: the clipping counts
    for step in (999, 500, 1, 0):
        gen = torch.Generator().manual_seed(step)
        want = ref.step(torch.from_numpy(eps), step, torch.from_numpy(x_t), generator=gen)
        z = torch.randn(x_t.shape, generator=torch.Generator().manual_seed(step)).numpy()
        got = mine.step(
            lucid.from_numpy(eps), step, lucid.from_numpy(x_t), noise=lucid.from_numpy(z)
        )
        close(got.numpy(), want.prev_sample.numpy())


def test_ddpm_names_bad_input():
    model = ldm.UNet2DModel(**SMALL_UNET)
    with pytest.raises(ArgumentError, match="multiples of 4, got 18x16"):
        model(lucid.randn(1, 3, 18, 16), 3)
    with pytest.raises(
        ArgumentError, match=r"expected samples \(N, 3, H, W\), got \(1, 1, 16, 16\)"
    ):
        model(lucid.randn(1, 1, 16, 16), 3)
    with pytest.raises(ArgumentError, match=r"timestep of shape \(3,\) for 2 samples"):
        model(lucid.randn(2, 3, 16, 16), lucid.tensor([1, 2, 3]))
    with pytest.raises(NotSupportedError, match="time_embedding_type='fourier'"):
        ldm.UNet2DModel(**SMALL_UNET, time_embedding_type="fourier")
    with pytest.raises(ArgumentError, match="unknown configuration key 'n_layer'"):
        models.create_model("ddpm-cifar10", n_layer=2)
    with pytest.raises(ArgumentError, match="timestep 1000 outside"):
        ldm.DDPMSchedule().step(lucid.zeros(1), 1000, lucid.zeros(1))


@pytest.fixture(scope="module")
def vae_pair():
    torch.manual_seed(0)
    ref = diffusers.AutoencoderKL(**_kw(lvae.AutoencoderKLConfig())).eval()
    model = models.create_model("vae-kl-f8").eval()
    model.load_state_dict(lucid_state(ref))
    return ref, model


def test_vae_matches_diffusers_in_the_full_configuration(vae_pair):
    ref, model = vae_pair
    x = _images((1, 3, 32, 32), 9)
    with torch.no_grad():
        post = ref.encode(torch.from_numpy(x)).latent_dist
        want = ref.decode(post.mode()).sample.numpy()
    with lucid.no_grad():
        mine = model.encode(lucid.from_numpy(x))
        close(mine.parameters.numpy(), post.parameters.numpy())
        assert tuple(mine.mode().shape) == (1, 4, 4, 4)
        close(model.decode(mine.mode()).numpy(), want)
        close(model(lucid.from_numpy(x)).numpy(), want)


def test_vae_declared_parameter_count(vae_pair):
    ref, model = vae_pair
    entry = models.model_entry("vae-kl-f8")
    assert entry.task == "generation"
    assert sum(p.numel() for p in ref.parameters()) == entry.params
    assert sum(p.numel() for p in model.parameters()) == entry.params


SMALL_VAE = dict(
    block_out_channels=(16, 32),
    down_block_types=("DownEncoderBlock2D",) * 2,
    up_block_types=("UpDecoderBlock2D",) * 2,
    layers_per_block=1,
    norm_num_groups=8,
    latent_channels=3,
)


def test_vae_posterior_matches_diffusers_and_samples_from_its_generator(tmp_path):
    torch.manual_seed(10)
    ref = diffusers.AutoencoderKL(**_kw(lvae.AutoencoderKLConfig(**SMALL_VAE))).eval()
    ref.save_pretrained(tmp_path)
    model = lvae.from_pretrained(str(tmp_path)).eval()
    x, y = _images((2, 3, 16, 16), 11), _images((2, 3, 16, 16), 12)
    with torch.no_grad():
        px, py = (ref.encode(torch.from_numpy(a)).latent_dist for a in (x, y))
    with lucid.no_grad():
        qx, qy = (model.encode(lucid.from_numpy(a)) for a in (x, y))
    close(qx.mean.numpy(), px.mean.numpy())
    close(qx.std.numpy(), px.std.numpy())
    close(qx.kl().numpy(), px.kl().numpy())
    close(qx.kl(qy).numpy(), px.kl(py).numpy())
    close(qx.nll(qy.mean).numpy(), px.nll(py.mean).numpy())
    gen = lucid.Generator().manual_seed(3)
    eps = lucid.randn(*qx.mean.shape, generator=lucid.Generator().manual_seed(3))
    close(qx.sample(gen).numpy(), (qx.mean + qx.std * eps).numpy())
    with pytest.raises(ArgumentError, match=r"expected latents \(N, 3, H, W\), got \(1, 4, 2, 2\)"):
        model.decode(lucid.zeros(1, 4, 2, 2))
    with pytest.raises(NotSupportedError, match="AttnDownEncoderBlock2D"):
        lvae.AutoencoderKL(**{**SMALL_VAE, "down_block_types": ("AttnDownEncoderBlock2D",) * 2})
