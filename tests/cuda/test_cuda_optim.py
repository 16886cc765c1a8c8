"""The multi-tensor optimizer updates on CUDA against the same optimizer on the CPU: 10
steps from the same weights and gradients, every SGD / Adam / AdamW option, each float
dtype, odd sizes (1, 3, 1000003) and an empty parameter in one group, parameters that are
views (contiguous: the fast path writes through them; strided: the generic path), mixed
dtypes and unequal step counts in one group, and one launch per step."""

import numpy as np
import pytest

import lucid

pytestmark = pytest.mark.cuda

CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.1, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.5, weight_decay=0.1, maximize=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.05)),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.9), eps=1e-3)),
    ("Adam", dict(lr=0.05, amsgrad=True)),
    ("Adam", dict(lr=0.05, weight_decay=0.1)),
    ("Adam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Adam", dict(lr=0.05, maximize=True)),
    ("Adam", dict(lr=0.05, weight_decay=0.1, amsgrad=True, maximize=True)),
    ("AdamW", dict(lr=0.05)),
    ("AdamW", dict(lr=0.05, weight_decay=0.3, amsgrad=True)),
    ("AdamW", dict(lr=0.05, maximize=True)),
]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for n, kw in CASES]
STEPS = 10
# float32 / float64: odd sizes around the 2048-element chunks; half types: smaller (the
# CPU reference computes them slowly), still several chunks
SHAPES = {"float32": [(1,), (3,), (1000003,), (7, 5), (0,), (2, 3, 4)],
          "float64": [(1,), (3,), (4099,), (0,), (64, 33)],
          "float16": [(1,), (3,), (4099,), (0,), (7, 5)],
          "bfloat16": [(1,), (3,), (4099,), (0,), (7, 5)]}
# (rtol, atol): the CUDA kernel computes half types in float32, the CPU in the type itself
TOL = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-13), "float16": (3e-3, 3e-3),
       "bfloat16": (2e-2, 2e-2)}


def _data(shapes, steps, seed=0):
    """Initial weights and per step gradients (magnitudes in [0.5, 1.5]: no half-type
    underflow of ``g**2 (1 - beta2)`` in the CPU reference)."""
    rng = np.random.default_rng(seed)
    init = [np.asarray(rng.standard_normal(s), np.float32) for s in shapes]

    def grad(s):
        return np.asarray(rng.choice([-1.0, 1.0], s) * rng.uniform(0.5, 1.5, s),
                          np.float32)
    return init, [[grad(s) for s in shapes] for _ in range(steps)]


def _tensor(a, dtype, device):
    """``a`` cast on the CPU (the same rounding on both sides), then moved."""
    return lucid.tensor(a).to(getattr(lucid, dtype)).to(device)


def _train(name, kw, params, grads, device, dtype, skip=None):
    """``len(grads)`` steps of ``name`` on ``params`` (Tensors on ``device``) with the
    given gradients; ``skip(step, index)``: that parameter has no gradient that step."""
    opt = getattr(lucid.optim, name)(params, **kw)
    for t, gs in enumerate(grads):
        for i, (p, g) in enumerate(zip(params, gs)):
            p.grad = None if skip and skip(t, i) else _tensor(g, dtype, device)
        opt.step()
    return opt


def _close(got, want, dtype):
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(got.detach().cpu().numpy().astype(np.float64),
                               want.detach().cpu().numpy().astype(np.float64), rtol=rtol,
                               atol=atol)


def _both(name, kw, dtype, shapes, **train):
    init, grads = _data(shapes, STEPS)
    out = []
    for device in ("cpu", "cuda"):
        params = [_tensor(a, dtype, device).requires_grad_() for a in init]
        opt = _train(name, kw, params, grads, device, dtype, **train)
        out.append((params, opt))
    return out


def _state_close(opt_cuda, opt_cpu, p_cuda, p_cpu, dtype):
    for k, v in opt_cpu.state[p_cpu].items():
        w = opt_cuda.state[p_cuda][k]
        if k == "step":
            assert float(w) == float(v)
        else:
            _close(w, v, dtype)


@pytest.mark.parametrize("dtype", list(SHAPES))
@pytest.mark.parametrize("name,kw", CASES, ids=IDS)
def test_matches_cpu(name, kw, dtype):
    (pc, oc), (pg, og) = _both(name, kw, dtype, SHAPES[dtype])
    for a, b in zip(pg, pc):
        assert a.device.type == "cuda" and a.shape == b.shape
        _close(a, b, dtype)
        _state_close(og, oc, a, b, dtype)


