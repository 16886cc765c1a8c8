"""scaled_dot_product_attention and MultiheadAttention: parity with PyTorch."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import lucid
import lucid.nn.functional as F
from lucid.errors import ArgumentError, DTypeError, ShapeError
from lucid.ops.attention import scaled_dot_product_attention as sdpa_weights

TOL = {np.float64: dict(rtol=1e-10, atol=1e-12), np.float32: dict(rtol=1e-4, atol=1e-5)}


def _pair(rng, shape, dtype=np.float64, grad=True):
    a = rng.standard_normal(shape).astype(dtype)
    return (lucid.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad))


def _close(l, t, dtype=np.float64):
    np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), **TOL[dtype])


def _check(shapes, dtype=np.float64, mask=None, seed=0, **kw):
    """Forward and the gradients of every float input against torch."""
    rng = np.random.default_rng(seed)
    pairs = [_pair(rng, s, dtype) for s in shapes]
    lm = tm = None
    if mask is not None:
        if mask.dtype == bool:
            lm, tm = lucid.tensor(mask), torch.tensor(mask)
        else:
            lm, tm = _pair(rng, mask.shape, dtype)
            with torch.no_grad():
                tm.copy_(torch.tensor(mask.astype(dtype)))
            lm = lucid.tensor(mask.astype(dtype), requires_grad=True)
            pairs.append((lm, tm))
    lo = F.scaled_dot_product_attention(*[p[0] for p in pairs[:3]], attn_mask=lm, **kw)
    to = TF.scaled_dot_product_attention(*[p[1] for p in pairs[:3]], attn_mask=tm, **kw)
    assert tuple(lo.shape) == tuple(to.shape)
    _close(lo, to, dtype)
    g = rng.standard_normal(tuple(lo.shape)).astype(dtype)
    lo.backward(lucid.tensor(g))
    to.backward(torch.tensor(g))
    for l, t in pairs:
        assert l.grad is not None and l.grad.dtype == l.dtype
        _close(l.grad, t.grad, dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shapes", [
    [(2, 3, 4), (2, 5, 4), (2, 5, 6)],                     # 3-d, S != L, Ev != E
    [(2, 2, 4, 8), (2, 2, 4, 8), (2, 2, 4, 8)],            # 4-d
    [(3, 1, 2, 5, 3), (3, 1, 2, 7, 3), (3, 1, 2, 7, 2)],   # 5-d
    [(2, 1, 3, 4), (1, 3, 5, 4), (1, 3, 5, 2)],            # broadcast batch dims
    [(4, 6), (5, 6), (5, 2)],                              # 2-d
])
def test_sdpa_parity(shapes, dtype):
    _check(shapes, dtype)


@pytest.mark.parametrize("L,S", [(4, 4), (3, 6), (6, 3)])
def test_sdpa_causal_top_left(L, S):
    _check([(2, 2, L, 4), (2, 2, S, 4), (2, 2, S, 3)], is_causal=True)


@pytest.mark.parametrize("scale", [0.1, 2.0])
def test_sdpa_scale(scale):
    _check([(2, 3, 4), (2, 5, 4), (2, 5, 3)], scale=scale)
    rng = np.random.default_rng(1)
    q, k, v = (lucid.tensor(rng.standard_normal(s)) for s in [(2, 3, 4), (2, 5, 4), (2, 5, 3)])
    assert not np.allclose(F.scaled_dot_product_attention(q, k, v, scale=scale).numpy(),
                           F.scaled_dot_product_attention(q, k, v).numpy())


def test_sdpa_bool_mask():
    rng = np.random.default_rng(2)
    m = rng.random((3, 5)) > 0.4
    m[:, 0] = True
    _check([(2, 3, 4), (2, 5, 4), (2, 5, 3)], mask=m)
    _check([(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3)], mask=rng.random((2, 1, 3, 5)) > 0.3)


def test_sdpa_float_mask_gradient():
    rng = np.random.default_rng(3)
    _check([(2, 3, 4), (2, 5, 4), (2, 5, 3)], mask=rng.standard_normal((3, 5)))
    _check([(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3)], mask=rng.standard_normal((2, 2, 3, 5)))
    _check([(2, 3, 4), (2, 5, 4), (2, 5, 3)], mask=rng.standard_normal((2, 3, 5)),
           dtype=np.float32)


def test_sdpa_fully_masked_row_is_zero_as_torch():
    m = np.ones((3, 5), bool)
    m[1] = False
    _check([(2, 3, 4), (2, 5, 4), (2, 5, 3)], mask=m)
    bias = np.zeros((3, 5))
    bias[2] = -np.inf
    _check([(2, 3, 4), (2, 5, 4), (2, 5, 3)], mask=bias)
    rng = np.random.default_rng(0)
    q, k, v = (lucid.tensor(rng.standard_normal(s), requires_grad=True)
               for s in [(2, 3, 4), (2, 5, 4), (2, 5, 3)])
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=lucid.tensor(m))
    assert np.all(out.detach().numpy()[:, 1] == 0)
    out.sum().backward()
    assert np.all(q.grad.numpy()[:, 1] == 0) and np.isfinite(k.grad.numpy()).all()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sdpa_gqa(dtype):
    _check([(2, 6, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3)], dtype, enable_gqa=True)
    _check([(1, 4, 3, 4), (1, 1, 3, 4), (1, 1, 3, 2)], dtype, enable_gqa=True, is_causal=True)


def test_sdpa_non_contiguous_inputs():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 4, 3, 5))
    lq, tq = lucid.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    b = rng.standard_normal((2, 6, 3, 5))
    lk, tk = lucid.tensor(b, requires_grad=True), torch.tensor(b, requires_grad=True)
    # (B, L, H, E) -> (B, H, L, E) views, as attention layers make them
    lo = F.scaled_dot_product_attention(lq.transpose(1, 2), lk.transpose(1, 2),
                                        lk.transpose(1, 2))
    to = TF.scaled_dot_product_attention(tq.transpose(1, 2), tk.transpose(1, 2),
                                         tk.transpose(1, 2))
    _close(lo, to)
    lo.sum().backward()
    to.sum().backward()
    _close(lq.grad, tq.grad)
    _close(lk.grad, tk.grad)


def test_sdpa_empty_batch_and_empty_keys():
    rng = np.random.default_rng(5)
    _check([(0, 3, 4), (0, 5, 4), (0, 5, 3)])
    q = lucid.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    k = lucid.tensor(np.zeros((2, 0, 4)), requires_grad=True)
    v = lucid.tensor(np.zeros((2, 0, 6)), requires_grad=True)
    out = F.scaled_dot_product_attention(q, k, v)
    ref = TF.scaled_dot_product_attention(torch.tensor(q.detach().numpy()),
                                          torch.zeros(2, 0, 4, dtype=torch.float64),
                                          torch.zeros(2, 0, 6, dtype=torch.float64))
    assert tuple(out.shape) == tuple(ref.shape) == (2, 3, 6)
    np.testing.assert_array_equal(out.detach().numpy(), ref.numpy())
    out.sum().backward()
    assert np.all(q.grad.numpy() == 0)


def test_sdpa_double_backward_matches_torch():
    rng = np.random.default_rng(6)
    shapes = [(2, 3, 4), (2, 5, 4), (2, 5, 3)]
    pairs = [_pair(rng, s) for s in shapes]
    m = rng.standard_normal((3, 5))
    lm, tm = lucid.tensor(m, requires_grad=True), torch.tensor(m, requires_grad=True)
    lo = F.scaled_dot_product_attention(*[p[0] for p in pairs], attn_mask=lm)
    to = TF.scaled_dot_product_attention(*[p[1] for p in pairs], attn_mask=tm)
    lgs = lucid.autograd.grad((lo ** 2).sum(), [p[0] for p in pairs] + [lm], create_graph=True)
    tgs = torch.autograd.grad((to ** 2).sum(), [p[1] for p in pairs] + [tm], create_graph=True)
    lpen = sum((g ** 2).sum() for g in lgs)
    tpen = sum((g ** 2).sum() for g in tgs)
    lpen.backward()
    tpen.backward()
    for l, t in pairs + [(lm, tm)]:
        np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_sdpa_weights_output_and_its_gradient():
    rng = np.random.default_rng(7)
    q, k, v = (_pair(rng, s) for s in [(2, 3, 4), (2, 5, 4), (2, 5, 3)])
    out, w = sdpa_weights(q[0], k[0], v[0], need_weights=True)
    tw = torch.softmax(q[1] @ k[1].transpose(-1, -2) / 2.0, -1)
    _close(w, tw)
    _close(out, tw @ v[1])
    gw = rng.standard_normal((2, 3, 5))
    go = rng.standard_normal((2, 3, 3))
    lucid.autograd.backward([out, w], [lucid.tensor(go), lucid.tensor(gw)])
    torch.autograd.backward([tw @ v[1], tw], [torch.tensor(go), torch.tensor(gw)])
    for l, t in (q, k, v):
        _close(l.grad, t.grad)
        l.grad = t.grad = None
    # the weights are a copy: changing them in place leaves the saved probabilities as they were
    out, w = sdpa_weights(q[0], k[0], v[0], need_weights=True)
    w.mul_(0)
    out.backward(lucid.tensor(go))
    tw = torch.softmax(q[1] @ k[1].transpose(-1, -2) / 2.0, -1)
    (tw @ v[1]).backward(torch.tensor(go))
    for l, t in (q, k, v):
        _close(l.grad, t.grad)


def test_sdpa_dropout_statistics_and_reproducibility():
    rng = np.random.default_rng(8)
    q, k, v = (lucid.tensor(rng.standard_normal(s), requires_grad=True)
               for s in [(4, 2, 16, 8), (4, 2, 32, 8), (4, 2, 32, 5)])
    p = 0.3
    lucid.manual_seed(0)
    out, w = sdpa_weights(q, k, v, dropout_p=p, need_weights=True)
    lucid.manual_seed(0)
    out2 = F.scaled_dot_product_attention(q, k, v, dropout_p=p)
    np.testing.assert_array_equal(out.detach().numpy(), out2.detach().numpy())
    ref = sdpa_weights(q, k, v, need_weights=True)[1].detach().numpy()
    wn = w.detach().numpy()
    dropped = wn == 0
    assert abs(dropped.mean() - p) < 0.03
    np.testing.assert_allclose(wn[~dropped], ref[~dropped] / (1 - p), rtol=1e-12)
    np.testing.assert_allclose(out.detach().numpy(), wn @ v.detach().numpy(), rtol=1e-12)
    # the backward uses the same mask as the forward: dV = W^T g
    g = rng.standard_normal(tuple(out.shape))
    out.backward(lucid.tensor(g))
    np.testing.assert_allclose(v.grad.numpy(), np.swapaxes(wn, -1, -2) @ g, rtol=1e-10)
    lucid.manual_seed(1)
    out3 = F.scaled_dot_product_attention(q, k, v, dropout_p=p)
    assert not np.allclose(out3.detach().numpy(), out.detach().numpy())
    zero = F.scaled_dot_product_attention(q, k, v, dropout_p=1.0)
    assert np.all(zero.detach().numpy() == 0)


def test_sdpa_errors():
    q = lucid.randn(2, 3, 4)
    k = lucid.randn(2, 5, 4)
    v = lucid.randn(2, 5, 3)
    with pytest.raises(ShapeError, match="scaled_dot_product_attention.*embedding"):
        F.scaled_dot_product_attention(q, lucid.randn(2, 5, 3), v)
    with pytest.raises(ShapeError, match="sequence length"):
        F.scaled_dot_product_attention(q, k, lucid.randn(2, 4, 3))
    with pytest.raises(ShapeError, match="broadcast"):
        F.scaled_dot_product_attention(q, lucid.randn(3, 5, 4), lucid.randn(3, 5, 3))
    with pytest.raises(ShapeError, match="broadcast"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=lucid.zeros(4, 5))
    with pytest.raises(ArgumentError, match="is_causal"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=lucid.zeros(3, 5), is_causal=True)
    with pytest.raises(DTypeError, match="attn_mask dtype"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=lucid.zeros(3, 5,
                                                                      dtype=lucid.float64))
    with pytest.raises(DTypeError, match="same dtype"):
        F.scaled_dot_product_attention(q, k.double(), v)
    with pytest.raises(ArgumentError, match="dropout_p"):
        F.scaled_dot_product_attention(q, k, v, dropout_p=1.5)
    with pytest.raises(ShapeError, match="enable_gqa"):
        F.scaled_dot_product_attention(lucid.randn(1, 3, 2, 4), lucid.randn(1, 2, 5, 4),
                                       lucid.randn(1, 2, 5, 4), enable_gqa=True)
    with pytest.raises(ShapeError, match="at least 2 dims"):
        F.scaled_dot_product_attention(lucid.randn(4), k, v)
