"""interpolate (and upsample layers), grid_sample, affine_grid and the pixel/channel
shuffles: parity with PyTorch (values and gradients), options, edge cases, errors."""

import warnings

import numpy as np
import pytest
import torch
import torch.nn as tnn
import torch.nn.functional as TF

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.errors import ArgumentError, DTypeError, ShapeError

TOL = {np.float64: dict(rtol=1e-10, atol=1e-12), np.float32: dict(rtol=1e-4, atol=1e-5)}


def _pair(a, grad=True):
    return lucid.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad)


def _close(l, t, dtype=np.float64):
    np.testing.assert_allclose(
        np.asarray(l.detach().numpy(), dtype=np.float64),
        np.asarray(t.detach().numpy(), dtype=np.float64),
        **TOL[dtype],
    )


def _check(fl, ft, arrays, dtype=np.float64, seed=1):
    """Forward and the gradient of every input of ``fl`` (Lucid) and ``ft`` (torch)."""
    pairs = [_pair(a.astype(dtype)) for a in arrays]
    lo, to = fl(*[p[0] for p in pairs]), ft(*[p[1] for p in pairs])
    assert tuple(lo.shape) == tuple(to.shape) and lo.dtype.name == str(to.dtype)[6:]
    _close(lo, to, dtype)
    g = np.random.default_rng(seed).standard_normal(tuple(to.shape)).astype(dtype)
    lo.backward(lucid.tensor(g))
    to.backward(torch.tensor(g))
    for l, t in pairs:
        _close(l.grad, t.grad, dtype)


def _rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# == interpolate ===========================================================================

_SIZES = [
    dict(size=9),
    dict(size=3),
    dict(size=8),
    dict(size=5),
    dict(size=1),
    dict(scale_factor=2.0),
    dict(scale_factor=1.7),
    dict(scale_factor=0.6),
    dict(scale_factor=0.6, recompute_scale_factor=True),
    dict(scale_factor=2.3, recompute_scale_factor=True),
    dict(scale_factor=1.3),
]
_MODES = {
    1: ["nearest", "nearest-exact", "linear", "area"],
    2: ["nearest", "nearest-exact", "bilinear", "bicubic", "area"],
    3: ["nearest", "nearest-exact", "trilinear", "area"],
}
INTERP = [
    (d, m, ac, kw)
    for d in (1, 2, 3)
    for m in _MODES[d]
    for ac in ((False, True) if m in ("linear", "bilinear", "bicubic", "trilinear") else (None,))
    for kw in _SIZES
]


@pytest.mark.parametrize(
    "d,mode,ac,kw", INTERP, ids=[f"{d}d-{m}-ac{a}-{k}" for d, m, a, k in INTERP]
)
def test_interpolate_matches_torch(d, mode, ac, kw):
    if d == 3 and mode == "nearest" and kw == dict(scale_factor=1.3):
        pytest.skip(
            "torch's 3-d nearest backward is not its forward's adjoint when an axis "
            "keeps its size under a scale factor (the last, 3 * 1.3 -> 3)"
        )
    kw = dict(kw)
    if "size" in kw and d > 1:  # a different size per axis
        kw["size"] = tuple(kw["size"] + i for i in range(d))
    shape = (2, 3) + (5, 4, 3)[:d]
    _check(
        lambda x: F.interpolate(x, mode=mode, align_corners=ac, **kw),
        lambda x: TF.interpolate(x, mode=mode, align_corners=ac, **kw),
        [_rnd(*shape)],
    )


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic", "area"])
def test_interpolate_float32_and_per_axis_scales(mode):
    kw = dict(scale_factor=(1.5, 0.7))
    _check(
        lambda x: F.interpolate(x, mode=mode, **kw),
        lambda x: TF.interpolate(x, mode=mode, **kw),
        [_rnd(2, 3, 6, 5)],
        np.float32,
    )


