"""Positional encodings and grouped-query attention on CUDA against the same call on the
CPU: sinusoidal (1-d, N-d) and rotary embeddings (both conventions, buffers moved with the
module), repeat_kv, and MultiheadAttention with num_kv_heads (outputs, weights, input and
parameter gradients)."""

import copy

import numpy as np
import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F

pytestmark = pytest.mark.cuda

TOL = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-10, atol=1e-12)}


def _np(t):
    return t.detach().cpu().to(lucid.float64).numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sinusoidal_and_rotary(dev, dtype):
    dt = getattr(lucid, dtype)
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 100, size=(3, 4, 2))
    for fn in (lambda t: F.sinusoidal_embedding(t, 8), lambda t: F.sinusoidal_embedding_nd(t, 8)):
        want, got = (fn(lucid.tensor(p).to(dt).to(d)) for d in ("cpu", dev))
        assert got.device == dev
        np.testing.assert_allclose(_np(got), _np(want), **TOL[dtype])
    x = rng.standard_normal((2, 3, 7, 8))
    for interleaved in (False, True):
        rope = nn.RotaryEmbedding(8, max_seq_len=16, interleaved=interleaved, dtype=dt)
        outs = []
        for d, m in (("cpu", rope), (dev, copy.deepcopy(rope).to(dev))):
            t = lucid.tensor(x).to(dt).to(d).requires_grad_()
            y = m(t, positions=lucid.arange(3, 10, device=d))
            y.backward(lucid.tensor(x[..., ::-1].copy()).to(dt).to(d))
            outs.append((_np(y), _np(t.grad)))
        for a, b in zip(*outs):
            np.testing.assert_allclose(b, a, **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("hkv", [1, 2])
def test_grouped_query_attention(dev, dtype, hkv):
    dt = getattr(lucid, dtype)
    lucid.manual_seed(0)
    m = nn.MultiheadAttention(12, 6, num_kv_heads=hkv, add_bias_kv=True).to(dt)
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((5, 2, 12)), rng.standard_normal((7, 2, 12))
    kpm = np.zeros((2, 7), dtype=bool)
    kpm[1, 4:] = True
    res = []
    for d, mod in (("cpu", m), (dev, copy.deepcopy(m).to(dev))):
        tq = lucid.tensor(q).to(dt).to(d).requires_grad_()
        tk = lucid.tensor(k).to(dt).to(d).requires_grad_()
        out, w = mod(tq, tk, tk, key_padding_mask=lucid.tensor(kpm).to(d))
        out.backward(lucid.tensor(q[..., ::-1].copy()).to(dt).to(d))
        res.append(
            [_np(out), _np(w), _np(tq.grad), _np(tk.grad)] + [_np(p.grad) for p in mod.parameters()]
        )
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, **TOL[dtype])
    x = lucid.randn(2, 3, 4, 5, device=dev)
    np.testing.assert_array_equal(F.repeat_kv(x, 2).cpu().numpy(), F.repeat_kv(x.cpu(), 2).numpy())
