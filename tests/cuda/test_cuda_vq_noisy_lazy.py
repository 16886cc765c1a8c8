"""The layers built on composed ops, on CUDA against the CPU: nn.VectorQuantizer
(nearest_codebook's GEMM and argmin, the straight-through output, the VQ loss),
F.two_hot, nn.NoisyLinear (noise given, and the mean network), the lazy norms (placeholders
materialised on the device)."""

import numpy as np
import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F

pytestmark = pytest.mark.cuda


def _rand(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _np(t):
    return t.detach().cpu().numpy()


def _close(a, b):
    np.testing.assert_allclose(_np(a), _np(b), rtol=2e-5, atol=2e-6)


def test_vector_quantizer(dev):
    lucid.manual_seed(0)
    cpu = nn.VectorQuantizer(16, 8)
    gpu = nn.VectorQuantizer(16, 8).to(dev)
    gpu.load_state_dict(cpu.state_dict())
    x = _rand((4, 5, 8))
    outs = []
    for m, d in ((cpu, "cpu"), (gpu, dev)):
        t = lucid.tensor(x).to(d).requires_grad_()
        q, loss, idx = m(t)
        (q.sum() + loss).backward()
        outs.append((q, loss, idx, t.grad, m.embedding.weight.grad))
    (q0, l0, i0, gx0, gc0), (q1, l1, i1, gx1, gc1) = outs
    assert q1.device.type == lucid.device(dev).type
    np.testing.assert_array_equal(_np(i1), _np(i0))
    for a, b in ((q1, q0), (l1, l0), (gx1, gx0), (gc1, gc0)):
        _close(a, b)


def test_two_hot_and_symlog(dev):
    bins = np.linspace(-5, 5, 11).astype(np.float32)
    x = _rand((3, 7)) * 4
    res = []
    for d in ("cpu", dev):
        t = lucid.tensor(x).to(d).requires_grad_()
        y = F.two_hot(F.symlog(t), lucid.tensor(bins).to(d))
        (y * lucid.arange(11.0).to(d)).sum().backward()
        res.append((y, t.grad))
    _close(res[1][0], res[0][0])
    _close(res[1][1], res[0][1])


def test_noisy_linear(dev):
    cpu = nn.NoisyLinear(6, 4)
    gpu = nn.NoisyLinear(6, 4).to(dev)
    gpu.load_state_dict(cpu.state_dict())
    x = _rand((5, 6))
    for train in (True, False):
        cpu.train(train), gpu.train(train)
        _close(gpu(lucid.tensor(x).to(dev)), cpu(lucid.tensor(x)))
    gpu.train()
    gpu.reset_noise()
    assert gpu.weight_epsilon.device.type == lucid.device(dev).type


@pytest.mark.parametrize(
    "name,shape", [("LazyBatchNorm2d", (2, 3, 4, 4)), ("LazyInstanceNorm1d", (2, 3, 6))]
)
def test_lazy_norms(dev, name, shape):
    cpu, gpu = getattr(nn, name)(), getattr(nn, name)(device=dev)
    x = _rand(shape)
    _close(gpu(lucid.tensor(x).to(dev)), cpu(lucid.tensor(x)))
    assert type(gpu).__name__ == name[4:] and gpu.weight.device.type == lucid.device(dev).type
    _close(gpu.running_mean, cpu.running_mean)
