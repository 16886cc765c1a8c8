"""Binary cross-entropy at probabilities 0 and 1 and their neighbours on the device under
test against the CPU: the loss and the gradients to the input and the target, every
reduction, with and without a weight, float32/float64/bfloat16 (the CPU side is checked
against PyTorch by tests/nn/test_bce_boundaries.py).

CuPy compiles every kernel with ``-ftz=true``: on the device a float32 (and bfloat16, which
computes in float32) subnormal reads and writes as 0 (cupy/cupy#8382; PyTorch's CUDA
kernels keep subnormals). The CPU reference is run on the inputs the device sees, the
subnormal 1e-45 flushed to 0, and a result the CPU makes from a subnormal intermediate
(at most the smallest normal number over the floor 1e-12, times g and the weight) may be 0
on the device."""

import numpy as np
import pytest

import lucid
import lucid.nn.functional as F

from .conftest import DEVICE

pytestmark = pytest.mark.cuda

# dtype: (lucid dtype, rtol, atol, flushes subnormals on the device)
_FTZ_ATOL = 4 * float(np.finfo(np.float32).tiny) / 1e-12
DTYPES = {
    "float32": (lucid.float32, 1e-6, _FTZ_ATOL, True),
    "float64": (lucid.float64, 1e-12, 1e-30, False),
    "bfloat16": (lucid.bfloat16, 2e-2, _FTZ_ATOL, True),
}


def _data(flush=False):
    x = np.array([0.0, 1e-45, 1.2e-38, np.nextafter(np.float32(1), np.float32(0)), 1.0, 0.25])
    if flush:
        x[np.abs(x) < np.finfo(np.float32).tiny] = 0.0
    x, y = np.meshgrid(x, np.array([0.0, 1.0, 0.3]), indexing="ij")
    return x.ravel(), y.ravel(), np.linspace(0.5, 2.0, x.size)


def _host(t):
    return t.detach().to(lucid.float64).cpu().numpy()


def _run(device, dt, reduction, weighted, flush=False):
    x, y, w = _data(flush)
    lx, ly = (lucid.tensor(a, device=device).to(dt).requires_grad_() for a in (x, y))
    lw = lucid.tensor(w, device=device).to(dt) if weighted else None
    out = F.binary_cross_entropy(lx, ly, weight=lw, reduction=reduction)
    g = lucid.tensor(
        np.linspace(-1, 1, x.size) if reduction == "none" else np.array(1.5), device=device
    ).to(dt)
    out.backward(g)
    return out, lx.grad, ly.grad


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_boundaries_match_the_cpu(dtype, reduction, weighted):
    dt, rtol, atol, ftz = DTYPES[dtype]
    ftz = ftz and lucid.device(DEVICE).type == "cuda"
    got = _run(DEVICE, dt, reduction, weighted)
    want = _run("cpu", dt, reduction, weighted, flush=ftz)
    assert got[0].device == lucid.device(DEVICE) and got[0].dtype is dt
    assert np.isfinite(_host(got[1])).all()  # finite at 0 and 1
    for a, b in zip(got, want):
        a, b = _host(a), _host(b)
        assert np.array_equal(np.isinf(a), np.isinf(b)) and np.array_equal(np.isnan(a), np.isnan(b))
        fin = np.isfinite(b)
        assert np.array_equal(a[~fin & ~np.isnan(b)], b[~fin & ~np.isnan(b)])
        np.testing.assert_allclose(a[fin], b[fin], rtol=rtol, atol=atol if ftz else 1e-30)
