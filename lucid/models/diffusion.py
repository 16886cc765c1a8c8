r"""The denoising diffusion probabilistic model (Ho et al., 2020, "Denoising Diffusion
Probabilistic Models"): a U-Net :math:`\epsilon_\theta(x_t, t)` that predicts the noise
mixed into an image by the forward process, and that process's linear schedule.

The forward process and the training objective, with :math:`\bar\alpha_t =
\prod_{s \le t} (1 - \beta_s)`:

.. math:: x_t = \sqrt{\bar\alpha_t}\, x_0 + \sqrt{1 - \bar\alpha_t}\, \epsilon, \quad
          \epsilon \sim \mathcal N(0, I), \quad
          L = \lVert \epsilon - \epsilon_\theta(x_t, t) \rVert^2

and one ancestral step back, :math:`\hat x_0 = (x_t - \sqrt{1 - \bar\alpha_t}\,
\epsilon_\theta) / \sqrt{\bar\alpha_t}`:

.. math:: x_{t-1} = \frac{\sqrt{\bar\alpha_{t-1}}\,\beta_t}{1 - \bar\alpha_t}\,\hat x_0
          + \frac{\sqrt{\alpha_t}\,(1 - \bar\alpha_{t-1})}{1 - \bar\alpha_t}\, x_t
          + \sigma_t z, \quad \sigma_t^2 = \tilde\beta_t = \frac{1 - \bar\alpha_{t-1}}
          {1 - \bar\alpha_t}\,\beta_t \ \text{or}\ \beta_t

The network (the paper's Appendix B): the timestep as a sinusoidal embedding
:math:`e_i = \sin(t\,\omega_i)`, :math:`e_{h+i} = \cos(t\,\omega_i)`, :math:`\omega_i =
10000^{-i/(h - s)}` (:math:`s` the frequency shift), through a two-layer SiLU MLP;
residual blocks of group norm, SiLU and 3x3 convolutions, the embedding projected into
each,

.. math:: h = \mathrm{Conv}(\mathrm{SiLU}(\mathrm{GN}(x))) + W_t\,\mathrm{SiLU}(e), \quad
          y = S(x) + \mathrm{Conv}(\mathrm{Drop}(\mathrm{SiLU}(\mathrm{GN}(h))))

single-head self-attention :math:`y = x + W_o\,\mathrm{softmax}(QK^\top/\sqrt d)\,V` over
the positions of :math:`\mathrm{GN}(x)` at the 16x16 resolution and in the middle, strided
3x3 convolutions down and nearest upsampling with a 3x3 convolution up, and each level's
activations concatenated into the way back up.

Module names follow diffusers' ``UNet2DModel`` (``down_blocks.1.attentions.0.to_q``,
``mid_block.resnets.0.time_emb_proj``, ...), so its state dicts load as they are; the
older attention names of checkpoint files (``query``, ``proj_attn``) map to them through
:func:`convert_diffusers_state_dict`. The building blocks are shared with :mod:`.vae`.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from typing import Optional

from .. import Tensor, arange, cat, cumprod, exp, float32, full, int64, linspace, nn, randn, sqrt
from ..errors import ArgumentError, NotSupportedError
from ..nn import functional as F
from ..serialization import load, load_safetensors
from .config import ModelConfig
from .registry import register_model

__all__ = [
    "UNet2DConfig",
    "timestep_embedding",
    "Timesteps",
    "TimestepEmbedding",
    "ResnetBlock2D",
    "AttentionBlock",
    "Downsample2D",
    "Upsample2D",
    "DownBlock2D",
    "UNetMidBlock2D",
    "UpBlock2D",
    "UNet2DModel",
    "DDPMSchedule",
    "convert_diffusers_state_dict",
    "read_diffusers_checkpoint",
    "from_pretrained",
]

_PAPER = "Ho et al. 2020, Denoising Diffusion Probabilistic Models"


@dataclass
class UNet2DConfig(ModelConfig):
    """The hyperparameters, under diffusers' ``config.json`` names; the defaults are
    ``google/ddpm-cifar10-32``'s (the paper's CIFAR-10 model)."""

    sample_size: int = 32
    in_channels: int = 3
    out_channels: int = 3
    center_input_sample: bool = False
    time_embedding_type: str = "positional"
    time_embedding_dim: Optional[int] = None  # None: 4 block_out_channels[0]
    freq_shift: float = 1
    flip_sin_to_cos: bool = False
    down_block_types: tuple = ("DownBlock2D", "AttnDownBlock2D", "DownBlock2D", "DownBlock2D")
    mid_block_type: Optional[str] = "UNetMidBlock2D"
    up_block_types: tuple = ("UpBlock2D", "UpBlock2D", "AttnUpBlock2D", "UpBlock2D")
    block_out_channels: tuple = (128, 256, 256, 256)
    layers_per_block: int = 2
    mid_block_scale_factor: float = 1
    downsample_padding: int = 0
    downsample_type: str = "conv"
    upsample_type: str = "conv"
    dropout: float = 0.0
    act_fn: str = "silu"
    attention_head_dim: Optional[int] = None  # None: one head as wide as the channels
    norm_num_groups: int = 32
    # the middle attention's norm groups; None: norm_num_groups (no norm with scale_shift)
    attn_norm_num_groups: Optional[int] = None
    norm_eps: float = 1e-6
    resnet_time_scale_shift: str = "default"
    add_attention: bool = True
    class_embed_type: Optional[str] = None
    num_class_embeds: Optional[int] = None


def timestep_embedding(t, dim, flip_sin_to_cos=False, freq_shift=1.0, max_period=10000):
    r"""The sinusoidal embedding ``(N, dim)`` of the timesteps ``t`` ``(N,)``: ``sin`` of
    :math:`t\,\omega_i` then ``cos`` (``cos`` first with ``flip_sin_to_cos``),
    :math:`\omega_i = \mathrm{max\_period}^{-i / (dim/2 - \mathrm{freq\_shift})}`; an odd
    ``dim`` ends in a zero."""
    half = dim // 2
    freqs = exp(
        arange(half, dtype=float32, device=t.device) * -math.log(max_period) / (half - freq_shift)
    )
    arg = t.float()[:, None] * freqs[None, :]
    emb = [arg.cos(), arg.sin()] if flip_sin_to_cos else [arg.sin(), arg.cos()]
    emb = cat(emb, -1)
    return F.pad(emb, (0, 1)) if dim % 2 else emb


class Timesteps(nn.Module):
    """:func:`timestep_embedding` as a module (no parameters)."""

    def __init__(self, dim, flip_sin_to_cos, freq_shift):
        super().__init__()
        self.dim, self.flip_sin_to_cos, self.freq_shift = dim, flip_sin_to_cos, freq_shift

    def forward(self, t):
        return timestep_embedding(t, self.dim, self.flip_sin_to_cos, self.freq_shift)


class TimestepEmbedding(nn.Module):
    """``linear_2(SiLU(linear_1(e)))``: the embedding's MLP."""

    def __init__(self, cin, dim):
        super().__init__()
        self.linear_1 = nn.Linear(cin, dim)
        self.linear_2 = nn.Linear(dim, dim)

    def forward(self, e):
        return self.linear_2(F.silu(self.linear_1(e)))


