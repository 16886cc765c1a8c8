"""The CUDA batch and instance norm kernels (lucid/backend/cuda/norm.py, ``chan_*``)
against the same Lucid call on the CPU: outputs, input / weight / bias gradients and the
running statistics, for BatchNorm1d ``(N, C)`` and ``(N, C, L)``, 2d, 3d, instance norm and
group norm (whose statistics take the same kernel), training (with and without running
statistics, momentum None) and evaluation, without affine parameters or bias,
non-contiguous inputs (the generic kernels), one value per channel, groups large enough
to be split over several blocks, every float dtype; and a check that the fast path runs
(the generic kernels patched to raise)."""

import numpy as np
import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F

pytestmark = pytest.mark.cuda

DTYPES = ["float32", "float64", "float16", "bfloat16"]
# (rtol, atol); atol is scaled by the reference's largest magnitude (long sums)
TOL = {
    "float32": (1e-4, 2e-5),
    "float64": (1e-10, 1e-12),
    "float16": (4e-3, 4e-3),
    "bfloat16": (3e-2, 3e-2),
}


def _np(t):
    return t.detach().cpu().to(lucid.float64).numpy()


def _close(got, want, dtype, what, scale=1.0):
    assert (got is None) == (want is None), what
    if want is None:
        return
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape), what
    rtol, atol = TOL[dtype]
    w = _np(want)
    np.testing.assert_allclose(
        _np(got),
        w,
        rtol=rtol * scale,
        atol=atol * scale * max(1.0, float(np.abs(w).max(initial=0))),
        err_msg=what,
    )


def _tensor(a, dtype, device, grad=False):
    t = lucid.tensor(a).to(getattr(lucid, dtype)).to(device)
    return t.requires_grad_() if grad else t


def _run(
    fn, shape, dtype, device, affine=True, bias=True, running=True, view=None, offset=0.0, seed=0
):
    """``fn(x, rm, rv, w, b)`` on ``device`` with fixed random inputs of ``dtype``, and the
    gradients of ``sum(out * u)``: ``(out, gx, gw, gb, rm, rv)``. ``view``: ``"T"``
    passes ``x`` as the transpose of its last two axes (non-contiguous)."""
    rng = np.random.default_rng(seed)
    c = shape[1]
    base = list(shape)
    if view == "T":
        base[-1], base[-2] = base[-2], base[-1]
    x = _tensor(rng.standard_normal(base) * 2 + offset, dtype, device, True)
    w = _tensor(rng.standard_normal(c) + 1, dtype, device, True) if affine else None
    b = _tensor(rng.standard_normal(c), dtype, device, True) if affine and bias else None
    rm = _tensor(rng.standard_normal(c), dtype, device) if running else None
    rv = _tensor(rng.random(c) + 0.5, dtype, device) if running else None
    xin = x.transpose(-1, -2) if view == "T" else x
    out = fn(xin, rm, rv, w, b)
    u = _tensor(rng.standard_normal(shape), dtype, device)
    (out * u).sum().backward()
    return (out, x.grad, None if w is None else w.grad, None if b is None else b.grad, rm, rv)


def _compare(dev, fn, shape, dtype, scale=1.0, **kw):
    want = _run(fn, shape, dtype, "cpu", **kw)
    got = _run(fn, shape, dtype, dev, **kw)
    assert got[0].device.type == lucid.device(dev).type
    for name, g, w in zip(("out", "gx", "gw", "gb", "running_mean", "running_var"), got, want):
        _close(g, w, dtype, f"{name} {shape} {dtype}", scale)


def _batch_norm(training, momentum=0.1):
    return lambda x, rm, rv, w, b: F.batch_norm(
        x, rm, rv, w, b, training=training, momentum=momentum, eps=1e-5
    )


def _instance_norm(use_input_stats):
    return lambda x, rm, rv, w, b: F.instance_norm(
        x, rm, rv, w, b, use_input_stats=use_input_stats, momentum=0.1, eps=1e-5
    )


