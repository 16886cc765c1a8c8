"""Grouped- and multi-query attention: ``F.repeat_kv`` against LLaMA's, and
``MultiheadAttention(num_kv_heads=...)`` / ``GroupedQueryAttention`` /
``MultiQueryAttention`` against a torch composition over the same weights whose core is
torch's ``scaled_dot_product_attention(enable_gqa=True)``: outputs, attention weights,
input and parameter gradients, with padding / bool / float / 3-d masks, causal, bias_kv,
zero attention, kdim/vdim, batch_first and unbatched inputs; ``num_kv_heads ==
num_heads`` is PyTorch's MultiheadAttention exactly; argument errors."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.errors import ArgumentError, ArgumentTypeError, ShapeError

TOL = {"float64": dict(rtol=1e-10, atol=1e-12), "float32": dict(rtol=1e-4, atol=1e-5)}


def _llama_repeat_kv(x, n_rep):
    b, h, s, d = x.shape
    if n_rep == 1:
        return x
    return x[:, :, None, :, :].expand(b, h, n_rep, s, d).reshape(b, h * n_rep, s, d)


def test_repeat_kv_matches_llama_with_gradient():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 5, 4))
    lx, tx = lucid.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ly, ty = F.repeat_kv(lx, 4), _llama_repeat_kv(tx, 4)
    assert tuple(ly.shape) == (2, 12, 5, 4)
    np.testing.assert_array_equal(ly.detach().numpy(), ty.detach().numpy())
    np.testing.assert_array_equal(ly.detach().numpy()[:, 4:8], np.repeat(a[:, 1:2], 4, 1))
    g = rng.standard_normal((2, 12, 5, 4))
    ly.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    assert F.repeat_kv(lx, 1) is lx
    assert tuple(F.repeat_kv(lucid.zeros((3, 2, 4)), 2).shape) == (6, 2, 4)  # no batch dim


def test_repeat_kv_is_what_enable_gqa_computes():
    rng = np.random.default_rng(1)
    q = lucid.tensor(rng.standard_normal((2, 6, 4, 8)))
    k, v = (lucid.tensor(rng.standard_normal((2, 2, 5, 8))) for _ in range(2))
    a = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    b = F.scaled_dot_product_attention(q, F.repeat_kv(k, 3), F.repeat_kv(v, 3))
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "x,n,err,match",
    [
        (lucid.zeros((2, 3)), 2, ShapeError, "H_kv, S, D"),
        (lucid.zeros((1, 2, 3, 4)), 0, ArgumentError, "positive"),
        (lucid.zeros((1, 2, 3, 4)), 1.5, ArgumentError, "positive"),
        ([[1.0]], 2, ArgumentTypeError, "Tensor"),
    ],
)
def test_repeat_kv_errors(x, n, err, match):
    with pytest.raises(err, match=match):
        F.repeat_kv(x, n)


# -- the layers against a torch composition ----------------------------------------------


def _t(p, dtype):
    return None if p is None else torch.tensor(p.detach().numpy()).to(dtype).requires_grad_()


def _torch_gqa(
    m,
    query,
    key,
    value,
    tp,
    key_padding_mask=None,
    attn_mask=None,
    need_weights=True,
    average_attn_weights=True,
    is_causal=False,
):
    """What the layer computes, written with torch ops and torch's enable_gqa sdpa."""
    h, hkv, d, e = m.num_heads, m.num_kv_heads, m.head_dim, m.embed_dim
    if m.batch_first and query.ndim == 3:
        query, key, value = (x.transpose(0, 1) for x in (query, key, value))
    batched = query.ndim == 3
    if not batched:
        query, key, value = query[:, None], key[:, None], value[:, None]
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask[None]
    L, n, _ = query.shape
    b = tp["in_proj_bias"]
    bq, bk, bv = (None,) * 3 if b is None else b.split([e, hkv * d, hkv * d])
    if m._qkv_same_embed_dim:
        wq, wk, wv = tp["in_proj_weight"].split([e, hkv * d, hkv * d])
    else:
        wq, wk, wv = tp["q_proj_weight"], tp["k_proj_weight"], tp["v_proj_weight"]

    def heads(x, w, bias, nh):
        y = TF.linear(x, w, bias)
        return y.reshape(y.shape[0], n, nh, d).permute(1, 2, 0, 3)

    q, k, v = heads(query, wq, bq, h), heads(key, wk, bk, hkv), heads(value, wv, bv, hkv)
    S = k.shape[2]
    kpm = None if key_padding_mask is None else key_padding_mask.reshape(n, 1, 1, S)
    am = attn_mask
    if am is not None:
        am = am.reshape(1, 1, L, S) if am.ndim == 2 else am.reshape(n, h, L, S)

    def pad(mk):
        if mk is None:
            return None
        return torch.cat([mk, torch.zeros(mk.shape[:-1] + (1,), dtype=mk.dtype)], -1)

    if tp.get("bias_k") is not None:
        k = torch.cat([k, tp["bias_k"].reshape(1, hkv, 1, d).expand(n, -1, -1, -1)], 2)
        v = torch.cat([v, tp["bias_v"].reshape(1, hkv, 1, d).expand(n, -1, -1, -1)], 2)
        am, kpm = pad(am), pad(kpm)
    if m.add_zero_attn:
        z = torch.zeros((n, hkv, 1, d), dtype=k.dtype)
        k, v = torch.cat([k, z], 2), torch.cat([v, z], 2)
        am, kpm = pad(am), pad(kpm)
    bias = torch.zeros(())
    for mk in (am, kpm):
        if mk is not None:
            bias = bias + (
                torch.zeros(mk.shape, dtype=q.dtype).masked_fill(mk, -math.inf)
                if mk.dtype == torch.bool
                else mk
            )
    causal = is_causal and kpm is None and not need_weights
    mask = None if causal or (am is None and kpm is None) else bias
    out = TF.scaled_dot_product_attention(
        q, k, v, attn_mask=mask, is_causal=causal, enable_gqa=True
    )
    out = out.permute(2, 0, 1, 3).reshape(L, n, e)
    out = TF.linear(out, tp["out_proj.weight"], tp["out_proj.bias"])
    w = None
    if need_weights:
        scores = q @ _llama_repeat_kv(k, h // hkv).transpose(-1, -2) / math.sqrt(d)
        w = torch.softmax(scores + (bias if mask is not None else 0), -1)
        if average_attn_weights:
            w = w.mean(1)
    if not batched:
        out = out[:, 0]
        w = None if w is None else w[0]
    if m.batch_first and batched:
        out = out.transpose(0, 1)
    return out, w


def _compare(m, shapes, dtype="float64", seed=0, masks=(), self_attn=False, **kw):
    """The layer against :func:`_torch_gqa`: outputs, weights, and the gradients of the
    inputs and of every parameter."""
    rng = np.random.default_rng(seed)
    m = m.to(getattr(lucid, dtype))
    m.zero_grad()
    tdt = getattr(torch, dtype)
    if self_attn:
        a = rng.standard_normal(shapes[0])
        lq = lucid.tensor(a).to(getattr(lucid, dtype)).requires_grad_()
        tq = torch.tensor(a).to(tdt).requires_grad_()
        lin, tin = [lq] * 3, [tq] * 3
    else:
        arrs = [rng.standard_normal(s) for s in shapes]
        lin = [lucid.tensor(a).to(getattr(lucid, dtype)).requires_grad_() for a in arrs]
        tin = [torch.tensor(a).to(tdt).requires_grad_() for a in arrs]
    tp = {k: _t(p, tdt) for k, p in m.named_parameters()}
    tp.setdefault("in_proj_bias", None)
    tp.setdefault("out_proj.bias", None)
    lmask = {
        k: (lucid.tensor(v) if v.dtype == bool else lucid.tensor(v).to(getattr(lucid, dtype)))
        for k, v in dict(masks).items()
    }
    tmask = {
        k: (torch.tensor(v) if v.dtype == bool else torch.tensor(v).to(tdt))
        for k, v in dict(masks).items()
    }
    lo, lw = m(*lin, **lmask, **kw)
    to, tw = _torch_gqa(m, *tin, tp, **tmask, **kw)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), **TOL[dtype])
    assert (lw is None) == (tw is None)
    if lw is not None:
        np.testing.assert_allclose(lw.detach().numpy(), tw.detach().numpy(), **TOL[dtype])
    g = rng.standard_normal(tuple(lo.shape))
    lo.backward(lucid.tensor(g).to(lo.dtype))
    to.backward(torch.tensor(g).to(tdt))
    for li, ti in zip(lin[:1] if self_attn else lin, tin[:1] if self_attn else tin):
        np.testing.assert_allclose(li.grad.numpy(), ti.grad.numpy(), **TOL[dtype])
    for name, p in m.named_parameters():
        np.testing.assert_allclose(
            p.grad.numpy(), tp[name].grad.numpy(), **TOL[dtype], err_msg=name
        )
    return lo


