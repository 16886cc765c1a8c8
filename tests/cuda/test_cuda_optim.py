"""The multi-tensor optimizer updates on CUDA against the same optimizer on the CPU: 10
steps from the same weights and gradients, the options of SGD, Adam, AdamW, NAdam, RAdam,
Adamax, RMSprop and Adagrad, each float dtype (half types held to a float64 run of the
same rounded data), odd sizes (1, 3, 4099, 1000003) and an empty parameter in one group,
parameters that are views (contiguous: the kernel writes through them; strided: the
generic path), mixed dtypes and unequal step counts in one group, one launch per step."""

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
    ("NAdam", dict(lr=0.05)),
    ("NAdam", dict(lr=0.05, momentum_decay=0.1, weight_decay=0.1)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.05)),
    ("RAdam", dict(lr=0.05, weight_decay=0.1)),
    ("RAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.05, betas=(0.9, 0.5), maximize=True)),
    ("Adamax", dict(lr=0.05)),
    ("Adamax", dict(lr=0.05, weight_decay=0.1, maximize=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, eps=1e-3, maximize=True)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.9)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, initial_accumulator_value=0.5, eps=1e-3)),
    ("Adagrad", dict(lr=0.1, weight_decay=0.1, maximize=True)),
]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for n, kw in CASES]
STEPS = 10
# float32 / float64: odd sizes around the 2048-element chunks; half types: smaller (the
# CPU reference computes them slowly), still several chunks
SHAPES = {
    "float32": [(1,), (3,), (1000003,), (7, 5), (0,), (2, 3, 4)],
    "float64": [(1,), (3,), (4099,), (0,), (64, 33)],
    "float16": [(1,), (3,), (4099,), (0,), (7, 5)],
    "bfloat16": [(1,), (3,), (4099,), (0,), (7, 5)],
}
# float32 / float64: (rtol, atol) against the CPU run
TOL = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-13)}
HALF = ("float16", "bfloat16")


def _data(shapes, steps, seed=0):
    """Initial weights and per step gradients (magnitudes in [0.5, 1.5]: no half-type
    underflow of ``g**2 (1 - beta2)`` in the CPU reference)."""
    rng = np.random.default_rng(seed)
    init = [np.asarray(rng.standard_normal(s), np.float32) for s in shapes]

    def grad(s):
        return np.asarray(rng.choice([-1.0, 1.0], s) * rng.uniform(0.5, 1.5, s), np.float32)

    return init, [[grad(s) for s in shapes] for _ in range(steps)]


def _tensor(a, dtype, device, store=None):
    """``a`` rounded to ``dtype`` on the CPU (the same rounding in every run), held in
    ``store`` (default ``dtype``), then moved."""
    t = lucid.tensor(a).to(getattr(lucid, dtype))
    return t.to(getattr(lucid, store or dtype)).to(device)


def _run(name, kw, dtypes, init, grads, device, store=None, skip=None):
    """``len(grads)`` steps of optimizer ``name`` on ``device`` from ``init`` with the
    given gradients (parameter ``i`` of ``dtypes[i]``); ``skip(step, i)``: parameter
    ``i`` has no gradient that step. Returns the parameters and the optimizer."""
    params = [_tensor(a, d, device, store).requires_grad_() for a, d in zip(init, dtypes)]
    opt = getattr(lucid.optim, name)(params, **kw)
    for t, gs in enumerate(grads):
        for i, (p, g, d) in enumerate(zip(params, gs, dtypes)):
            p.grad = None if skip and skip(t, i) else _tensor(g, d, device, store)
        opt.step()
    return params, opt


def _np(t):
    return t.detach().cpu().numpy().astype(np.float64).ravel()