SHAPES = [
    (16, 7),
    (8, 5, 13),
    (32, 32, 32, 32),
    (32, 64, 16, 16),
    (2, 3, 4, 5, 6),
    (3, 1, 7),
    (1, 3, 9),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm(dev, dtype, shape, training):
    _compare(dev, _batch_norm(training), shape, dtype, scale=2.0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("affine,bias", [(False, False), (True, False)])
@pytest.mark.parametrize("running", [True, False])
def test_batch_norm_options(dev, dtype, affine, bias, running):
    """No affine parameters, or a weight only; without running statistics (training, and
    evaluation with batch statistics, as track_running_stats=False)."""
    for training in (True, False) if running else (True,):
        _compare(
            dev,
            _batch_norm(training),
            (6, 4, 5, 7),
            dtype,
            scale=2.0,
            affine=affine,
            bias=bias,
            running=running,
        )


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_norm_momentum_and_offset(dev, dtype):
    """Momentum 1 (the running statistics become the batch's), and inputs far from zero
    (two-pass statistics)."""
    _compare(dev, _batch_norm(True, 1.0), (4, 6, 5, 3), dtype, scale=2.0)
    _compare(
        dev,
        _batch_norm(True),
        (4, 6, 5, 3),
        dtype,
        scale=2.0,
        offset=1e3 if dtype in ("float32", "float64") else 30.0,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_non_contiguous(dev, dtype, training):
    _compare(dev, _batch_norm(training), (4, 3, 5, 6), dtype, scale=2.0, view="T")


def test_batch_norm_one_value_per_channel(dev):
    """N * HW = 1: evaluation works, training raises on both devices."""
    _compare(dev, _batch_norm(False), (1, 4, 1, 1), "float32")
    _compare(dev, _batch_norm(False), (1, 4), "float32")
    for device in ("cpu", dev):
        with pytest.raises(lucid.errors.ArgumentError):
            _run(_batch_norm(True), (1, 4, 1, 1), "float32", device)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 2, 70001), (1000, 3, 97), (300000, 4)])
def test_batch_norm_split_groups(dev, dtype, shape):
    """Channels of more than 65536 values: several blocks per channel and the combine
    kernels."""
    for training in (True, False):
        _compare(dev, _batch_norm(training), shape, dtype, scale=4.0, offset=3.0)


def test_batch_norm_large(dev):
    _compare(dev, _batch_norm(True), (64, 32, 64, 64), "float32", scale=4.0)
    _compare(dev, _batch_norm(False), (64, 32, 64, 64), "float32", scale=4.0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 6, 9, 11), (3, 5, 17), (2, 3, 70001)])
@pytest.mark.parametrize("affine", [True, False])
def test_instance_norm(dev, dtype, shape, affine):
    for running in (True, False):
        _compare(dev, _instance_norm(True), shape, dtype, scale=2.0, affine=affine, running=running)
    _compare(dev, _instance_norm(False), shape, dtype, scale=2.0, affine=affine)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 6, 10), (2, 6, 4, 5), (2, 4, 70001)])
def test_group_norm(dev, dtype, shape):
    """Group norm's statistics run chan_stats (the instance-norm axes of its
    ``(N, G, C/G, S)`` view); the rest of it is generic."""
    _compare(
        dev,
        lambda x, rm, rv, w, b: F.group_norm(x, 2, w, b, eps=1e-5),
        shape,
        dtype,
        scale=2.0,
        running=False,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm_module_steps(dev, dtype, momentum):
    """BatchNorm2d over three training steps (momentum None: the cumulative average) then
    evaluation: outputs, gradients and buffers on both devices."""
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal((8, 5, 6, 7)) * 2 + i for i in range(4)]
    results = []
    for device in ("cpu", dev):
        m = nn.BatchNorm2d(5, momentum=momentum).to(getattr(lucid, dtype)).to(device)
        outs = []
        for i, a in enumerate(xs):
            if i == 3:
                m.eval()
            x = _tensor(a, dtype, device, True)
            y = m(x)
            (y * y).sum().backward()
            outs += [y, x.grad]
        results.append(
            (outs, m.weight.grad, m.bias.grad, m.running_mean, m.running_var, m.num_batches_tracked)
        )
    (o0, w0, b0, rm0, rv0, n0), (o1, w1, b1, rm1, rv1, n1) = results
    for k, (g, w) in enumerate(zip(o1, o0)):
        _close(g, w, dtype, f"step output/grad {k}", 2.0)
    for name, g, w in (
        ("gw", w1, w0),
        ("gb", b1, b0),
        ("running_mean", rm1, rm0),
        ("running_var", rv1, rv0),
    ):
        _close(g, w, dtype, name, 4.0)
    assert n0.item() == n1.item() == 3


# (the generic norm_forward, norm_moments then norm_normalize, may run: it calls ours)
GENERIC = ["norm_moments", "norm_normalize", "norm_backward", "running_stats_update"]


def test_channel_path_taken(dev, monkeypatch):
    """Contiguous batch and instance norm of every dtype, training and evaluation, never
    reach the generic kernels."""
    if lucid.device(dev).type == "cpu":
        pytest.skip("the CPU runs the generic kernels")
    from lucid.backend.array.norm import XpNorm

    def generic(*args, **kwargs):
        raise AssertionError("a generic norm kernel ran")

    for name in GENERIC:
        monkeypatch.setattr(XpNorm, name, generic)
    for dtype in DTYPES:
        for shape in ((6, 4), (6, 4, 5), (6, 4, 5, 3), (2, 4, 3, 2, 2)):
            for training in (True, False):
                _run(_batch_norm(training), shape, dtype, dev)
            _run(_batch_norm(True), shape, dtype, dev, running=False)
            _run(_batch_norm(True), shape, dtype, dev, affine=False)
        _run(_instance_norm(True), (3, 4, 5, 6), dtype, dev)
        _run(_instance_norm(False), (3, 4, 5, 6), dtype, dev)