E, H = 12, 6


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("hkv", [1, 2, 3])
def test_gqa_cross_attention_matches_torch(hkv, dtype):
    m = nn.MultiheadAttention(E, H, num_kv_heads=hkv)
    _compare(m, [(5, 2, E), (7, 2, E), (7, 2, E)], dtype, seed=hkv)


@pytest.mark.parametrize("hkv", [1, 3])
def test_gqa_self_attention_one_gemm(hkv):
    m = nn.GroupedQueryAttention(E, H, hkv)
    assert tuple(m.in_proj_weight.shape) == (E + 2 * hkv * 2, E)
    _compare(m, [(6, 3, E)], self_attn=True, seed=10 + hkv)
    _compare(m, [(6, 3, E)], self_attn=True, seed=20 + hkv, need_weights=False)


def test_gqa_masks():
    rng = np.random.default_rng(3)
    kpm = np.zeros((2, 7), dtype=bool)
    kpm[0, 5:] = True
    kpm[1, :2] = True
    bool_mask = rng.random((5, 7)) < 0.3
    bool_mask[:, 0] = False
    m = nn.MultiheadAttention(E, H, num_kv_heads=2)
    shapes = [(5, 2, E), (7, 2, E), (7, 2, E)]
    _compare(m, shapes, masks={"key_padding_mask": kpm}, seed=4)
    _compare(m, shapes, masks={"attn_mask": bool_mask}, seed=5)
    _compare(
        m, shapes, masks={"attn_mask": rng.standard_normal((5, 7)), "key_padding_mask": kpm}, seed=6
    )
    _compare(
        m,
        shapes,
        masks={"attn_mask": rng.standard_normal((2 * H, 5, 7))},
        seed=7,
        average_attn_weights=False,
    )


