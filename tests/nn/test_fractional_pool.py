"""Fractional max pooling (2d/3d) against PyTorch for the same ``_random_samples``: values,
indices and gradients exactly as torch's in float32/float64 (and the half types), batched
and unbatched, kernel/output combinations, output_ratio, NaN and ties, samples with a
larger batch, non-contiguous and empty-batch input, gradcheck and double backward,
every argument error, and the layers (buffer, state_dict, fresh windows per call)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.autograd.gradcheck import gradcheck, gradgradcheck
from lucid.errors import ArgumentError, ArgumentTypeError, DTypeError, ShapeError

TOL = {"float64": dict(rtol=1e-12, atol=1e-12), "float32": dict(rtol=1e-6, atol=1e-6)}


def _run(lib, fn, x, u, dtype, kernel, grad=True, g=None, **kw):
    """``(values, indices, input grad)`` of ``fn`` in ``lib`` (lucid or torch)."""
    t = lib.tensor(x.astype(np.float64)).to(getattr(lib, dtype))
    if grad:
        t.requires_grad_()
    s = None if u is None else lib.tensor(u.astype(np.float64)).to(getattr(lib, dtype))
    v, i = fn(t, kernel, return_indices=True, _random_samples=s, **kw)
    gx = None
    if grad and v.numel():
        v.backward(lib.tensor(g).to(getattr(lib, dtype)))
        gx = t.grad.to(lib.float64).numpy()
    return v.detach().to(lib.float64).numpy(), i.numpy(), gx


def _parity(n, x, u, kernel, dtype="float64", **kw):
    name = f"fractional_max_pool{n}d"
    want = _run(torch, getattr(TF, name), x, u, dtype, kernel, grad=False, **kw)
    g = np.random.default_rng(3).standard_normal(want[0].shape)
    lv, li, lg = _run(lucid, getattr(F, name), x, u, dtype, kernel, g=g, **kw)
    tv, ti, tg = _run(torch, getattr(TF, name), x, u, dtype, kernel, g=g, **kw)
    np.testing.assert_array_equal(lv, tv)  # a maximum is an element: exact
    np.testing.assert_array_equal(li, ti)
    if tg is not None:
        np.testing.assert_allclose(lg, tg, **TOL.get(dtype, dict(rtol=1e-2, atol=1e-2)))
    return lv, li


CASES_2D = [
    ((2, 3, 11, 9), (3, 2), dict(output_size=(5, 4))),
    ((1, 2, 10, 10), 2, dict(output_size=5)),  # exact halving
    ((2, 2, 9, 7), 3, dict(output_size=(7, 5))),  # heavy overlap: O + K - 1 = L
    ((2, 1, 8, 12), (2, 3), dict(output_size=(1, 1))),  # one window: the end
    ((1, 3, 13, 6), 2, dict(output_size=(2, 5))),
    ((2, 2, 16, 15), 3, dict(output_ratio=(0.5, 0.5))),
    ((2, 2, 16, 15), (2, 3), dict(output_ratio=(0.7, 0.45))),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,kernel,kw", CASES_2D)
def test_2d_matches_torch(shape, kernel, kw, dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape)
    u = rng.random((shape[0], shape[1], 2))
    _parity(2, x, u, kernel, dtype, **kw)


CASES_3D = [
    ((2, 2, 7, 8, 9), 2, dict(output_size=(3, 4, 5))),
    ((1, 3, 6, 6, 6), (2, 3, 2), dict(output_size=(4, 3, 4))),
    ((1, 2, 9, 8, 10), 2, dict(output_ratio=0.5)),
    ((2, 1, 5, 6, 7), 3, dict(output_size=1)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,kernel,kw", CASES_3D)
def test_3d_matches_torch(shape, kernel, kw, dtype):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape)
    u = rng.random((shape[0], shape[1], 3))
    _parity(3, x, u, kernel, dtype, **kw)


@pytest.mark.parametrize("n", [2, 3])
def test_unbatched_matches_torch(n):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3,) + (9,) * n)
    u = rng.random((1, 3, n))
    lv, _ = _parity(n, x, u, 2, "float32", output_size=4)
    assert lv.shape == (3,) + (4,) * n


def test_samples_in_float32_arithmetic():
    """The starts are computed in the input's dtype: samples where float32 and float64
    rounding of ``(o + u) * alpha`` fall on different sides of an integer."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 64, 40, 40))
    # alpha = 36 / 12 = 3: (o + u) * 3 near an integer for u near k/3
    u = (np.arange(1, 129).reshape(1, 64, 2) / 3.0 % 1.0) + rng.uniform(-1e-7, 1e-7, (1, 64, 2))
    u = np.clip(u, 0, 1 - 1e-7)
    for dt in ("float32", "float64"):
        _parity(2, x, u, 4, dt, output_size=13)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_types_match_torch(dtype):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 23, 19))
    u = rng.random((2, 3, 2))
    _parity(2, x, u, 3, dtype, output_size=(9, 7))


