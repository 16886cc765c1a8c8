"""Positional encodings against torch compositions of their textbook formulas: sinusoidal
(Vaswani et al.) values and position gradients, its N-d form and grids, rotary embeddings
in the half-rotation (Hugging Face ``rotate_half``) and interleaved (Meta LLaMA's complex
product) conventions, gradients to q/k, positions / KV-cache offsets, the relative-position
property, buffers (non-persistent), dtypes, and argument errors."""

import math

import numpy as np
import pytest
import torch

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.autograd.gradcheck import gradcheck
from lucid.errors import ArgumentError, ArgumentTypeError, DTypeError, ShapeError

TOL = {"float32": dict(rtol=2e-5, atol=2e-5), "float64": dict(rtol=1e-12, atol=1e-12)}


def _torch_sinusoid(p, d, base=10000.0):
    """Vaswani et al.'s table for positions ``p`` (a torch tensor of any shape)."""
    div = torch.exp(torch.arange(0, d, 2, dtype=p.dtype) * (-math.log(base) / d))
    pe = torch.zeros(p.shape + (d,), dtype=p.dtype)
    pe[..., 0::2] = torch.sin(p[..., None] * div)
    pe[..., 1::2] = torch.cos(p[..., None] * div)
    return pe


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sinusoidal_matches_formula_with_position_gradients(dtype):
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 500, size=(3, 5))
    lp = lucid.tensor(p).to(getattr(lucid, dtype)).requires_grad_()
    tp = torch.tensor(p).to(getattr(torch, dtype)).requires_grad_()
    m = nn.SinusoidalEmbedding(16, base=1000.0)
    ly, ty = m(lp), _torch_sinusoid(tp, 16, 1000.0)
    assert tuple(ly.shape) == (3, 5, 16) and ly.dtype == lp.dtype
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **TOL[dtype])
    g = rng.standard_normal((3, 5, 16))
    ly.backward(lucid.tensor(g).to(ly.dtype))
    ty.backward(torch.tensor(g).to(ty.dtype))
    tol = dict(rtol=1e-3, atol=1e-3) if dtype == "float32" else TOL[dtype]
    np.testing.assert_allclose(lp.grad.numpy(), tp.grad.numpy(), **tol)