LONG = [("linear", (2, 2, 150), 301, ac) for ac in (False, True)] + [
    ("linear", (2, 2, 300), 77, False),
    ("nearest", (2, 2, 200), 77, None),
    ("nearest-exact", (2, 2, 140), 333, None),
    ("bilinear", (1, 2, 130, 5), (260, 9), True),
    ("bicubic", (1, 2, 5, 150), (7, 149), False),
    ("bicubic", (1, 2, 5, 150), (7, 149), True),
    ("trilinear", (1, 1, 2, 3, 140), (3, 2, 200), False),
]


@pytest.mark.parametrize("mode,shape,size,ac", LONG, ids=[f"{m}{s}-ac{a}" for m, s, _, a in LONG])
def test_interpolate_long_lines_gather_and_scatter(mode, shape, size, ac):
    # lines longer than the backend's GEMM limit take the gather / scatter-add path
    kw = dict(size=size, mode=mode, align_corners=ac)
    _check(lambda x: F.interpolate(x, **kw), lambda x: TF.interpolate(x, **kw), [_rnd(*shape)])


AA = [
    (m, ac, shape, kw)
    for m in ("bilinear", "bicubic")
    for ac in (False, True)
    for shape, kw in [
        ((2, 3, 17, 13), dict(size=(5, 4))),
        ((2, 3, 17, 13), dict(size=(9, 30))),
        ((1, 2, 8, 8), dict(scale_factor=0.37)),
        ((1, 2, 8, 8), dict(scale_factor=(2.5, 0.5))),
        ((1, 1, 300, 5), dict(size=(31, 3))),
        ((1, 1, 5, 3), dict(size=(1, 1))),
    ]
]


@pytest.mark.parametrize("mode,ac,shape,kw", AA, ids=[f"{m}-ac{a}-{s}-{k}" for m, a, s, k in AA])
def test_interpolate_antialias_matches_torch(mode, ac, shape, kw):
    kw = dict(kw, mode=mode, align_corners=ac, antialias=True)
    _check(lambda x: F.interpolate(x, **kw), lambda x: TF.interpolate(x, **kw), [_rnd(*shape)])


def test_interpolate_antialias_changes_downsampling():
    x = lucid.tensor(_rnd(1, 1, 16, 16))
    a = F.interpolate(x, size=(4, 4), mode="bilinear", antialias=True).numpy()
    b = F.interpolate(x, size=(4, 4), mode="bilinear").numpy()
    assert np.abs(a - b).max() > 1e-2


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_interpolate_half_types_keep_their_dtype(mode, dt):
    a = _rnd(1, 2, 5, 4)
    lx = lucid.tensor(a).to(getattr(lucid, dt)).requires_grad_()
    tx = torch.tensor(a).to(getattr(torch, dt)).requires_grad_()
    ly, ty = (
        F.interpolate(lx, scale_factor=2, mode=mode),
        TF.interpolate(tx, scale_factor=2, mode=mode),
    )
    assert ly.dtype == getattr(lucid, dt)
    ly.float().sum().backward()
    ty.float().sum().backward()
    assert lx.grad.dtype == getattr(lucid, dt)
    for l, t in ((ly, ty), (lx.grad, tx.grad)):
        np.testing.assert_allclose(
            l.detach().float().numpy(), t.detach().float().numpy(), rtol=2e-2, atol=2e-2
        )


def test_interpolate_nearest_index_rule():
    # PyTorch's index floor(j * (in / out)) is computed in float32: for 2 -> 82, output 41
    # reads input 0 (41 * float32(2/82) < 1), where exact arithmetic would give 1
    x = lucid.arange(2.0).reshape(1, 1, 2)
    y = F.interpolate(x, size=82, mode="nearest").numpy().ravel()
    assert y[40] == 0 and y[41] == 0 and y[42] == 1
    np.testing.assert_array_equal(
        y,
        TF.interpolate(torch.arange(2.0).reshape(1, 1, 2), size=82, mode="nearest").numpy().ravel(),
    )
    # with a scale factor the index is floor(j / scale) in every dim, also where the size
    # does not change (3 * 1.3 -> 3 outputs read inputs 0, 0, 1)
    x = lucid.arange(3.0).reshape(1, 1, 1, 3)
    y = F.interpolate(x, scale_factor=(1.0, 1.3), mode="nearest")
    np.testing.assert_array_equal(y.numpy().ravel(), [0, 0, 1])
    y = F.interpolate(lucid.arange(4.0).reshape(1, 1, 4), scale_factor=1.5, mode="nearest-exact")
    np.testing.assert_array_equal(y.numpy().ravel(), [0, 1, 1, 2, 3, 3])