def test_nan_and_ties_as_torch():
    """PyTorch's scan "greater, or NaN": the first of equal maxima, the last NaN."""
    rng = np.random.default_rng(6)
    x = rng.integers(-1, 2, size=(2, 3, 12, 11)).astype(np.float64)
    x[rng.random(x.shape) < 0.1] = np.nan
    x[rng.random(x.shape) < 0.1] = -np.inf
    u = rng.random((2, 3, 2))
    for dt in ("float32", "float64"):
        _parity(2, x, u, 3, dt, output_size=(6, 5))
    x3 = rng.integers(0, 2, size=(1, 2, 6, 7, 8)).astype(np.float64)
    x3[0, 0, :3] = np.nan
    _parity(3, x3, rng.random((1, 2, 3)), 2, "float64", output_size=(3, 4, 4))


def test_samples_with_a_larger_batch_use_the_first_rows():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 10, 10))
    u = rng.random((5, 3, 2))
    _parity(2, x, u, 2, "float64", output_size=6)
    lv = F.fractional_max_pool2d(
        lucid.tensor(x), 2, output_size=6, _random_samples=lucid.tensor(u[:2])
    )
    lw = F.fractional_max_pool2d(lucid.tensor(x), 2, output_size=6, _random_samples=lucid.tensor(u))
    np.testing.assert_array_equal(lv.numpy(), lw.numpy())


def test_window_layout():
    """The windows start where the formula says (samples column 0 is the width in 2-d),
    and the first and last windows touch the input's ends."""
    x = np.arange(1 * 1 * 10 * 20, dtype=np.float64).reshape(1, 1, 10, 20)
    # increasing values: each window's maximum is its bottom-right element
    u = np.array([[[0.3, 0.8]]])  # (w, h)
    v, i = F.fractional_max_pool2d(
        lucid.tensor(x), 2, output_size=(4, 6), return_indices=True, _random_samples=lucid.tensor(u)
    )

    def starts(s, length, out, k):
        a = (length - k) / (out - 1)
        return [int((o + s) * a) - int(s * a) for o in range(out - 1)] + [length - k]

    rows, cols = starts(0.8, 10, 4, 2), starts(0.3, 20, 6, 2)
    want = np.array([[(r + 1) * 20 + c + 1 for c in cols] for r in rows])
    np.testing.assert_array_equal(i.numpy()[0, 0], want)
    np.testing.assert_array_equal(v.numpy()[0, 0], want.astype(np.float64))
    assert rows[0] == 0 and cols[0] == 0 and rows[-1] == 8 and cols[-1] == 18


def test_non_contiguous_input():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 3, 9, 11))
    u = rng.random((2, 3, 2))
    lx = lucid.tensor(x).transpose(2, 3)
    tx = torch.tensor(x).transpose(2, 3)
    lv, li = F.fractional_max_pool2d(
        lx, 2, output_size=5, return_indices=True, _random_samples=lucid.tensor(u)
    )
    tv, ti = TF.fractional_max_pool2d(
        tx, 2, output_size=5, return_indices=True, _random_samples=torch.tensor(u)
    )
    np.testing.assert_array_equal(lv.numpy(), tv.numpy())
    np.testing.assert_array_equal(li.numpy(), ti.numpy())


def test_empty_batch_and_empty_output():
    x = lucid.zeros((0, 3, 8, 8), requires_grad=True)
    v, i = F.fractional_max_pool2d(x, 2, output_size=4, return_indices=True)
    assert tuple(v.shape) == (0, 3, 4, 4) and tuple(i.shape) == (0, 3, 4, 4)
    v.sum().backward()
    assert tuple(x.grad.shape) == (0, 3, 8, 8)
    y = F.fractional_max_pool2d(lucid.randn(2, 3, 8, 8), 2, output_ratio=0.01)
    assert tuple(y.shape) == (2, 3, 0, 0)


