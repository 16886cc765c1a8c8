"""F.unfold / F.fold (im2col / col2im) and the Unfold / Fold layers against PyTorch: values,
gradients, double backward, unbatched input, argument checks, repr."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.errors import ShapeError

TOL = {np.float64: dict(rtol=1e-12, atol=1e-12), np.float32: dict(rtol=1e-5, atol=1e-5)}


def _parity(lf, tf, x, dtype):
    x = x.astype(dtype)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ly, ty = lf(lx), tf(tx)
    assert tuple(ly.shape) == tuple(ty.shape) and ly.dtype == lx.dtype
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **TOL[dtype])
    g = np.random.default_rng(1).standard_normal(tuple(ty.shape)).astype(dtype)
    ly.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **TOL[dtype])


UNFOLD = [
    ((2, 3, 6, 7), dict(kernel_size=2)),
    ((2, 3, 6, 7), dict(kernel_size=(2, 3), dilation=(2, 1), padding=1, stride=(1, 2))),
    ((3, 5, 5), dict(kernel_size=3, padding=2, stride=2)),
    ((0, 2, 4, 4), dict(kernel_size=2)),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("shape,kw", UNFOLD, ids=[str(i) for i in range(len(UNFOLD))])
def test_unfold_matches_torch(shape, kw, dtype):
    x = np.random.default_rng(0).standard_normal(shape)
    _parity(lambda t: F.unfold(t, **kw), lambda t: TF.unfold(t, **kw), x, dtype)


FOLD = [
    ((2, 12, 16), dict(output_size=(5, 6), kernel_size=(2, 3), stride=1, padding=0, dilation=1)),
    ((2, 12, 16), dict(output_size=(5, 9), kernel_size=(2, 3), stride=(1, 2))),
    (
        (2, 8, 15),
        dict(output_size=(4, 5), kernel_size=2, padding=1, stride=(2, 1), dilation=(1, 2)),
    ),
    ((9, 16), dict(output_size=4, kernel_size=3, padding=1)),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("shape,kw", FOLD, ids=[str(i) for i in range(len(FOLD))])
def test_fold_matches_torch(shape, kw, dtype):
    x = np.random.default_rng(2).standard_normal(shape)
    _parity(lambda t: F.fold(t, **kw), lambda t: TF.fold(t, **kw), x, dtype)


def test_fold_of_unfold_counts_overlaps():
    """fold(unfold(x)) multiplies each pixel by the number of blocks covering it."""
    x = lucid.ones(1, 1, 4, 4)
    y = F.fold(F.unfold(x, 2), (4, 4), 2).numpy()[0, 0]
    np.testing.assert_array_equal(y, [[1, 2, 2, 1], [2, 4, 4, 2], [2, 4, 4, 2], [1, 2, 2, 1]])


def test_unfold_is_a_copy():
    """A 1x1 kernel's columns are the input's own layout: unfold still returns new memory."""
    x = lucid.randn(1, 2, 3, 3)
    y = F.unfold(x, 1)
    y.mul_(0.0)
    assert np.all(x.numpy() != 0)


def test_non_contiguous_input():
    x = np.random.default_rng(3).standard_normal((5, 6, 3, 2))
    _parity(
        lambda t: F.unfold(t.permute(3, 2, 1, 0), 2, padding=1),
        lambda t: TF.unfold(t.permute(3, 2, 1, 0), 2, padding=1),
        x,
        np.float64,
    )


def test_double_backward():
    x = np.random.default_rng(4).standard_normal((1, 2, 4, 5))
    res = []
    for lib, unfold, fold in ((lucid, F.unfold, F.fold), (torch, TF.unfold, TF.fold)):
        xt = lib.tensor(x, requires_grad=True)
        y = fold(unfold(xt, 2, padding=1) ** 2, (4, 5), 2, padding=1)
        (g,) = lib.autograd.grad([(y**2).sum()], [xt], create_graph=True)
        (gg,) = lib.autograd.grad([g.sum()], [xt])
        res.append((g.detach().numpy(), gg.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_errors():
    with pytest.raises(ShapeError, match="Expected 3D .unbatched. or 4D .batched. input"):
        F.unfold(lucid.randn(4, 4), 2)
    with pytest.raises(ShapeError, match="components must be at least one"):
        F.unfold(lucid.randn(1, 1, 2, 2), 3)
    with pytest.raises(ShapeError, match="divisible by the product of kernel_size"):
        F.fold(lucid.randn(1, 5, 4), (3, 3), 2)
    with pytest.raises(
        ShapeError,
        match="match the calculated number of sliding blocks "
        r"2 \* 2 = 4, but got input.size\(2\)=5",
    ):
        F.fold(lucid.randn(1, 4, 5), (3, 3), 2)
    with pytest.raises(ShapeError, match="Expected 2D .unbatched. or 3D .batched. input"):
        F.fold(lucid.randn(4), (3, 3), 2)


def test_layers():
    for lm, tm in (
        (
            nn.Unfold(2, dilation=2, padding=1, stride=2),
            torch.nn.Unfold(2, dilation=2, padding=1, stride=2),
        ),
        (nn.Fold((5, 4), 2, padding=1), torch.nn.Fold((5, 4), 2, padding=1)),
    ):
        assert repr(lm) == repr(tm)
    x = np.random.default_rng(5).standard_normal((2, 3, 5, 4))
    _parity(
        nn.Unfold(2, dilation=2, padding=1, stride=2),
        torch.nn.Unfold(2, dilation=2, padding=1, stride=2),
        x,
        np.float64,
    )
    c = np.random.default_rng(6).standard_normal((2, 8, 30))
    _parity(nn.Fold((5, 4), 2, padding=1), torch.nn.Fold((5, 4), 2, padding=1), c, np.float64)
