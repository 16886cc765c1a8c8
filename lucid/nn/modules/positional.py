"""Positional encodings as layers: sinusoidal (1-d and N-d) and rotary embeddings; each
``forward`` is one call of :mod:`lucid.nn.functional.positional`."""

from __future__ import annotations

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import ArgumentError, ArgumentTypeError, ShapeError
from ...ops import arange, cat, outer, stack
from .. import functional as F
from .module import Module

__all__ = ["SinusoidalEmbedding", "SinusoidalEmbeddingND", "RotaryEmbedding"]


def _positive_base(name, base):
    if not base > 0:
        raise ArgumentError(f"{name}: base must be positive, got {base!r}")


class SinusoidalEmbedding(Module):
    r"""The fixed sinusoidal position encoding of Vaswani et al. (2017):
    ``forward(positions)`` maps positions of any shape ``(...)`` (integer, or floating such
    as diffusion timesteps) to ``(..., embedding_dim)`` with
    :math:`PE_{p,2i} = \sin(p / b^{2i/d})`, :math:`PE_{p,2i+1} = \cos(p / b^{2i/d})`
    (see :func:`lucid.nn.functional.sinusoidal_embedding`). No parameters or buffers:
    the result follows the positions' device, and floating positions get gradients.
    Add it to token embeddings: ``x + pe(arange(seq))``.
    """

    def __init__(self, embedding_dim, base=10000.0):
        super().__init__()
        if (
            isinstance(embedding_dim, bool)
            or not isinstance(embedding_dim, int)
            or embedding_dim <= 0
            or embedding_dim % 2
        ):
            raise ArgumentError(
                f"SinusoidalEmbedding: embedding_dim must be a positive even "
                f"int, got {embedding_dim!r}"
            )
        _positive_base("SinusoidalEmbedding", base)
        self.embedding_dim = embedding_dim
        self.base = base

    def forward(self, positions):
        return F.sinusoidal_embedding(positions, self.embedding_dim, self.base)

    def extra_repr(self):
        return f"{self.embedding_dim}, base={self.base}"


class SinusoidalEmbeddingND(Module):
    r"""N-d sinusoidal position encoding: ``forward(positions)`` maps ``(..., num_dims)``
    coordinates to ``(..., embedding_dim)``, the embedding dim split equally across the
    ``num_dims`` axes, each block the 1-d encoding of its axis' coordinate (see
    :func:`lucid.nn.functional.sinusoidal_embedding_nd`); ``embedding_dim`` must be a
    multiple of ``2 * num_dims``. :meth:`grid` gives the encoding of every point of a
    grid, ``(*shape, embedding_dim)`` (an image's ``(H, W)`` patches, say).
    """

    def __init__(self, embedding_dim, num_dims, base=10000.0):
        super().__init__()
        if isinstance(num_dims, bool) or not isinstance(num_dims, int) or num_dims <= 0:
            raise ArgumentError(
                f"SinusoidalEmbeddingND: num_dims must be a positive int, got {num_dims!r}"
            )
        if (
            isinstance(embedding_dim, bool)
            or not isinstance(embedding_dim, int)
            or embedding_dim <= 0
            or embedding_dim % (2 * num_dims)
        ):
            raise ArgumentError(
                f"SinusoidalEmbeddingND: embedding_dim must be a positive "
                f"multiple of 2 * num_dims = {2 * num_dims}, got "
                f"{embedding_dim!r}"
            )
        _positive_base("SinusoidalEmbeddingND", base)
        self.embedding_dim = embedding_dim
        self.num_dims = num_dims
        self.base = base

    def forward(self, positions):
        if (
            isinstance(positions, Tensor)
            and positions.ndim
            and positions.shape[-1] != self.num_dims
        ):
            raise ShapeError(
                f"SinusoidalEmbeddingND: positions must be (..., {self.num_dims}), "
                f"got shape {tuple(positions.shape)}"
            )
        return F.sinusoidal_embedding_nd(positions, self.embedding_dim, self.base)

    def grid(self, shape, device=None):
        """The encoding of every integer point of a grid of ``shape`` (``num_dims`` ints):
        ``(*shape, embedding_dim)``, row-major."""
        shape = tuple(shape)
        if len(shape) != self.num_dims:
            raise ShapeError(
                f"SinusoidalEmbeddingND.grid: shape must have {self.num_dims} sizes, got {shape}"
            )
        axes = [
            arange(s, device=device)
            .reshape((1,) * j + (s,) + (1,) * (len(shape) - 1 - j))
            .expand(shape)
            for j, s in enumerate(shape)
        ]
        return self(stack(axes, -1))

    def extra_repr(self):
        return f"{self.embedding_dim}, num_dims={self.num_dims}, base={self.base}"


