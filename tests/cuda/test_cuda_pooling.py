"""The CUDA pooling kernels (lucid/backend/cuda/pooling.py) against the same Lucid call on
the CPU through lucid.nn.functional: max and average pooling in 1, 2 and 3 dims, forward
and gradients, every window option (stride, padding, dilation, ceil_mode,
return_indices, count_include_pad, divisor_override), each float dtype, NaN and
infinite inputs, ties (values and indices exactly as the CPU: the first maximum, the
last NaN), odd and large sizes, views, empty inputs, kernels of 128+ elements (int32
argmax), and that the kernels rather than the generic code run."""

import numpy as np
import pytest

import lucid
import lucid.nn.functional as F

pytestmark = pytest.mark.cuda

DTYPES = ["float32", "float64", "float16", "bfloat16"]
# (rtol, atol) of gradients and averages: sums in another order / precision than the CPU
TOL = {
    "float32": (2e-5, 2e-6),
    "float64": (1e-11, 1e-12),
    "float16": (4e-3, 4e-3),
    "bfloat16": (3e-2, 3e-2),
}


def _np(t):
    return (
        t.detach().cpu().to(lucid.float64).numpy() if t.dtype.is_floating_point else t.cpu().numpy()
    )


def _data(shape, kind, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "ties":  # few distinct values: many equal maxima
        return rng.integers(-2, 3, size=shape).astype(np.float64)
    a = rng.standard_normal(shape) * 3
    if kind == "nan":  # NaN, -inf and +inf scattered
        a[rng.random(shape) < 0.15] = np.nan
        a[rng.random(shape) < 0.1] = -np.inf
        a[rng.random(shape) < 0.05] = np.inf
    elif kind == "neginf":  # windows of -inf only
        a[rng.random(shape) < 0.7] = -np.inf
    return a


def _run(fn, a, dtype, device, grad=True, view=None):
    """``fn`` of ``a`` (cast on the CPU, then moved) and the gradient of
    ``sum(out * u)``, ``u`` a fixed random array; the outputs as a list."""
    x = lucid.tensor(a).to(getattr(lucid, dtype)).to(device)
    if grad:
        x.requires_grad_()
    out = fn(view(x) if view else x)
    outs = list(out) if isinstance(out, tuple) else [out]
    if grad and outs[0].numel():
        u = np.random.default_rng(7).standard_normal(tuple(outs[0].shape))
        (outs[0] * lucid.tensor(u).to(outs[0].dtype).to(device)).sum().backward()
        outs.append(x.grad)
    return outs


def _compare(fn, a, dtype, dev, exact_values, grad=True, view=None):
    """CUDA against CPU: the first output (and the indices) exactly where
    ``exact_values``, else within the dtype's tolerance; the gradient within it."""
    want = _run(fn, a, dtype, "cpu", grad, view)
    got = _run(fn, a, dtype, dev, grad, view)
    assert len(got) == len(want)
    rtol, atol = TOL[dtype]
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.device.type == lucid.device(dev).type
        assert g.dtype == w.dtype and tuple(g.shape) == tuple(w.shape), i
        is_grad = grad and i == len(got) - 1 and len(got) > 1
        if exact_values and not is_grad:
            np.testing.assert_array_equal(_np(g), _np(w))  # NaN equals NaN
        else:
            np.testing.assert_allclose(_np(g), _np(w), rtol=rtol, atol=atol)


MAX = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
AVG = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}
SHAPES = {1: (2, 3, 13), 2: (2, 3, 11, 8), 3: (1, 2, 7, 6, 5)}