def _close(got, want, dtype, scaled=False):
    """Within the dtype's tolerance; ``scaled``: the absolute part relative to the largest
    value (optimizer states such as RMSprop's ``g / sqrt(v)`` buffers span many scales, so
    float32 rounding differences in their small entries are large relative ones)."""
    rtol, atol = TOL[dtype]
    g, w = _np(got), _np(want)
    if scaled:
        atol *= max(1.0, float(np.abs(w).max(initial=0.0)))
    np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def _half_close(got, cpu, ref):
    """Half types: the CUDA kernels compute in float32 and round once per store, the CPU
    kernels round every operation to the half type, so the two runs part by rounding.
    Both are held to ``ref``, the float64 run from the same rounded data: the CUDA run's
    error (all parameters together) at most a little above the CPU run's (rms 1.25x,
    max 1.5x, plus 1e-3 of the values' scale)."""
    got, cpu, ref = (np.concatenate([_np(t) for t in ts]) for ts in (got, cpu, ref))
    e_got, e_cpu = got - ref, cpu - ref
    assert _rms(e_got) <= 1.25 * _rms(e_cpu) + 1e-3 * _rms(ref), (_rms(e_got), _rms(e_cpu))
    assert np.abs(e_got).max() <= 1.5 * np.abs(e_cpu).max() + 1e-3 * np.abs(ref).max()


def _rms(e):
    return float(np.sqrt(np.mean(e * e)))


def _state_close(opt_cuda, opt_cpu, p_cuda, p_cpu, dtype):
    for k, v in opt_cpu.state[p_cpu].items():
        w = opt_cuda.state[p_cuda][k]
        if k == "step":
            assert float(w) == float(v)
        else:
            _close(w, v, dtype, scaled=True)


@pytest.mark.parametrize("dtype", list(SHAPES))
@pytest.mark.parametrize("name,kw", CASES, ids=IDS)
def test_matches_cpu(name, kw, dtype):
    shapes = SHAPES[dtype]
    init, grads = _data(shapes, STEPS)
    dts = [dtype] * len(shapes)
    pc, oc = _run(name, kw, dts, init, grads, "cpu")
    pg, og = _run(name, kw, dts, init, grads, "cuda")
    for a, b in zip(pg, pc):
        assert a.device.type == "cuda" and a.shape == b.shape and a.dtype == b.dtype
    if dtype in HALF:
        ref, _ = _run(name, kw, dts, init, grads, "cpu", store="float64")
        _half_close(pg, pc, ref)
        for a, b in zip(pg, pc):
            assert set(og.state[a]) == set(oc.state[b])
        return
    for a, b in zip(pg, pc):
        _close(a, b, dtype)
        _state_close(og, oc, a, b, dtype)


VIEWS = [3, 11, 15, 19, 30]


@pytest.mark.parametrize("name,kw", [CASES[i] for i in VIEWS], ids=[IDS[i] for i in VIEWS])
def test_views_and_strided(name, kw):
    """Parameters that are views of one base (contiguous row slices, at an offset: the
    kernel writes through them), a strided view and a parameter with a transposed
    gradient (both through the generic path), in one group."""
    rng = np.random.default_rng(1)
    a0, b0, c0 = (np.asarray(rng.standard_normal(s), np.float32) for s in ((10, 6), (6, 4), (5, 5)))
    results = []
    for device in ("cpu", "cuda"):
        a, b = _tensor(a0, "float32", device), _tensor(b0, "float32", device)
        c = _tensor(c0, "float32", device).requires_grad_()
        params = [a[2:5].requires_grad_(), a[7:].requires_grad_(), b[:, 1].requires_grad_(), c]
        opt = getattr(lucid.optim, name)(params, **kw)
        g_rng = np.random.default_rng(2)
        for _ in range(STEPS):
            for p in params[:3]:
                p.grad = _tensor(
                    np.asarray(g_rng.standard_normal(p.shape), np.float32), "float32", device
                )
            c.grad = _tensor(
                np.asarray(g_rng.standard_normal((5, 5)), np.float32), "float32", device
            ).t()
            opt.step()
        results.append((a, b, params))
    (ac, bc, pc), (ag, bg, pg) = results
    _close(ag, ac, "float32")
    _close(bg, bc, "float32")
    for x, y in zip(pg, pc):
        _close(x, y, "float32")


