"""Concatenation on CUDA in one kernel per eight pieces (lucid.backend.cuda.joins), against
NumPy, and through ``cat``, ``stack`` and the backward of ``split``/``chunk`` against the
CPU."""

import numpy as np
import pytest

import lucid

from .conftest import DEVICE

pytestmark = pytest.mark.cuda
gpu = pytest.mark.skipif(DEVICE == "cpu", reason="calls the CUDA kernel (needs a GPU)")

KERNEL_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int8", "bool", "complex64"]
CASES = {  # name: (shapes, axis)
    "middle": ([(2, 3, 4), (2, 5, 4), (2, 1, 4)], 1),
    "last": ([(3, 4), (3, 4)], -1),
    "first, odd widths": ([(1, 7), (2, 7)], 0),
    "eleven pieces": ([(2, k + 1, 3) for k in range(11)], 1),
    "an empty piece": ([(2, 0, 3), (2, 2, 3), (2, 0, 3)], 1),
    "odd inner": ([(5, 3), (5, 1), (5, 2)], 1),
}


def _random(shape, dtype, rng):
    import ml_dtypes

    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in ("int64", "int8"):
        return rng.integers(-100, 100, shape).astype(dtype)
    if dtype == "complex64":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    dt = ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype
    return rng.standard_normal(shape).astype(dt)


@gpu
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", KERNEL_DTYPES)
def test_kernel_matches_numpy(case, dtype):
    import cupy
    from lucid.backend.cuda import joins

    shapes, axis = CASES[case]
    rng = np.random.default_rng(0)
    host = [_random(s, dtype, rng) for s in shapes]
    out = joins.concatenate([cupy.asarray(h) for h in host], axis)
    assert out is not None and out.dtype == host[0].dtype
    np.testing.assert_array_equal(cupy.asnumpy(out), np.concatenate(host, axis))


@gpu
def test_kernel_takes_strided_and_unaligned_pieces():
    """A transposed piece (copied contiguous first) and pieces at addresses 4 bytes past
    a 16-byte boundary (copied in 4-byte units)."""
    import cupy
    from lucid.backend.cuda import joins

    base = cupy.arange(200, dtype=cupy.float32)
    a = base[1:13].reshape(3, 4)  # 4-byte aligned only
    b = cupy.arange(15, dtype=cupy.float32).reshape(5, 3).T  # (3, 5), not contiguous
    c = base[101:107].reshape(3, 2)
    out = joins.concatenate([a, b, c], 1)
    want = np.concatenate([cupy.asnumpy(x) for x in (a, b, c)], 1)
    np.testing.assert_array_equal(cupy.asnumpy(out), want)


@gpu
def test_kernel_declines_what_cupy_decides():
    """Fewer than two arrays, mixed dtypes, 0-d arrays, shapes that differ off the axis
    and an axis out of range give None (CuPy's call then computes or raises)."""
    import cupy
    from lucid.backend.cuda import joins

    x = cupy.ones((2, 3), cupy.float32)
    assert joins.concatenate([x], 0) is None
    assert joins.concatenate([x, x.astype(cupy.float64)], 0) is None
    assert joins.concatenate([cupy.ones(()), cupy.ones(())], 0) is None
    assert joins.concatenate([x, cupy.ones((2, 4), cupy.float32)], 0) is None
    assert joins.concatenate([x, x], 2) is None
    empty = joins.concatenate([x[:0], x[:0]], 0)
    assert empty.shape == (0, 3)


def _cpu(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int64", "bool"])
def test_cat_and_stack_match_cpu(dev, dtype):
    rng = np.random.default_rng(1)
    parts = [_random(s, dtype, rng) for s in ((4, 2, 6), (4, 3, 6), (4, 1, 6))]
    cpu = [lucid.tensor(p) for p in parts]
    gpu_ = [t.to(dev) for t in cpu]
    np.testing.assert_array_equal(_cpu(lucid.cat(gpu_, dim=1)), _cpu(lucid.cat(cpu, dim=1)))
    same = [t[:, :1] for t in gpu_]
    same_cpu = [t[:, :1] for t in cpu]
    for dim in (0, 2, -1):
        np.testing.assert_array_equal(
            _cpu(lucid.stack(same, dim=dim)), _cpu(lucid.stack(same_cpu, dim=dim))
        )


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_split_and_chunk_backward_match_cpu(dev, dtype):
    """The gradient of a fused projection split in three (as attention's q, k, v), and of
    a chunk with one piece unused (its gradient zeros), equals the CPU's."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 5, 12))
    w = [rng.standard_normal((2, 5, 4)) for _ in range(3)]
    grads = []
    for d in ("cpu", dev):
        t = lucid.tensor(x).to(getattr(lucid, dtype)).to(d).requires_grad_()
        q, k, v = t.split(4, dim=2)
        ws = [lucid.tensor(u).to(getattr(lucid, dtype)).to(d) for u in w]
        a, _, c = t.chunk(3, dim=-1)
        ((q * ws[0]).sum() + (k * ws[1]).sum() + (v * ws[2]).sum() + (a * c).sum()).backward()
        grads.append(t.grad.float().cpu().numpy())
    tol = 2e-2 if dtype == "bfloat16" else 1e-6
    np.testing.assert_allclose(grads[1], grads[0], rtol=tol, atol=tol)