class RotaryEmbedding(Module):
    r"""Rotary position embedding (RoFormer, Su et al., 2021) for queries and keys
    ``(..., seq, dim)`` (``dim`` the head dim): ``forward(x, positions=None)`` rotates
    each pair of features by :math:`m\,\omega_i`, :math:`\omega_i = b^{-2i/d}`, at
    position :math:`m` (see :func:`lucid.nn.functional.apply_rotary_emb`), so that
    :math:`\langle \mathrm{RoPE}(q)_m, \mathrm{RoPE}(k)_n \rangle` depends on
    :math:`m - n` only.

    Convention: half rotation, as LLaMA and Hugging Face (``rotate_half``: feature
    :math:`i` pairs with :math:`i + d/2`); ``interleaved=True`` pairs features
    :math:`2i, 2i+1` as the paper and GPT-J do. Buffers ``inv_freq`` ``(dim/2,)`` and the
    tables ``cos_cached``, ``sin_cached`` ``(max_seq_len, dim)`` are non-persistent (not in
    the ``state_dict``), computed once in ``dtype`` (default float32) and cast to the
    input's dtype in ``forward``. ``positions``: integer ``(seq,)``, or ``(batch, seq)``
    (applied to every head of a 4-D ``(batch, heads, seq, dim)`` input), selecting rows
    of the tables (a KV-cache offset); without it, positions ``0 .. seq-1``, which must
    not exceed ``max_seq_len``.
    """

    def __init__(
        self, dim, max_seq_len=2048, base=10000.0, interleaved=False, device=None, dtype=None
    ):
        super().__init__()
        if isinstance(dim, bool) or not isinstance(dim, int) or dim <= 0 or dim % 2:
            raise ArgumentError(f"RotaryEmbedding: dim must be a positive even int, got {dim!r}")
        if isinstance(max_seq_len, bool) or not isinstance(max_seq_len, int) or max_seq_len <= 0:
            raise ArgumentError(
                f"RotaryEmbedding: max_seq_len must be a positive int, got {max_seq_len!r}"
            )
        _positive_base("RotaryEmbedding", base)
        self.dim, self.max_seq_len, self.base = dim, max_seq_len, base
        self.interleaved = interleaved
        inv_freq = F.rotary_frequencies(dim, base, dtype=dtype, device=device)
        angle = outer(arange(max_seq_len, dtype=inv_freq.dtype, device=device), inv_freq)
        angle = angle.repeat_interleave(2, -1) if interleaved else cat([angle, angle], -1)
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.register_buffer("cos_cached", angle.cos(), persistent=False)
        self.register_buffer("sin_cached", angle.sin(), persistent=False)

    def forward(self, x, positions=None):
        op = "RotaryEmbedding"
        if not isinstance(x, Tensor):
            raise ArgumentTypeError(f"{op}: x must be a Tensor, got {type(x).__name__}")
        if x.ndim < 2 or x.shape[-1] != self.dim:
            raise ShapeError(
                f"{op}: expected x of shape (..., seq, {self.dim}), got {tuple(x.shape)}"
            )
        seq = x.shape[-2]
        if positions is None:
            if seq > self.max_seq_len:
                raise ShapeError(
                    f"{op}: sequence length {seq} exceeds max_seq_len {self.max_seq_len}"
                )
            cos, sin = self.cos_cached[:seq], self.sin_cached[:seq]
        else:
            dt = getattr(positions, "dtype", None)
            if (
                not isinstance(positions, Tensor)
                or dt.is_floating_point
                or dt.is_complex
                or dt is _dt.bool
                or positions.ndim not in (1, 2)
                or positions.shape[-1] != seq
            ):
                raise ShapeError(
                    f"{op}: positions must be an integer tensor of shape "
                    f"({seq},) or (batch, {seq}), got "
                    f"{getattr(positions, 'shape', type(positions).__name__)}"
                )
            cos, sin = self.cos_cached[positions], self.sin_cached[positions]
            if positions.ndim == 2 and x.ndim == 4:  # (batch, 1, seq, dim): all heads
                cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        return F.apply_rotary_emb(x, cos, sin, self.interleaved)

    def extra_repr(self):
        s = f"{self.dim}, max_seq_len={self.max_seq_len}, base={self.base}"
        return s + (", interleaved=True" if self.interleaved else "")