def test_overlapping_windows_accumulate_gradient():
    """One element the maximum of several windows gets the sum of their gradients."""
    x = np.zeros((1, 1, 5, 5))
    x[0, 0, 2, 2] = 10.0
    lx = lucid.tensor(x, requires_grad=True)
    v = F.fractional_max_pool2d(
        lx, 3, output_size=3, _random_samples=lucid.tensor(np.full((1, 1, 2), 0.5))
    )
    assert np.all(v.detach().numpy() == 10.0)  # windows start 0, 1, 2: all hold (2, 2)
    v.sum().backward()
    assert lx.grad.numpy()[0, 0, 2, 2] == 9.0 and lx.grad.numpy().sum() == 9.0


@pytest.mark.parametrize("n", [2, 3])
def test_gradcheck_and_double_backward(n):
    rng = np.random.default_rng(9)
    perm = rng.permutation(2 * 2 * 7**n).reshape((2, 2) + (7,) * n) / 10.0  # no ties
    x = lucid.tensor(perm, requires_grad=True)
    u = lucid.tensor(rng.random((2, 2, n)))
    fn = getattr(F, f"fractional_max_pool{n}d")

    def f(t):
        return fn(t, 2, output_size=3, _random_samples=u)

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_drawn_samples_follow_the_generator():
    x = lucid.randn(2, 3, 16, 16)
    lucid.manual_seed(11)
    a = F.fractional_max_pool2d(x, 2, output_size=7)
    lucid.manual_seed(11)
    b = F.fractional_max_pool2d(x, 2, output_size=7)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    lucid.manual_seed(11)
    u = lucid.rand(2, 3, 2)
    c = F.fractional_max_pool2d(x, 2, output_size=7, _random_samples=u)
    np.testing.assert_array_equal(a.numpy(), c.numpy())


def test_samples_get_no_gradient():
    x = lucid.randn(1, 2, 8, 8, requires_grad=True)
    u = lucid.rand(1, 2, 2).requires_grad_()
    F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=u).sum().backward()
    assert u.grad is None and x.grad is not None


X = lucid.randn(2, 3, 11, 9)


@pytest.mark.parametrize(
    "kw,err,match",
    [
        (dict(kernel_size=3, output_size=(10, 8)), ShapeError, "pool height 3 too large"),
        (dict(kernel_size=(2, 9), output_size=(4, 2)), ShapeError, "pool width 9 too large"),
        (dict(kernel_size=3), ArgumentError, "either an output_size or an output_ratio"),
        (dict(kernel_size=0, output_size=4), ArgumentError, "kernel_size should be positive"),
        (dict(kernel_size=(3, 2, 1), output_size=4), ArgumentError, "kernel_size"),
        (dict(kernel_size=3, output_size=(4, 4, 4)), ArgumentError, "output_size"),
        (dict(kernel_size=3, output_size=-1), ArgumentError, "output_size should be non-neg"),
        (dict(kernel_size=3, output_ratio=(0.5, 0.5, 0.5)), ArgumentError, "output_ratio"),
        (dict(kernel_size=3, output_ratio="half"), ArgumentError, "output_ratio"),
        (dict(kernel_size=3, output_ratio=1.5), ShapeError, "too large"),
        (
            dict(kernel_size=3, output_size=4, _random_samples=lucid.rand(2, 3, 3)),
            ShapeError,
            r"size\(2\) to be 2",
        ),
        (
            dict(kernel_size=3, output_size=4, _random_samples=lucid.rand(2, 4, 2)),
            ShapeError,
            r"size\(1\)",
        ),
        (
            dict(kernel_size=3, output_size=4, _random_samples=lucid.rand(1, 3, 2)),
            ShapeError,
            r"size\(0\)",
        ),
        (
            dict(kernel_size=3, output_size=4, _random_samples=lucid.rand(6, 2)),
            ShapeError,
            "3 dimensions",
        ),
        (
            dict(
                kernel_size=3,
                output_size=4,
                _random_samples=lucid.rand(2, 3, 2, dtype=lucid.float64),
            ),
            DTypeError,
            "dtype",
        ),
        (
            dict(kernel_size=3, output_size=4, _random_samples=[[0.5, 0.5]]),
            ArgumentTypeError,
            "Tensor",
        ),
    ],
)
def test_2d_errors(kw, err, match):
    with pytest.raises(err, match=match):
        F.fractional_max_pool2d(X, **kw)