MIXED = [2, 9, 14, 19, 30]


@pytest.mark.parametrize("name,kw", [CASES[i] for i in MIXED], ids=[IDS[i] for i in MIXED])
def test_mixed_dtypes_in_one_group(name, kw):
    """One group holding float32, bfloat16, float64 and float16 parameters: one launch
    per dtype, each compared as its dtype is."""
    dts = ["float32", "bfloat16", "float64", "float16", "float32", "bfloat16"]
    init, grads = _data([(33,), (2049,), (5,), (7, 3), (1,), (40,)], STEPS, seed=3)
    pc, _ = _run(name, kw, dts, init, grads, "cpu")
    pg, _ = _run(name, kw, dts, init, grads, "cuda")
    ref, _ = _run(name, kw, dts, init, grads, "cpu", store="float64")
    for d in set(dts):
        idx = [i for i, x in enumerate(dts) if x == d]
        for i in idx:
            assert pg[i].dtype == pc[i].dtype
        if d in HALF:
            _half_close(*([ps[i] for i in idx] for ps in (pg, pc, ref)))
        else:
            for i in idx:
                _close(pg[i], pc[i], d)


UNEQUAL = [1, 9, 15, 18, 21, 30, 32]


@pytest.mark.parametrize("name,kw", [CASES[i] for i in UNEQUAL], ids=[IDS[i] for i in UNEQUAL])
def test_unequal_steps(name, kw):
    """Parameters without a gradient on some steps: their step counts (and SGD's
    buffers) diverge from the others', so one group needs several launches."""
    init, grads = _data([(5,), (3000,), (4, 4)], STEPS)

    def skip(t, i):
        return (i == 1 and t % 3 == 0) or (i == 2 and t < 4)

    pc, oc = _run(name, kw, ["float32"] * 3, init, grads, "cpu", skip=skip)
    pg, og = _run(name, kw, ["float32"] * 3, init, grads, "cuda", skip=skip)
    for a, b in zip(pg, pc):
        _close(a, b, "float32")
        _state_close(og, oc, a, b, "float32")


KERNELS = {
    "SGD": "sgd_mt",
    "Adam": "adam_mt",
    "AdamW": "adam_mt",
    "NAdam": "nadam_mt",
    "RAdam": "radam_mt",
    "Adamax": "adamax_mt",
    "RMSprop": "rmsprop_mt",
    "Adagrad": "adagrad_mt",
}
ONE = [3, 13, 17, 21, 25, 30, 31]


@pytest.mark.parametrize("name,kw", [CASES[i] for i in ONE], ids=[IDS[i] for i in ONE])
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
    for method in ("sgd", "adam", "nadam", "radam", "adamax", "rmsprop", "adagrad"):
        monkeypatch.setattr(XpOptim, f"{method}_step", generic)
    shapes = [(1,), (3,), (300, 7), (0,), (5000,), (2, 2)]
    init, grads = _data(shapes, 3)
    _run(name, kw, ["float32"] * len(shapes), init, grads, "cuda")
    assert launches == [KERNELS[name]] * 3


# the CPU reference fails on 0-d parameters where NumPy makes a scalar of a 0-d result and
# then gets it as ``out=`` (SGD with weight decay or nesterov, NAdam, Adagrad): the rest
ZERO_DIM = [0, 1, 7, 9, 11, 14, 21, 25, 30]


@pytest.mark.parametrize("name,kw", [CASES[i] for i in ZERO_DIM], ids=[IDS[i] for i in ZERO_DIM])
def test_zero_dim_parameter(name, kw):
    init, grads = _data([(), (3,)], STEPS, seed=4)
    pc, oc = _run(name, kw, ["float32"] * 2, init, grads, "cpu")
    pg, og = _run(name, kw, ["float32"] * 2, init, grads, "cuda")
    for a, b in zip(pg, pc):
        assert a.shape == b.shape
        _close(a, b, "float32")
        _state_close(og, oc, a, b, "float32")