def test_interpolate_scale_factor_is_used_unless_recomputed():
    # 5 * 1.3 = 6.5 -> 6 outputs; the source positions use 1/1.3, not 5/6
    x = _rnd(1, 1, 5)
    a = F.interpolate(lucid.tensor(x), scale_factor=1.3, mode="linear").numpy()
    b = F.interpolate(
        lucid.tensor(x), scale_factor=1.3, mode="linear", recompute_scale_factor=True
    ).numpy()
    c = F.interpolate(lucid.tensor(x), size=6, mode="linear").numpy()
    np.testing.assert_allclose(b, c)
    assert np.abs(a - b).max() > 1e-3


def test_interpolate_align_corners_keeps_the_corners():
    x = _rnd(1, 2, 4, 5)
    y = F.interpolate(lucid.tensor(x), size=(7, 9), mode="bilinear", align_corners=True)
    np.testing.assert_allclose(
        y.numpy()[..., [0, -1], :][..., [0, -1]], x[..., [0, -1], :][..., [0, -1]], rtol=1e-12
    )
    z = F.interpolate(lucid.tensor(x), size=(7, 9), mode="bilinear", align_corners=False)
    assert np.abs(z.numpy() - y.numpy()).max() > 1e-3


def test_interpolate_non_contiguous_and_empty_batch():
    a = _rnd(2, 3, 5, 4)
    lx = lucid.tensor(np.swapaxes(a, -1, -2).copy(), requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    lin = lx.transpose(-1, -2)
    assert not lin.is_contiguous()
    lo = F.interpolate(lin, size=(7, 3), mode="bicubic", align_corners=False)
    to = TF.interpolate(tx, size=(7, 3), mode="bicubic", align_corners=False)
    _close(lo, to)
    lo.sum().backward()
    to.sum().backward()
    np.testing.assert_allclose(np.swapaxes(lx.grad.numpy(), -1, -2), tx.grad.numpy(), rtol=1e-10)
    _check(
        lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
        lambda x: TF.interpolate(x, scale_factor=2, mode="bilinear"),
        [_rnd(0, 3, 4, 4)],
    )


def test_interpolate_nearest_keeps_integer_dtype():
    a = np.arange(24, dtype=np.uint8).reshape(1, 2, 3, 4)
    y = F.interpolate(lucid.tensor(a), scale_factor=2.5, mode="nearest")
    t = TF.interpolate(torch.tensor(a), scale_factor=2.5, mode="nearest")
    assert y.dtype == lucid.uint8
    np.testing.assert_array_equal(y.numpy(), t.numpy())


def test_interpolate_non_finite_values_stay_local():
    a = _rnd(1, 1, 6, 6)
    a[0, 0, 2, 3] = np.inf
    a[0, 0, 5, 0] = np.nan
    for mode in ("bilinear", "bicubic"):
        y = F.interpolate(lucid.tensor(a), size=(9, 11), mode=mode).numpy()
        t = TF.interpolate(torch.tensor(a), size=(9, 11), mode=mode).numpy()
        np.testing.assert_array_equal(np.isfinite(y), np.isfinite(t))
        ok = np.isfinite(t)
        np.testing.assert_allclose(y[ok], t[ok], rtol=1e-10)


def test_interpolate_double_backward():
    a = _rnd(1, 2, 3, 4)
    lx, tx = _pair(a)
    lw, tw = _pair(_rnd(1, 2, 5, 7, seed=3))
    (lg,) = lucid.autograd.grad(
        (F.interpolate(lx, size=(5, 7), mode="bicubic") * lw).sum(), (lx,), create_graph=True
    )
    (tg,) = torch.autograd.grad(
        (TF.interpolate(tx, size=(5, 7), mode="bicubic") * tw).sum(), (tx,), create_graph=True
    )
    _close(lg, tg)
    (lg * lg).sum().backward()
    (tg * tg).sum().backward()
    _close(lw.grad, tw.grad)


@pytest.mark.parametrize(
    "kw,err,match",
    [
        (dict(size=4, scale_factor=2), ArgumentError, "only one of size or scale_factor"),
        (dict(), ArgumentError, "either size or scale_factor"),
        (dict(size=(4, 4, 4)), ShapeError, "same number of spatial dimensions"),
        (dict(scale_factor=(2,)), ShapeError, "same number of spatial dimensions"),
        (dict(size=4, recompute_scale_factor=True), ArgumentError, "not meaningful"),
        (dict(size=4, mode="nearest", align_corners=True), ArgumentError, "align_corners"),
        (dict(size=4, mode="area", align_corners=False), ArgumentError, "align_corners"),
        (dict(size=4, mode="linear"), ShapeError, "needs 3D"),
        (dict(size=4, mode="trilinear"), ShapeError, "needs 5D"),
        (dict(size=4, mode="cubic"), ArgumentError, "unsupported mode"),
        (dict(size=0), ShapeError, "greater than 0"),
        (dict(scale_factor=0.1), ShapeError, "greater than 0"),
        (dict(size=4, mode="nearest", antialias=True), ArgumentError, "anti-alias"),
        (dict(size=4.5), Exception, "size must be an int"),
    ],
)
def test_interpolate_errors(kw, err, match):
    with pytest.raises(err, match=match):
        F.interpolate(lucid.zeros(1, 2, 3, 3), **kw)


def test_interpolate_area_allows_an_empty_output():
    # area is adaptive average pooling, which PyTorch lets shrink a dim to 0
    y = F.interpolate(lucid.zeros(1, 1, 2, 8), scale_factor=(0.3, 2.0), mode="area")
    t = TF.interpolate(torch.zeros(1, 1, 2, 8), scale_factor=(0.3, 2.0), mode="area")
    assert tuple(y.shape) == tuple(t.shape) == (1, 1, 0, 16)


def test_interpolate_input_errors():
    with pytest.raises(ShapeError, match="needs 3D or 4D or 5D"):
        F.interpolate(lucid.zeros(3, 3), size=4)
    with pytest.raises(DTypeError, match="floating point"):
        F.interpolate(lucid.zeros(1, 1, 3, 3, dtype=lucid.int64), size=4, mode="bilinear")


def test_upsample_functions_warn_and_resample():
    x = _rnd(1, 2, 3, 4)
    for fl, ft in (
        (
            lambda t: F.upsample(t, scale_factor=2, mode="bilinear"),
            lambda t: TF.interpolate(t, scale_factor=2, mode="bilinear"),
        ),
        (
            lambda t: F.upsample_nearest(t, size=(5, 7)),
            lambda t: TF.interpolate(t, size=(5, 7), mode="nearest"),
        ),
        (
            lambda t: F.upsample_bilinear(t, scale_factor=2),
            lambda t: TF.interpolate(t, scale_factor=2, mode="bilinear", align_corners=True),
        ),
    ):
        with pytest.warns(UserWarning, match="deprecated"):
            y = fl(lucid.tensor(x))
        _close(y, ft(torch.tensor(x)))


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.Upsample(scale_factor=2),
        lambda m: m.Upsample(size=(5, 7), mode="bilinear"),
        lambda m: m.Upsample(scale_factor=(1.5, 2), mode="bicubic", align_corners=True),
        lambda m: m.Upsample(scale_factor=1.3, mode="bilinear", recompute_scale_factor=True),
        lambda m: m.UpsamplingNearest2d(scale_factor=3),
        lambda m: m.UpsamplingNearest2d(size=5),
        lambda m: m.UpsamplingBilinear2d(size=(4, 6)),
        lambda m: m.UpsamplingBilinear2d(scale_factor=2),
    ],
)
def test_upsample_layers_match_torch(make):
    lm, tm = make(nn), make(tnn)
    assert repr(lm) == repr(tm)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the layers do not warn
        _check(lm, tm, [_rnd(2, 3, 4, 5)])