def test_gqa_causal():
    causal = np.triu(np.ones((6, 6), dtype=bool), 1)
    m = nn.GroupedQueryAttention(E, H, 2)
    for need in (False, True):  # the fused causal path, and the mask path
        _compare(
            m,
            [(6, 2, E)],
            self_attn=True,
            seed=8,
            masks={"attn_mask": causal},
            is_causal=True,
            need_weights=need,
        )


def test_gqa_bias_kv_zero_attn_kdim_vdim_batch_first_unbatched():
    m = nn.MultiheadAttention(E, H, num_kv_heads=3, add_bias_kv=True, add_zero_attn=True)
    assert tuple(m.bias_k.shape) == (1, 1, 6)
    _compare(m, [(5, 2, E), (7, 2, E), (7, 2, E)], seed=9)
    m = nn.MultiheadAttention(E, H, num_kv_heads=2, kdim=5, vdim=7, bias=False)
    assert tuple(m.k_proj_weight.shape) == (4, 5) and tuple(m.v_proj_weight.shape) == (4, 7)
    _compare(m, [(5, 2, E), (4, 2, 5), (4, 2, 7)], seed=11)
    m = nn.MultiQueryAttention(E, H, batch_first=True)
    assert m.num_kv_heads == 1
    _compare(m, [(2, 5, E), (2, 7, E), (2, 7, E)], seed=12)
    _compare(
        m,
        [(5, E), (7, E), (7, E)],
        seed=13,
        masks={"key_padding_mask": np.array([False] * 6 + [True])},
    )


