"""cuDNN's convolutions (lucid/backend/cuda/cudnn.py: forward, backward-data and
backward-filter graphs) against Lucid's own kernels (``lucid.backends.cudnn.enabled =
False``) and float64 on the CPU: conv1d/2d/3d and conv_transpose2d with the input, weight
and bias gradients, for float32 (TF32 off and on), float16 and bfloat16, with stride,
padding (asymmetric too), dilation and groups; ``benchmark`` autotuning, deterministic
algorithms, the fallbacks and their reasons, and capture in a CUDA graph. Skipped without a
GPU or without the cuDNN frontend."""

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

# largest error allowed, relative to the float64 reference's largest magnitude
TOL = {"float32": 1e-5, "tf32": 5e-3, "float16": 4e-3, "bfloat16": 3e-2}
OPS = ("conv_forward", "conv_backward_input", "conv_backward_weight")

CASES = {
    "conv1d": (F.conv1d, (2, 6, 19), (8, 6, 5), dict(stride=2, padding=2)),
    "conv2d": (F.conv2d, (3, 8, 12, 11), (16, 8, 3, 3), dict(padding=1)),
    "conv2d-strided-dilated": (F.conv2d, (2, 4, 15, 13), (6, 4, 3, 3), dict(stride=2, dilation=2)),
    "conv2d-groups": (F.conv2d, (2, 8, 10, 10), (12, 4, 3, 3), dict(padding=1, groups=2)),
    "depthwise": (F.conv2d, (2, 8, 9, 9), (8, 1, 3, 3), dict(padding=1, groups=8)),
    "conv2d-1x1": (F.conv2d, (4, 16, 7, 7), (32, 16, 1, 1), dict()),
    "conv3d": (F.conv3d, (2, 4, 6, 7, 8), (5, 4, 3, 3, 3), dict(stride=2, padding=1)),
    "transpose2d": (F.conv_transpose2d, (2, 8, 6, 6), (8, 4, 3, 3), dict(stride=2, padding=1)),
}


def _run(case, dtype, device, cudnn=True, tf32=False, seed=0):
    """Output and the input, weight and bias gradients of ``sum(out * u)``, float64
    numpy, and the paths the three convolutions took."""
    fn, xs, ws, kw = CASES[case]
    rng = np.random.default_rng(seed)
    dt = getattr(lucid, dtype)
    x, w = (lucid.tensor(rng.standard_normal(s)).to(dt).to(device) for s in (xs, ws))
    nb = ws[1] * kw.get("groups", 1) if fn is F.conv_transpose2d else ws[0]
    b = lucid.tensor(rng.standard_normal(nb)).to(dt).to(device)
    for t in (x, w, b):
        t.requires_grad_()
    prev = lucid.backends.cudnn.enabled, lucid.backends.cudnn.allow_tf32
    lucid.backends.cudnn.enabled, lucid.backends.cudnn.allow_tf32 = cudnn, tf32
    lucid.backends.cudnn.CHOSEN.clear()
    try:
        out = fn(x, w, b, **kw)
        u = lucid.tensor(rng.standard_normal(tuple(out.shape))).to(dt).to(device)
        (out * u).sum().backward()
    finally:
        lucid.backends.cudnn.enabled, lucid.backends.cudnn.allow_tf32 = prev
    got = [t.detach().to(lucid.float64).cpu().numpy() for t in (out, x.grad, w.grad, b.grad)]
    return got, lucid.backends.cudnn.chosen()


def _reference(case, dtype):
    fn, xs, ws, kw = CASES[case]
    rng = np.random.default_rng(0)
    dt = getattr(lucid, dtype)
    arrays = [lucid.tensor(rng.standard_normal(s)).to(dt).to(lucid.float64) for s in (xs, ws)]
    nb = ws[1] * kw.get("groups", 1) if fn is F.conv_transpose2d else ws[0]
    arrays.append(lucid.tensor(rng.standard_normal(nb)).to(dt).to(lucid.float64))
    for t in arrays:
        t.requires_grad_()
    out = fn(*arrays, **kw)
    u = lucid.tensor(rng.standard_normal(tuple(out.shape))).to(dt).to(lucid.float64)
    (out * u).sum().backward()
    return [t.detach().numpy() for t in [out] + [a.grad for a in arrays]]


def _within(got, want, tol, what):
    for name, a, r in zip(("out", "dx", "dw", "db"), got, want):
        assert a.shape == r.shape, (what, name)
        assert np.abs(a - r).max() <= tol * max(1.0, np.abs(r).max()), (what, name)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_cudnn_convolution_matches_own_kernels_and_float64(case, dtype):
    got, path = _run(case, dtype, "cuda")
    assert path == dict.fromkeys(OPS, "cudnn"), path
    own, own_path = _run(case, dtype, "cuda", cudnn=False)
    assert all(p.startswith("lucid") for p in own_path.values()), own_path
    ref = _reference(case, dtype)
    _within(got, ref, TOL[dtype], "cudnn")
    _within(got, own, 2 * TOL[dtype], "cudnn vs own")


