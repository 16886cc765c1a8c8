"""The CUDA backend's own kernel launch (arguments packed by lucid.backend.cuda.kernels,
laid out by a kernel's declaration or by NumPy scalar types) and the kernels added with
it, against the CPU: the embedding's lookup and weight gradient, the fill behind ``ones``
(the seed of ``backward()``), the per-channel sum of a convolution's bias gradient, half
arrays with a number (``x * s``, ``x + s``, ``s - x``) and the masked fill whose mask
broadcasts over leading dims; and, against the CPU too, same-shape arithmetic, ReLU's
gradient, ``arange`` and the gradient of a broadcast operand."""

import numpy as np
import pytest

import lucid
import lucid.nn.functional as F

from .conftest import DEVICE

pytestmark = pytest.mark.cuda
gpu = pytest.mark.skipif(DEVICE == "cpu", reason="launches a raw kernel (needs a GPU)")

DTYPES = ["float32", "float64", "float16", "bfloat16"]
TOL = {"float32": 2e-5, "float64": 1e-12, "float16": 4e-3, "bfloat16": 3e-2}

_MIXED = r"""
extern "C" __global__ void mixed(double* out, int a, long long b, float c, double d,
                                 const double* null, unsigned int e, unsigned long long f,
                                 int g) {
    out[0] = a; out[1] = (double)b; out[2] = c; out[3] = d; out[4] = null ? 1.0 : 0.0;
    out[5] = e; out[6] = (double)f; out[7] = g;
}
"""


@gpu
def test_packed_arguments_keep_their_c_layout():
    """int32 after a pointer, int64 after an int32 (padded to 8), float, double, a null
    pointer, unsigned ints and a trailing int32: every value arrives where the kernel
    reads it."""
    import cupy
    from lucid.backend.cuda.kernels import kernel

    out = cupy.zeros(8, cupy.float64)
    vals = (
        np.int32(-7),
        np.int64(2**40 + 3),
        np.float32(1.5),
        np.float64(-2.25),
        np.uint64(0),
        np.uint32(4000000000),
        np.uint64(2**53),
        np.int32(9),
    )
    kernel(_MIXED, "mixed")((1,), (1,), (out,) + vals)
    want = [-7, 2**40 + 3, 1.5, -2.25, 0, 4000000000, 2**53, 9]
    np.testing.assert_array_equal(cupy.asnumpy(out), np.array(want, np.float64))
    kernel(_MIXED, "mixed")(1, (1, 1), (out,) + vals[:4] + (out,) + vals[5:])  # 2-D block
    assert float(out[4]) == 1.0


@gpu
def test_declared_layout_takes_python_numbers():
    """A kernel whose declaration is plain C is packed by its declaration: Python ints and
    floats (and NumPy scalars of other widths) arrive converted to the declared types."""
    import cupy
    from lucid.backend.cuda.kernels import NULL, kernel

    k = kernel(_MIXED, "mixed")
    assert k.fmt == "@QiqfdQIQi"
    out = cupy.zeros(8, cupy.float64)
    k(
        (1,),
        (1,),
        (out, -7, 2**40 + 3, 1.5, np.float32(-2.25), NULL, 4000000000, np.int64(2**53), True),
    )
    want = [-7, 2**40 + 3, 1.5, -2.25, 0, 4000000000, 2**53, 1]
    np.testing.assert_array_equal(cupy.asnumpy(out), np.array(want, np.float64))
    with pytest.raises(TypeError, match="mixed.*declares parameters"):
        k((1,), (1,), (out, 1, 2))
    with pytest.raises(TypeError, match="mixed"):
        k((1,), (1,), (out, 1.5, 2, 1.5, 2.0, NULL, 1, 1, 1))  # a float for an int


