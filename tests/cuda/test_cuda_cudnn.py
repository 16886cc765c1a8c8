"""cuDNN's fused attention (lucid/backend/cuda/cudnn.py) against Lucid's own flash kernels
(``lucid.backends.cudnn.enabled = False``) and against float64 on the CPU: outputs and the
gradients of q, k, v; float16 and bfloat16, causal or not, an additive bias, grouped heads,
head dims 64 and 128; the fallbacks and their reasons; a compiled step that captures the
cuDNN calls in a CUDA graph. Skipped without a GPU or without the cuDNN frontend."""

import numpy as np
import pytest

import lucid
import lucid.nn.functional as F

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(
        not lucid.backends.cudnn.is_available(), reason="the cuDNN frontend is not installed"
    ),
]

TOL = {"float16": 3e-3, "bfloat16": 2.5e-2}


def _inputs(dtype, n=2, h=4, hk=4, L=80, S=80, e=64, bias=False, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [
        rng.standard_normal((n, h, L, e)),
        rng.standard_normal((n, hk, S, e)),
        rng.standard_normal((n, hk, S, e)),
        rng.standard_normal((n, h, L, e)),  # the output's gradient
    ]
    if bias:
        arrays.append(rng.standard_normal((1, h, L, S)))
    dt = getattr(lucid, dtype)
    # rounded to the half dtype first, so that the float64 reference sees the same numbers
    return [lucid.tensor(a).to(dt).to(lucid.float64).numpy() for a in arrays], dt


def _run(arrays, dt, device, causal, gqa, cudnn=True):
    q, k, v, go, *rest = (lucid.tensor(a, device=device).to(dt) for a in arrays)
    for t in (q, k, v):
        t.requires_grad_()
    bias = rest[0] if rest else None
    prev = lucid.backends.cudnn.enabled
    lucid.backends.cudnn.enabled = cudnn
    try:
        out = F.scaled_dot_product_attention(
            q, k, v, attn_mask=bias, is_causal=causal, enable_gqa=gqa
        )
        out.backward(go)
    finally:
        lucid.backends.cudnn.enabled = prev
    return [t.detach().to(lucid.float64).cpu().numpy() for t in (out, q.grad, k.grad, v.grad)]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize(
    "case",
    [
        dict(),
        dict(causal=True),
        dict(causal=True, hk=2),
        dict(bias=True),
        dict(causal=True, e=128, L=64, S=96),
    ],
    ids=["plain", "causal", "gqa", "bias", "e128"],
)
def test_cudnn_attention_matches_own_kernels_and_float64(dtype, case):
    case = dict(case)
    causal = case.pop("causal", False)
    gqa = case.get("hk", 4) != 4
    arrays, dt = _inputs(dtype, **case)
    lucid.backends.cudnn.CHOSEN.clear()
    got = _run(arrays, dt, "cuda", causal, gqa)
    assert lucid.backends.cudnn.chosen() == {
        "attention_forward": "cudnn",
        "attention_backward": "cudnn",
    }
    own = _run(arrays, dt, "cuda", causal, gqa, cudnn=False)
    assert lucid.backends.cudnn.chosen()["attention_forward"].startswith("lucid")
    ref = _run(arrays, lucid.float64, "cpu", causal, gqa)
    for name, a, b, r in zip(["out", "dq", "dk", "dv"], got, own, ref):
        scale = np.abs(r).max()
        assert np.abs(a - r).max() <= TOL[dtype] * scale, name
        assert np.abs(a - b).max() <= TOL[dtype] * scale, name


def test_a_boolean_mask_falls_back_and_says_why():
    arrays, dt = _inputs("bfloat16", L=32, S=32)
    mask = np.tril(np.ones((32, 32), bool))
    q, k, v, _ = (lucid.tensor(a, device="cuda").to(dt) for a in arrays)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=lucid.tensor(mask, device="cuda"))
    assert lucid.backends.cudnn.chosen()["attention_forward"] == "lucid (a boolean mask)"
    want = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    np.testing.assert_allclose(
        out.to(lucid.float32).cpu().numpy(), want.to(lucid.float32).cpu().numpy(), atol=2e-2
    )


def test_float32_stays_on_lucid_kernels():
    arrays, _ = _inputs("float16", L=16, S=16)
    q, k, v, _ = (lucid.tensor(a, device="cuda").to(lucid.float32) for a in arrays)
    F.scaled_dot_product_attention(q, k, v, is_causal=True)
    path = lucid.backends.cudnn.chosen().get("attention_forward", "lucid")
    assert path.startswith("lucid"), path


def test_compiled_step_captures_cudnn_attention():
    """A bf16 step through cuDNN attention, replayed as a CUDA graph, gives eager's
    losses."""

    def train(compiled):
        lucid.manual_seed(0)
        qkv = lucid.nn.Linear(64, 192).to("cuda")
        opt = lucid.optim.SGD(qkv.parameters(), lr=0.1)
        x = lucid.randn(2, 48, 64, device="cuda")

        def step():
            opt.zero_grad()
            with lucid.amp.autocast("cuda", dtype=lucid.bfloat16):
                q, k, v = qkv(x).view(2, 48, 3, 4, 16).permute(2, 0, 3, 1, 4).unbind(0)
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                loss = y.float().square().mean()
            loss.backward()
            opt.step()
            return loss

        if compiled:
            step = lucid.compile(step, mode="reduce-overhead")
        return [step().item() for _ in range(6)]

    lucid.compiler.reset()
    eager = train(False)
    compiled = train(True)
    st = lucid.compiler.stats()
    lucid.compiler.reset()
    assert st["graph_breaks"] == [] and st["replays"] >= 3
    assert lucid.backends.cudnn.chosen()["attention_forward"] == "cudnn"
    np.testing.assert_allclose(compiled, eager, rtol=1e-5)
