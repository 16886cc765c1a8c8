"""Dropout: statistics of the mask (fraction zeroed, 1/(1-p) scaling, whole channels),
alpha dropout's moments, reproducibility under lucid.manual_seed, identity in eval, the
gradient (the saved mask, eager and graph mode), in-place forms, modules and errors."""

import warnings

import numpy as np
import pytest
import torch.nn as tnn

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.errors import ArgumentError, AutogradError, ShapeError

_ALPHA = 1.7580993408473766


def _frac_ok(zeroed, n, p):
    """The fraction zeroed lies within 6 binomial standard deviations of ``p``."""
    return abs(zeroed - p) <= 6 * np.sqrt(p * (1 - p) / n) + 1e-12


@pytest.mark.parametrize("dtype", [lucid.float32, lucid.float64])
@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_fraction_and_scale(p, dtype):
    lucid.manual_seed(0)
    x = lucid.ones(200, 100, dtype=dtype)
    y = F.dropout(x, p).numpy()
    assert y.dtype == x.numpy().dtype
    assert _frac_ok((y == 0).mean(), y.size, p)
    kept = y[y != 0]
    np.testing.assert_allclose(kept, 1 / (1 - p), rtol=1e-6)


def test_dropout_reproducible_under_manual_seed():
    x = lucid.randn(50, 20)
    lucid.manual_seed(123)
    a = F.dropout(x, 0.4).numpy()
    b = F.dropout(x, 0.4).numpy()
    lucid.manual_seed(123)
    c = F.dropout(x, 0.4).numpy()
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)
    g = lucid.Generator().manual_seed(5)
    assert (lucid.ops.nn.dropout.dropout_op(x, 0.4, False, x.shape, g).numpy() != 0).any()


def test_identity_when_not_training_or_p_zero_or_empty():
    x = lucid.randn(4, 5, requires_grad=True)
    x4 = lucid.randn(2, 4, 5, 3)
    for fn in (F.dropout, F.alpha_dropout, F.feature_alpha_dropout, F.dropout2d, F.dropout3d):
        assert fn(x4, 0.5, training=False) is x4
    assert F.dropout1d(x, 0.5, training=False) is x
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    assert F.alpha_dropout(x, 0.5) is x  # training=False by default, as torch
    e = lucid.randn(0, 3)
    assert F.dropout(e, 0.5) is e


def test_p_one_gives_zeros():
    x = lucid.randn(3, 4, requires_grad=True)
    for fn in (F.dropout, lambda x, p: F.alpha_dropout(x, p, True)):
        y = fn(x, 1.0)
        assert not y.detach().numpy().any()
        y.sum().backward()
        assert not x.grad.numpy().any()
        x.grad = None


def test_gradient_is_the_saved_mask_in_eager_and_graph_mode():
    lucid.manual_seed(1)
    x = lucid.randn(30, 7, dtype=lucid.float64, requires_grad=True)
    y = F.dropout(x, 0.3)
    mask = y.detach().numpy() / x.detach().numpy()
    g = lucid.randn(30, 7, dtype=lucid.float64)
    (ge,) = lucid.autograd.grad(y, x, g, retain_graph=True)
    (gg,) = lucid.autograd.grad(y, x, g, create_graph=True)
    np.testing.assert_allclose(ge.numpy(), g.numpy() * mask, rtol=1e-12)
    np.testing.assert_allclose(gg.detach().numpy(), g.numpy() * mask, rtol=1e-12)
    assert y.grad_fn.name() == "DropoutBackward"


@pytest.mark.parametrize(
    "fn,shape,keep",
    [
        (F.dropout1d, (8, 6, 5), 2),
        (F.dropout1d, (6, 5), 1),
        (F.dropout2d, (8, 6, 3, 3), 2),
        (F.dropout3d, (4, 6, 2, 2, 2), 2),
        (F.dropout3d, (6, 2, 2, 2), 1),
    ],
)
def test_channel_dropout_zeroes_whole_channels(fn, shape, keep):
    lucid.manual_seed(2)
    y = fn(lucid.ones(*shape, dtype=lucid.float64), 0.5).numpy()
    per_channel = y.reshape(int(np.prod(shape[:keep])), -1)
    assert np.all(per_channel.min(1) == per_channel.max(1))  # one value per channel
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert 0 < (per_channel[:, 0] == 0).sum() < per_channel.shape[0]


