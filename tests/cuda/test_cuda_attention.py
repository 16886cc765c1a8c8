"""Flash attention on the device under test against the CPU's P-saving op in float32.

``F.scaled_dot_product_attention`` (no weights, no dropout) takes the flash op on CUDA (for
float32/float64 only where P is small or large; here always): the tensor-core forward for
float16/bfloat16 with head dims up to 128, the plain tiled kernels otherwise. Inputs are drawn
once, rounded to the case's dtype, and the CPU reference runs on those rounded values in
float32; outputs and the gradients of q, k, v (contracted with a fixed random cotangent) must
agree within the dtype's tolerance. Shapes: query lengths 1, 7, 64, 130, 1024, head dims 32,
64, 128 (and 80, 200 off the fast paths), causal or not, cross attention (L != S), boolean and
float masks, grouped-query attention, non-contiguous inputs (float64 against a float64
reference); and a long sequence whose forward and backward must not allocate an L x L matrix.
The op that keeps P (taken here by asking for the weights, which are compared too) is checked
the same way: causal or not, keys a multiple of the row kernel's vector or not, boolean and
float masks.
"""

import numpy as np
import pytest

import lucid
from lucid.ops.nn.attention import scaled_dot_product_attention as sdpa  # with need_weights

from .conftest import DEVICE

pytestmark = pytest.mark.cuda

DTYPES = {
    "float32": lucid.float32,
    "float16": lucid.float16,
    "bfloat16": lucid.bfloat16,
    "float64": lucid.float64,
}
# (rtol, atol): the half kernels round P to the dtype before P V, the CPU keeps float32
TOL = {
    "float32": (1e-4, 2e-5),
    "float64": (1e-9, 1e-11),
    "float16": (1e-2, 4e-3),
    "bfloat16": (4e-2, 3e-2),
}


@pytest.fixture(autouse=True)
def _flash_for_every_dtype(monkeypatch):
    """float32/float64 take the flash op only where P is small or large; these tests check
    the flash kernels of every dtype on any shape, so the upper threshold is lowered to 0."""
    if DEVICE != "cpu":
        from lucid.backend.cuda import attention

        monkeypatch.setattr(attention, "_PROBS_BYTES", 0)