def test_equal_kv_heads_is_multihead_attention():
    """``num_kv_heads == num_heads`` (or None) is PyTorch's layer: same parameters, a
    torch state dict loads, same outputs and weights."""
    rng = np.random.default_rng(14)
    tm = torch.nn.MultiheadAttention(E, H, add_bias_kv=True).double()
    for m in (
        nn.MultiheadAttention(E, H, add_bias_kv=True, num_kv_heads=H),
        nn.GroupedQueryAttention(E, H, H, add_bias_kv=True),
    ):
        m.load_state_dict({k: lucid.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
        m = m.to(lucid.float64)
        x = rng.standard_normal((5, 2, E))
        kpm = np.zeros((2, 5), dtype=bool)
        kpm[1, 3:] = True
        lo, lw = m(*[lucid.tensor(x)] * 3, key_padding_mask=lucid.tensor(kpm))
        to, tw = tm(*[torch.tensor(x)] * 3, key_padding_mask=torch.tensor(kpm))
        np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(lw.detach().numpy(), tw.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert nn.MultiheadAttention(E, H).num_kv_heads == H


def test_gqa_static_kv():
    m = nn.MultiheadAttention(E, H, num_kv_heads=2).to(lucid.float64)
    q = lucid.randn(4, 3, E).to(lucid.float64)
    sk = lucid.randn(3 * 2, 5, 2).to(lucid.float64)
    sv = lucid.randn(3 * 2, 5, 2).to(lucid.float64)
    out, w = m(q, q, q)
    assert tuple(out.shape) == (4, 3, E)
    out, w = F.multi_head_attention_forward(
        q,
        q,
        q,
        E,
        H,
        m.in_proj_weight,
        m.in_proj_bias,
        None,
        None,
        False,
        0.0,
        m.out_proj.weight,
        m.out_proj.bias,
        static_k=sk,
        static_v=sv,
        num_kv_heads=2,
    )
    assert tuple(out.shape) == (4, 3, E) and tuple(w.shape) == (3, 4, 5)
    with pytest.raises(ShapeError, match=r"static_k of shape \(6, S, 2\)"):
        F.multi_head_attention_forward(
            q,
            q,
            q,
            E,
            H,
            m.in_proj_weight,
            m.in_proj_bias,
            None,
            None,
            False,
            0.0,
            m.out_proj.weight,
            m.out_proj.bias,
            static_k=lucid.randn(3 * H, 5, 2),
            static_v=sv,
            num_kv_heads=2,
        )


@pytest.mark.parametrize(
    "fn",
    [
        lambda: nn.MultiheadAttention(E, H, num_kv_heads=4),
        lambda: nn.MultiheadAttention(E, H, num_kv_heads=0),
        lambda: nn.GroupedQueryAttention(E, H, 5),
        lambda: F.multi_head_attention_forward(
            lucid.randn(3, 1, E),
            lucid.randn(3, 1, E),
            lucid.randn(3, 1, E),
            E,
            H,
            lucid.randn(3 * E, E),
            None,
            None,
            None,
            False,
            0.0,
            lucid.randn(E, E),
            None,
            num_kv_heads=4,
        ),
    ],
)
def test_num_kv_heads_errors(fn):
    with pytest.raises(ArgumentError, match="num_kv_heads must be a positive divisor"):
        fn()