def test_upsample_layer_trilinear():
    lm, tm = (
        nn.Upsample(scale_factor=2, mode="trilinear"),
        tnn.Upsample(scale_factor=2, mode="trilinear"),
    )
    _check(lm, tm, [_rnd(1, 2, 2, 3, 2)])


# == grid_sample ===========================================================================

GS = [
    (m, p, ac)
    for m in ("bilinear", "nearest", "bicubic")
    for p in ("zeros", "border", "reflection")
    for ac in (False, True)
]


def _grid(*shape, seed=5, scale=1.3):
    return np.random.default_rng(seed).uniform(-scale, scale, shape)


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("mode,pad,ac", GS, ids=[f"{m}-{p}-ac{a}" for m, p, a in GS])
def test_grid_sample_2d_matches_torch(mode, pad, ac, dtype):
    kw = dict(mode=mode, padding_mode=pad, align_corners=ac)
    _check(
        lambda x, g: F.grid_sample(x, g, **kw),
        lambda x, g: TF.grid_sample(x, g, **kw),
        [_rnd(2, 3, 4, 5), _grid(2, 3, 6, 2)],
        dtype,
    )


@pytest.mark.parametrize(
    "mode,pad,ac",
    [g for g in GS if g[0] != "bicubic"],
    ids=[f"{m}-{p}-ac{a}" for m, p, a in GS if m != "bicubic"],
)
def test_grid_sample_3d_matches_torch(mode, pad, ac):
    kw = dict(mode=mode, padding_mode=pad, align_corners=ac)
    _check(
        lambda x, g: F.grid_sample(x, g, **kw),
        lambda x, g: TF.grid_sample(x, g, **kw),
        [_rnd(2, 2, 3, 4, 5), _grid(2, 2, 3, 4, 3)],
    )


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_grid_sample_half_types(dt):
    a, c = _rnd(1, 2, 6, 7), _grid(1, 3, 4, 2)
    lx, lg = (lucid.tensor(v).to(getattr(lucid, dt)).requires_grad_() for v in (a, c))
    tx, tg = (torch.tensor(v).to(getattr(torch, dt)).requires_grad_() for v in (a, c))
    ly = F.grid_sample(lx, lg, align_corners=False)
    ty = TF.grid_sample(tx, tg, align_corners=False)
    assert ly.dtype == getattr(lucid, dt)
    ly.float().sum().backward()
    ty.float().sum().backward()
    for l, t in ((ly, ty), (lx.grad, tx.grad), (lg.grad, tg.grad)):
        assert l.dtype == getattr(lucid, dt)
        np.testing.assert_allclose(
            l.detach().float().numpy(), t.detach().float().numpy(), rtol=5e-2, atol=5e-2
        )


