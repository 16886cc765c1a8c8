r"""The variational autoencoder (Kingma and Welling, 2014, "Auto-Encoding Variational
Bayes") in the form of Stable Diffusion's first stage (Rombach et al., 2022): a
convolutional encoder to a diagonal Gaussian posterior :math:`q(z \mid x)` over a latent
downsampled by 8, and a decoder back.

.. math:: q(z \mid x) = \mathcal N(\mu(x), \mathrm{diag}\,\sigma^2(x)), \quad
          z = \mu + \sigma \odot \epsilon, \quad \hat x = D(z), \quad
          \mathrm{KL}(q \,\|\, \mathcal N(0, I)) = \tfrac12 \sum
          (\mu^2 + \sigma^2 - 1 - \log \sigma^2)

The encoder is levels of residual blocks (group norm, SiLU, 3x3 convolutions; the blocks
of :mod:`.diffusion` without a time embedding) with strided convolutions between them, a
middle of residual block, single-head self-attention and residual block, and a 3x3
convolution to :math:`(\mu, \log\sigma^2)`, then a 1x1 ``quant_conv``; the decoder
mirrors it (``post_quant_conv``, middle, levels of one more residual block each with
nearest upsampling between them). :math:`\log\sigma^2` is clamped to ``[-30, 20]``.

Module names follow diffusers' ``AutoencoderKL`` (``encoder.down_blocks.0.resnets.0.conv1``,
``decoder.mid_block.attentions.0.to_q``, ...), so its state dicts load as they are
(older attention names through :func:`convert_diffusers_state_dict`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import nn, randn
from ..errors import ArgumentError, NotSupportedError
from .config import ModelConfig
from .diffusion import (
    check_levels,
    AttentionBlock,
    Downsample2D,
    DownBlock2D,
    ResnetBlock2D,
    UNetMidBlock2D,
    Upsample2D,
    UpBlock2D,
    convert_diffusers_state_dict,
    read_diffusers_checkpoint,
)
from .registry import register_model

__all__ = [
    "AutoencoderKLConfig",
    "DiagonalGaussianDistribution",
    "Encoder",
    "Decoder",
    "AutoencoderKL",
    "convert_diffusers_state_dict",
    "from_pretrained",
]

_EPS = 1e-6  # every norm of the VAE


@dataclass
class AutoencoderKLConfig(ModelConfig):
    """The hyperparameters, under diffusers' ``config.json`` names; the defaults are
    Stable Diffusion's VAE (``stabilityai/sd-vae-ft-mse``)."""

    in_channels: int = 3
    out_channels: int = 3
    down_block_types: tuple = ("DownEncoderBlock2D",) * 4
    up_block_types: tuple = ("UpDecoderBlock2D",) * 4
    block_out_channels: tuple = (128, 256, 512, 512)
    layers_per_block: int = 2
    act_fn: str = "silu"
    latent_channels: int = 4
    norm_num_groups: int = 32
    sample_size: int = 256
    scaling_factor: float = 0.18215  # z is scaled by it before the diffusion model
    use_quant_conv: bool = True
    use_post_quant_conv: bool = True
    mid_block_add_attention: bool = True


class DiagonalGaussianDistribution:
    """The posterior of ``parameters`` ``(N, 2 c, h, w)``: the mean, then the log-variance
    (clamped to ``[-30, 20]``), along the channels."""

    def __init__(self, parameters):
        self.parameters = parameters
        self.mean, logvar = parameters.chunk(2, 1)
        self.logvar = logvar.clamp(-30.0, 20.0)
        self.std = (0.5 * self.logvar).exp()
        self.var = self.logvar.exp()

    def sample(self, generator=None):
        """:math:`\\mu + \\sigma \\odot \\epsilon`, :math:`\\epsilon` drawn from
        ``generator`` (Lucid's default one if None)."""
        m = self.mean
        return m + self.std * randn(*m.shape, generator=generator, dtype=m.dtype, device=m.device)

    def mode(self):
        """The mean."""
        return self.mean

    def kl(self, other=None):
        """``(N,)``: the KL divergence to ``other`` (a :class:`DiagonalGaussianDistribution`,
        the standard normal if None), summed over each sample's latent."""
        if other is None:
            d = self.mean.square() + self.var - 1.0 - self.logvar
        else:
            d = (
                (self.mean - other.mean).square() / other.var
                + self.var / other.var
                - 1.0
                - self.logvar
                + other.logvar
            )
        return 0.5 * d.sum((1, 2, 3))

    def nll(self, x):
        """``(N,)``: the negative log-likelihood of ``x`` under it, summed per sample."""
        import math

        d = math.log(2.0 * math.pi) + self.logvar + (x - self.mean).square() / self.var
        return 0.5 * d.sum((1, 2, 3))


def _resnet(cin, cout, groups):
    return ResnetBlock2D(cin, cout, None, groups, _EPS)


def _mid(c, cfg):
    g = cfg.norm_num_groups
    attn = AttentionBlock(c, None, g, _EPS) if cfg.mid_block_add_attention else None
    return UNetMidBlock2D([_resnet(c, c, g), _resnet(c, c, g)], attn)