@gpu
def test_signature_reads_the_declaration():
    """Launch bounds, ``const`` and ``A`` (the accumulation type) are read; a declaration
    through a macro or of another type gives no layout (the arguments give it)."""
    from lucid.backend.cuda.kernels import signature

    src = (
        'extern "C" __global__ void __launch_bounds__(256, 2)\n'
        "k(const T* x, A* y, long long n, A eps, unsigned long long seed) {}\n"
        'extern "C" __global__ void k_other(T v) {}\n'
    )
    assert signature(src, "k", "float") == "@QQqfQ"
    assert signature(src, "k", "double") == "@QQqdQ"
    assert signature(src, "k_other", "float") is None  # a scalar of type T
    assert signature(src, "k_missing", "float") is None
    macro = 'extern "C" __global__ void NAME##_f(const T* x, GEO) {}'
    assert signature(macro, "NAME_f", "float") is None


@gpu
def test_macro_declared_layout():
    """A kernel declared through a macro takes its layout from the parameter list given
    with it; without one, from NumPy scalars, and a Python number (whose C width is
    unknown) is refused."""
    import cupy
    from lucid.backend.cuda.kernels import kernel

    src = (
        '#define DECL(N) extern "C" __global__ void N(double* out, int a, double b) '
        "{ out[0] = a + b; }\nDECL(from_macro)\n"
    )
    out = cupy.zeros(1, cupy.float64)
    k = kernel(src, "from_macro", params="double* out, int a, double b")
    assert k.fmt == "@Qid"
    k((1,), (1,), (out, 5, 0.25))
    assert float(out[0]) == 5.25
    k = kernel(src, "from_macro")
    assert k.fmt is None
    k((1,), (1,), (out, np.int32(6), np.float64(0.5)))
    assert float(out[0]) == 6.5
    with pytest.raises(TypeError, match="from_macro.*NumPy scalars"):
        k((1,), (1,), (out, 5, 0.25))


def _np(t):
    return t.detach().cpu().to(lucid.float64).numpy()


def _grads(device, dtype, fn, *arrays):
    leaves = [lucid.tensor(a).to(getattr(lucid, dtype)).to(device).requires_grad_() for a in arrays]
    out = fn(*leaves)
    u = np.random.default_rng(3).standard_normal(tuple(out.shape))
    (out * lucid.tensor(u).to(getattr(lucid, dtype)).to(device)).sum().backward()
    return [_np(t.grad) for t in leaves]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("padding_idx", [None, 3, -2])
@pytest.mark.parametrize("idx_shape", [(7,), (4, 9), (2, 3, 5)])
def test_embedding_weight_grad(dev, dtype, padding_idx, idx_shape):
    """Repeated indices (sums), the padding row left zero (a negative padding_idx counts
    from the end), index tensors of 1 to 3 dims."""
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 10, idx_shape)
    idx.flat[:3] = 3  # repeats, and the padding row
    w = rng.standard_normal((10, 6))
    results = []
    for device in ("cpu", dev):
        ix = lucid.tensor(idx).to(device)
        results.append(_grads(device, dtype, lambda t: F.embedding(ix, t, padding_idx), w))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=TOL[dtype], atol=TOL[dtype] * 4)
    if padding_idx is not None:
        assert not results[1][0][padding_idx % 10].any()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("idx_shape", [(), (0,), (7,), (4, 9), (2, 0, 3)])
def test_embedding_lookup(dev, dtype, idx_shape):
    """A gather: equal to the CPU's rows bit for bit, a 0-d index (one row) and empty
    index tensors included; a transposed (non-contiguous) weight too."""
    rng = np.random.default_rng(4)
    idx = rng.integers(0, 10, idx_shape)
    w = rng.standard_normal((10, 6))
    for weight in (
        lambda d: lucid.tensor(w).to(getattr(lucid, dtype)).to(d),
        lambda d: lucid.tensor(w.T.copy()).to(getattr(lucid, dtype)).to(d).t(),
    ):
        got = [F.embedding(lucid.tensor(idx).to(d), weight(d)) for d in ("cpu", dev)]
        assert tuple(got[1].shape) == idx_shape + (6,) and got[1].dtype == got[0].dtype
        np.testing.assert_array_equal(_np(got[1]), _np(got[0]))