def test_grid_sample_reflection_far_outside_and_single_pixel_axes():
    for ac in (False, True):
        kw = dict(padding_mode="reflection", align_corners=ac)
        _check(
            lambda x, g: F.grid_sample(x, g, **kw),
            lambda x, g: TF.grid_sample(x, g, **kw),
            [_rnd(1, 2, 3, 4), _grid(1, 4, 5, 2, scale=4.5)],
        )
        _check(
            lambda x, g: F.grid_sample(x, g, **kw),
            lambda x, g: TF.grid_sample(x, g, **kw),
            [_rnd(1, 2, 1, 4), _grid(1, 2, 3, 2)],
        )


def test_grid_sample_identity_grid_reproduces_the_input():
    x = _rnd(2, 3, 4, 5)
    theta = np.tile(np.eye(2, 3), (2, 1, 1))
    for ac in (False, True):
        grid = F.affine_grid(lucid.tensor(theta), (2, 3, 4, 5), align_corners=ac)
        y = F.grid_sample(lucid.tensor(x), grid, align_corners=ac)
        np.testing.assert_allclose(y.numpy(), x, atol=1e-12)


def test_grid_sample_non_contiguous_inputs():
    a, c = _rnd(2, 3, 5, 4), _grid(2, 6, 3, 2)
    lx = lucid.tensor(np.swapaxes(a, -1, -2).copy(), requires_grad=True)
    lg = lucid.tensor(np.swapaxes(c, 1, 2).copy(), requires_grad=True)
    tx, tg = torch.tensor(a, requires_grad=True), torch.tensor(c, requires_grad=True)
    lxin, lgin = lx.transpose(-1, -2), lg.transpose(1, 2)
    assert not lxin.is_contiguous() and not lgin.is_contiguous()
    kw = dict(mode="bicubic", padding_mode="reflection", align_corners=False)
    ly, ty = F.grid_sample(lxin, lgin, **kw), TF.grid_sample(tx, tg, **kw)
    _close(ly, ty)
    ly.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(
        np.swapaxes(lx.grad.numpy(), -1, -2), tx.grad.numpy(), rtol=1e-10, atol=1e-12
    )
    np.testing.assert_allclose(
        np.swapaxes(lg.grad.numpy(), 1, 2), tg.grad.numpy(), rtol=1e-10, atol=1e-12
    )


