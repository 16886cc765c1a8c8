"""Registry-suite samples: pooling ops (max, average, adaptive, unpool)."""

import numpy as np
import torch
import torch.nn.functional as TF

import lucid
import lucid.nn.functional as F

from ._sample import Const, Sample, rnd

# distinct values: no ties in a window, so the gradient of the max is defined everywhere
_X = np.random.default_rng(4).permutation(2 * 3 * 7 * 6).reshape(2, 3, 7, 6) / 50.0 - 2.5
_V, _I = (t.numpy() for t in TF.max_pool2d(torch.tensor(_X), 2, return_indices=True))

SAMPLES = [
    Sample(
        "max_pool",
        lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True),
        (_X,),
        torch_fn=lambda x: TF.max_pool2d(x, 3, 2, 1, ceil_mode=True),
        name="max_pool2d[overlapping, padding, ceil_mode]",
    ),
    Sample(
        "max_pool",
        lambda x: F.max_pool2d(x, (2, 3), dilation=(2, 1)),
        (_X,),
        torch_fn=lambda x: TF.max_pool2d(x, (2, 3), dilation=(2, 1)),
        name="max_pool2d[dilation]",
    ),
    Sample(
        "max_pool",
        lambda x: F.max_pool1d(x, 2, return_indices=True)[0],
        (_X[0, :, 0],),
        torch_fn=lambda x: TF.max_pool1d(x, 2, return_indices=True)[0],
        name="max_pool1d[unbatched]",
    ),
    Sample(
        "max_pool",
        lambda x: F.max_pool3d(x, 2, 1),
        (_X[:, :, :4].reshape(2, 3, 4, 3, 2),),
        torch_fn=lambda x: TF.max_pool3d(x, 2, 1),
        name="max_pool3d",
    ),
    Sample(
        "max_pool_indices",
        lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True)[1],
        (_X,),
        torch_fn=lambda x: TF.max_pool2d(x, 3, 2, 1, return_indices=True)[1],
        grad=False,
    ),
    Sample(
        "adaptive_max_pool",
        lambda x: F.adaptive_max_pool2d(x, (3, 4)),
        (_X,),
        torch_fn=lambda x: TF.adaptive_max_pool2d(x, (3, 4)),
    ),
    Sample(
        "max_unpool",
        lambda v, i: F.max_unpool2d(v, i, 2, output_size=(7, 6)),
        (_V, Const(_I)),
        torch_fn=lambda v, i: TF.max_unpool2d(v, i, 2, output_size=(7, 6)),
    ),
    Sample(
        "avg_pool",
        lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        (rnd(2, 2, 6, 7),),
        torch_fn=lambda x: TF.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        name="avg_pool2d[ceil_mode, count_include_pad=False]",
    ),
    Sample(
        "avg_pool",
        lambda x: F.avg_pool2d(x, 2, 1, 1, divisor_override=3),
        (rnd(1, 2, 4, 5),),
        torch_fn=lambda x: TF.avg_pool2d(x, 2, 1, 1, divisor_override=3),
        name="avg_pool2d[divisor_override]",
    ),
    Sample(
        "avg_pool",
        lambda x: F.avg_pool1d(x, 3, 2, 1),
        (rnd(2, 3, 8),),
        torch_fn=lambda x: TF.avg_pool1d(x, 3, 2, 1),
        name="avg_pool1d",
    ),
    Sample(
        "avg_pool",
        lambda x: F.avg_pool3d(x, 2, 2, ceil_mode=True),
        (rnd(1, 2, 3, 4, 5),),
        torch_fn=lambda x: TF.avg_pool3d(x, 2, 2, ceil_mode=True),
        name="avg_pool3d",
    ),
    Sample(
        "adaptive_avg_pool",
        lambda x: F.adaptive_avg_pool2d(x, (3, 4)),
        (rnd(2, 3, 7, 6),),
        torch_fn=lambda x: TF.adaptive_avg_pool2d(x, (3, 4)),
    ),
    Sample(
        "adaptive_avg_pool",
        lambda x: F.adaptive_avg_pool3d(x, 1),
        (rnd(2, 3, 3, 4, 2),),
        torch_fn=lambda x: TF.adaptive_avg_pool3d(x, 1),
        name="adaptive_avg_pool3d[global]",
    ),
]

# fractional max pooling: fixed samples, in the input's dtype as PyTorch requires
_U2 = np.random.default_rng(5).random((2, 3, 2))
_U3 = np.random.default_rng(6).random((2, 3, 3))
_X3 = _X[:, :, :6].reshape(2, 3, 6, 6, 1).repeat(5, 4) + np.arange(5) / 1000.0


def _fractional(lib, fn, x, u, kernel, size):
    return fn(x, kernel, output_size=size, _random_samples=lib.tensor(u).to(x.dtype))


SAMPLES += [
    Sample(
        "fractional_max_pool",
        lambda x: _fractional(lucid, F.fractional_max_pool2d, x, _U2, 2, (4, 3)),
        (_X,),
        torch_fn=lambda x: _fractional(torch, TF.fractional_max_pool2d, x, _U2, 2, (4, 3)),
        name="fractional_max_pool2d",
    ),
    Sample(
        "fractional_max_pool",
        lambda x: _fractional(lucid, F.fractional_max_pool3d, x, _U3, (2, 3, 2), (3, 2, 3)),
        (_X3,),
        torch_fn=lambda x: _fractional(
            torch, TF.fractional_max_pool3d, x, _U3, (2, 3, 2), (3, 2, 3)
        ),
        name="fractional_max_pool3d",
    ),
]
