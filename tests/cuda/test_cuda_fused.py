"""The fused CUDA kernels (softmax family, layer/RMS norm, cross-entropy, GELU, SiLU)
against the same Lucid call on the CPU, forward and gradients: each float dtype, odd row
lengths (1, 3, 33, 1000, 4097) and the GPT-2 vocabulary (50304), other axes,
non-contiguous inputs, empty tensors, infinite and all -inf rows, and every
cross-entropy option."""

import numpy as np
import pytest

import lucid
import lucid.nn.functional as F
from lucid.errors import IndexingError

pytestmark = pytest.mark.cuda

DTYPES = ["float32", "float64", "float16", "bfloat16"]
# (rtol, atol): half types compute in float32 on both sides, so one rounding apart
TOL = {
    "float32": (2e-5, 2e-6),
    "float64": (1e-11, 1e-12),
    "float16": (4e-3, 4e-3),
    "bfloat16": (3e-2, 3e-2),
}
LENGTHS = [1, 3, 33, 1000, 4097]
VOCAB = 50304


def _np(t):
    return t.detach().cpu().to(lucid.float64).numpy()


def _close(got, want, dtype, scale=1.0):
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(_np(got), _np(want), rtol=rtol * scale, atol=atol * scale)


def _leaf(a, dtype, device, grad=True):
    """``a`` cast on the CPU (the same rounding on both sides), moved, a leaf."""
    t = lucid.tensor(a).to(getattr(lucid, dtype)).to(device)
    return t.requires_grad_() if grad else t


def _compare(fn, arrays, dtype, dev, view=None, scale=1.0, grad=True):
    """``fn(*tensors)`` on the CPU and on ``dev`` (``view`` applied to the leaves first,
    e.g. a transpose), the outputs and the gradients of ``sum(out * u)`` to every leaf
    (``u`` a fixed random array) compared."""
    results = []
    for device in ("cpu", dev):
        leaves = [_leaf(a, dtype, device, grad) for a in arrays]
        ins = [view(t) if view else t for t in leaves]
        out = fn(*ins)
        if grad and out.numel():
            u = np.random.default_rng(7).standard_normal(tuple(out.shape))
            (out * _leaf(u, dtype, device, False)).sum().backward()
        results.append((out, leaves))
    (oc, lc), (og, lg) = results
    assert og.device.type == lucid.device(dev).type
    _close(og, oc, dtype, scale)
    if grad and oc.numel():
        for a, b in zip(lg, lc):
            _close(a.grad, b.grad, dtype, scale)


def _rand(shape, seed=0, spread=3.0):
    return np.random.default_rng(seed).standard_normal(shape) * spread


# -- softmax and log-softmax -------------------------------------------------------------

SOFTMAXES = {
    "softmax": lambda x, d: lucid.softmax(x, d),
    "log_softmax": lambda x, d: F.log_softmax(x, d),
}


@pytest.mark.parametrize("name", list(SOFTMAXES))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", LENGTHS + [VOCAB])
def test_softmax_rows(dev, name, dtype, n):
    rows = 3 if n == VOCAB else 7
    _compare(lambda x: SOFTMAXES[name](x, -1), [_rand((rows, n))], dtype, dev)


@pytest.mark.parametrize("name", list(SOFTMAXES))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_softmax_axes_and_strides(dev, name, dtype, dim):
    """Other axes (moved to the last) and a transposed input."""
    a = _rand((5, 33, 6))
    _compare(lambda x: SOFTMAXES[name](x, dim), [a], dtype, dev)
    _compare(lambda x: SOFTMAXES[name](x, dim), [a], dtype, dev, view=lambda t: t.transpose(0, 2))


@pytest.mark.parametrize("name", list(SOFTMAXES))
@pytest.mark.parametrize("shape", [(0, 5), (4, 0), (), (1,)])
def test_softmax_empty_and_tiny(dev, name, shape):
    _compare(lambda x: SOFTMAXES[name](x, -1 if shape else 0), [_rand(shape)], "float32", dev)