def test_sinusoidal_integer_positions_and_textbook_values():
    y = F.sinusoidal_embedding(lucid.arange(4), 6)
    assert y.dtype == lucid.float32 and tuple(y.shape) == (4, 6)
    want = np.array(
        [
            [
                math.sin(p / 10000 ** (2 * (j // 2) / 6))
                if j % 2 == 0
                else math.cos(p / 10000 ** (2 * (j // 2) / 6))
                for j in range(6)
            ]
            for p in range(4)
        ]
    )
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(y.numpy()[0], [0, 1, 0, 1, 0, 1])  # p = 0: sin 0, cos 0
    assert tuple(F.sinusoidal_embedding(lucid.tensor(3.0), 4).shape) == (4,)


def test_sinusoidal_gradcheck():
    p = lucid.tensor(np.random.default_rng(1).uniform(0, 5, size=(4,)), requires_grad=True)
    assert gradcheck(lambda t: F.sinusoidal_embedding(t, 8), (p,))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sinusoidal_nd_splits_the_dim_across_axes(dtype):
    rng = np.random.default_rng(2)
    p = rng.uniform(0, 50, size=(2, 7, 3))
    lp = lucid.tensor(p).to(getattr(lucid, dtype)).requires_grad_()
    tp = torch.tensor(p).to(getattr(torch, dtype)).requires_grad_()
    ly = nn.SinusoidalEmbeddingND(24, 3)(lp)
    ty = torch.cat([_torch_sinusoid(tp[..., j], 8) for j in range(3)], -1)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **TOL[dtype])
    g = rng.standard_normal((2, 7, 24))
    ly.backward(lucid.tensor(g).to(ly.dtype))
    ty.backward(torch.tensor(g).to(ty.dtype))
    tol = dict(rtol=1e-3, atol=1e-3) if dtype == "float32" else TOL[dtype]
    np.testing.assert_allclose(lp.grad.numpy(), tp.grad.numpy(), **tol)


def test_sinusoidal_nd_grid():
    m = nn.SinusoidalEmbeddingND(8, 2)
    g = m.grid((3, 4))
    assert tuple(g.shape) == (3, 4, 8)
    ty = torch.cat(
        [
            _torch_sinusoid(torch.arange(3.0)[:, None].expand(3, 4), 4),
            _torch_sinusoid(torch.arange(4.0)[None, :].expand(3, 4), 4),
        ],
        -1,
    )
    np.testing.assert_allclose(g.numpy(), ty.numpy(), rtol=1e-6, atol=1e-6)
    one_d = F.sinusoidal_embedding(lucid.arange(5.0), 6)
    np.testing.assert_allclose(nn.SinusoidalEmbeddingND(6, 1).grid((5,)).numpy(), one_d.numpy())


def _torch_rope_half(x, positions, base=10000.0):
    """Hugging Face LLaMA: cos/sin of cat(freqs, freqs), x cos + rotate_half(x) sin."""
    d = x.shape[-1]
    inv = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).to(x.dtype) / d))
    freqs = positions.to(x.dtype)[..., None] * inv
    emb = torch.cat([freqs, freqs], -1)
    cos, sin = emb.cos(), emb.sin()
    if positions.ndim == 2 and x.ndim == 4:
        cos, sin = cos[:, None], sin[:, None]
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    return x * cos + torch.cat([-x2, x1], -1) * sin


def _torch_rope_interleaved(x, positions, base=10000.0):
    """Meta LLaMA: features (2i, 2i+1) as one complex number times exp(i m w_i)."""
    d = x.shape[-1]
    inv = 1.0 / (base ** (torch.arange(0, d, 2).to(x.dtype) / d))
    cis = torch.polar(
        torch.ones(len(positions), d // 2, dtype=x.dtype), torch.outer(positions.to(x.dtype), inv)
    )
    xc = torch.view_as_complex(x.reshape(x.shape[:-1] + (d // 2, 2)).contiguous())
    return torch.view_as_real(xc * cis).flatten(-2)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("interleaved", [False, True])
def test_rotary_matches_torch_with_gradients(dtype, interleaved):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 9, 16))
    lx = lucid.tensor(x).to(getattr(lucid, dtype)).requires_grad_()
    tx = torch.tensor(x).to(getattr(torch, dtype)).requires_grad_()
    rope = nn.RotaryEmbedding(
        16, max_seq_len=32, base=500.0, interleaved=interleaved, dtype=getattr(lucid, dtype)
    )
    ly = rope(lx)
    ref = _torch_rope_interleaved if interleaved else _torch_rope_half
    ty = ref(tx, torch.arange(9), 500.0)
    assert ly.dtype == lx.dtype
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **TOL[dtype])
    g = rng.standard_normal(x.shape)
    ly.backward(lucid.tensor(g).to(ly.dtype))
    ty.backward(torch.tensor(g).to(ty.dtype))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **TOL[dtype])


def test_rotary_positions_offset_and_batched_positions():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 5, 8))
    rope = nn.RotaryEmbedding(8, max_seq_len=64, dtype=lucid.float64)
    pos = lucid.arange(10, 15)
    got = rope(lucid.tensor(x), positions=pos).numpy()
    np.testing.assert_allclose(
        got, _torch_rope_half(torch.tensor(x), torch.arange(10, 15)), rtol=1e-12, atol=1e-12
    )
    bpos = np.array([[0, 1, 2, 3, 4], [7, 8, 9, 10, 11]])
    got = rope(lucid.tensor(x), positions=lucid.tensor(bpos)).numpy()
    want = _torch_rope_half(torch.tensor(x), torch.tensor(bpos))
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-12, atol=1e-12)
    # a decoding step at offset 4 equals row 4 of the full-sequence rotation
    full = rope(lucid.tensor(x)).numpy()
    step = rope(lucid.tensor(x[:, :, 4:5]), positions=lucid.arange(4, 5)).numpy()
    np.testing.assert_allclose(step, full[:, :, 4:5], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("interleaved", [False, True])
def test_rotary_scores_depend_on_relative_position_only(interleaved):
    rng = np.random.default_rng(5)
    q, k = (lucid.tensor(rng.standard_normal((1, 16))) for _ in range(2))
    rope = nn.RotaryEmbedding(16, max_seq_len=64, interleaved=interleaved, dtype=lucid.float64)

    def score(m, n):
        rq = rope(q, positions=lucid.tensor([m]))
        rk = rope(k, positions=lucid.tensor([n]))
        return float((rq * rk).sum().item())

    assert score(3, 1) == pytest.approx(score(40, 38), rel=1e-10, abs=1e-12)
    assert score(0, 0) == pytest.approx(float((q * k).sum().item()), rel=1e-12)
    assert score(5, 1) != pytest.approx(score(5, 2), rel=1e-6)


def test_rotary_norm_is_kept_and_gradcheck():
    rng = np.random.default_rng(6)
    x = lucid.tensor(rng.standard_normal((3, 6, 4)), requires_grad=True)
    rope = nn.RotaryEmbedding(4, max_seq_len=8, dtype=lucid.float64)
    y = rope(x)
    np.testing.assert_allclose(
        y.detach().numpy() ** 2 @ np.ones(4), x.detach().numpy() ** 2 @ np.ones(4), rtol=1e-12
    )
    assert gradcheck(rope, (x,))
    assert gradcheck(
        lambda t: F.apply_rotary_emb(t, rope.cos_cached[:6], rope.sin_cached[:6], True), (x,)
    )


def test_rotary_buffers_are_not_persistent_and_cast_to_input():
    rope = nn.RotaryEmbedding(8, max_seq_len=16)
    assert rope.state_dict() == {} or list(rope.state_dict()) == []
    names = dict(rope.named_buffers())
    assert set(names) == {"inv_freq", "cos_cached", "sin_cached"}
    assert tuple(rope.cos_cached.shape) == (16, 8) and rope.cos_cached.dtype == lucid.float32
    x = lucid.randn(2, 5, 8).to(lucid.float64)
    assert rope(x).dtype == lucid.float64
    assert rope(lucid.randn(2, 5, 8).to(lucid.bfloat16)).dtype == lucid.bfloat16
    assert repr(rope) == "RotaryEmbedding(8, max_seq_len=16, base=10000.0)"


def test_apply_rotary_emb_functional_equals_module():
    rope = nn.RotaryEmbedding(6, max_seq_len=10)
    x = lucid.randn(4, 10, 6)
    np.testing.assert_array_equal(
        F.apply_rotary_emb(x, rope.cos_cached, rope.sin_cached).numpy(), rope(x).numpy()
    )
    y = F.rotate_half(lucid.tensor([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(y.numpy(), [-3.0, -4.0, 1.0, 2.0])


@pytest.mark.parametrize(
    "fn,err,match",
    [
        (lambda: nn.SinusoidalEmbedding(7), ArgumentError, "even"),
        (lambda: nn.SinusoidalEmbedding(8, base=0.0), ArgumentError, "base"),
        (lambda: nn.SinusoidalEmbeddingND(10, 3), ArgumentError, "multiple of 2"),
        (lambda: nn.SinusoidalEmbeddingND(12, 0), ArgumentError, "num_dims"),
        (
            lambda: nn.SinusoidalEmbeddingND(12, 3)(lucid.zeros((4, 2))),
            ShapeError,
            r"\(\.\.\., 3\)",
        ),
        (lambda: nn.SinusoidalEmbeddingND(12, 3).grid((2, 2)), ShapeError, "3 sizes"),
        (lambda: F.sinusoidal_embedding([1, 2], 4), ArgumentTypeError, "Tensor"),
        (lambda: F.sinusoidal_embedding(lucid.tensor([True]), 4), DTypeError, "bool"),
        (lambda: F.sinusoidal_embedding_nd(lucid.tensor(1.0), 4), ShapeError, "0-d"),
        (lambda: nn.RotaryEmbedding(7), ArgumentError, "even"),
        (lambda: nn.RotaryEmbedding(8, max_seq_len=0), ArgumentError, "max_seq_len"),
        (lambda: nn.RotaryEmbedding(8)(lucid.randn(2, 3, 6)), ShapeError, r"\(\.\.\., seq, 8\)"),
        (
            lambda: nn.RotaryEmbedding(8, max_seq_len=4)(lucid.randn(5, 8)),
            ShapeError,
            "exceeds max_seq_len",
        ),
        (
            lambda: nn.RotaryEmbedding(8)(lucid.randn(5, 8), positions=lucid.arange(4)),
            ShapeError,
            "positions",
        ),
        (
            lambda: nn.RotaryEmbedding(8)(lucid.randn(5, 8), positions=lucid.arange(5.0)),
            ShapeError,
            "integer",
        ),
        (
            lambda: F.apply_rotary_emb(lucid.randn(3, 5), lucid.randn(3, 5), lucid.randn(3, 5)),
            ShapeError,
            "even",
        ),
        (
            lambda: F.apply_rotary_emb(lucid.randn(3, 4), lucid.randn(3, 2), lucid.randn(3, 2)),
            ShapeError,
            "cos and sin",
        ),
        (
            lambda: F.apply_rotary_emb(
                lucid.arange(12).reshape(3, 4), lucid.randn(3, 4), lucid.randn(3, 4)
            ),
            DTypeError,
            "floating",
        ),
    ],
)
def test_errors(fn, err, match):
    with pytest.raises(err, match=match):
        fn()
