r"""Positional encodings: sinusoidal (Vaswani et al., 2017), its N-d form, and rotary
(RoFormer, Su et al., 2021), composed from Lucid ops (their gradients are those ops').

Frequencies: :math:`\omega_i = b^{-2i/d}`, :math:`0 \le i < d/2`, base :math:`b`
(10000 by default), computed as :math:`\exp(-\ln b \cdot 2i/d)` in the result's dtype.
"""

from __future__ import annotations

import math

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import ArgumentError, ArgumentTypeError, DTypeError, ShapeError
from ...ops import arange, cat, exp, stack

__all__ = [
    "sinusoidal_embedding",
    "sinusoidal_embedding_nd",
    "rotate_half",
    "apply_rotary_emb",
    "rotary_frequencies",
]


def _check_dim(op, name, d, multiple=2):
    if isinstance(d, bool) or not isinstance(d, int) or d <= 0 or d % multiple:
        raise ArgumentError(f"{op}: {name} must be a positive multiple of {multiple}, got {d!r}")


def _float_positions(op, positions):
    if not isinstance(positions, Tensor):
        raise ArgumentTypeError(f"{op}: positions must be a Tensor, got {type(positions).__name__}")
    dt = positions.dtype
    if dt.is_complex or dt is _dt.bool:
        raise DTypeError(f"{op}: positions must be an integer or floating tensor, got {dt.name}")
    return positions if dt.is_floating_point else positions.to(_dt.get_default_dtype())


def rotary_frequencies(dim, base=10000.0, dtype=None, device=None):
    r"""The ``dim // 2`` frequencies :math:`\omega_i = b^{-2i/d}` (``inv_freq``)."""
    _check_dim("rotary_frequencies", "dim", dim)
    if not base > 0:
        raise ArgumentError(f"rotary_frequencies: base must be positive, got {base!r}")
    i = arange(0, dim, 2, dtype=dtype or _dt.get_default_dtype(), device=device)
    return exp(i * (-math.log(base) / dim))


def sinusoidal_embedding(positions, embedding_dim, base=10000.0):
    r"""Sinusoidal position encoding of Vaswani et al. (2017): for positions :math:`p` of
    any shape ``(...)`` (integer or floating, e.g. diffusion timesteps), the
    ``(..., embedding_dim)`` tensor

    .. math:: PE_{p,2i} = \sin(p\,\omega_i), \qquad PE_{p,2i+1} = \cos(p\,\omega_i),
              \qquad \omega_i = b^{-2i/d},

    sine and cosine interleaved as in the paper. Floating positions keep their dtype
    (and get the gradient :math:`\partial PE_{p,2i}/\partial p = \omega_i \cos(p\omega_i)`,
    :math:`\partial PE_{p,2i+1}/\partial p = -\omega_i \sin(p\omega_i)`); integer
    positions give the default float dtype. ``embedding_dim`` must be even.
    """
    op = "sinusoidal_embedding"
    _check_dim(op, "embedding_dim", embedding_dim)
    p = _float_positions(op, positions)
    freq = rotary_frequencies(embedding_dim, base, dtype=p.dtype, device=p.device)
    angle = p.unsqueeze(-1) * freq
    return stack([angle.sin(), angle.cos()], -1).flatten(-2)