@pytest.mark.parametrize("name,kw", [CASES[3], CASES[11], CASES[15]],
                         ids=[IDS[3], IDS[11], IDS[15]])
def test_views_and_strided(name, kw):
    """Parameters that are views of one base (contiguous row slices, at an offset: the
    kernel writes through them), a strided view and a parameter with a transposed
    gradient (both through the generic path), in one group."""
    rng = np.random.default_rng(1)
    a0, b0, c0 = (np.asarray(rng.standard_normal(s), np.float32)
                  for s in ((10, 6), (6, 4), (5, 5)))
    results = []
    for device in ("cpu", "cuda"):
        a, b = _tensor(a0, "float32", device), _tensor(b0, "float32", device)
        c = _tensor(c0, "float32", device).requires_grad_()
        params = [a[2:5].requires_grad_(), a[7:].requires_grad_(),
                  b[:, 1].requires_grad_(), c]
        opt = getattr(lucid.optim, name)(params, **kw)
        g_rng = np.random.default_rng(2)
        for _ in range(STEPS):
            for p in params[:3]:
                p.grad = _tensor(np.asarray(g_rng.standard_normal(p.shape), np.float32),
                                 "float32", device)
            c.grad = _tensor(np.asarray(g_rng.standard_normal((5, 5)), np.float32),
                             "float32", device).t()
            opt.step()
        results.append((a, b, params))
    (ac, bc, pc), (ag, bg, pg) = results
    _close(ag, ac, "float32")
    _close(bg, bc, "float32")
    for x, y in zip(pg, pc):
        _close(x, y, "float32")


@pytest.mark.parametrize("name,kw", [CASES[2], CASES[9], CASES[14]],
                         ids=[IDS[2], IDS[9], IDS[14]])
def test_mixed_dtypes_in_one_group(name, kw):
    """One group holding float32, bfloat16, float64 and float16 parameters: one launch
    per dtype, each compared within its own tolerance."""
    dts = ["float32", "bfloat16", "float64", "float16", "float32"]
    init, grads = _data([(33,), (2049,), (5,), (7, 3), (1,)], STEPS, seed=3)
    out = []
    for device in ("cpu", "cuda"):
        params = [_tensor(a, d, device).requires_grad_() for a, d in zip(init, dts)]
        opt = getattr(lucid.optim, name)(params, **kw)
        for gs in grads:
            for p, g, d in zip(params, gs, dts):
                p.grad = _tensor(g, d, device)
            opt.step()
        out.append(params)
    for x, y, d in zip(out[1], out[0], dts):
        assert x.dtype == y.dtype
        _close(x, y, d)


@pytest.mark.parametrize("name,kw", [CASES[1], CASES[9], CASES[15]],
                         ids=[IDS[1], IDS[9], IDS[15]])
def test_unequal_steps(name, kw):
    """Parameters without a gradient on some steps: their step counts (and SGD's
    buffers) diverge from the others', so one group needs several launches."""
    shapes = [(5,), (3000,), (4, 4)]
    (pc, oc), (pg, og) = _both(name, kw, "float32", shapes,
                               skip=lambda t, i: (i == 1 and t % 3 == 0)
                               or (i == 2 and t < 4))
    for a, b in zip(pg, pc):
        _close(a, b, "float32")
        _state_close(og, oc, a, b, "float32")


@pytest.mark.parametrize("name,kw", [CASES[3], CASES[13]], ids=[IDS[3], IDS[13]])
def test_one_launch_per_step(name, kw, monkeypatch):
    """A group of contiguous float32 parameters is updated by one kernel launch per step,
    the generic per-parameter kernels unused."""
    from lucid.backend.array.optim import XpOptim
    from lucid.backend.cuda import optim as cuda_optim

    launches = []
    compiled = cuda_optim.kernel

    def counting(source, fname, dtype=None):
        fn = compiled(source, fname, dtype)

        def launch(*args):
            launches.append(fname)
            return fn(*args)
        return launch

    def generic(*args, **kwargs):
        raise AssertionError("the generic kernel ran")

    monkeypatch.setattr(cuda_optim, "kernel", counting)
    monkeypatch.setattr(XpOptim, "sgd_step", generic)
    monkeypatch.setattr(XpOptim, "adam_step", generic)
    shapes = [(1,), (3,), (300, 7), (0,), (5000,), (2, 2)]
    init, grads = _data(shapes, 3)
    params = [_tensor(a, "float32", "cuda").requires_grad_() for a in init]
    _train(name, kw, params, grads, "cuda", "float32")
    assert launches == [{"SGD": "sgd_mt", "Adam": "adam_mt"}[name]] * 3