@pytest.mark.parametrize("name", list(SOFTMAXES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_infinities(dev, name, dtype):
    """An all -inf row (nan), rows with some -inf, +inf, and large values (no
    overflow): forward as the CPU, nan included."""
    a = _rand((6, 40)) * 1000
    a[0] = -np.inf
    a[1, ::3] = -np.inf
    a[2, 5] = np.inf
    a[3] = 60000.0 if dtype == "float16" else 1e4
    _compare(lambda x: SOFTMAXES[name](x, -1), [a], dtype, dev, grad=False)


# -- layer norm and RMS norm -------------------------------------------------------------


def _layer_norm(ns, affine, bias):
    def fn(x, *wb):
        w = wb[0] if affine else None
        b = wb[1] if bias else None
        return F.layer_norm(x, ns, w, b, eps=1e-5)

    return fn


def _rms_norm(ns, affine):
    def fn(x, *wb):
        return F.rms_norm(x, ns, wb[0] if affine else None)

    return fn


NORM_SHAPES = [
    ((7, 1), (1,)),
    ((7, 3), (3,)),
    ((5, 33), (33,)),
    ((3, 4, 1000), (1000,)),
    ((2, 4097), (4097,)),
    ((2, 3, 4, 5), (4, 5)),
    ((33,), (33,)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,ns", NORM_SHAPES)
@pytest.mark.parametrize("affine,bias", [(True, True), (True, False), (False, False)])
def test_layer_norm(dev, dtype, shape, ns, affine, bias):
    arrays = [_rand(shape) + 2.0]
    if affine:
        arrays.append(_rand(ns, 1, 1.0))
    if bias:
        arrays.append(_rand(ns, 2, 1.0))
    _compare(_layer_norm(ns, affine, bias), arrays, dtype, dev, scale=2.0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,ns", NORM_SHAPES)
@pytest.mark.parametrize("affine", [True, False])
def test_rms_norm(dev, dtype, shape, ns, affine):
    arrays = [_rand(shape)] + ([_rand(ns, 1, 1.0)] if affine else [])
    _compare(_rms_norm(ns, affine), arrays, dtype, dev, scale=2.0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_norms_non_contiguous(dev, dtype):
    """A transposed input (made contiguous on the way in)."""
    a, w, b = _rand((6, 40)), _rand((6,), 1, 1.0), _rand((6,), 2, 1.0)
    _compare(
        lambda x, w, b: F.layer_norm(x, (6,), w, b),
        [a, w, b],
        dtype,
        dev,
        view=lambda t: t.t() if t.ndim == 2 else t,
        scale=2.0,
    )
    _compare(
        lambda x, w: F.rms_norm(x, (6,), w),
        [a, w],
        dtype,
        dev,
        view=lambda t: t.t() if t.ndim == 2 else t,
        scale=2.0,
    )


def test_norms_empty(dev):
    _compare(
        _layer_norm((8,), True, True), [_rand((0, 8)), _rand((8,)), _rand((8,))], "float32", dev
    )
    _compare(_rms_norm((8,), True), [_rand((0, 8)), _rand((8,))], "float32", dev)


def test_group_norm_generic(dev):
    """Group norm keeps the generic kernels (its layout is not the row view)."""
    _compare(
        lambda x, w, b: F.group_norm(x, 2, w, b),
        [_rand((3, 4, 5)), _rand((4,)), _rand((4,))],
        "float32",
        dev,
    )


# -- cross-entropy -----------------------------------------------------------------------


def _targets(shape, c, seed=3, ignored=(), ignore_index=-100):
    """Random class indices, ``ignore_index`` at the flat positions ``ignored``."""
    t = np.random.default_rng(seed).integers(0, c, shape)
    flat = t.reshape(-1)
    for i in ignored:
        flat[i % flat.size] = ignore_index
    return t


def _ce_compare(dev, dtype, logits, target, weight=None, view=None, **kw):
    """``F.cross_entropy`` on the CPU and on ``dev``: the loss and the logits' gradient."""
    results = []
    for device in ("cpu", dev):
        x = _leaf(logits, dtype, device)
        t = lucid.tensor(target).to(device)
        w = None if weight is None else _leaf(weight, dtype, device, False)
        out = F.cross_entropy(view(x) if view else x, t, weight=w, **kw)
        if out.numel():
            u = np.random.default_rng(5).standard_normal(tuple(out.shape))
            (out * _leaf(u, dtype, device, False)).sum().backward()
        results.append((out, x))
    (oc, xc), (og, xg) = results
    _close(og, oc, dtype, 2.0)
    if oc.numel():
        _close(xg.grad, xc.grad, dtype, 2.0)


CE_OPTIONS = [
    dict(),
    dict(reduction="sum"),
    dict(reduction="none"),
    dict(label_smoothing=0.1),
    dict(label_smoothing=0.2, reduction="none"),
    dict(ignore_index=1, reduction="sum"),
    dict(weighted=True),
    dict(weighted=True, label_smoothing=0.1),
    dict(weighted=True, label_smoothing=0.3, reduction="sum"),
]
CE_IDS = ["-".join(f"{k}={v}" for k, v in o.items()) or "default" for o in CE_OPTIONS]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("c", [1, 3, 33, 1000, 4097])
@pytest.mark.parametrize("opts", CE_OPTIONS, ids=CE_IDS)
def test_cross_entropy(dev, dtype, c, opts):
    opts = dict(opts)
    weighted = opts.pop("weighted", False)
    n = 9
    t = _targets((n,), c, ignored=(2, 5), ignore_index=opts.get("ignore_index", -100))
    w = np.random.default_rng(4).uniform(0.5, 2.0, c) if weighted else None
    _ce_compare(dev, dtype, _rand((n, c)), t, w, **opts)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opts", [dict(), dict(label_smoothing=0.1, reduction="none")])
def test_cross_entropy_vocab(dev, dtype, opts):
    """GPT-2's vocabulary: 50304 classes."""
    _ce_compare(dev, dtype, _rand((4, VOCAB)), _targets((4,), VOCAB), **opts)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "opts",
    [dict(), dict(label_smoothing=0.1, reduction="none"), dict(weighted=True, reduction="sum")],
)
def test_cross_entropy_k_dim_and_strided(dev, dtype, opts):
    """``(N, C, d1, d2)`` logits (the class axis moved last) and transposed 2-d logits."""
    opts = dict(opts)
    w = np.random.default_rng(4).uniform(0.5, 2.0, 5) if opts.pop("weighted", False) else None
    _ce_compare(dev, dtype, _rand((3, 5, 4, 2)), _targets((3, 4, 2), 5, ignored=(1,)), w, **opts)
    _ce_compare(dev, dtype, _rand((5, 6)), _targets((6,), 5), w, view=lambda x: x.t(), **opts)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("c", [5, 16])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_infinite_and_nan_logits(dev, dtype, c, smoothing):
    """Rows holding +inf, a row of -inf only, a NaN and large finite logits (the kernel's
    one-pass running max restarts its sum): the same losses as the CPU's, infinities and
    NaNs in the same places. c = 16 reads the rows as vectors, c = 5 element-wise."""
    x = _rand((6, c))
    x[0, 1] = np.inf
    x[1, :] = -np.inf
    x[2, 3] = np.nan
    x[3, :] = np.linspace(-1e4, 3e4, c)
    x[4, ::2] = -np.inf
    t = np.array([0, 2, 1, c - 1, 1, 3])
    outs = [
        _np(
            F.cross_entropy(
                _leaf(x, dtype, d, False),
                lucid.tensor(t).to(d),
                reduction="none",
                label_smoothing=smoothing,
            )
        )
        for d in ("cpu", dev)
    ]
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(outs[1], outs[0], rtol=rtol, atol=atol, equal_nan=True)


def test_cross_entropy_all_ignored(dev):
    """A mean over no element is nan with a zero gradient, on both."""
    t = np.full((4,), -100)
    for opts in (dict(), dict(label_smoothing=0.1)):
        _ce_compare(dev, "float32", _rand((4, 7)), t, **opts)


def test_cross_entropy_target_out_of_range(dev):
    x = _leaf(_rand((3, 4)), "float32", dev)
    with pytest.raises(IndexingError):  # a GPU reports at the next host read
        F.cross_entropy(x, lucid.tensor(np.array([0, 4, 1])).to(dev)).item()


def test_cross_entropy_empty_batch(dev):
    for red in ("sum", "none"):
        _ce_compare(dev, "float32", _rand((0, 5)), np.zeros((0,), np.int64), reduction=red)


# -- GELU and SiLU -----------------------------------------------------------------------

ACTS = {
    "gelu": lambda x: F.gelu(x),
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": lambda x: F.silu(x),
}


@pytest.mark.parametrize("name", list(ACTS))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1,), (3,), (33, 7), (1000003,), ()])
def test_activations(dev, name, dtype, shape):
    if shape == (1000003,) and dtype in ("float16", "bfloat16"):
        shape = (40001,)  # the CPU reference is slow in half types
    _compare(ACTS[name], [_rand(shape, spread=4.0)], dtype, dev, scale=2.0)


@pytest.mark.parametrize("name", list(ACTS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_activations_strided_extreme_empty(dev, name, dtype):
    a = _rand((30, 20), spread=4.0)
    a[0, :6] = [0.0, -0.0, 30.0, -30.0, 9.0, -9.0]
    _compare(ACTS[name], [a], dtype, dev, view=lambda t: t.t()[::2], scale=2.0)
    _compare(ACTS[name], [_rand((0, 4))], dtype, dev)


# -- the fused kernels run (no silent fallback to the generic ones) ----------------------

GENERIC = {
    "lucid.backend.array.special.XpSpecial": [
        "softmax",
        "log_softmax",
        "softmax_backward",
        "log_softmax_backward",
    ],
    "lucid.backend.array.norm.XpNorm": ["norm_forward", "norm_backward"],
    "lucid.backend.array.loss.XpLoss": [
        "cross_entropy",
        "cross_entropy_backward",
        "gelu",
        "gelu_backward",
        "silu",
        "silu_backward",
    ],
}


def test_fused_paths_taken(dev, monkeypatch):
    """Contiguous, transposed and K-dim inputs of every dtype never reach the generic
    kernels."""
    if lucid.device(dev).type == "cpu":
        pytest.skip("the CPU runs the generic kernels")
    import importlib

    def generic(*args, **kwargs):
        raise AssertionError("a generic kernel ran")

    for path, names in GENERIC.items():
        mod, cls = path.rsplit(".", 1)
        for name in names:
            monkeypatch.setattr(getattr(importlib.import_module(mod), cls), name, generic)
    for dtype in DTYPES:
        x = _leaf(_rand((6, 33)), dtype, dev)
        w, b = _leaf(_rand((33,)), dtype, dev), _leaf(_rand((33,)), dtype, dev)
        outs = [
            lucid.softmax(x, -1),
            lucid.softmax(x.t(), 0),
            F.log_softmax(x, 0),
            F.layer_norm(x, (33,), w, b),
            F.rms_norm(x, (33,), w),
            F.gelu(x),
            F.gelu(x, approximate="tanh"),
            F.silu(x.t()),
            F.cross_entropy(x, lucid.tensor(np.arange(6) % 33).to(dev), label_smoothing=0.1),
            F.cross_entropy(x.reshape(2, 33, 3), lucid.tensor(np.zeros((2, 3), np.int64)).to(dev)),
        ]
        sum(o.float().sum() for o in outs).backward()
        assert x.grad is not None and w.grad is not None and b.grad is not None
