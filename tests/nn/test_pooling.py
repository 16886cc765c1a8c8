"""Pooling: max/avg/adaptive/lp pooling and max_unpool (1d/2d/3d) against PyTorch (values,
indices, gradients), every option, NaN, empty batch, non-contiguous input, double
backward, argument checks, and the pooling layers (parity and repr)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.errors import ArgumentError, IndexingError, ShapeError

TOL = {np.float64: dict(rtol=1e-10, atol=1e-12), np.float32: dict(rtol=1e-5, atol=1e-6)}


def _distinct(*shape, seed=0):
    """Values without ties (the gradient of a max is then unique)."""
    n = int(np.prod(shape))
    return np.random.default_rng(seed).permutation(n).reshape(shape) / n * 4 - 2


def _parity(name, x, dtype=np.float64, grad=True, **kw):
    lf, tf = getattr(F, name), getattr(TF, name)
    x = x.astype(dtype)
    lx = lucid.tensor(x, requires_grad=grad)
    tx = torch.tensor(x, requires_grad=grad)
    ly, ty = lf(lx, **kw), tf(tx, **kw)
    if isinstance(ty, tuple):
        np.testing.assert_array_equal(ly[1].numpy(), ty[1].numpy())
        assert ly[1].dtype == lucid.int64
        ly, ty = ly[0], ty[0]
    assert tuple(ly.shape) == tuple(ty.shape) and ly.dtype == lx.dtype
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **TOL[dtype])
    if grad:
        g = np.random.default_rng(5).standard_normal(tuple(ty.shape)).astype(dtype)
        ly.backward(lucid.tensor(g))
        ty.backward(torch.tensor(g))
        np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **TOL[dtype])


MAX = [
    ("max_pool1d", (2, 3, 11), dict(kernel_size=3)),
    ("max_pool1d", (2, 3, 11), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ("max_pool1d", (3, 10), dict(kernel_size=2, dilation=3, return_indices=True)),
    ("max_pool2d", (2, 3, 8, 8), dict(kernel_size=2)),
    (
        "max_pool2d",
        (2, 3, 9, 7),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, return_indices=True),
    ),
    (
        "max_pool2d",
        (2, 3, 9, 8),
        dict(
            kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(2, 3), return_indices=True
        ),
    ),
    ("max_pool2d", (2, 2, 5, 5), dict(kernel_size=2, stride=3, ceil_mode=True)),
    (
        "max_pool3d",
        (1, 2, 5, 6, 4),
        dict(kernel_size=2, stride=(1, 2, 2), padding=1, return_indices=True),
    ),
    ("max_pool3d", (1, 2, 5, 6, 7), dict(kernel_size=3, stride=2, ceil_mode=True)),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("case", MAX, ids=[f"{c[0]}-{i}" for i, c in enumerate(MAX)])
def test_max_pool_matches_torch(case, dtype):
    name, shape, kw = case
    _parity(name, _distinct(*shape), dtype, **kw)


AVG = [
    ("avg_pool1d", (2, 3, 11), dict(kernel_size=3)),
    (
        "avg_pool1d",
        (2, 3, 11),
        dict(kernel_size=4, stride=3, padding=2, ceil_mode=True, count_include_pad=False),
    ),
    ("avg_pool1d", (3, 10), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ("avg_pool2d", (2, 3, 8, 8), dict(kernel_size=2)),
    ("avg_pool2d", (2, 3, 9, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (
        "avg_pool2d",
        (2, 3, 9, 7),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    ),
    (
        "avg_pool2d",
        (2, 3, 6, 7),
        dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 1), divisor_override=5),
    ),
    ("avg_pool3d", (1, 2, 5, 6, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (
        "avg_pool3d",
        (1, 2, 5, 6, 4),
        dict(kernel_size=2, padding=1, count_include_pad=False, divisor_override=3),
    ),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("case", AVG, ids=[f"{c[0]}-{i}" for i, c in enumerate(AVG)])
def test_avg_pool_matches_torch(case, dtype):
    name, shape, kw = case
    _parity(name, np.random.default_rng(1).standard_normal(shape), dtype, **kw)


def test_avg_pool_options_change_the_result():
    """ceil_mode, count_include_pad and divisor_override each do something."""
    x = lucid.tensor(np.random.default_rng(2).random((1, 1, 5, 5)))
    base = F.avg_pool2d(x, 2, 2, 1).numpy()
    assert F.avg_pool2d(x, 2, 2, 1, ceil_mode=True).shape != F.avg_pool2d(x, 2, 2, 0).shape
    assert not np.allclose(F.avg_pool2d(x, 2, 2, 1, count_include_pad=False).numpy(), base)
    np.testing.assert_allclose(F.avg_pool2d(x, 2, 2, 1, divisor_override=1).numpy(), base * 4)


ADAPTIVE = [
    ("adaptive_avg_pool1d", (2, 3, 11), dict(output_size=4)),
    ("adaptive_avg_pool2d", (2, 3, 7, 9), dict(output_size=(3, 4))),
    ("adaptive_avg_pool2d", (2, 3, 7, 9), dict(output_size=(None, 2))),
    ("adaptive_avg_pool2d", (3, 7, 9), dict(output_size=1)),
    ("adaptive_avg_pool2d", (2, 3, 4, 5), dict(output_size=(6, 7))),  # upsampling
    ("adaptive_avg_pool3d", (1, 2, 5, 6, 7), dict(output_size=(2, 3, 4))),
    ("adaptive_max_pool1d", (2, 3, 11), dict(output_size=4, return_indices=True)),
    ("adaptive_max_pool2d", (2, 3, 7, 9), dict(output_size=(3, 4), return_indices=True)),
    ("adaptive_max_pool2d", (3, 7, 9), dict(output_size=(None, 4))),
    ("adaptive_max_pool3d", (1, 2, 5, 6, 7), dict(output_size=(2, 3, 4), return_indices=True)),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("case", ADAPTIVE, ids=[f"{c[0]}-{i}" for i, c in enumerate(ADAPTIVE)])
def test_adaptive_pool_matches_torch(case, dtype):
    name, shape, kw = case
    _parity(name, _distinct(*shape, seed=3), dtype, **kw)


@pytest.mark.parametrize(
    "name,shape,kw",
    [
        ("lp_pool1d", (2, 3, 10), dict(norm_type=2, kernel_size=3, stride=2)),
        ("lp_pool2d", (2, 3, 7, 8), dict(norm_type=3, kernel_size=(2, 3), ceil_mode=True)),
        ("lp_pool2d", (2, 3, 6, 6), dict(norm_type=1.5, kernel_size=2)),
        ("lp_pool3d", (1, 2, 4, 4, 6), dict(norm_type=2, kernel_size=2)),
    ],
)
def test_lp_pool_matches_torch(name, shape, kw):
    x = np.random.default_rng(4).random(shape) + 0.1  # positive: p-th roots are real
    _parity(name, x, **kw)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_unpool_inverts_max_pool(n):
    shape = (2, 3) + (6, 4, 4)[:n]
    x = _distinct(*shape, seed=6)
    pool, unpool = getattr(F, f"max_pool{n}d"), getattr(F, f"max_unpool{n}d")
    tpool, tunpool = getattr(TF, f"max_pool{n}d"), getattr(TF, f"max_unpool{n}d")
    v, i = pool(lucid.tensor(x), 2, return_indices=True)
    tv, ti = tpool(torch.tensor(x), 2, return_indices=True)
    lv = v.detach().requires_grad_()
    tvv = tv.detach().requires_grad_()
    out = unpool(lv, i, 2, output_size=shape[2:])
    tout = tunpool(tvv, ti, 2, output_size=shape[2:])
    np.testing.assert_array_equal(out.detach().numpy(), tout.detach().numpy())
    g = np.random.default_rng(7).standard_normal(shape)
    out.backward(lucid.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_array_equal(lv.grad.numpy(), tvv.grad.numpy())
    # default output size and a size with N and C given
    assert tuple(unpool(v, i, 2).shape) == tuple(tunpool(tv, ti, 2).shape)
    assert tuple(unpool(v, i, 2, output_size=shape).shape) == shape


def test_max_unpool_errors():
    v, i = F.max_pool2d(lucid.randn(1, 1, 4, 4), 2, return_indices=True)
    with pytest.raises(IndexingError, match="max_unpool2d: Found an invalid max index"):
        F.max_unpool2d(v, i + 100, 2)
    with pytest.raises(ShapeError, match="Expected shape of indices to be same"):
        F.max_unpool2d(v, i[:, :, :1], 2)
    with pytest.raises(ShapeError, match="invalid output_size"):
        F.max_unpool2d(v, i, 2, output_size=(9, 9))


def test_max_pool_nan_propagates():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    x[0, 0, 0, 1] = np.nan
    v, i = F.max_pool2d(lucid.tensor(x), 2, return_indices=True)
    assert np.isnan(v.numpy()[0, 0, 0, 0]) and i.numpy()[0, 0, 0, 0] == 1
    assert v.numpy()[0, 0, 1, 1] == 15


def test_max_pool_of_integers_as_torch():
    x = np.random.default_rng(12).integers(-50, 50, (2, 3, 6, 5))
    v, i = F.max_pool2d(lucid.tensor(x), 3, 2, 1, return_indices=True)
    tv, ti = TF.max_pool2d(torch.tensor(x), 3, 2, 1, return_indices=True)
    assert v.dtype == lucid.int64 and not v.requires_grad
    np.testing.assert_array_equal(v.numpy(), tv.numpy())
    np.testing.assert_array_equal(
        x.reshape(2, 3, -1)[
            np.arange(2)[:, None, None], np.arange(3)[None, :, None], i.numpy().reshape(2, 3, -1)
        ],
        v.numpy().reshape(2, 3, -1),
    )
    with pytest.raises(lucid.errors.DTypeError, match="floating point"):
        F.avg_pool2d(lucid.tensor(x), 2)


def test_max_pool_of_minus_infinity_keeps_indices_in_range():
    x = lucid.full((1, 1, 3, 3), float("-inf"))
    v, i = F.max_pool2d(x, 2, 2, 1, return_indices=True)
    assert np.all(np.isneginf(v.numpy()))
    assert i.numpy().min() >= 0 and i.numpy().max() < 9


@pytest.mark.parametrize(
    "name,kw",
    [
        ("max_pool2d", dict(kernel_size=2)),
        ("avg_pool2d", dict(kernel_size=3, padding=1)),
        ("adaptive_avg_pool2d", dict(output_size=(2, 3))),
        ("adaptive_max_pool2d", dict(output_size=(2, 3))),
    ],
)
def test_empty_batch_and_non_contiguous(name, kw):
    _parity(name, np.zeros((0, 3, 6, 6)), **kw)
    x = _distinct(6, 7, 3, 2, seed=8)
    lf, tf = getattr(F, name), getattr(TF, name)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ly, ty = lf(lx.permute(3, 2, 0, 1), **kw), tf(tx.permute(3, 2, 0, 1), **kw)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **TOL[np.float64])
    ly.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **TOL[np.float64])


@pytest.mark.parametrize(
    "name,kw",
    [
        ("max_pool2d", dict(kernel_size=3, stride=2, padding=1)),
        ("avg_pool2d", dict(kernel_size=3, stride=2, padding=1)),
        ("adaptive_max_pool2d", dict(output_size=3)),
        ("adaptive_avg_pool2d", dict(output_size=3)),
    ],
)
def test_double_backward_matches_torch(name, kw):
    x = _distinct(2, 2, 7, 6, seed=9)
    res = []
    for lib, fn in ((lucid, getattr(F, name)), (torch, getattr(TF, name))):
        xt = lib.tensor(x, requires_grad=True)
        y = fn(xt, **kw)
        (g,) = lib.autograd.grad([(y * y * y).sum()], [xt], create_graph=True)
        (gg,) = lib.autograd.grad([(g * g).sum()], [xt])
        res.append((g.detach().numpy(), gg.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_errors():
    x = lucid.randn(1, 2, 6, 6)
    with pytest.raises(ArgumentError, match="pad should be at most half of kernel size"):
        F.max_pool2d(x, 2, padding=2)
    with pytest.raises(ArgumentError, match="pad should be smaller than or equal to half"):
        F.avg_pool2d(x, 2, padding=2)
    with pytest.raises(ArgumentError, match="divisor must be not zero"):
        F.avg_pool2d(x, 2, divisor_override=0)
    with pytest.raises(ShapeError, match="Output size is too small"):
        F.max_pool2d(lucid.randn(1, 2, 2, 2), 3)
    with pytest.raises(ShapeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\)"):
        F.max_pool2d(lucid.randn(6, 6), 2)
    with pytest.raises(ArgumentError, match="kernel_size should be positive"):
        F.avg_pool2d(x, 0)
    with pytest.raises(ShapeError, match="non-zero size for non-batch dimensions"):
        F.adaptive_avg_pool2d(lucid.randn(1, 2, 0, 3), 2)


# -- layers -----------------------------------------------------------------------------

LAYERS = [
    ("MaxPool1d", (3,), dict(stride=2, padding=1, ceil_mode=True), (2, 3, 9)),
    ("MaxPool2d", (3,), dict(stride=2, padding=1, dilation=1), (2, 3, 9, 8)),
    ("MaxPool2d", (2,), dict(return_indices=True), (2, 3, 8, 8)),
    ("MaxPool3d", (2,), dict(), (1, 2, 4, 4, 6)),
    ("AvgPool1d", (3,), dict(stride=2, padding=1, count_include_pad=False), (2, 3, 9)),
    (
        "AvgPool2d",
        (3,),
        dict(stride=2, padding=1, ceil_mode=True, divisor_override=4),
        (2, 3, 9, 8),
    ),
    ("AvgPool3d", (2,), dict(padding=1), (1, 2, 4, 4, 6)),
    ("AdaptiveAvgPool1d", (4,), dict(), (2, 3, 9)),
    ("AdaptiveAvgPool2d", ((3, None),), dict(), (2, 3, 9, 8)),
    ("AdaptiveAvgPool3d", (2,), dict(), (1, 2, 4, 4, 6)),
    ("AdaptiveMaxPool1d", (4,), dict(return_indices=True), (2, 3, 9)),
    ("AdaptiveMaxPool2d", ((3, 2),), dict(), (2, 3, 9, 8)),
    ("AdaptiveMaxPool3d", (2,), dict(), (1, 2, 4, 4, 6)),
    ("LPPool1d", (2, 3), dict(stride=2), (2, 3, 9)),
    ("LPPool2d", (3, 2), dict(ceil_mode=True), (2, 3, 9, 8)),
    ("LPPool3d", (2, 2), dict(), (1, 2, 4, 4, 6)),
]


@pytest.mark.parametrize(
    "cls,args,kw,shape", LAYERS, ids=[f"{c[0]}-{i}" for i, c in enumerate(LAYERS)]
)
def test_layers_match_torch(cls, args, kw, shape):
    lm, tm = getattr(nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
    assert repr(lm) == repr(tm)
    x = _distinct(*shape, seed=10) + (3 if cls.startswith("LP") else 0)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ly, ty = lm(lx), tm(tx)
    if isinstance(ty, tuple):
        np.testing.assert_array_equal(ly[1].numpy(), ty[1].numpy())
        ly, ty = ly[0], ty[0]
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **TOL[np.float64])
    ly.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_unpool_layers(n):
    shape = (2, 3) + (6, 5, 4)[:n]
    pool = getattr(nn, f"MaxPool{n}d")(2, return_indices=True)
    unpool = getattr(nn, f"MaxUnpool{n}d")(2)
    assert repr(unpool) == repr(getattr(torch.nn, f"MaxUnpool{n}d")(2))
    x = lucid.tensor(_distinct(*shape, seed=11))
    v, i = pool(x)
    y = unpool(v, i, output_size=shape[2:])
    tv, ti = getattr(torch.nn, f"MaxPool{n}d")(2, return_indices=True)(torch.tensor(x.numpy()))
    ty = getattr(torch.nn, f"MaxUnpool{n}d")(2)(tv, ti, output_size=shape[2:])
    np.testing.assert_array_equal(y.numpy(), ty.numpy())