def sinusoidal_embedding_nd(positions, embedding_dim, base=10000.0):
    r"""N-d sinusoidal position encoding: ``positions`` ``(..., n)`` holds one coordinate
    per axis (a pixel's ``(y, x)``, a voxel's ``(t, y, x)``); the embedding dim is split
    equally across the axes and axis :math:`j` fills its block with the 1-d encoding of
    its coordinate (:func:`sinusoidal_embedding` of dim :math:`d/n`):

    .. math:: PE_{\mathbf p} = [PE^{(d/n)}_{p_0}, \ldots, PE^{(d/n)}_{p_{n-1}}].

    ``embedding_dim`` must be a multiple of ``2 n``. Returns ``(..., embedding_dim)``.
    """
    op = "sinusoidal_embedding_nd"
    p = _float_positions(op, positions)
    if p.ndim == 0:
        raise ShapeError(
            f"{op}: positions must be (..., n) with one coordinate per axis, got a 0-d tensor"
        )
    n = p.shape[-1]
    if n == 0:
        raise ShapeError(
            f"{op}: positions must have at least one axis (last dim), got shape {tuple(p.shape)}"
        )
    _check_dim(op, "embedding_dim", embedding_dim, 2 * n)
    freq = rotary_frequencies(embedding_dim // n, base, dtype=p.dtype, device=p.device)
    angle = p.unsqueeze(-1) * freq  # (..., n, d / 2n)
    return stack([angle.sin(), angle.cos()], -1).flatten(-3)


def rotate_half(x):
    r""":math:`[-x_2, x_1]` for :math:`x = [x_1, x_2]` split in halves along the last dim
    (the rotation by 90 degrees of the LLaMA / Hugging Face rotary convention)."""
    x1, x2 = x.chunk(2, -1)
    return cat([-x2, x1], -1)


def _rotate_pairs(x):
    """``(-x_{2i+1}, x_{2i})`` in place of each pair ``(x_{2i}, x_{2i+1})``."""
    pairs = x.unflatten(-1, (x.shape[-1] // 2, 2))
    return stack([-pairs[..., 1], pairs[..., 0]], -1).flatten(-2)


def apply_rotary_emb(x, cos, sin, interleaved=False):
    r"""Rotary position embedding (RoFormer): rotate each 2-d pair of features of ``x``
    ``(..., seq, d)`` by the angle :math:`m\,\omega_i` of its position :math:`m`,

    .. math:: \mathrm{RoPE}(x) = x \odot \cos + \mathrm{rot}(x) \odot \sin, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = g \odot \cos
              + \mathrm{rot}^{\top}(g \odot \sin),

    where ``cos``/``sin`` (broadcasting to ``x``, e.g. ``(seq, d)``) hold
    :math:`\cos(m\omega_i)`, :math:`\sin(m\omega_i)` laid out as the pairs are. Half
    rotation (default, LLaMA / Hugging Face ``rotate_half``): feature :math:`i` pairs with
    :math:`i + d/2`, ``rot(x) = [-x_2, x_1]`` and the tables are ``[θ, θ]``. Interleaved
    (the paper, GPT-J): features :math:`2i, 2i+1` pair, ``rot(x)_{2i} = -x_{2i+1}``,
    ``rot(x)_{2i+1} = x_{2i}`` and each angle is repeated twice in place. The tables are
    cast to ``x``'s dtype; :math:`q^{\top}k` of rotated queries and keys then depends on
    positions only through :math:`m - n`.
    """
    op = "apply_rotary_emb"
    for name, t in (("x", x), ("cos", cos), ("sin", sin)):
        if not isinstance(t, Tensor):
            raise ArgumentTypeError(f"{op}: {name} must be a Tensor, got {type(t).__name__}")
    if not x.dtype.is_floating_point:
        raise DTypeError(f"{op}: x must be a floating tensor, got {x.dtype.name}")
    d = x.shape[-1] if x.ndim else 0
    if x.ndim < 2 or d % 2:
        raise ShapeError(f"{op}: x must be (..., seq, d) with d even, got shape {tuple(x.shape)}")
    if tuple(cos.shape) != tuple(sin.shape) or cos.ndim == 0 or cos.shape[-1] != d:
        raise ShapeError(
            f"{op}: cos and sin must have one shape ending in x's dim {d}, got "
            f"{tuple(cos.shape)} and {tuple(sin.shape)}"
        )
    if cos.dtype is not x.dtype:
        cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    rot = _rotate_pairs(x) if interleaved else rotate_half(x)
    return x * cos + rot * sin