class Encoder(nn.Module):
    """``(N, in_channels, H, W)`` -> ``(N, 2 latent_channels, H/f, W/f)``, :math:`f =
    2^{levels - 1}` (the posterior's parameters before ``quant_conv``)."""

    def __init__(self, cfg):
        super().__init__()
        widths, g = tuple(cfg.block_out_channels), cfg.norm_num_groups
        self.conv_in = nn.Conv2d(cfg.in_channels, widths[0], 3, padding=1)
        self.down_blocks = nn.ModuleList()
        cin = widths[0]
        for i, cout in enumerate(widths):
            resnets = [
                _resnet(cin if j == 0 else cout, cout, g) for j in range(cfg.layers_per_block)
            ]
            down = Downsample2D(cout, padding=0) if i < len(widths) - 1 else None
            self.down_blocks.append(DownBlock2D(resnets, None, down))
            cin = cout
        self.mid_block = _mid(cin, cfg)
        self.conv_norm_out = nn.GroupNorm(g, cin, _EPS)
        self.conv_act = nn.SiLU()
        self.conv_out = nn.Conv2d(cin, 2 * cfg.latent_channels, 3, padding=1)

    def forward(self, x):
        x = self.conv_in(x)
        for block in self.down_blocks:
            x, _ = block(x)
        return self.conv_out(self.conv_act(self.conv_norm_out(self.mid_block(x))))


class Decoder(nn.Module):
    """``(N, latent_channels, h, w)`` -> ``(N, out_channels, h f, w f)``."""

    def __init__(self, cfg):
        super().__init__()
        widths, g = tuple(reversed(cfg.block_out_channels)), cfg.norm_num_groups
        self.conv_in = nn.Conv2d(cfg.latent_channels, widths[0], 3, padding=1)
        self.mid_block = _mid(widths[0], cfg)
        self.up_blocks = nn.ModuleList()
        cin = widths[0]
        for i, cout in enumerate(widths):
            resnets = [
                _resnet(cin if j == 0 else cout, cout, g) for j in range(cfg.layers_per_block + 1)
            ]
            up = Upsample2D(cout) if i < len(widths) - 1 else None
            self.up_blocks.append(UpBlock2D(resnets, None, up))
            cin = cout
        self.conv_norm_out = nn.GroupNorm(g, cin, _EPS)
        self.conv_act = nn.SiLU()
        self.conv_out = nn.Conv2d(cin, cfg.out_channels, 3, padding=1)

    def forward(self, z):
        x = self.mid_block(self.conv_in(z))
        for block in self.up_blocks:
            x = block(x)
        return self.conv_out(self.conv_act(self.conv_norm_out(x)))


def _check(cfg):
    for key, got, ok in (
        ("down_block_types", cfg.down_block_types, "DownEncoderBlock2D"),
        ("up_block_types", cfg.up_block_types, "UpDecoderBlock2D"),
    ):
        if any(t != ok for t in got):
            raise NotSupportedError(f"AutoencoderKL: {key} {tuple(got)} (supported: {ok!r} only)")
    if cfg.act_fn not in ("silu", "swish"):
        raise NotSupportedError(f"AutoencoderKL: act_fn={cfg.act_fn!r} (supported: 'silu')")
    check_levels("AutoencoderKL", cfg)


class AutoencoderKL(nn.Module):
    """:meth:`encode` an image to its posterior, :meth:`decode` a latent to an image;
    ``forward(x)`` decodes the posterior's mode (a sample with ``sample_posterior``)."""

    def __init__(self, cfg=None, **overrides):
        super().__init__()
        cfg = (cfg or AutoencoderKLConfig()).updated("AutoencoderKL", overrides)
        _check(cfg)
        self.config = cfg
        c = cfg.latent_channels
        self.encoder = Encoder(cfg)
        self.decoder = Decoder(cfg)
        self.quant_conv = nn.Conv2d(2 * c, 2 * c, 1) if cfg.use_quant_conv else None
        self.post_quant_conv = nn.Conv2d(c, c, 1) if cfg.use_post_quant_conv else None

    def _shape(self, x, channels, what):
        if x.ndim != 4 or x.shape[1] != channels:
            raise ArgumentError(
                f"AutoencoderKL: expected {what} (N, {channels}, H, W), got {tuple(x.shape)}"
            )

    def encode(self, x):
        """The posterior :class:`DiagonalGaussianDistribution` of images ``x``."""
        self._shape(x, self.config.in_channels, "images")
        h = self.encoder(x)
        return DiagonalGaussianDistribution(h if self.quant_conv is None else self.quant_conv(h))

    def decode(self, z):
        """The images of latents ``z``."""
        self._shape(z, self.config.latent_channels, "latents")
        return self.decoder(z if self.post_quant_conv is None else self.post_quant_conv(z))

    def forward(self, sample, sample_posterior=False, generator=None):
        posterior = self.encode(sample)
        z = posterior.sample(generator) if sample_posterior else posterior.mode()
        return self.decode(z)


def from_pretrained(path, subfolder=None, device="cpu"):
    """An :class:`AutoencoderKL` from a diffusers checkpoint directory (``subfolder="vae"``
    for a pipeline's)."""
    config, sd = read_diffusers_checkpoint(path, "vae.from_pretrained", subfolder)
    model = AutoencoderKL(AutoencoderKLConfig.from_dict(config))
    model.load_state_dict(convert_diffusers_state_dict(sd))
    return model.to(device)


@register_model(
    "vae-kl-f8",
    "generation",
    83_653_863,
    "Kingma and Welling 2014, Auto-Encoding Variational Bayes; Rombach et al. 2022, "
    "High-Resolution Image Synthesis with Latent Diffusion Models",
)
def vae_kl_f8(**cfg):
    return AutoencoderKL(AutoencoderKLConfig(), **cfg)
