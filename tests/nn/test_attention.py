"""scaled_dot_product_attention and MultiheadAttention: parity with PyTorch."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import lucid
import lucid.nn.functional as F
from lucid.errors import ArgumentError, DTypeError, ShapeError
from lucid.ops.nn.attention import scaled_dot_product_attention as sdpa_weights

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
@pytest.mark.parametrize(
    "shapes",
    [
        [(2, 3, 4), (2, 5, 4), (2, 5, 6)],  # 3-d, S != L, Ev != E
        [(2, 2, 4, 8), (2, 2, 4, 8), (2, 2, 4, 8)],  # 4-d
        [(3, 1, 2, 5, 3), (3, 1, 2, 7, 3), (3, 1, 2, 7, 2)],  # 5-d
        [(2, 1, 3, 4), (1, 3, 5, 4), (1, 3, 5, 2)],  # broadcast batch dims
        [(4, 6), (5, 6), (5, 2)],  # 2-d
    ],
)
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
    assert not np.allclose(
        F.scaled_dot_product_attention(q, k, v, scale=scale).numpy(),
        F.scaled_dot_product_attention(q, k, v).numpy(),
    )


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
    _check([(2, 3, 4), (2, 5, 4), (2, 5, 3)], mask=rng.standard_normal((2, 3, 5)), dtype=np.float32)


def test_sdpa_fully_masked_row_is_zero_as_torch():
    m = np.ones((3, 5), bool)
    m[1] = False
    _check([(2, 3, 4), (2, 5, 4), (2, 5, 3)], mask=m)
    bias = np.zeros((3, 5))
    bias[2] = -np.inf
    _check([(2, 3, 4), (2, 5, 4), (2, 5, 3)], mask=bias)
    rng = np.random.default_rng(0)
    q, k, v = (
        lucid.tensor(rng.standard_normal(s), requires_grad=True)
        for s in [(2, 3, 4), (2, 5, 4), (2, 5, 3)]
    )
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
    lo = F.scaled_dot_product_attention(lq.transpose(1, 2), lk.transpose(1, 2), lk.transpose(1, 2))
    to = TF.scaled_dot_product_attention(tq.transpose(1, 2), tk.transpose(1, 2), tk.transpose(1, 2))
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
    ref = TF.scaled_dot_product_attention(
        torch.tensor(q.detach().numpy()),
        torch.zeros(2, 0, 4, dtype=torch.float64),
        torch.zeros(2, 0, 6, dtype=torch.float64),
    )
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
    lgs = lucid.autograd.grad((lo**2).sum(), [p[0] for p in pairs] + [lm], create_graph=True)
    tgs = torch.autograd.grad((to**2).sum(), [p[1] for p in pairs] + [tm], create_graph=True)
    lpen = sum((g**2).sum() for g in lgs)
    tpen = sum((g**2).sum() for g in tgs)
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
    q, k, v = (
        lucid.tensor(rng.standard_normal(s), requires_grad=True)
        for s in [(4, 2, 16, 8), (4, 2, 32, 8), (4, 2, 32, 5)]
    )
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
        F.scaled_dot_product_attention(q, k, v, attn_mask=lucid.zeros(3, 5, dtype=lucid.float64))
    with pytest.raises(DTypeError, match="same dtype"):
        F.scaled_dot_product_attention(q, k.double(), v)
    with pytest.raises(ArgumentError, match="dropout_p"):
        F.scaled_dot_product_attention(q, k, v, dropout_p=1.5)
    with pytest.raises(ShapeError, match="enable_gqa"):
        F.scaled_dot_product_attention(
            lucid.randn(1, 3, 2, 4),
            lucid.randn(1, 2, 5, 4),
            lucid.randn(1, 2, 5, 4),
            enable_gqa=True,
        )
    with pytest.raises(ShapeError, match="at least 2 dims"):
        F.scaled_dot_product_attention(lucid.randn(4), k, v)
    with pytest.raises(DTypeError, match="floating point query"):
        F.scaled_dot_product_attention(lucid.ones(2, 3, 4, dtype=lucid.int64), k, v)
    with pytest.raises(TypeError, match="scale"):
        F.scaled_dot_product_attention(q, k, v, scale="0.5")
    with pytest.raises(TypeError, match="key must be a Tensor"):
        F.scaled_dot_product_attention(q, np.zeros((2, 5, 4)), v)


# == MultiheadAttention =====================================================================


def _mha_pair(E, H, **kw):
    """A torch MultiheadAttention and a Lucid one with its weights (float64)."""
    torch.manual_seed(0)
    t = torch.nn.MultiheadAttention(E, H, dtype=torch.float64, **kw)
    with torch.no_grad():  # non-zero biases, so that dropping one shows
        for name, p in t.named_parameters():
            if "bias" in name:
                p.normal_()
    m = lucid.nn.MultiheadAttention(E, H, dtype=lucid.float64, **kw)
    missing, unexpected = m.load_state_dict(
        {k: lucid.tensor(v.numpy()) for k, v in t.state_dict().items()}
    )
    assert not missing and not unexpected
    return m, t


def _run_mha(m, t, q, k=None, v=None, self_attn=False, kv_same=False, grad_params=True, **kw):
    """Forward and backward of both modules; compares outputs, weights and the gradients
    of the inputs and every parameter."""
    arrays = [q] if self_attn else [q, k] if kv_same else [q, k, v]
    lt = [lucid.tensor(a, requires_grad=True) for a in arrays]
    tt = [torch.tensor(a, requires_grad=True) for a in arrays]
    largs = lt * 3 if self_attn else [lt[0], lt[1], lt[1]] if kv_same else lt
    targs = tt * 3 if self_attn else [tt[0], tt[1], tt[1]] if kv_same else tt

    def conv(x, lib):
        if x is None or not isinstance(x, np.ndarray):
            return x
        return lucid.tensor(x) if lib == "l" else torch.tensor(x)

    lkw = {n: conv(x, "l") for n, x in kw.items()}
    tkw = {n: conv(x, "t") for n, x in kw.items()}
    lo, lw = m(*largs, **lkw)
    to, tw = t(*targs, **tkw)
    _close(lo, to)
    assert (lw is None) == (tw is None)
    if tw is not None:
        _close(lw, tw)
    rng = np.random.default_rng(11)
    g = rng.standard_normal(tuple(to.shape))
    loss_l = (lo * lucid.tensor(g)).sum()
    loss_t = (to * torch.tensor(g)).sum()
    if tw is not None:
        gw = rng.standard_normal(tuple(tw.shape))
        loss_l = loss_l + (lw * lucid.tensor(gw)).sum()
        loss_t = loss_t + (tw * torch.tensor(gw)).sum()
    loss_l.backward()
    loss_t.backward()
    for a, b in zip(lt, tt):
        _close(a.grad, b.grad)
    if grad_params:
        tp = dict(t.named_parameters())
        for name, p in m.named_parameters():
            _close(p.grad, tp[name].grad)
    return lo, lw


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_mha_state_dict_names_and_init():
    m = lucid.nn.MultiheadAttention(16, 4)
    t = torch.nn.MultiheadAttention(16, 4)
    assert {k: tuple(v.shape) for k, v in m.state_dict().items()} == {
        k: tuple(v.shape) for k, v in t.state_dict().items()
    }
    assert isinstance(m.out_proj, lucid.nn.Linear)
    assert np.all(m.in_proj_bias.detach().numpy() == 0)
    assert np.all(m.out_proj.bias.detach().numpy() == 0)
    w = m.in_proj_weight.detach().numpy()
    bound = np.sqrt(6.0 / (16 + 48))  # xavier_uniform_ on (3E, E)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    m2 = lucid.nn.MultiheadAttention(16, 4, kdim=6, vdim=5, add_bias_kv=True, bias=False)
    t2 = torch.nn.MultiheadAttention(16, 4, kdim=6, vdim=5, add_bias_kv=True, bias=False)
    assert {k: tuple(v.shape) for k, v in m2.state_dict().items()} == {
        k: tuple(v.shape) for k, v in t2.state_dict().items()
    }
    assert m2.in_proj_weight is None and m2.in_proj_bias is None
    assert m2.out_proj.bias is None


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
def test_mha_self_attention(batch_first, need_weights, average):
    m, t = _mha_pair(8, 2, batch_first=batch_first)
    shape = (3, 5, 8) if batch_first else (5, 3, 8)
    _run_mha(
        m, t, _x(*shape), self_attn=True, need_weights=need_weights, average_attn_weights=average
    )


@pytest.mark.parametrize("batch_first", [False, True])
def test_mha_cross_attention(batch_first):
    m, t = _mha_pair(8, 4, batch_first=batch_first)
    q, k, v = (
        ((3, 4, 8), (3, 6, 8), (3, 6, 8)) if batch_first else ((4, 3, 8), (6, 3, 8), (6, 3, 8))
    )
    _run_mha(m, t, _x(*q), _x(*k, seed=1), _x(*v, seed=2))
    _run_mha(m, t, _x(*q), _x(*k, seed=1), kv_same=True, need_weights=False)


def test_mha_kdim_vdim():
    m, t = _mha_pair(8, 2, kdim=5, vdim=3)
    _run_mha(m, t, _x(4, 2, 8), _x(6, 2, 5, seed=1), _x(6, 2, 3, seed=2))
    _run_mha(m, t, _x(4, 2, 8), _x(6, 2, 5, seed=1), _x(6, 2, 3, seed=2), need_weights=False)


_MIXED = pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask")


@_MIXED
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_masks(need_weights):
    m, t = _mha_pair(8, 2)
    rng = np.random.default_rng(3)
    L, S, N = 4, 6, 3
    am = rng.random((L, S)) > 0.7  # True: masked out
    am[:, 0] = False
    kpm = np.zeros((N, S), bool)
    kpm[0, -2:] = True
    kpm[2, 3] = True
    q, k, v = _x(L, N, 8), _x(S, N, 8, seed=1), _x(S, N, 8, seed=2)
    _run_mha(m, t, q, k, v, attn_mask=am, need_weights=need_weights)
    _run_mha(m, t, q, k, v, key_padding_mask=kpm, need_weights=need_weights)
    _run_mha(m, t, q, k, v, attn_mask=am, key_padding_mask=kpm, need_weights=need_weights)
    fm = rng.standard_normal((N * 2, L, S))  # 3-D float mask, per head
    _run_mha(m, t, q, k, v, attn_mask=fm, need_weights=need_weights)
    fk = np.where(kpm, -np.inf, rng.standard_normal((N, S)))
    _run_mha(m, t, q, k, v, attn_mask=am, key_padding_mask=fk, need_weights=need_weights)


def test_mha_causal_hint():
    m, t = _mha_pair(8, 2)
    L = 5
    causal = np.triu(np.ones((L, L), bool), 1)
    x = _x(L, 2, 8)
    lo, _ = _run_mha(m, t, x, self_attn=True, attn_mask=causal, is_causal=True, need_weights=False)
    ref, _ = m(*[lucid.tensor(x)] * 3, attn_mask=lucid.tensor(causal), need_weights=False)
    _close(lo, ref)
    with pytest.raises(ArgumentError, match="is_causal"):
        m(*[lucid.tensor(x)] * 3, is_causal=True)


@_MIXED
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_bias_kv_and_zero_attn(need_weights):
    rng = np.random.default_rng(4)
    kpm = np.zeros((2, 6), bool)
    kpm[1, :2] = True
    for kw in [
        dict(add_bias_kv=True),
        dict(add_zero_attn=True),
        dict(add_bias_kv=True, add_zero_attn=True, bias=False),
    ]:
        m, t = _mha_pair(8, 2, **kw)
        _run_mha(
            m,
            t,
            _x(4, 2, 8),
            _x(6, 2, 8, seed=1),
            _x(6, 2, 8, seed=2),
            need_weights=need_weights,
            key_padding_mask=kpm,
            attn_mask=rng.standard_normal((4, 6)),
        )


def test_mha_unbatched():
    m, t = _mha_pair(8, 2)
    kpm = np.array([False, False, True, False, False])
    lo, lw = _run_mha(m, t, _x(3, 8), _x(5, 8, seed=1), _x(5, 8, seed=2), key_padding_mask=kpm)
    assert tuple(lo.shape) == (3, 8) and tuple(lw.shape) == (3, 5)


def test_mha_dropout_train_and_eval():
    m = lucid.nn.MultiheadAttention(8, 2, dropout=0.5, batch_first=True)
    x = lucid.tensor(_x(2, 6, 8).astype(np.float32))
    m.eval()
    e1, w1 = m(x, x, x)
    e2, _ = m(x, x, x)
    np.testing.assert_array_equal(e1.detach().numpy(), e2.detach().numpy())
    m.train()
    lucid.manual_seed(3)
    t1, tw = m(x, x, x, average_attn_weights=False)
    lucid.manual_seed(3)
    t2, _ = m(x, x, x, average_attn_weights=False)
    np.testing.assert_array_equal(t1.detach().numpy(), t2.detach().numpy())
    assert not np.allclose(t1.detach().numpy(), e1.detach().numpy())
    frac = (tw.detach().numpy() == 0).mean()
    assert 0.35 < frac < 0.65


def test_mha_fully_masked_query_gives_zero_attention():
    m = lucid.nn.MultiheadAttention(4, 1, bias=False, dtype=lucid.float64)
    x = lucid.tensor(_x(3, 1, 4))
    am = np.zeros((3, 3), bool)
    am[1] = True
    for need in (True, False):
        out, w = m(x, x, x, attn_mask=lucid.tensor(am), need_weights=need)
        assert np.all(out.detach().numpy()[1] == 0)
        if need:
            assert np.all(w.detach().numpy()[:, 1] == 0)


def test_mha_errors():
    with pytest.raises(ArgumentError, match="divisible"):
        lucid.nn.MultiheadAttention(10, 3)
    with pytest.raises(ArgumentError, match="greater than 0"):
        lucid.nn.MultiheadAttention(0, 1)
    m = lucid.nn.MultiheadAttention(8, 2)
    x = lucid.randn(4, 2, 8)
    with pytest.raises(ShapeError, match="attn_mask"):
        m(x, x, x, attn_mask=lucid.zeros(3, 4, dtype=lucid.bool))
    with pytest.raises(ShapeError, match="key_padding_mask"):
        m(x, x, x, key_padding_mask=lucid.zeros(2, 3, dtype=lucid.bool))
    with pytest.raises(ShapeError, match="embedding dimension"):
        m(lucid.randn(4, 2, 6), x, x)
    with pytest.raises(DTypeError, match="key_padding_mask"):
        m(x, x, x, key_padding_mask=lucid.zeros(2, 4, dtype=lucid.int64))


def test_multi_head_attention_forward_static_kv_parity():
    rng = np.random.default_rng(12)
    E, H, L, S, N = 8, 2, 3, 4, 2
    arr = dict(
        query=rng.standard_normal((L, N, E)),
        key=rng.standard_normal((S, N, E)),
        value=rng.standard_normal((S, N, E)),
        in_proj_weight=rng.standard_normal((3 * E, E)),
        in_proj_bias=rng.standard_normal(3 * E),
        out_proj_weight=rng.standard_normal((E, E)),
        out_proj_bias=rng.standard_normal(E),
        static_k=rng.standard_normal((N * H, S + 1, E // H)),
        static_v=rng.standard_normal((N * H, S + 1, E // H)),
    )
    lt = {k: lucid.tensor(v, requires_grad=True) for k, v in arr.items()}
    tt = {k: torch.tensor(v, requires_grad=True) for k, v in arr.items()}
    kw = dict(
        embed_dim_to_check=E,
        num_heads=H,
        bias_k=None,
        bias_v=None,
        add_zero_attn=True,
        dropout_p=0.0,
    )
    lo, lw = F.multi_head_attention_forward(**lt, **kw)
    to, tw = TF.multi_head_attention_forward(**tt, **kw)
    _close(lo, to)
    _close(lw, tw)
    (lo.sum() + lw.sum()).backward()
    (to.sum() + tw.sum()).backward()
    for name in ("query", "in_proj_weight", "static_k", "static_v", "out_proj_weight"):
        _close(lt[name].grad, tt[name].grad)
    assert lt["key"].grad is None or not np.any(lt["key"].grad.numpy())


def test_sdpa_dropout_double_backward_uses_the_same_mask():
    rng = np.random.default_rng(13)
    q, k, v = (
        lucid.tensor(rng.standard_normal(s), requires_grad=True)
        for s in [(2, 4, 3), (2, 5, 3), (2, 5, 2)]
    )
    lucid.manual_seed(5)
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.4)
    g = lucid.tensor(rng.standard_normal(tuple(out.shape)))
    eager = lucid.autograd.grad(out, [q, k, v], g, retain_graph=True)
    graph = lucid.autograd.grad(out, [q, k, v], g, create_graph=True)
    for e, gr in zip(eager, graph):
        np.testing.assert_allclose(e.numpy(), gr.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert graph[0].requires_grad


@pytest.mark.parametrize("case", ["plain", "causal", "allowed", "bias", "all"])
def test_graph_ns_attention_probs_computes_the_kernel(case):
    from lucid.ops import graph_ns

    rng = np.random.default_rng(14)
    q = lucid.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    k = lucid.tensor(rng.standard_normal((2, 5, 4)), requires_grad=True)
    allowed = rng.random((3, 5)) > 0.3
    allowed[1] = False  # a fully masked row
    bias = rng.standard_normal((2, 1, 5))
    bias[0, 0, :] = -np.inf
    a = lucid.tensor(allowed)._data if case in ("allowed", "all") else None
    b = lucid.tensor(bias, requires_grad=True) if case in ("bias", "all") else None
    causal = case in ("causal", "all")
    be = q._device._backend
    want = be.attention_probs(q._data, k._data, None if b is None else b._data, a, 0.6, causal)
    got = graph_ns.attention_probs(q, k, b, a, 0.6, causal)
    assert got.requires_grad
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-12, atol=1e-14)


def test_mha_empty_batch_and_empty_sequence():
    m, t = _mha_pair(8, 2, batch_first=True)
    for shape in [(0, 3, 8), (2, 0, 8)]:
        for need in (True, False):
            _run_mha(m, t, _x(*shape), self_attn=True, need_weights=need, grad_params=False)


def test_mha_unbatched_per_head_mask():
    m, t = _mha_pair(8, 2)
    am = np.zeros((2, 3, 5), bool)
    am[0, :, 1] = True
    am[1, 2, 3:] = True
    _run_mha(
        m, t, _x(3, 8), _x(5, 8, seed=1), _x(5, 8, seed=2), attn_mask=am, average_attn_weights=False
    )


def test_mha_float32_parity():
    torch.manual_seed(1)
    t = torch.nn.MultiheadAttention(8, 2, batch_first=True)
    m = lucid.nn.MultiheadAttention(8, 2, batch_first=True)
    m.load_state_dict({k: lucid.tensor(v.numpy()) for k, v in t.state_dict().items()})
    x = _x(2, 4, 8).astype(np.float32)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    causal = np.triu(np.ones((4, 4), bool), 1)
    lo, _ = m(lx, lx, lx, attn_mask=lucid.tensor(causal), need_weights=False)
    to, _ = t(tx, tx, tx, attn_mask=torch.tensor(causal), need_weights=False)
    assert lo.dtype == lucid.float32
    _close(lo, to, np.float32)
    lo.sum().backward()
    to.sum().backward()
    _close(lx.grad, tx.grad, np.float32)
    _close(m.in_proj_weight.grad, t.in_proj_weight.grad, np.float32)


def test_mha_double_backward_matches_torch():
    m, t = _mha_pair(8, 2)
    x = _x(3, 2, 8)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lo, lw = m(lx, lx, lx)
    to, tw = t(tx, tx, tx)
    (lg,) = lucid.autograd.grad((lo**2).sum() + (lw**2).sum(), [lx], create_graph=True)
    (tg,) = torch.autograd.grad((to**2).sum() + (tw**2).sum(), [tx], create_graph=True)
    _close(lg, tg)
    (lg**2).sum().backward()
    (tg**2).sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(
        m.in_proj_weight.grad.numpy(), t.in_proj_weight.grad.numpy(), rtol=1e-9, atol=1e-11
    )
