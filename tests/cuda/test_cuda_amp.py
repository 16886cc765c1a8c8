"""Mixed precision on the device under test: ``autocast`` per device type (a CUDA region
leaves CPU ops alone and the reverse), autocast results and gradients against the same
call on the CPU (float16 and bfloat16, odd and non-contiguous shapes), ``GradScaler`` on the
device against one on the CPU (scale sequence, skipped steps, weights; no host read per
parameter), and the issue's check: a model trained under float16 autocast with a scaler and
under bfloat16 autocast reaches the float32 loss, skipping a step with an injected inf."""

import numpy as np
import pytest

import lucid
import lucid.nn.functional as F
from lucid.amp import GradScaler

pytestmark = pytest.mark.cuda

HALF = [lucid.float16, lucid.bfloat16]
TOL = {"float16": 2e-2, "bfloat16": 5e-2, "float32": 1e-4}


def _np(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _both(arrays, dev, dtype=lucid.float32, grad=False):
    """The same tensors on the CPU and on ``dev``."""
    cpu = [lucid.tensor(a).to(dtype).requires_grad_(grad) for a in arrays]
    on = [lucid.tensor(a).to(dtype).to(dev).requires_grad_(grad) for a in arrays]
    return cpu, on


def test_autocast_applies_to_its_device_type_only(dev):
    other = "cpu" if dev.type == "cuda" else "cuda"
    a, b = (lucid.tensor(_np(s, k)).to(dev) for k, s in enumerate([(3, 4), (4, 5)]))
    with lucid.autocast(other):
        assert (a @ b).dtype is lucid.float32
        assert lucid.exp(a.half()).dtype is lucid.float16
    with lucid.autocast(dev.type, dtype=lucid.float16):
        assert lucid.amp.is_autocast_enabled(dev.type)
        assert (a @ b).dtype is lucid.float16
        assert lucid.exp(a.half()).dtype is lucid.float32
        if dev.type == "cuda":
            assert (a.cpu() @ b.cpu()).dtype is lucid.float32
        with lucid.autocast(dev.type, enabled=False):
            assert (a @ b).dtype is lucid.float32
    assert not lucid.amp.is_autocast_enabled(dev.type)


CALLS = [
    ("matmul", lambda a, b: a @ b, [(7, 33), (33, 5)]),
    ("matmul_transposed", lambda a, b: a.t() @ b, [(33, 7), (33, 5)]),
    ("matmul_1x1", lambda a, b: a @ b, [(1, 1), (1, 1)]),
    ("matmul_empty", lambda a, b: a @ b, [(0, 5), (5, 3)]),
    ("bmm", lambda a, b: lucid.bmm(a, b), [(3, 7, 9), (3, 9, 1)]),
    ("linear", lambda x, w, b: F.linear(x, w, b), [(2, 7, 16), (5, 16), (5,)]),
    ("linear_no_bias", lambda x, w: F.linear(x, w), [(9, 40), (24, 40)]),
    (
        "linear_half_input",
        lambda x, w, b: F.linear(x.bfloat16(), w, b),
        [(3, 5, 24), (8, 24), (8,)],
    ),
    ("conv2d", lambda x, w: F.conv2d(x, w, padding=1), [(2, 3, 7, 7), (4, 3, 3, 3)]),
    ("exp_sum", lambda a: a.half().exp().sum(-1), [(7, 5)]),
    ("softmax", lambda a: a.bfloat16().softmax(-1), [(1, 33)]),
    (
        "cross_entropy",
        lambda a: F.cross_entropy(a @ a.t(), lucid.tensor([0, 3, 1, 6, 2, 5, 4], device=a.device)),
        [(7, 3)],
    ),
]


@pytest.mark.parametrize("dtype", HALF, ids=str)
@pytest.mark.parametrize("name,call,shapes", CALLS, ids=[c[0] for c in CALLS])
def test_autocast_results_and_grads_match_the_cpu(dev, name, call, shapes, dtype):
    cpu, on = _both([_np(s, k) for k, s in enumerate(shapes)], dev, grad=True)
    with lucid.autocast("cpu", dtype=dtype):
        want = call(*cpu)
    with lucid.autocast(dev.type, dtype=dtype):
        got = call(*on)
    assert got.dtype is want.dtype and got.device == dev
    tol = TOL[want.dtype.name]
    np.testing.assert_allclose(
        got.float().cpu().detach().numpy(), want.float().detach().numpy(), rtol=tol, atol=tol
    )
    want.float().sum().backward()
    got.float().sum().backward()
    for g, w in zip(on, cpu):
        assert g.grad.dtype is lucid.float32
        big = float(w.grad.abs().max()) if w.grad.numel() else 1.0
        np.testing.assert_allclose(
            g.grad.cpu().numpy(),
            w.grad.numpy(),
            rtol=TOL[dtype.name],
            atol=TOL[dtype.name] * max(1.0, big),
        )


@pytest.mark.parametrize("dtype", HALF, ids=str)
def test_linear_weight_grads_are_the_float32_products(dev, dtype):
    """Under autocast the linear op casts W and b itself and its weight-gradient GEMM
    writes float32 (no rounding to the half type, no cast nodes): the gradients are the
    float32 products of the half operands on both devices."""
    arrays = [_np(s, k) for k, s in enumerate([(3, 37, 48), (20, 48), (20,)])]
    g = lucid.tensor(_np((3, 37, 20), 9)).to(dtype)
    grads = []
    for ts in _both(arrays, dev, grad=True):
        with lucid.autocast(ts[0].device.type, dtype=dtype):
            y = F.linear(*ts)
        assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == [
            "CastBackward",
            "AccumulateGrad",
            "AccumulateGrad",
        ]
        y.backward(g.to(ts[0].device))
        assert ts[1].grad.dtype is lucid.float32 and ts[2].grad.dtype is lucid.float32
        grads.append([t.grad.cpu().numpy() for t in ts[1:]])
    xh = lucid.tensor(arrays[0]).to(dtype).float().numpy().reshape(-1, 48)
    gh = g.float().numpy().reshape(-1, 20)
    for gw, gb in grads:
        np.testing.assert_allclose(gw, gh.T @ xh, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(gb, gh.sum(0), rtol=1e-5, atol=1e-5)


def _scaler_run(device, steps=24):
    """SGD with momentum on a small model, injected inf/NaN at fixed steps."""
    inject = {2: float("inf"), 9: float("nan"), 15: float("-inf")}
    x, y = (lucid.tensor(_np(s, 10 + k)).to(device) for k, s in enumerate([(16, 7), (16, 1)]))
    w1 = lucid.nn.Parameter(lucid.tensor(_np((7, 33), 1)).to(device))
    w2 = lucid.nn.Parameter(lucid.tensor(_np((33, 1), 2)).to(device))
    opt = lucid.optim.SGD([w1, w2], lr=0.01, momentum=0.9)
    sc = GradScaler(lucid.device(device).type, init_scale=2.0**10, growth_interval=4)
    scales, skipped = [], []
    for step in range(steps):
        opt.zero_grad()
        sc.scale((((x @ w1).tanh() @ w2 - y) ** 2).mean()).backward()
        if step in inject:
            w1.grad[3, 4] = inject[step]
        sc.unscale_(opt)
        lucid.nn.utils.clip_grad_norm_([w1, w2], 1.0)
        before = w2.detach().clone()
        sc.step(opt)
        if bool((w2.detach() == before).all()):
            skipped.append(step)
        sc.update()
        scales.append(sc.get_scale())
    assert sc._scale.device == lucid.device(device)
    return scales, skipped, [w1.detach().cpu().numpy(), w2.detach().cpu().numpy()]


def test_grad_scaler_on_the_device_matches_the_cpu(dev):
    want = _scaler_run("cpu")
    got = _scaler_run(dev)
    assert got[0] == want[0] and got[1] == want[1] == [2, 9, 15]
    for g, w in zip(got[2], want[2]):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_grad_scaler_reads_one_flag_per_step(dev, monkeypatch):
    m = lucid.nn.Sequential(*[lucid.nn.Linear(8, 8) for _ in range(6)]).to(dev)
    empty = lucid.nn.Parameter(lucid.ones(0).to(dev))
    opt = lucid.optim.SGD([*m.parameters(), empty], lr=1e-3)
    sc = GradScaler(dev.type)
    sc.scale(m(lucid.randn(4, 8).to(dev)).sum() + empty.sum()).backward()
    be = type(dev.backend)
    reads = []
    real = be.to_numpy
    monkeypatch.setattr(
        be, "to_numpy", lambda self, a, *k, **kw: reads.append(1) or real(self, a, *k, **kw)
    )
    sc.unscale_(opt)
    assert reads == []
    sc.step(opt)
    sc.update()
    assert len(reads) == 1 and sc.get_scale() == 2.0**16


def _train(dev, dtype=None, scaler=False, inject=None, steps=200):
    """An MLP regression on ``dev``: float32, or under autocast in ``dtype`` (with a
    GradScaler when ``scaler``); an inf put in one gradient at step ``inject``."""
    lucid.manual_seed(0)
    x = lucid.tensor(_np((256, 32), 3)).to(dev)
    y = (x @ lucid.tensor(_np((32, 4), 4)).to(dev) / 6).tanh()
    nn = lucid.nn
    m = nn.Sequential(nn.Linear(32, 128), nn.GELU(), nn.Linear(128, 4)).to(dev)
    opt = lucid.optim.AdamW(m.parameters(), lr=3e-3)
    sc = GradScaler(dev.type, init_scale=2.0**12, enabled=scaler)
    first = None
    for step in range(steps):
        opt.zero_grad()
        with lucid.autocast(dev.type, dtype=dtype or lucid.float16, enabled=dtype is not None):
            out = m(x)
            loss = F.mse_loss(out, y)
        assert out.dtype is (dtype or lucid.float32) and loss.dtype is lucid.float32
        sc.scale(loss).backward()
        if step == inject:
            m[0].weight.grad[0, 0] = float("inf")
            before = [p.detach().clone() for p in m.parameters()]
            scale = sc.get_scale()
        sc.step(opt)
        if step == inject:
            assert all(bool((p.detach() == b).all()) for p, b in zip(m.parameters(), before))
        sc.update()
        if step == inject:
            assert sc.get_scale() == scale / 2
        first = loss.item() if first is None else first
    with lucid.no_grad():
        return first, F.mse_loss(m(x), y).item()


def test_float16_autocast_with_grad_scaler_reaches_the_float32_loss(dev):
    first, ref = _train(dev)
    assert ref < first / 20
    _, got = _train(dev, lucid.float16, scaler=True, inject=50)
    assert abs(got - ref) < 0.25 * ref + 1e-4


def test_bfloat16_autocast_reaches_the_float32_loss(dev):
    _, ref = _train(dev)
    _, got = _train(dev, lucid.bfloat16)
    assert abs(got - ref) < 0.25 * ref + 1e-4