def test_float32_keeps_p_between_the_thresholds_and_half_types_never(monkeypatch):
    if DEVICE == "cpu":
        pytest.skip("the CUDA backend's choice")
    from lucid.backend.cuda import attention

    monkeypatch.undo()  # the module's thresholds, not the fixture's
    be = lucid.device(DEVICE).backend
    small, large = attention._PROBS_SMALL, attention._PROBS_BYTES
    for n, flash in (
        (1, True),
        (small // 4, True),
        (small // 4 + 1, False),
        (large // 4, False),
        (large // 4 + 1, True),
    ):
        assert be.prefers_flash_attention(np.float32, n) is flash, n
    assert be.prefers_flash_attention(np.float64, small // 4) is False
    assert all(
        be.prefers_flash_attention(dt, n)
        for dt in (np.float16, lucid.bfloat16.np)
        for n in (1, small, large)
    )


def _round(a, dt):
    """``a`` rounded to ``dt`` and back to float32 (the reference's inputs)."""
    return lucid.tensor(a).to(DTYPES[dt]).float().numpy()


def _attend(arrays, dt, device, mask=None, layout=None, **kw):
    """Output and (q, k, v) gradients of one call on ``device`` in ``dt``; ``layout="blhe"``
    passes q, k, v as transposed views of (B, L, H, E) arrays (non-contiguous)."""
    q, k, v, go = arrays
    ts = []
    for a in (q, k, v):
        if layout == "blhe":
            t = lucid.tensor(
                np.ascontiguousarray(np.swapaxes(a, 1, 2)), dtype=DTYPES[dt], device=device
            ).transpose(1, 2)
            t = t.detach().requires_grad_()
        else:
            t = lucid.tensor(a, dtype=DTYPES[dt], device=device, requires_grad=True)
        ts.append(t)
    m = None
    if mask is not None:
        m = lucid.tensor(
            mask, dtype=lucid.bool if mask.dtype == bool else DTYPES[dt], device=device
        )
    outs = sdpa(*ts, attn_mask=m, **kw)
    outs = list(outs) if kw.get("need_weights") else [outs]
    if device != "cpu" and DEVICE != "cpu":
        assert type(outs[0].grad_fn).__name__ == (
            "ScaledDotProductAttentionBackward"
            if kw.get("need_weights")
            else "FlashAttentionBackward"
        )
    sum(
        ((o * lucid.tensor(c, dtype=DTYPES[dt], device=device)).sum() for o, c in zip(outs, go))
    ).backward()
    return [
        t.to(lucid.float64).cpu().numpy() for t in [o.detach() for o in outs] + [t.grad for t in ts]
    ]


def _check(dt, qs, ks, vs, mask=None, seed=0, layout=None, **kw):
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal(s).astype(np.float32) for s in (qs, ks, vs))
    ref_in = [_round(a, dt) for a in (q, k, v)]
    fmask = mask
    if mask is not None and mask.dtype != bool:
        fmask = _round(mask, dt)
    outs = sdpa(
        *[lucid.tensor(a) for a in ref_in],
        attn_mask=None if fmask is None else lucid.tensor(fmask),
        **kw,
    )
    outs = outs if kw.get("need_weights") else [outs]
    go = [_round(rng.standard_normal(tuple(o.shape)).astype(np.float32), dt) for o in outs]
    want = _attend(ref_in + [go], "float64" if dt == "float64" else "float32", "cpu", fmask, **kw)
    got = _attend(ref_in + [go], dt, DEVICE, fmask, layout=layout, **kw)
    rtol, atol = TOL[dt]
    names = ("out", "weights")[: len(outs)] + ("dq", "dk", "dv")
    for name, g, w in zip(names, got, want):
        scale = max(float(np.abs(w).max()), 1.0) if w.size else 1.0
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol * scale, err_msg=name)


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("e", [32, 64, 128])
@pytest.mark.parametrize("n", [1, 7, 64, 130, 1024])
def test_self_attention(dt, causal, e, n):
    b, h = (1, 2) if n == 1024 else (2, 3)
    _check(dt, (b, h, n, e), (b, h, n, e), (b, h, n, e), is_causal=causal)


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("l,s", [(7, 130), (130, 64), (1, 1024), (200, 3)])
def test_cross_attention(dt, causal, l, s):
    _check(dt, (2, 2, l, 64), (2, 2, s, 64), (2, 2, s, 64), is_causal=causal)


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
def test_bool_mask_with_fully_masked_rows(dt):
    rng = np.random.default_rng(3)
    mask = rng.random((2, 1, 70, 90)) > 0.3
    mask[:, :, 5] = False  # rows with no key: zeros, zero gradients
    _check(dt, (2, 3, 70, 64), (2, 3, 90, 64), (2, 3, 90, 64), mask=mask)


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
def test_float_mask(dt):
    rng = np.random.default_rng(4)
    bias = rng.standard_normal((70, 90)).astype(np.float32)
    bias[3, ::2] = -np.inf
    _check(dt, (2, 3, 70, 64), (2, 3, 90, 64), (2, 3, 90, 64), mask=bias)


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize(
    "l,s,causal",
    [(64, 64, False), (130, 130, True), (7, 1024, True), (200, 63, True), (1, 3, False)],
)
def test_p_saving_op(dt, l, s, causal):
    """The op that keeps P (taken with the weights): the scores' row kernel (scale, causal
    mask, softmax) and the backward through P, keys a multiple of the vector or not."""
    _check(dt, (2, 3, l, 32), (2, 3, s, 32), (2, 3, s, 32), is_causal=causal, need_weights=True)


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("kind", ["bool", "float"])
def test_p_saving_op_with_a_mask(dt, kind):
    rng = np.random.default_rng(5)
    if kind == "bool":
        mask = rng.random((2, 1, 70, 90)) > 0.3
        mask[:, :, 5] = False  # rows with no key: zero weights
    else:
        mask = rng.standard_normal((70, 90)).astype(np.float32)
        mask[3, ::2] = -np.inf
    _check(
        dt, (2, 3, 70, 32), (2, 3, 90, 32), (2, 3, 90, 32), mask=mask, scale=0.3, need_weights=True
    )


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("causal", [False, True])
def test_grouped_query_attention(dt, causal):
    _check(dt, (2, 8, 130, 64), (2, 2, 130, 64), (2, 2, 130, 64), enable_gqa=True, is_causal=causal)


@pytest.mark.parametrize("dt", ["float32", "bfloat16"])
def test_non_contiguous_inputs(dt):
    _check(dt, (2, 4, 130, 64), (2, 4, 130, 64), (2, 4, 130, 64), layout="blhe", is_causal=True)


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("e,ev", [(80, 80), (16, 40), (200, 200)])
def test_other_head_dims(dt, e, ev):
    """Padded tensor-core tiles (80, 16/40), the plain forward for 200 (and its backward
    through the array-module path)."""
    _check(dt, (1, 2, 70, e), (1, 2, 50, e), (1, 2, 50, ev), scale=0.3)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_broadcast_batch_and_3d(dt):
    _check(dt, (2, 1, 33, 32), (1, 3, 40, 32), (1, 3, 40, 32))
    _check(dt, (3, 33, 32), (3, 40, 32), (3, 40, 32), is_causal=True)


def test_long_sequence_allocates_no_l_by_l_matrix():
    if DEVICE == "cpu":
        pytest.skip("peak memory of the CUDA allocator")
    n = 8192
    q, k, v = (
        lucid.randn(1, 2, n, 64, dtype=lucid.bfloat16, device=DEVICE, requires_grad=True)
        for _ in range(3)
    )
    lucid.cuda.synchronize()
    base = lucid.cuda.memory_allocated()
    lucid.cuda.reset_peak_memory_stats()
    out = sdpa(q, k, v, is_causal=True)
    assert type(out.grad_fn).__name__ == "FlashAttentionBackward"
    out.sum().backward()
    lucid.cuda.synchronize()
    assert lucid.cuda.max_memory_allocated() - base < n * n * 2
    assert np.isfinite(q.grad.float().cpu().numpy()).all()


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
def test_two_batch_dims(dt):
    """(B1, B2, H, L, E): the flattened batch of the kernels' output and gradient strides."""
    _check(dt, (2, 3, 4, 33, 32), (2, 3, 4, 40, 32), (2, 3, 4, 40, 32))
    _check(
        dt, (2, 3, 4, 65, 64), (2, 3, 2, 65, 64), (2, 3, 2, 65, 64), is_causal=True, enable_gqa=True
    )


@pytest.mark.parametrize("dt", ["float32", "bfloat16"])
def test_heads_merged_as_a_transformer_does(dt):
    """q, k, v split from one (B, L, 3, H, E) projection, the output's heads merged back
    (``transpose(1, 2).reshape(B, L, H E)``) before a product: the output is written in
    (B, L, H, E) memory (the merge is a view on the GPU), its gradient arrives as a
    transposed view, and every gradient matches the CPU."""
    b, n, h, e = 2, 70, 4, 64
    rng = np.random.default_rng(5)
    x = rng.standard_normal((b, n, 3 * h * e)).astype(np.float32)
    w = rng.standard_normal((h * e, 8)).astype(np.float32)

    def run(device):
        xt = lucid.tensor(x, dtype=DTYPES[dt], device=device, requires_grad=True)
        wt = lucid.tensor(w, dtype=DTYPES[dt], device=device, requires_grad=True)
        q, k, v = (z.reshape(b, n, h, e).transpose(1, 2) for z in xt.split(h * e, dim=2))
        out = sdpa(q, k, v, is_causal=True)
        merged = out.transpose(1, 2)
        if device != "cpu" and DEVICE != "cpu":
            assert merged.is_contiguous()
        y = merged.reshape(b, n, h * e) @ wt
        (y * y).sum().backward()
        return [t.to(lucid.float64).cpu().numpy() for t in (y.detach(), xt.grad, wt.grad)]

    rtol, atol = TOL[dt]
    for name, g, want in zip(("y", "dx", "dw"), run(DEVICE), run("cpu")):
        scale = max(float(np.abs(want).max()), 1.0)
        np.testing.assert_allclose(g, want, rtol=rtol, atol=atol * scale * 2, err_msg=name)
