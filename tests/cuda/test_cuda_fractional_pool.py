"""Fractional max pooling on CUDA against the same call on the CPU: values and indices
exactly, gradients within each dtype's tolerance, 2d and 3d, every float dtype, NaN and
ties, unbatched input, and drawn samples."""

import numpy as np
import pytest

import lucid
import lucid.nn.functional as F

pytestmark = pytest.mark.cuda

TOL = {"float32": 1e-6, "float64": 1e-12, "float16": 1e-3, "bfloat16": 1e-2}


def _run(fn, x, u, dtype, device, **kw):
    t = lucid.tensor(x).to(getattr(lucid, dtype)).to(device).requires_grad_()
    s = lucid.tensor(u).to(getattr(lucid, dtype)).to(device)
    v, i = fn(t, return_indices=True, _random_samples=s, **kw)
    g = np.random.default_rng(1).standard_normal(tuple(v.shape))
    v.backward(lucid.tensor(g).to(v.dtype).to(device))
    return [
        a.detach().cpu().to(lucid.float64).numpy() if a.dtype.is_floating_point else a.cpu().numpy()
        for a in (v, i, t.grad)
    ]


@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize(
    "n,shape,kw",
    [
        (2, (2, 3, 11, 9), dict(kernel_size=(3, 2), output_size=(5, 4))),
        (2, (3, 13, 10), dict(kernel_size=2, output_ratio=0.6)),
        (3, (2, 2, 7, 8, 9), dict(kernel_size=2, output_size=(3, 4, 5))),
    ],
)
@pytest.mark.parametrize("kind", ["normal", "nan_ties"])
def test_matches_cpu(dev, dtype, n, shape, kw, kind):
    rng = np.random.default_rng(0)
    if kind == "normal":
        x = rng.standard_normal(shape)
    else:
        x = rng.integers(-1, 2, size=shape).astype(np.float64)
        x[rng.random(shape) < 0.1] = np.nan
    u = rng.random((shape[0] if len(shape) == n + 2 else 1, shape[-n - 1], n))
    fn = getattr(F, f"fractional_max_pool{n}d")
    want = _run(fn, x, u, dtype, "cpu", **kw)
    got = _run(fn, x, u, dtype, dev, **kw)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_allclose(got[2], want[2], rtol=TOL[dtype], atol=TOL[dtype])


def test_drawn_samples_on_device(dev):
    x = lucid.randn(2, 3, 16, 16, device=dev)
    v, i = F.fractional_max_pool2d(x, 2, output_size=7, return_indices=True)
    assert v.device == x.device and tuple(v.shape) == (2, 3, 7, 7)
    picked = x.reshape(2, 3, -1).gather(2, i.reshape(2, 3, -1)).reshape(2, 3, 7, 7)
    np.testing.assert_array_equal(picked.cpu().numpy(), v.cpu().numpy())