def test_grid_sample_empty_batch_and_output():
    kw = dict(align_corners=False)
    _check(
        lambda x, g: F.grid_sample(x, g, **kw),
        lambda x, g: TF.grid_sample(x, g, **kw),
        [_rnd(0, 3, 4, 5), _grid(0, 3, 6, 2)],
    )
    _check(
        lambda x, g: F.grid_sample(x, g, **kw),
        lambda x, g: TF.grid_sample(x, g, **kw),
        [_rnd(2, 3, 4, 5), _grid(2, 0, 6, 2)],
    )


def test_grid_sample_and_interpolate_without_channels():
    x = lucid.zeros(2, 0, 3, 4, requires_grad=True)
    g = lucid.zeros(2, 3, 5, 2, requires_grad=True)
    y = F.grid_sample(x, g, align_corners=False)
    assert tuple(y.shape) == (2, 0, 3, 5)
    y.sum().backward()
    assert tuple(x.grad.shape) == (2, 0, 3, 4) and not g.grad.abs().max().item()
    y = F.interpolate(x, scale_factor=2, mode="bicubic")
    assert tuple(y.shape) == (2, 0, 6, 8)


def test_grid_sample_zeros_padding_does_not_read_outside_values():
    a = _rnd(1, 1, 3, 3)
    a[0, 0, 0, 0] = np.inf  # read by no sample point below
    grid = np.array([[[[0.9, 0.9], [3.0, 3.0]]]])
    y = F.grid_sample(lucid.tensor(a), lucid.tensor(grid), align_corners=False).numpy()
    t = TF.grid_sample(torch.tensor(a), torch.tensor(grid), align_corners=False).numpy()
    np.testing.assert_allclose(y, t, rtol=1e-12)
    assert y[0, 0, 0, 1] == 0


@pytest.mark.parametrize(
    "mode,pad",
    [
        ("bilinear", "zeros"),
        ("bilinear", "reflection"),
        ("bicubic", "border"),
        ("nearest", "zeros"),
    ],
)
def test_grid_sample_double_backward_matches_torch(mode, pad):
    kw = dict(mode=mode, padding_mode=pad, align_corners=False)
    (lx, tx), (lg, tg) = _pair(_rnd(1, 2, 3, 4)), _pair(_grid(1, 2, 3, 2))
    (lw, tw) = _pair(_rnd(1, 2, 2, 3, seed=4))
    lgx, lgg = lucid.autograd.grad(
        (F.grid_sample(lx, lg, **kw) * lw).sum(), (lx, lg), create_graph=True
    )
    tgx, tgg = torch.autograd.grad(
        (TF.grid_sample(tx, tg, **kw) * tw).sum(), (tx, tg), create_graph=True
    )
    _close(lgx, tgx)
    _close(lgg, tgg)
    ((lgx * lgx).sum() + (lgg * lgg).sum()).backward()
    ((tgx * tgx).sum() + (tgg * tgg).sum()).backward()
    for l, t in ((lx, tx), (lg, tg), (lw, tw)):
        if l.grad is None:  # nearest: the grid's gradient is a constant 0
            assert mode == "nearest" and (t.grad is None or not t.grad.abs().max())
        else:
            _close(l.grad, t.grad)