def test_tf32_is_a_switch():
    """float32 with ``allow_tf32`` (PyTorch's default) within TF32's rounding of float64;
    without it within float32's."""
    ref = _reference("conv2d", "float32")
    tf32, _ = _run("conv2d", "float32", "cuda", tf32=True)
    exact, _ = _run("conv2d", "float32", "cuda", tf32=False)
    _within(tf32, ref, TOL["tf32"], "tf32")
    _within(exact, ref, TOL["float32"], "float32")


def test_benchmark_autotunes_once_per_shape():
    """With ``benchmark`` on, a new shape times cuDNN's candidate plans and keeps the
    fastest; the results are the heuristic plan's within tolerance."""
    ref = _reference("conv2d-groups", "float32")
    prev = lucid.backends.cudnn.benchmark
    lucid.backends.cudnn.benchmark = True
    try:
        got, path = _run("conv2d-groups", "float32", "cuda", seed=0)
        again, _ = _run("conv2d-groups", "float32", "cuda", seed=0)
    finally:
        lucid.backends.cudnn.benchmark = prev
    assert path == dict.fromkeys(OPS, "cudnn")
    _within(got, ref, TOL["float32"], "benchmark")
    _within(again, got, TOL["float32"], "benchmark, again")  # (the gradients' sums may
    # be split across thread blocks in another order: not bit for bit)


def test_deterministic_algorithms_repeat_bit_for_bit():
    prev = lucid.are_deterministic_algorithms_enabled()
    lucid.use_deterministic_algorithms(True)
    try:
        runs = [_run("conv2d-strided-dilated", "float32", "cuda")[0] for _ in range(2)]
    finally:
        lucid.use_deterministic_algorithms(prev)
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)


def test_float64_and_empty_inputs_stay_on_lucid_kernels_and_say_why():
    x = lucid.randn(2, 3, 8, 8, device="cuda", dtype=lucid.float64)
    w = lucid.randn(4, 3, 3, 3, device="cuda", dtype=lucid.float64)
    F.conv2d(x, w)
    assert lucid.backends.cudnn.chosen()["conv_forward"].startswith("lucid (dtype float64")
    lucid.backends.cudnn.enabled = False
    try:
        F.conv2d(x.float(), w.float())
    finally:
        lucid.backends.cudnn.enabled = True
    assert lucid.backends.cudnn.chosen()["conv_forward"] == "lucid (lucid.backends.cudnn off)"


def test_an_unaligned_view_falls_back():
    base = lucid.randn(2 * 3 * 8 * 8 + 1, device="cuda")
    x = base[1:].view(2, 3, 8, 8)  # 4 bytes past an aligned start
    w = lucid.randn(4, 3, 3, 3, device="cuda")
    y = F.conv2d(x, w, padding=1)
    assert lucid.backends.cudnn.chosen()["conv_forward"] == "lucid (operands not 16-byte aligned)"
    want = F.conv2d(x.cpu(), w.cpu(), padding=1)
    np.testing.assert_allclose(y.cpu().numpy(), want.numpy(), rtol=1e-4, atol=1e-4)


def test_cuda_graph_replays_cudnn_convolutions():
    """A convolution's forward and backward captured in ``lucid.cuda.graph`` after a
    warm-up (the cuDNN graphs are built outside the capture) replay cuDNN's kernels on new
    inputs."""
    lucid.manual_seed(0)
    conv = lucid.nn.Conv2d(4, 8, 3, padding=1).to("cuda")
    x = lucid.randn(2, 4, 10, 10, device="cuda", requires_grad=True)

    def step():
        return lucid.autograd.grad(conv(x).square().sum(), [x, conv.weight])

    step()
    graph = lucid.cuda.CUDAGraph()
    with lucid.cuda.graph(graph):
        gx, gw = step()
    assert lucid.backends.cudnn.chosen() == dict.fromkeys(OPS, "cudnn")
    with lucid.no_grad():
        x.copy_(lucid.randn(2, 4, 10, 10, device="cuda"))
    graph.replay()
    lucid.cuda.synchronize()
    ref = lucid.nn.Conv2d(4, 8, 3, padding=1)
    ref.load_state_dict({k: v.cpu() for k, v in conv.state_dict().items()})
    xc = x.detach().cpu().requires_grad_()
    want = lucid.autograd.grad(ref(xc).square().sum(), [xc, ref.weight])
    for got, r in zip((gx, gw), want):
        r = r.numpy()
        np.testing.assert_allclose(got.cpu().numpy(), r, rtol=1e-4, atol=1e-4 * np.abs(r).max())


def test_built_graphs_run_through_the_raw_pointer_entry():
    """With the pinned frontend (1.32), cuDNN's own plans run through the C++ graph's
    raw-pointer execute, not the frontend's per-call Python ``execute``."""
    from lucid.backend.cuda import cudnn

    F.conv2d(lucid.randn(2, 3, 8, 8, device="cuda"), lucid.randn(4, 3, 3, 3, device="cuda"))
    assert lucid.backends.cudnn.chosen()["conv_forward"] == "cudnn"
    built = [g for g in cudnn._GRAPHS.values() if g is not None]
    assert built and all(g._raw is not None for g in built)