class ResnetBlock2D(nn.Module):
    """Two group-norm, SiLU, 3x3-convolution layers with the time embedding added between
    them (or, with ``time_embedding_norm="scale_shift"``, scaling and shifting the second
    norm), a 1x1 convolution on the skip where the width changes, the sum divided by
    ``output_scale_factor``. ``temb_channels=None``: no time embedding (the VAE's)."""

    def __init__(
        self,
        cin,
        cout,
        temb_channels,
        groups=32,
        eps=1e-6,
        dropout=0.0,
        output_scale_factor=1.0,
        time_embedding_norm="default",
    ):
        super().__init__()
        if time_embedding_norm not in ("default", "scale_shift"):
            raise NotSupportedError(
                f"ResnetBlock2D: time_embedding_norm {time_embedding_norm!r} (expected "
                "'default' or 'scale_shift')"
            )
        self.scale_shift = time_embedding_norm == "scale_shift"
        self.output_scale_factor = output_scale_factor
        self.norm1 = nn.GroupNorm(groups, cin, eps)
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.time_emb_proj = None
        if temb_channels is not None:
            self.time_emb_proj = nn.Linear(temb_channels, cout * (2 if self.scale_shift else 1))
        self.norm2 = nn.GroupNorm(groups, cout, eps)
        self.dropout = nn.Dropout(dropout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.conv_shortcut = nn.Conv2d(cin, cout, 1) if cin != cout else None

    def forward(self, x, temb=None):
        h = self.conv1(F.silu(self.norm1(x)))
        if temb is not None and self.time_emb_proj is not None:
            t = self.time_emb_proj(F.silu(temb))[:, :, None, None]
            if self.scale_shift:
                scale, shift = t.chunk(2, 1)
                h = self.norm2(h) * (1 + scale) + shift
            else:
                h = self.norm2(h + t)
        else:
            h = self.norm2(h)
        h = self.conv2(self.dropout(F.silu(h)))
        skip = x if self.conv_shortcut is None else self.conv_shortcut(x)
        out = skip + h
        return out if self.output_scale_factor == 1 else out / self.output_scale_factor


class AttentionBlock(nn.Module):
    """Self-attention over the ``H W`` positions of ``(N, C, H, W)``, on its group norm,
    with the input added back (the sum divided by ``rescale_output_factor``);
    ``head_dim=None`` is one head of all ``C`` channels; ``groups=None``: no norm.
    Names: diffusers' ``Attention`` (``group_norm``, ``to_q``, ``to_k``, ``to_v``,
    ``to_out.0``)."""

    def __init__(self, channels, head_dim=None, groups=32, eps=1e-6, rescale_output_factor=1.0):
        super().__init__()
        head_dim = head_dim or channels
        if channels % head_dim:
            raise ArgumentError(
                f"AttentionBlock: {channels} channels are not a multiple of head_dim {head_dim}"
            )
        self.heads, self.rescale = channels // head_dim, rescale_output_factor
        self.group_norm = None if groups is None else nn.GroupNorm(groups, channels, eps)
        self.to_q, self.to_k, self.to_v = (nn.Linear(channels, channels) for _ in range(3))
        self.to_out = nn.ModuleList([nn.Linear(channels, channels), nn.Dropout(0.0)])

    def forward(self, x):
        N, C, H, W = x.shape
        h = x if self.group_norm is None else self.group_norm(x)
        h = h.reshape(N, C, H * W).transpose(1, 2)  # (N, HW, C)
        q, k, v = (
            f(h).reshape(N, H * W, self.heads, C // self.heads).transpose(1, 2)
            for f in (self.to_q, self.to_k, self.to_v)
        )
        y = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(N, H * W, C)
        y = self.to_out[1](self.to_out[0](y)).transpose(1, 2).reshape(N, C, H, W)
        out = y + x
        return out if self.rescale == 1 else out / self.rescale


class Downsample2D(nn.Module):
    """A 3x3 stride-2 convolution; ``padding=0`` pads the bottom and right by one first
    (TensorFlow's ``"SAME"``, the DDPM and VAE checkpoints')."""

    def __init__(self, channels, padding=1):
        super().__init__()
        self.padding = padding
        self.conv = nn.Conv2d(channels, channels, 3, stride=2, padding=padding)

    def forward(self, x):
        return self.conv(F.pad(x, (0, 1, 0, 1)) if self.padding == 0 else x)


class Upsample2D(nn.Module):
    """Nearest upsampling by 2, then a 3x3 convolution."""

    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        return self.conv(F.interpolate(x, scale_factor=2.0, mode="nearest"))


def _attention(channels, cfg, groups, rescale=1.0):
    return AttentionBlock(channels, cfg.attention_head_dim, groups, cfg.norm_eps, rescale)


def _resnet(cin, cout, temb, cfg, scale=1.0):
    return ResnetBlock2D(
        cin,
        cout,
        temb,
        cfg.norm_num_groups,
        cfg.norm_eps,
        cfg.dropout,
        scale,
        cfg.resnet_time_scale_shift,
    )


class DownBlock2D(nn.Module):
    """``layers`` residual blocks (each followed by attention when ``attentions``), then a
    :class:`Downsample2D` unless it is the last level; ``forward`` returns the output and
    the activations the way up takes (one per block, and the downsampled one).
    diffusers' ``DownBlock2D``, ``AttnDownBlock2D`` and ``DownEncoderBlock2D``."""

    def __init__(self, resnets, attentions=None, downsample=None):
        super().__init__()
        self.resnets = nn.ModuleList(resnets)
        if attentions is not None:
            self.attentions = nn.ModuleList(attentions)
        if downsample is not None:
            self.downsamplers = nn.ModuleList([downsample])

    def forward(self, x, temb=None):
        attns = getattr(self, "attentions", [None] * len(self.resnets))
        skips = []
        for resnet, attn in zip(self.resnets, attns):
            x = resnet(x, temb)
            if attn is not None:
                x = attn(x)
            skips.append(x)
        if hasattr(self, "downsamplers"):
            x = self.downsamplers[0](x)
            skips.append(x)
        return x, skips


class UNetMidBlock2D(nn.Module):
    """Residual block, attention (where ``attention`` is given), residual block."""

    def __init__(self, resnets, attention=None):
        super().__init__()
        self.attentions = nn.ModuleList([] if attention is None else [attention])
        self.resnets = nn.ModuleList(resnets)

    def forward(self, x, temb=None):
        x = self.resnets[0](x, temb)
        for attn in self.attentions:
            x = attn(x)
        return self.resnets[1](x, temb)


class UpBlock2D(nn.Module):
    """Residual blocks (each followed by attention when ``attentions``), each on the
    input concatenated with the next skip from the way down (the last one pushed first),
    then an :class:`Upsample2D` unless it is the last level. diffusers' ``UpBlock2D`` and
    ``AttnUpBlock2D``; without skips, ``UpDecoderBlock2D``."""

    def __init__(self, resnets, attentions=None, upsample=None):
        super().__init__()
        self.resnets = nn.ModuleList(resnets)
        if attentions is not None:
            self.attentions = nn.ModuleList(attentions)
        if upsample is not None:
            self.upsamplers = nn.ModuleList([upsample])

    def forward(self, x, skips=None, temb=None):
        attns = getattr(self, "attentions", [None] * len(self.resnets))
        for resnet, attn in zip(self.resnets, attns):
            if skips is not None:
                x = cat([x, skips.pop()], 1)
            x = resnet(x, temb)
            if attn is not None:
                x = attn(x)
        if hasattr(self, "upsamplers"):
            x = self.upsamplers[0](x)
        return x


_DOWN = {"DownBlock2D": False, "AttnDownBlock2D": True}
_UP = {"UpBlock2D": False, "AttnUpBlock2D": True}


def _check(cfg):
    unsupported = {
        "time_embedding_type": (cfg.time_embedding_type, ("positional",)),
        "act_fn": (cfg.act_fn, ("silu", "swish")),
        "downsample_type": (cfg.downsample_type, ("conv",)),
        "upsample_type": (cfg.upsample_type, ("conv",)),
        "mid_block_type": (cfg.mid_block_type, ("UNetMidBlock2D", None)),
        "class_embed_type": (cfg.class_embed_type, (None,)),
        "num_class_embeds": (cfg.num_class_embeds, (None,)),
    }
    for key, (got, ok) in unsupported.items():
        if got not in ok:
            raise NotSupportedError(f"UNet2DModel: {key}={got!r} (supported: {ok})")
    for key, got, ok in (("down", cfg.down_block_types, _DOWN), ("up", cfg.up_block_types, _UP)):
        for t in got:
            if t not in ok:
                raise NotSupportedError(
                    f"UNet2DModel: {key}_block_types has {t!r} (supported: {tuple(ok)})"
                )
    check_levels("UNet2DModel", cfg)


def check_levels(who, cfg):
    """An :class:`~lucid.errors.ArgumentError` unless ``cfg`` names one down block type and
    one up block type per entry of ``block_out_channels``."""
    n = len(cfg.block_out_channels)
    if not (len(cfg.down_block_types) == len(cfg.up_block_types) == n):
        raise ArgumentError(
            f"{who}: {len(cfg.down_block_types)} down_block_types, "
            f"{len(cfg.up_block_types)} up_block_types and {n} block_out_channels differ"
        )


class UNet2DModel(nn.Module):
    """The noise predictor :math:`\\epsilon_\\theta(x_t, t)`: ``forward(sample, timestep)``
    ``(N, in_channels, H, W)`` -> ``(N, out_channels, H, W)``, ``H`` and ``W`` multiples of
    :math:`2^{levels - 1}`; ``timestep`` a number or a tensor ``()`` or ``(N,)``."""

    def __init__(self, cfg=None, **overrides):
        super().__init__()
        cfg = (cfg or UNet2DConfig()).updated("UNet2DModel", overrides)
        _check(cfg)
        self.config = cfg
        widths, layers = tuple(cfg.block_out_channels), cfg.layers_per_block
        c0 = widths[0]
        temb = cfg.time_embedding_dim or 4 * c0
        self.conv_in = nn.Conv2d(cfg.in_channels, c0, 3, padding=1)
        self.time_proj = Timesteps(c0, cfg.flip_sin_to_cos, cfg.freq_shift)
        self.time_embedding = TimestepEmbedding(c0, temb)

        self.down_blocks = nn.ModuleList()
        skips, cin = [c0], c0  # the widths of the activations the way up concatenates
        for i, (kind, cout) in enumerate(zip(cfg.down_block_types, widths)):
            last = i == len(widths) - 1
            self.down_blocks.append(
                DownBlock2D(
                    [_resnet(cin if j == 0 else cout, cout, temb, cfg) for j in range(layers)],
                    [_attention(cout, cfg, cfg.norm_num_groups) for _ in range(layers)]
                    if _DOWN[kind]
                    else None,
                    None if last else Downsample2D(cout, cfg.downsample_padding),
                )
            )
            skips += [cout] * (layers if last else layers + 1)
            cin = cout

        self.mid_block = None
        if cfg.mid_block_type is not None:
            s = cfg.mid_block_scale_factor
            groups = cfg.attn_norm_num_groups
            if groups is None and cfg.resnet_time_scale_shift == "default":
                groups = cfg.norm_num_groups
            attn = _attention(cin, cfg, groups, s)
            self.mid_block = UNetMidBlock2D(
                [_resnet(cin, cin, temb, cfg, s) for _ in range(2)],
                attn if cfg.add_attention else None,
            )

        self.up_blocks = nn.ModuleList()
        for i, (kind, cout) in enumerate(zip(cfg.up_block_types, reversed(widths))):
            resnets = []
            for j in range(layers + 1):
                resnets.append(_resnet((cin if j == 0 else cout) + skips.pop(), cout, temb, cfg))
            self.up_blocks.append(
                UpBlock2D(
                    resnets,
                    [_attention(cout, cfg, cfg.norm_num_groups) for _ in range(layers + 1)]
                    if _UP[kind]
                    else None,
                    None if i == len(widths) - 1 else Upsample2D(cout),
                )
            )
            cin = cout

        self.conv_norm_out = nn.GroupNorm(cfg.norm_num_groups, c0, cfg.norm_eps)
        self.conv_act = nn.SiLU()
        self.conv_out = nn.Conv2d(c0, cfg.out_channels, 3, padding=1)

    def _timesteps(self, timestep, x):
        n = x.shape[0]
        if not isinstance(timestep, Tensor):
            return full((n,), float(timestep), device=x.device)
        if timestep.ndim == 0 or tuple(timestep.shape) == (1,):
            return timestep.reshape(1).float().expand(n).to(x.device)
        if tuple(timestep.shape) != (n,):
            raise ArgumentError(
                f"UNet2DModel: timestep of shape {tuple(timestep.shape)} for {n} samples "
                "(expected a number, () or (N,))"
            )
        return timestep.float().to(x.device)

    def forward(self, sample, timestep):
        cfg, k = self.config, 2 ** (len(self.config.block_out_channels) - 1)
        if sample.ndim != 4 or sample.shape[1] != cfg.in_channels:
            raise ArgumentError(
                f"UNet2DModel: expected samples (N, {cfg.in_channels}, H, W), got "
                f"{tuple(sample.shape)}"
            )
        if sample.shape[2] % k or sample.shape[3] % k:
            raise ArgumentError(
                f"UNet2DModel: sample height and width must be multiples of {k}, got "
                f"{sample.shape[2]}x{sample.shape[3]}"
            )
        if cfg.center_input_sample:
            sample = 2 * sample - 1.0
        emb = self.time_embedding(self.time_proj(self._timesteps(timestep, sample)))
        x = self.conv_in(sample)
        skips = [x]
        for block in self.down_blocks:
            x, s = block(x, emb)
            skips += s
        if self.mid_block is not None:
            x = self.mid_block(x, emb)
        for block in self.up_blocks:
            x = block(x, skips, emb)
        return self.conv_out(self.conv_act(self.conv_norm_out(x)))


class DDPMSchedule:
    r"""The forward process of ``num_train_timesteps`` steps with betas linear from
    ``beta_start`` to ``beta_end``, and the ancestral sampler's step back.
    ``variance_type``: ``"fixed_small"`` (:math:`\tilde\beta_t`) or ``"fixed_large"``
    (:math:`\beta_t`); ``clip_sample`` clips :math:`\hat x_0` to ``[-1, 1]`` (diffusers'
    ``DDPMScheduler`` defaults and names)."""

    def __init__(
        self,
        num_train_timesteps=1000,
        beta_start=1e-4,
        beta_end=0.02,
        variance_type="fixed_small",
        clip_sample=True,
    ):
        if variance_type not in ("fixed_small", "fixed_large"):
            raise NotSupportedError(
                f"DDPMSchedule: variance_type {variance_type!r} (expected 'fixed_small' or "
                "'fixed_large')"
            )
        self.num_train_timesteps = num_train_timesteps
        self.variance_type, self.clip_sample = variance_type, clip_sample
        self.betas = linspace(beta_start, beta_end, num_train_timesteps)
        self.alphas = 1.0 - self.betas
        self.alphas_cumprod = cumprod(self.alphas, 0)

    def add_noise(self, x0, noise, t):
        """:math:`x_t = \\sqrt{\\bar\\alpha_t}\\,x_0 + \\sqrt{1 - \\bar\\alpha_t}\\,\\epsilon`
        for each sample's timestep ``t`` (``(N,)`` integers, or one)."""
        if not isinstance(t, Tensor):
            t = full((x0.shape[0],), int(t), dtype=int64)
        abar = self.alphas_cumprod.to(x0.device)[t.to(x0.device)]
        abar = abar.reshape((-1,) + (1,) * (x0.ndim - 1)).to(x0.dtype)
        return sqrt(abar) * x0 + sqrt(1.0 - abar) * noise

    def step(self, eps, t, x_t, noise=None, generator=None):
        """:math:`x_{t-1}` from the predicted noise ``eps`` at the integer timestep ``t``;
        ``noise`` (or a draw of ``generator``) is :math:`z`, unused at ``t = 0``."""
        t = int(t)
        if not 0 <= t < self.num_train_timesteps:
            raise ArgumentError(
                f"DDPMSchedule.step: timestep {t} outside [0, {self.num_train_timesteps})"
            )
        abar = float(self.alphas_cumprod[t])
        abar_prev = float(self.alphas_cumprod[t - 1]) if t > 0 else 1.0
        beta = 1.0 - abar / abar_prev
        x0 = (x_t - math.sqrt(1.0 - abar) * eps) / math.sqrt(abar)
        if self.clip_sample:
            x0 = x0.clamp(-1.0, 1.0)
        mean = (math.sqrt(abar_prev) * beta / (1.0 - abar)) * x0 + (
            math.sqrt(1.0 - beta) * (1.0 - abar_prev) / (1.0 - abar)
        ) * x_t
        if t == 0:
            return mean
        var = (
            beta
            if self.variance_type == "fixed_large"
            else max((1.0 - abar_prev) / (1.0 - abar) * beta, 1e-20)
        )
        if noise is None:
            noise = randn(*x_t.shape, generator=generator, dtype=x_t.dtype, device=x_t.device)
        return mean + math.sqrt(var) * noise


_OLD_ATTN = {"query": "to_q", "key": "to_k", "value": "to_v", "proj_attn": "to_out.0"}
_OLD_KEY = re.compile(r"^(.*attentions\.\d+)\.(query|key|value|proj_attn)\.(weight|bias)$")


def convert_diffusers_state_dict(sd):
    """A ``UNet2DModel`` or ``AutoencoderKL`` state dict under today's names: the older
    attention names of checkpoint files (``attentions.0.query``, ``key``, ``value``,
    ``proj_attn``) renamed ``to_q``, ``to_k``, ``to_v``, ``to_out.0``, any other unchanged."""
    out = {}
    for k, v in sd.items():
        m = _OLD_KEY.match(k)
        if m:
            k = f"{m.group(1)}.{_OLD_ATTN[m.group(2)]}.{m.group(3)}"
        out[k] = v
    return out


def read_diffusers_checkpoint(path, who, subfolder=None):
    """``(config dict, {name: Tensor})`` of a diffusers model directory (``config.json``
    beside ``diffusion_pytorch_model.safetensors`` or ``.bin``), or of its ``subfolder``
    (a pipeline's ``"unet"``, ``"vae"``); ``who`` names the caller in errors."""
    import json

    if subfolder:
        path = os.path.join(path, subfolder)
    with open(os.path.join(path, "config.json")) as f:
        config = json.load(f)
    base = os.path.join(path, "diffusion_pytorch_model")
    if os.path.exists(base + ".safetensors"):
        return config, load_safetensors(base + ".safetensors")
    if os.path.exists(base + ".bin"):
        return config, load(base + ".bin", map_location="cpu", weights_only=True)
    raise ArgumentError(
        f"{who}: {path!r} holds neither diffusion_pytorch_model.safetensors nor .bin"
    )


def from_pretrained(path, subfolder=None, device="cpu"):
    """A :class:`UNet2DModel` from a diffusers checkpoint directory (``subfolder="unet"``
    for a pipeline's, e.g. ``google/ddpm-cifar10-32``)."""
    config, sd = read_diffusers_checkpoint(path, "diffusion.from_pretrained", subfolder)
    model = UNet2DModel(UNet2DConfig.from_dict(config))
    model.load_state_dict(convert_diffusers_state_dict(sd))
    return model.to(device)


@register_model("ddpm-cifar10", "generation", 35_746_307, _PAPER)
def ddpm_cifar10(**cfg):
    return UNet2DModel(UNet2DConfig(), **cfg)