@pytest.mark.parametrize(
    "xs,gs,kw,err,match",
    [
        ((1, 2, 3, 3), (1, 2, 2, 2), dict(mode="linear"), ArgumentError, "expected mode"),
        ((1, 2, 3, 3), (1, 2, 2, 2), dict(padding_mode="wrap"), ArgumentError, "padding_mode"),
        ((1, 2, 3, 3), (1, 2, 2), {}, ShapeError, "same number of dimensions"),
        ((1, 2, 3), (1, 2, 2), {}, ShapeError, "4D or 5D"),
        ((2, 2, 3, 3), (1, 2, 2, 2), {}, ShapeError, "same batch size"),
        ((1, 2, 3, 3), (1, 2, 2, 3), {}, ShapeError, "size 2 in last dimension"),
        ((1, 2, 0, 3), (1, 2, 2, 2), {}, ShapeError, "non-empty spatial"),
        ((1, 2, 3, 3, 3), (1, 2, 2, 2, 3), dict(mode="bicubic"), ShapeError, "bicubic"),
    ],
)
def test_grid_sample_errors(xs, gs, kw, err, match):
    with pytest.raises(err, match=match):
        F.grid_sample(lucid.zeros(*xs), lucid.zeros(*gs), **kw)


def test_grid_sample_dtype_errors():
    with pytest.raises(DTypeError, match="same floating point dtype"):
        F.grid_sample(lucid.zeros(1, 2, 3, 3), lucid.zeros(1, 2, 2, 2, dtype=lucid.float64))


# == affine_grid ===========================================================================


@pytest.mark.parametrize("ac", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 1, 3), (2, 3, 2, 3, 4), (2, 1, 1, 2, 1)])
def test_affine_grid_matches_torch(size, ac):
    d = len(size) - 2
    _check(
        lambda t: F.affine_grid(t, size, align_corners=ac),
        lambda t: TF.affine_grid(t, size, align_corners=ac),
        [_rnd(2, d, d + 1)],
    )


def test_affine_grid_float32_and_into_grid_sample():
    _check(
        lambda t: F.affine_grid(t, (2, 3, 4, 5), align_corners=False),
        lambda t: TF.affine_grid(t, (2, 3, 4, 5), align_corners=False),
        [_rnd(2, 2, 3)],
        np.float32,
    )
    # a spatial transformer: gradients reach theta through grid_sample
    theta = np.tile(np.array([[0.9, 0.1, 0.05], [-0.1, 0.8, 0.1]]), (2, 1, 1))
    _check(
        lambda x, t: F.grid_sample(
            x, F.affine_grid(t, (2, 3, 4, 4), align_corners=False), align_corners=False
        ),
        lambda x, t: TF.grid_sample(
            x, TF.affine_grid(t, (2, 3, 4, 4), align_corners=False), align_corners=False
        ),
        [_rnd(2, 3, 5, 5), theta],
    )


@pytest.mark.parametrize(
    "theta,size,err,match",
    [
        ((2, 2, 3), (2, 3, 4), ShapeError, "4D and 5D sizes"),
        ((2, 3, 4), (2, 3, 4, 5), ShapeError, "Nx2x3"),
        ((2, 2, 3), (2, 3, 4, 5, 6), ShapeError, "Nx3x4"),
        ((3, 2, 3), (2, 3, 4, 5), ShapeError, "batch of 2"),
        ((2, 2, 3), (2, 3, 0, 5), ShapeError, "positive output size"),
    ],
)
def test_affine_grid_errors(theta, size, err, match):
    with pytest.raises(err, match=match):
        F.affine_grid(lucid.zeros(*theta), size, align_corners=False)
    with pytest.raises(DTypeError, match="floating point"):
        F.affine_grid(lucid.zeros(2, 2, 3, dtype=lucid.int64), (2, 3, 4, 5))


# == pixel and channel shuffles =============================================================