@pytest.mark.parametrize("dtype", DTYPES + ["int64", "bool"])
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 1000)])
def test_ones(dev, dtype, shape):
    t = lucid.ones(shape, dtype=getattr(lucid, dtype), device=dev)
    assert tuple(t.shape) == shape and t.dtype == getattr(lucid, dtype)
    np.testing.assert_array_equal(t.cpu().numpy().astype(np.float64), np.ones(shape))


def test_backward_seed(dev):
    for dtype in ("float32", "bfloat16"):
        x = lucid.tensor([1.5, -2.0]).to(getattr(lucid, dtype)).to(dev).requires_grad_()
        (x * 3).sum().backward()
        np.testing.assert_array_equal(_np(x.grad), [3.0, 3.0])


def test_embedding_weight_grad_int32_indices_and_wide_rows(dev):
    rng = np.random.default_rng(1)
    idx = rng.integers(0, 50, (3, 40)).astype(np.int32)
    w = rng.standard_normal((50, 130))
    got = [
        _grads(d, "float32", lambda t: F.embedding(lucid.tensor(idx).to(d), t), w)[0]
        for d in ("cpu", dev)
    ]
    np.testing.assert_allclose(got[1], got[0], rtol=2e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3, 5), (4, 6, 9, 7), (1, 2, 3, 4, 5), (3, 4, 300, 300)])
def test_conv_bias_grad(dev, dtype, shape):
    """The bias gradient, a per-channel sum over batch and space: 1-d to 3-d, and a
    channel of 270,000 elements (split over several blocks)."""
    rng = np.random.default_rng(2)
    n, c = shape[:2]
    conv = {3: F.conv1d, 4: F.conv2d, 5: F.conv3d}[len(shape)]
    x = rng.standard_normal(shape)
    w = rng.standard_normal((5, c) + (1,) * (len(shape) - 2))
    b = rng.standard_normal(5)
    got = [_grads(d, dtype, conv, x, w, b)[2] for d in ("cpu", dev)]
    scale = np.sqrt(np.prod(shape) / c)
    np.testing.assert_allclose(got[1], got[0], rtol=TOL[dtype], atol=TOL[dtype] * scale)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask_shape", [(8, 12), (1, 8, 12), (3, 8, 12), (12,), (7,)])
def test_masked_fill_broadcast_mask(dev, dtype, mask_shape):
    """A causal-style mask over a batch of scores: the fill (-inf, a number), the
    gradient zero under the mask; masks of odd sizes take the generic kernel."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 7) if mask_shape == (7,) else (2, 3, 8, 12))
    mask = rng.random(mask_shape) < 0.4
    outs = []
    for device in ("cpu", dev):
        m = lucid.tensor(mask).to(device)
        for fill in (float("-inf"), 2.5):
            got = _grads(device, dtype, lambda t: t.masked_fill(m, fill).clamp(-10, 10), a)
            with lucid.no_grad():
                y = lucid.tensor(a).to(getattr(lucid, dtype)).to(device).masked_fill(m, fill)
            outs.append((got[0], _np(y)))
    half = len(outs) // 2
    for (gc, yc), (gd, yd) in zip(outs[:half], outs[half:]):
        np.testing.assert_array_equal(yd, yc)
        np.testing.assert_allclose(gd, gc, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_half_with_a_number(dev, dtype):
    """x * s, x + s, s - x, s * x and their gradients, the number rounded to the dtype
    first (NumPy 2's weak scalars) on both devices; 4k + 3 elements (the vector tail)."""
    rng = np.random.default_rng(6)
    a = rng.standard_normal((5, 83)) * 3
    for fn in (
        lambda t: t * 0.3,
        lambda t: t + 1.7,
        lambda t: 2.1 - t,
        lambda t: 0.125 * t,
        lambda t: t * 3,
    ):
        res = []
        for device in ("cpu", dev):
            t = lucid.tensor(a).to(getattr(lucid, dtype)).to(device)
            res.append((_np(fn(t)), _grads(device, dtype, fn, a)[0]))
        (yc, gc), (yd, gd) = res
        np.testing.assert_allclose(yd, yc, rtol=TOL[dtype], atol=TOL[dtype])
        np.testing.assert_allclose(gd, gc, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (5, 83), (2, 3, 64)])