# (kernel, stride, padding, dilation, ceil_mode) for max pooling
MAX_OPTS = [
    (2, None, 0, 1, False),
    (3, 1, 1, 1, False),
    (3, 2, 1, 1, True),
    (2, 3, 0, 1, True),
    (3, 2, 1, 2, False),
    (4, 1, 2, 2, True),
    (1, 1, 0, 1, False),
    (4, 2, 2, 1, True),
]


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opt", MAX_OPTS)
@pytest.mark.parametrize("kind", ["rand", "ties"])
def test_max_pool(dev, n, dtype, opt, kind):
    k, s, p, d, ceil = opt
    fn = lambda x: MAX[n](x, k, s, p, d, ceil_mode=ceil, return_indices=True)  # noqa: E731
    _compare(fn, _data(SHAPES[n], kind), dtype, dev, exact_values=True)


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["nan", "neginf"])
def test_max_pool_nan_and_inf(dev, n, dtype, kind):
    """NaN wins (the last NaN's index); a window of -inf keeps kernel element 0, padding
    included (its index clipped into the input)."""
    fn = lambda x: MAX[n](x, 3, 2, 1, ceil_mode=True, return_indices=True)  # noqa: E731
    _compare(fn, _data(SHAPES[n], kind), dtype, dev, exact_values=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_max_pool_mixed_kernel_options(dev, dtype):
    """Per-dim kernel, stride, padding and dilation."""
    fn = lambda x: F.max_pool3d(
        x,
        (2, 3, 1),
        (1, 2, 3),
        (1, 1, 0),
        (2, 1, 1),  # noqa: E731
        ceil_mode=True,
        return_indices=True,
    )
    _compare(fn, _data((2, 3, 6, 9, 7), "ties"), dtype, dev, exact_values=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_max_pool_large_kernel(dev, dtype):
    """A kernel of 150 elements: int32 argmax; overlapping windows."""
    fn = lambda x: F.max_pool3d(
        x,
        (5, 5, 6),
        (1, 2, 1),
        2,  # noqa: E731
        ceil_mode=True,
        return_indices=True,
    )
    _compare(fn, _data((2, 2, 7, 8, 9), "ties"), dtype, dev, exact_values=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "shape",
    [
        (1, 1, 1, 1),
        (1, 1, 7, 7),
        (3, 5, 33, 17),
        (32, 32, 32, 32),
        (32, 64, 16, 16),
        (2, 1, 1000003),
    ],
)
def test_max_pool_sizes(dev, dtype, shape):
    """Odd sizes, the training benchmark's MaxPool2d(2) and a long 1-d input."""
    fn = (
        (lambda x: F.max_pool1d(x, 3, 2, 1))
        if len(shape) == 3
        else (lambda x: F.max_pool2d(x, 2 if shape[-1] > 1 else 1))
    )
    _compare(fn, _data(shape, "rand"), dtype, dev, exact_values=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_max_pool_views_and_unbatched(dev, dtype):
    a = _data((2, 3, 9, 8), "ties")
    fn = lambda x: F.max_pool2d(x, 2, 1, return_indices=True)  # noqa: E731
    _compare(fn, a, dtype, dev, True, view=lambda t: t.transpose(2, 3))
    _compare(fn, a, dtype, dev, True, view=lambda t: t[:, :, ::2, 1:])
    _compare(fn, a, dtype, dev, True, view=lambda t: t[0])


def test_max_pool_empty_and_integer(dev):
    """A batch of zero and integer inputs (the generic kernels)."""
    _compare(lambda x: F.max_pool2d(x, 2), np.zeros((0, 3, 4, 4)), "float32", dev, True)
    for device in ("cpu", dev):
        x = lucid.tensor(np.arange(2 * 3 * 6 * 6).reshape(2, 3, 6, 6) % 7).to(device)
        vals, idx = F.max_pool2d(x, 3, 2, 1, return_indices=True)
        if device == "cpu":
            want = vals.numpy(), idx.numpy()
    np.testing.assert_array_equal(vals.cpu().numpy(), want[0])
    np.testing.assert_array_equal(idx.cpu().numpy(), want[1])


@pytest.mark.parametrize("dtype", DTYPES)
def test_max_unpool_of_cuda_indices(dev, dtype):
    """max_unpool2d with the CUDA indices (and its gradient)."""

    def fn(x):
        v, i = F.max_pool2d(x, 2, return_indices=True)
        return F.max_unpool2d(v, i, 2, output_size=(9, 8))

    _compare(fn, _data((2, 3, 9, 8), "rand"), dtype, dev, exact_values=True)


# (kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
AVG_OPTS = [
    (2, None, 0, False, True, None),
    (3, 1, 1, False, True, None),
    (3, 2, 1, True, True, None),
    (3, 2, 1, True, False, None),
    (4, 3, 2, True, False, None),
    (2, 3, 0, True, True, None),
    (3, 2, 1, False, True, 5),
    (2, 1, 1, True, False, 3),
]


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opt", AVG_OPTS)
def test_avg_pool(dev, n, dtype, opt):
    k, s, p, ceil, cip, div = opt
    if div is not None and n == 1:
        pytest.skip("avg_pool1d has no divisor_override")
    extra = {} if div is None else {"divisor_override": div}
    fn = lambda x: AVG[n](
        x,
        k,
        s,
        p,
        ceil_mode=ceil,
        count_include_pad=cip,  # noqa: E731
        **extra,
    )
    _compare(fn, _data(SHAPES[n], "rand"), dtype, dev, exact_values=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_avg_pool_nan_inf_views_sizes(dev, dtype):
    fn = lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True)  # noqa: E731
    _compare(fn, _data((2, 3, 9, 8), "nan"), dtype, dev, exact_values=False, grad=False)
    _compare(fn, _data((2, 3, 9, 8), "rand"), dtype, dev, False, view=lambda t: t.transpose(2, 3))
    _compare(fn, _data((3, 9), "rand"), dtype, dev, False, view=lambda t: t[None])
    _compare(lambda x: F.avg_pool2d(x, 2), _data((32, 32, 32, 32), "rand"), dtype, dev, False)
    _compare(
        lambda x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False),
        _data((2, 1, 1000003), "rand"),
        dtype,
        dev,
        False,
    )
    _compare(
        lambda x: F.avg_pool3d(x, (1, 2, 3), (2, 1, 2), (0, 1, 1), ceil_mode=True),
        _data((1, 2, 5, 6, 7), "rand"),
        dtype,
        dev,
        False,
    )


def test_avg_pool_empty(dev):
    _compare(lambda x: F.avg_pool2d(x, 2), np.zeros((0, 3, 4, 4)), "float32", dev, False)


def test_pool_double_backward(dev):
    """Graph-mode gradients of the pooled values (the forward runs the kernels)."""
    res = []
    for device in ("cpu", dev):
        x = lucid.tensor(_data((2, 3, 7, 6), "rand")).to(device).requires_grad_()
        y = F.max_pool2d(x, 3, 2, 1) * 2 + F.avg_pool2d(x, 3, 2, 1)
        (gx,) = lucid.autograd.grad((y**2).sum(), [x], create_graph=True)
        (gx**2).sum().backward()
        res.append((_np(gx), _np(x.grad)))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


GENERIC = [
    "max_pool",
    "max_pool_indices",
    "max_pool_backward",
    "avg_pool",
    "avg_pool_backward",
    "pool_divisor",
]


def test_pool_kernels_taken(dev, monkeypatch):
    """Every dtype, 1-3 dims, views, every option: the generic kernels never run."""
    if lucid.device(dev).type == "cpu":
        pytest.skip("the CPU runs the generic kernels")
    from lucid.backend.array.conv import XpConv

    def generic(*args, **kwargs):
        raise AssertionError("a generic pooling kernel ran")

    for name in GENERIC:
        monkeypatch.setattr(XpConv, name, generic)
    for dtype in DTYPES:
        for n in (1, 2, 3):
            x = lucid.tensor(_data(SHAPES[n], "ties")).to(getattr(lucid, dtype)).to(dev)
            x.requires_grad_()
            v, i = MAX[n](x, 3, 2, 1, 2, ceil_mode=True, return_indices=True)
            outs = [
                v,
                MAX[n](x.transpose(1, 2), 2),
                AVG[n](x, 3, 2, 1, ceil_mode=True),
                AVG[n](x, 2, count_include_pad=False),
            ]
            if n > 1:
                outs.append(AVG[n](x, 2, 1, 1, divisor_override=3))
            sum(o.float().sum() for o in outs).backward()
            assert x.grad is not None and i.dtype == lucid.int64