@pytest.mark.parametrize("shape,r", [((2, 8, 3, 5), 2), ((18, 2, 3), 3), ((2, 3, 4, 1, 2), 2)])
def test_pixel_shuffle_matches_torch_and_round_trips(shape, r):
    _check(lambda x: F.pixel_shuffle(x, r), lambda x: TF.pixel_shuffle(x, r), [_rnd(*shape)])
    x = lucid.tensor(_rnd(*shape))
    np.testing.assert_array_equal(F.pixel_unshuffle(F.pixel_shuffle(x, r), r).numpy(), x.numpy())


def test_pixel_shuffle_empty_batch():
    # torch's own backward refuses an empty batch here: forward against torch, gradient shape
    x = lucid.zeros(0, 4, 2, 2, requires_grad=True)
    y = F.pixel_shuffle(x, 2)
    assert tuple(y.shape) == tuple(TF.pixel_shuffle(torch.zeros(0, 4, 2, 2), 2).shape)
    y.sum().backward()
    assert tuple(x.grad.shape) == (0, 4, 2, 2)
    assert tuple(F.pixel_unshuffle(y, 2).shape) == (0, 4, 2, 2)


@pytest.mark.parametrize("shape,r", [((2, 3, 4, 6), 2), ((2, 6, 9), 3), ((2, 1, 2, 4, 4), 4)])
def test_pixel_unshuffle_matches_torch(shape, r):
    _check(lambda x: F.pixel_unshuffle(x, r), lambda x: TF.pixel_unshuffle(x, r), [_rnd(*shape)])


@pytest.mark.parametrize(
    "shape,g", [((2, 6, 4), 3), ((2, 6, 3, 2), 2), ((1, 4, 2, 2, 2), 4), ((3, 5, 2), 1)]
)
def test_channel_shuffle_matches_torch(shape, g):
    a = _rnd(*shape)
    for fl, ft in (
        (F.channel_shuffle, TF.channel_shuffle),
        (F.native_channel_shuffle, TF.native_channel_shuffle),
    ):
        x = lucid.tensor(a, requires_grad=True)
        y = fl(x, g)
        _close(y, ft(torch.tensor(a), g))
        # torch has no derivative for it: the gradient is the inverse shuffle
        go = _rnd(*shape, seed=2)
        y.backward(lucid.tensor(go))
        _close(x.grad, ft(torch.tensor(go), shape[1] // g))


@pytest.mark.parametrize(
    "call,err,match",
    [
        (lambda: F.pixel_shuffle(lucid.zeros(3, 4), 2), ShapeError, "at least 3 dimensions"),
        (lambda: F.pixel_shuffle(lucid.zeros(1, 4, 2, 2), 0), ArgumentError, "positive"),
        (lambda: F.pixel_shuffle(lucid.zeros(1, 6, 2, 2), 2), ShapeError, "divisible by 4"),
        (lambda: F.pixel_unshuffle(lucid.zeros(1, 1, 5, 4), 2), ShapeError, "height"),
        (lambda: F.pixel_unshuffle(lucid.zeros(1, 1, 4, 5), 2), ShapeError, "width"),
        (lambda: F.channel_shuffle(lucid.zeros(1, 5, 2), 2), ShapeError, "divisible by groups"),
        (lambda: F.channel_shuffle(lucid.zeros(1, 4, 2), 0), ArgumentError, "positive"),
        (lambda: F.channel_shuffle(lucid.zeros(4, 2), 2), ShapeError, "at least 3"),
    ],
)
def test_shuffle_errors(call, err, match):
    with pytest.raises(err, match=match):
        call()


@pytest.mark.parametrize(
    "make,shape",
    [
        (lambda m: m.PixelShuffle(2), (2, 8, 3, 3)),
        (lambda m: m.PixelUnshuffle(2), (2, 2, 4, 6)),
        (lambda m: m.ChannelShuffle(2), (2, 6, 3, 3)),
    ],
)
def test_shuffle_layers_match_torch(make, shape):
    lm, tm = make(nn), make(tnn)
    assert repr(lm) == repr(tm)
    _check(lm, tm, [_rnd(*shape)])