def test_same_shape_arithmetic(dev, dtype, shape):
    """x + y, x - y, x * y of one shape (Lucid's vector kernel for half types, CuPy's
    for the others and for a transposed operand): the correctly rounded result, equal to
    the CPU's bit for bit; 0-d, empty and 4k + 3 elements included."""
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal(shape) * 3, rng.standard_normal(shape)
    for op in (
        lambda x, y: x + y,
        lambda x, y: x - y,
        lambda x, y: x * y,
        lambda x, y: x.mT * y.mT if x.ndim >= 2 else x * y,
    ):
        got = [
            op(*(lucid.tensor(v).to(getattr(lucid, dtype)).to(d) for v in (a, b)))
            for d in ("cpu", dev)
        ]
        assert got[1].dtype == got[0].dtype and tuple(got[1].shape) == tuple(got[0].shape)
        np.testing.assert_array_equal(_np(got[1]), _np(got[0]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (9,), (4, 33)])
def test_relu_gradient(dev, dtype, shape):
    """ReLU's gradient: g where the output is positive, zero elsewhere (zeros and NaN
    inputs placed on purpose), exact, for contiguous and transposed inputs."""
    rng = np.random.default_rng(8)
    x = rng.standard_normal(shape)
    if x.size > 3:
        x.flat[:3] = (0.0, -0.0, np.nan)
    for fn in (F.relu, lambda t: F.relu(t.mT).mT if t.ndim == 2 else F.relu(t)):
        got = [_grads(d, dtype, fn, x)[0] for d in ("cpu", dev)]
        np.testing.assert_array_equal(got[1], got[0])


_INT_RANGES = [(5,), (0,), (2, 11), (10, -3, -1), (3, 3)]
_FLOAT_RANGES = [(0, 1, 0.1), (-1.5, 2.25, 0.25)]


@pytest.mark.parametrize(
    "dtype,args",
    [(d, a) for d in DTYPES for a in _INT_RANGES + _FLOAT_RANGES]
    + [(d, a) for d in ("int64", "int32") for a in _INT_RANGES],
)
def test_arange(dev, dtype, args):
    """``start + i * step``, as the CPU computes it (float64, rounded once), for float and
    integer dtypes, empty ranges and fractional steps."""
    got = [lucid.arange(*args, dtype=getattr(lucid, dtype), device=d) for d in ("cpu", dev)]
    assert got[1].dtype == got[0].dtype and tuple(got[1].shape) == tuple(got[0].shape)
    np.testing.assert_array_equal(got[1].cpu().numpy(), got[0].cpu().numpy())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "shapes",
    [
        ((4, 5, 6), (5, 6)),
        ((3000, 7), (7,)),
        ((2, 3), ()),
        ((6, 1, 4), (5, 1)),
        ((3, 5, 4), (1, 4)),
        ((0, 4), (4,)),
    ],
)
def test_broadcast_operand_gradient(dev, dtype, shapes):
    """The gradient of an operand broadcast over leading dims is the sum over them
    (3000 rows included), or over inner unit dims as well."""
    rng = np.random.default_rng(9)
    a, b = (rng.standard_normal(s) for s in shapes)
    got = [_grads(d, dtype, lambda x, y: x + y, a, b) for d in ("cpu", dev)]
    rows = max(1, a.size // max(1, b.size))
    tol = TOL[dtype] * np.sqrt(rows)
    for g_dev, g_cpu in zip(got[1], got[0]):
        assert g_dev.shape == g_cpu.shape
        np.testing.assert_allclose(g_dev, g_cpu, rtol=tol, atol=tol)