def test_input_errors():
    with pytest.raises(ShapeError, match="Expected 3D .*or 4D"):
        F.fractional_max_pool2d(lucid.randn(11, 9), 3, output_size=4)
    with pytest.raises(ShapeError, match="non-zero size"):
        F.fractional_max_pool2d(lucid.randn(2, 0, 11, 9), 3, output_size=4)
    with pytest.raises(DTypeError, match="floating"):
        F.fractional_max_pool2d(lucid.ones((2, 3, 11, 9), dtype=lucid.int32), 3, output_size=4)
    with pytest.raises(ShapeError, match="Expected 4D .*or 5D"):
        F.fractional_max_pool3d(lucid.randn(5, 5, 5), 2, output_size=2)


def test_3d_bound_is_strict_as_torch():
    """PyTorch's 3-d check is ``O + K - 1 < L`` (2-d: ``<=``): both error together."""
    x = np.random.default_rng(0).standard_normal((1, 1, 5, 5, 5))
    with pytest.raises(RuntimeError):
        TF.fractional_max_pool3d(torch.tensor(x), 2, output_size=4)
    with pytest.raises(ShapeError, match="pool time 2 too large"):
        F.fractional_max_pool3d(lucid.tensor(x), 2, output_size=4)
    with pytest.raises(ShapeError, match="pool width 2 too large"):
        F.fractional_max_pool3d(lucid.tensor(x), 2, output_size=(3, 3, 4))
    assert tuple(F.fractional_max_pool3d(lucid.tensor(x), 2, output_size=3).shape) == (
        1,
        1,
        3,
        3,
        3,
    )


# -- layers --------------------------------------------------------------------------------


def test_layers_match_torch_with_fixed_samples():
    rng = np.random.default_rng(12)
    for n, shape in ((2, (2, 3, 12, 10)), (3, (2, 2, 8, 9, 7))):
        x = rng.standard_normal(shape)
        u = rng.random((shape[0], shape[1], n))
        lm = getattr(nn, f"FractionalMaxPool{n}d")(
            2, output_ratio=0.5, return_indices=True, _random_samples=lucid.tensor(u)
        )
        tm = getattr(torch.nn, f"FractionalMaxPool{n}d")(
            2, output_ratio=0.5, return_indices=True, _random_samples=torch.tensor(u)
        )
        (lv, li), (tv, ti) = lm(lucid.tensor(x)), tm(torch.tensor(x))
        np.testing.assert_array_equal(lv.numpy(), tv.numpy())
        np.testing.assert_array_equal(li.numpy(), ti.numpy())
        assert list(lm.state_dict()) == list(tm.state_dict()) == ["_random_samples"]
        assert lm.kernel_size == tm.kernel_size and lm.output_ratio == tm.output_ratio


def test_layer_without_samples_draws_each_call():
    m = nn.FractionalMaxPool2d(3, output_size=(6, 5))
    assert list(m.state_dict()) == [] and m.output_size == (6, 5) and m.output_ratio is None
    x = lucid.randn(4, 8, 14, 12)
    a, b = m(x), m(x)
    assert tuple(a.shape) == (4, 8, 6, 5)
    assert not np.array_equal(a.numpy(), b.numpy())  # 64 planes' windows drawn anew
    assert repr(m) == "FractionalMaxPool2d()"


@pytest.mark.parametrize(
    "kw,match",
    [
        (dict(), "either an output size, or a pooling ratio"),
        (dict(output_size=2, output_ratio=0.5), "only one of output_size and output_ratio"),
        (dict(output_ratio=1.5), "between 0 and 1"),
        (dict(output_ratio=(0.5, 0.0)), "between 0 and 1"),
    ],
)
def test_layer_errors(kw, match):
    with pytest.raises(ArgumentError, match=match):
        nn.FractionalMaxPool2d(2, **kw)
