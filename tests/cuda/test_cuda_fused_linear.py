"""The fused linear + activation op on CUDA (cuBLASLt's RELU_BIAS and GELU_AUX_BIAS
epilogues, the exact GELU after a BIAS GEMM, the fallbacks) against the same Lucid call on
the CPU: forward and the input, weight and bias gradients, each float dtype, output widths
that are and are not multiples of 8 (the auxiliary matrix's rule), N-d, 1-D, transposed
and empty inputs; and that the epilogue runs where it should."""

import os

import numpy as np
import pytest

import lucid
import lucid.nn.functional as F

pytestmark = pytest.mark.cuda

DTYPES = ["float32", "float64", "float16", "bfloat16"]
# (rtol, atol): half types round once on each side; cuBLASLt's GELU and the kernel's
# differ in the last bits
TOL = {
    "float32": (1e-4, 1e-5),
    "float64": (1e-10, 1e-11),
    "float16": (1e-2, 1e-2),
    "bfloat16": (5e-2, 5e-2),
}
ACTS = {
    "relu": lambda x, w, b=None: F.fused_linear_relu(x, w, b),
    "gelu": lambda x, w, b=None: F.fused_linear_gelu(x, w, b),
    "gelu_tanh": lambda x, w, b=None: F.fused_linear_gelu(x, w, b, approximate="tanh"),
}


def _np(t):
    return t.detach().cpu().to(lucid.float64).numpy()


def _run(fn, arrays, dtype, device, view=None):
    leaves = [lucid.tensor(a).to(getattr(lucid, dtype)).to(device).requires_grad_() for a in arrays]
    ins = [view(t) if view and t.ndim == 2 and i == 0 else t for i, t in enumerate(leaves)]
    out = fn(*ins)
    if out.numel():
        u = np.random.default_rng(7).standard_normal(tuple(out.shape))
        (out * lucid.tensor(u).to(out.dtype).to(device)).sum().backward()
    return out, leaves


def _compare(fn, arrays, dtype, dev, view=None):
    (oc, lc), (og, lg) = _run(fn, arrays, dtype, "cpu", view), _run(fn, arrays, dtype, dev, view)
    assert og.device.type == lucid.device(dev).type and og.dtype == oc.dtype
    assert tuple(og.shape) == tuple(oc.shape)
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(_np(og), _np(oc), rtol=rtol, atol=atol)
    if oc.numel():
        for a, b in zip(lg, lc):
            np.testing.assert_allclose(_np(a.grad), _np(b.grad), rtol=rtol, atol=atol * 4)


def _rand(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("act", list(ACTS))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("out_features", [16, 5])
@pytest.mark.parametrize("bias", [True, False])
def test_matches_cpu(dev, act, dtype, out_features, bias):
    """Small integers and half-integer biases: every product and sum exact in each dtype,
    so the pre-activation is the same on both sides (one rounding on the GPU's epilogue,
    two on the CPU would otherwise flip ReLU's mask where it is near 0)."""
    rng = np.random.default_rng(0)
    arrays = [
        rng.integers(-2, 3, (33, 24)).astype(float),
        rng.integers(-1, 2, (out_features, 24)).astype(float),
    ]
    if bias:
        arrays.append(rng.integers(-3, 3, out_features) + 0.5)
    _compare(ACTS[act], arrays, dtype, dev)


@pytest.mark.parametrize("act", list(ACTS))
@pytest.mark.parametrize("xshape", [(2, 7, 24), (24,), (0, 24)])
def test_shapes(dev, act, xshape):
    _compare(ACTS[act], [_rand(xshape), _rand((8, 24), 1) / 5, _rand((8,), 2)], "float32", dev)


@pytest.mark.parametrize("act", list(ACTS))
def test_transposed_input(dev, act):
    _compare(
        ACTS[act],
        [_rand((24, 9)), _rand((8, 24), 1) / 5, _rand((8,), 2)],
        "float32",
        dev,
        view=lambda t: t.t(),
    )


@pytest.mark.skipif(
    os.environ.get("LUCID_CUDA_TEST_DEVICE", "cuda") != "cuda",
    reason="inspects the CUDA backend's GEMM epilogues",
)
@pytest.mark.parametrize("act,aux", [("relu", False), ("gelu", True)])
@pytest.mark.parametrize("bias", [True, False])
def test_the_epilogue_runs(act, aux, bias):
    import cupy

    from lucid.backend.cuda import cublaslt, gemm

    if not cublaslt.available():
        pytest.skip("no cuBLASLt")
    rng = np.random.default_rng(0)
    x = cupy.asarray(rng.standard_normal((64, 32)), dtype=cupy.float32)
    w = cupy.asarray(rng.standard_normal((16, 32)), dtype=cupy.float32)
    b = cupy.asarray(rng.standard_normal(16), dtype=cupy.float32) if bias else None
    a = cupy.empty((64, 16), cupy.float32) if aux else None
    out, done = gemm.matmul(x, w.T, bias=b, act=act, aux=a)
    assert done
    z = x @ w.T + (0 if b is None else b)
    zz = cupy.asnumpy(z).astype(np.float64)
    if act == "relu":
        want = np.maximum(zz, 0)
    else:
        want = 0.5 * zz * (1 + np.tanh(np.sqrt(2 / np.pi) * (zz + 0.044715 * zz**3)))
        np.testing.assert_allclose(cupy.asnumpy(a), zz, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(cupy.asnumpy(out), want, rtol=1e-4, atol=1e-4)
    # an auxiliary matrix whose rows are not a multiple of 8 long: no epilogue
    if aux:
        out, done = gemm.matmul(x, w[:5].T, act=act, aux=cupy.empty((64, 5), cupy.float32))
        assert not done