def test_dropout2d_3d_input_is_channelwise_1d_with_a_warning():
    lucid.manual_seed(3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = F.dropout2d(lucid.ones(8, 6, 5), 0.5).numpy()
    assert any("3D input" in str(x.message) for x in w)
    assert np.all(y.min(-1) == y.max(-1))


@pytest.mark.parametrize("p", [0.2, 0.5])
def test_alpha_dropout_keeps_zero_mean_unit_variance(p):
    lucid.manual_seed(4)
    x = lucid.randn(400_000, dtype=lucid.float64)
    y = F.alpha_dropout(x, p, training=True).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.std() - 1) < 0.01
    a = ((_ALPHA**2 * p + 1) * (1 - p)) ** -0.5
    dropped_value = a * _ALPHA * (p - 1)
    dropped = np.isclose(y, dropped_value, rtol=0, atol=1e-12)
    assert _frac_ok(dropped.mean(), y.size, p)
    kept = ~dropped
    np.testing.assert_allclose(
        y[kept], a * x.numpy()[kept] + a * _ALPHA * p, rtol=1e-10, atol=1e-12
    )


def test_feature_alpha_dropout_is_channelwise():
    lucid.manual_seed(5)
    x = lucid.zeros(50, 8, 4, dtype=lucid.float64)
    y = F.feature_alpha_dropout(x, 0.5, training=True).numpy()
    assert np.all(y.min(-1) == y.max(-1))
    assert len(np.unique(y)) == 2


def test_inplace():
    lucid.manual_seed(6)
    x = lucid.ones(10, 10)
    y = F.dropout(x, 0.5, inplace=True)
    assert y is x and (x.numpy() == 0).any() and set(np.unique(x.numpy())) <= {0.0, 2.0}
    leaf = lucid.ones(3, requires_grad=True)
    with pytest.raises(AutogradError, match="leaf"):
        F.dropout(leaf, 0.5, inplace=True)
    base = lucid.ones(40, dtype=lucid.float64, requires_grad=True)
    h = base * 3
    F.dropout(h, 0.5, inplace=True)
    h.sum().backward()
    np.testing.assert_allclose(base.grad.numpy(), (h.detach().numpy() != 0) * 6.0)


def test_half_input_keeps_its_dtype():
    y = F.dropout(lucid.ones(100, dtype=lucid.float16), 0.5)
    assert y.dtype is lucid.float16 and set(np.unique(y.numpy())) <= {0.0, 2.0}


@pytest.mark.parametrize(
    "cls", ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]
)
def test_modules_train_and_eval(cls):
    lm, tm = getattr(nn, cls)(0.3), getattr(tnn, cls)(0.3)
    assert repr(lm) == repr(tm)
    x = {"Dropout3d": lucid.randn(4, 6, 3, 3, 2), "Dropout2d": lucid.randn(4, 6, 5, 2)}.get(
        cls, lucid.randn(4, 6, 5)
    )
    lucid.manual_seed(7)
    y1 = lm(x).numpy()
    lucid.manual_seed(7)
    np.testing.assert_array_equal(lm(x).numpy(), y1)
    assert not np.array_equal(y1, x.numpy())
    lm.eval()
    assert lm(x) is x


def test_errors():
    for bad in (-0.1, 1.5):
        with pytest.raises(ArgumentError, match="between 0 and 1"):
            F.dropout(lucid.ones(3), bad)
        with pytest.raises(ValueError, match="between 0 and 1"):
            nn.Dropout(bad)
    with pytest.raises(ShapeError, match="2D or 3D input"):
        F.dropout1d(lucid.ones(2, 3, 4, 5), 0.5)
    with pytest.raises(ShapeError, match="at least 2 dimensions"):
        F.feature_alpha_dropout(lucid.ones(3), 0.5, True)
    with pytest.raises(TypeError):
        F.dropout([1.0, 2.0], 0.5)


def test_non_contiguous_input():
    lucid.manual_seed(8)
    base = lucid.randn(6, 40, dtype=lucid.float64, requires_grad=True)
    x = base.transpose(0, 1)
    y = F.dropout(x, 0.5)
    yn, xn = y.detach().numpy(), x.detach().numpy()
    kept = yn != 0
    np.testing.assert_allclose(yn[kept], 2 * xn[kept], rtol=1e-12)
    y.sum().backward()
    np.testing.assert_array_equal(base.grad.numpy(), 2.0 * kept.T)
