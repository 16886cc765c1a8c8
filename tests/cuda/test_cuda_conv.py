"""The CUDA convolution kernels (im2col, col2im, bias; lucid/backend/cuda/conv.py) against
the same Lucid call on the CPU: conv1d/2d/3d and conv_transpose1d/2d/3d forward with the
input, weight and bias gradients, unfold and fold, for every float dtype, with stride,
padding (asymmetric, "same"), dilation, groups (depthwise too), odd sizes and 1x1 kernels;
non-contiguous and empty inputs, the 64-bit index kernels, and that the generic kernels
are not reached."""

import importlib

import numpy as np
import pytest

import lucid
import lucid.nn.functional as F

pytestmark = pytest.mark.cuda

DTYPES = ["float32", "float64", "float16", "bfloat16"]
# (rtol, atol) with atol relative to the reference's largest magnitude (long sums): half
# types multiply in float32 on both sides, so they are a rounding or two apart
TOL = {
    "float32": (1e-4, 1e-5),
    "float64": (1e-10, 1e-12),
    "float16": (1e-2, 4e-3),
    "bfloat16": (5e-2, 3e-2),
}


def _np(t):
    return t.detach().cpu().to(lucid.float64).numpy()


def _close(got, want, dtype):
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    rtol, atol = TOL[dtype]
    w = _np(want)
    np.testing.assert_allclose(
        _np(got), w, rtol=rtol, atol=atol * max(1.0, float(np.abs(w).max(initial=0)))
    )


def _leaf(a, dtype, device, grad=True):
    t = lucid.tensor(a).to(getattr(lucid, dtype)).to(device)
    return t.requires_grad_() if grad else t


def _compare(fn, arrays, dtype, dev, view=None):
    """``fn(*leaves)`` on the CPU and on ``dev`` (``view`` applied to the first leaf), the
    outputs and the gradients of ``sum(out * u)`` to every leaf compared."""
    results = []
    for device in ("cpu", dev):
        leaves = [None if a is None else _leaf(a, dtype, device) for a in arrays]
        ins = list(leaves)
        if view is not None:
            ins[0] = view(ins[0])
        out = fn(*ins)
        if out.numel():
            u = np.random.default_rng(7).standard_normal(tuple(out.shape))
            (out * _leaf(u, dtype, device, False)).sum().backward()
        results.append((out, leaves))
    (oc, lc), (og, lg) = results
    assert og.device.type == lucid.device(dev).type
    _close(og, oc, dtype)
    if oc.numel():
        for a, b in zip(lg, lc):
            if b is not None:
                _close(a.grad, b.grad, dtype)


def _rand(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
TRANSPOSE = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}

# (N, C_in, C_out, spatial, kernel, options)
CONV_CASES = [
    (2, 3, 4, (7,), (3,), dict(padding=1)),
    (1, 4, 6, (9,), (2,), dict(stride=2, groups=2)),
    (3, 2, 2, (10,), (3,), dict(stride=3, padding=2, dilation=2, groups=2)),
    (2, 5, 3, (8,), (1,), {}),
    (2, 5, 3, (8,), (1,), dict(stride=2)),
    (2, 3, 4, (11,), (4,), dict(padding="same", dilation=2)),
    (1, 1, 1, (1,), (1,), {}),
    (4, 32, 64, (16, 16), (3, 3), dict(padding=1)),  # benchmarks/train.py
    (2, 3, 32, (32, 32), (3, 3), dict(padding=1)),
    (2, 3, 5, (7, 5), (3, 3), dict(padding=(1, 0), stride=(2, 1), dilation=(1, 2))),
    (2, 6, 6, (9, 7), (3, 3), dict(padding=1, stride=2, groups=6)),  # depthwise
    (2, 8, 16, (8, 8), (3, 3), dict(padding=1, groups=8)),  # channel multiplier
    (1, 6, 9, (11, 5), (4, 2), dict(padding=(2, 1), stride=(3, 2), dilation=(2, 1), groups=3)),
    (2, 4, 6, (8, 8), (4, 4), dict(padding="same")),
    (2, 4, 6, (6, 6), (1, 1), {}),
    (2, 4, 6, (7, 7), (1, 1), dict(stride=2, padding=1)),
    (1, 3, 2, (5, 6), (5, 6), {}),
    (2, 2, 3, (5, 6, 4), (3, 3, 3), dict(padding=1)),
    (
        1,
        4,
        4,
        (7, 5, 6),
        (2, 3, 1),
        dict(stride=(2, 1, 3), padding=(1, 1, 0), dilation=(2, 1, 1), groups=2),
    ),
    (2, 3, 3, (4, 4, 4), (1, 1, 1), dict(groups=3)),
    (1, 2, 2, (6, 7, 5), (3, 2, 2), dict(stride=2, padding="valid", dilation=(1, 2, 2))),
]

# (N, C_in, C_out, spatial, kernel, options): weight (C_in, C_out / groups, *kernel)
TRANSPOSE_CASES = [
    (2, 3, 4, (7,), (3,), dict(padding=1)),
    (2, 4, 6, (5,), (3,), dict(stride=2, padding=1, output_padding=1, groups=2)),
    (1, 2, 2, (6,), (2,), dict(stride=3, dilation=2, output_padding=1)),
    (2, 4, 3, (5, 4), (3, 3), dict(stride=2, padding=1, output_padding=1)),
    (
        2,
        6,
        6,
        (4, 5),
        (4, 3),
        dict(stride=(2, 3), padding=(1, 0), dilation=(1, 2), groups=3, output_padding=(1, 0)),
    ),
    (2, 4, 4, (6, 6), (1, 1), {}),
    (2, 4, 4, (3, 3), (2, 2), dict(stride=2, groups=4)),
    (1, 2, 3, (3, 4, 3), (3, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    (2, 4, 2, (3, 3, 2), (2, 1, 3), dict(stride=(1, 2, 1), padding=(0, 0, 1), groups=2)),
]


def _case_id(c):
    return f"{len(c[3])}d-{c[0]}x{c[1]}->{c[2]}-{c[3]}-k{c[4]}-{c[5]}"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CONV_CASES, ids=_case_id)
@pytest.mark.parametrize("bias", [True, False])
def test_conv(dev, dtype, case, bias):
    n, ci, co, spatial, kernel, opts = case
    groups = opts.get("groups", 1)
    arrays = [
        _rand((n, ci) + spatial),
        _rand((co, ci // groups) + kernel, 1) * 0.5,
        _rand((co,), 2) if bias else None,
    ]
    _compare(lambda x, w, b: CONV[len(spatial)](x, w, b, **opts), arrays, dtype, dev)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", TRANSPOSE_CASES, ids=_case_id)
@pytest.mark.parametrize("bias", [True, False])
def test_conv_transpose(dev, dtype, case, bias):
    n, ci, co, spatial, kernel, opts = case
    groups = opts.get("groups", 1)
    arrays = [
        _rand((n, ci) + spatial),
        _rand((ci, co // groups) + kernel, 1) * 0.5,
        _rand((co,), 2) if bias else None,
    ]
    _compare(lambda x, w, b: TRANSPOSE[len(spatial)](x, w, b, **opts), arrays, dtype, dev)


@pytest.mark.parametrize("dtype", DTYPES)
def test_conv_non_contiguous_input(dev, dtype):
    """A transposed (N <-> C) and a sliced input are copied once, then the kernels."""
    w = _rand((5, 4, 3, 3), 1)
    _compare(
        lambda x, w: F.conv2d(x, w, padding=1, stride=2),
        [_rand((4, 3, 9, 8)), w],
        dtype,
        dev,
        view=lambda t: t.transpose(0, 1),
    )
    _compare(
        lambda x, w: F.conv2d(x, w, padding=1),
        [_rand((3, 4, 9, 16)), w],
        dtype,
        dev,
        view=lambda t: t[..., ::2],
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_conv_empty_batch(dev, dtype):
    """An empty batch goes to the generic kernels: shapes and zero gradients agree."""
    _compare(
        lambda x, w, b: F.conv2d(x, w, b, padding=1),
        [np.zeros((0, 3, 5, 5)), _rand((4, 3, 3, 3)), _rand((4,))],
        dtype,
        dev,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "opts",
    [
        dict(kernel_size=3, padding=1),
        dict(kernel_size=(2, 3), stride=(2, 1), dilation=(1, 2)),
        dict(kernel_size=1),
    ],
    ids=str,
)
def test_unfold_fold(dev, dtype, opts):
    """unfold is im2col, fold col2im, each the other's gradient."""
    _compare(lambda x: F.unfold(x, **opts), [_rand((2, 3, 7, 6))], dtype, dev)
    cpu = F.unfold(lucid.tensor(_rand((2, 3, 7, 6))), **opts)
    _compare(lambda c: F.fold(c, (7, 6), **opts), [_rand(tuple(cpu.shape), 3)], dtype, dev)


def test_64_bit_index_kernels(dev, monkeypatch):
    """The 64-bit index kernels (taken from 2**31 elements) agree with the CPU."""
    if lucid.device(dev).type == "cpu":
        pytest.skip("the CPU runs the generic kernels")
    conv = importlib.import_module("lucid.backend.cuda.conv")
    launch, names = conv._launch, []

    def wide(what, dtype, total, largest, args):
        names.append(what)
        return launch(what, dtype, total, 2**31, args)

    monkeypatch.setattr(conv, "_launch", wide)
    monkeypatch.setattr(lucid.backends.cudnn, "enabled", False)  # (Lucid's kernels)
    for dtype in ("float32", "bfloat16"):
        _compare(
            lambda x, w, b: F.conv2d(x, w, b, padding=(1, 0), stride=(2, 1), groups=2),
            [_rand((2, 4, 7, 6)), _rand((6, 2, 3, 2), 1), _rand((6,), 2)],
            dtype,
            dev,
        )
    assert {"im2col", "col2im"} <= set(names)


def test_generic_switch(dev, monkeypatch):
    """With ``_FAST`` off every call takes the generic kernels, which agree too."""
    if lucid.device(dev).type == "cpu":
        pytest.skip("the CPU runs the generic kernels")
    monkeypatch.setattr(importlib.import_module("lucid.backend.cuda.conv"), "_FAST", False)
    _compare(
        lambda x, w, b: F.conv2d(x, w, b, padding=1),
        [_rand((2, 3, 6, 5)), _rand((4, 3, 3, 3), 1), _rand((4,), 2)],
        "float32",
        dev,
    )


GENERIC = [
    "conv_forward",
    "conv_backward_input",
    "conv_backward_weight",
    "im2col",
    "col2im",
    "_columns",
    "_col2im_scratch",
    "_row_columns",
    "_shifted_columns",
]


def test_fast_paths_taken(dev, monkeypatch):
    """Convolutions, transposed convolutions, unfold and fold of every dtype and dim never
    reach the generic kernels."""
    if lucid.device(dev).type == "cpu":
        pytest.skip("the CPU runs the generic kernels")
    xp_conv = importlib.import_module("lucid.backend.array.conv").XpConv

    def generic(*args, **kwargs):
        raise AssertionError("a generic conv kernel ran")

    for name in GENERIC:
        monkeypatch.setattr(xp_conv, name, generic)
    for dtype in DTYPES:
        for n in (1, 2, 3):
            sp = (6, 5, 4)[:n]
            x = _leaf(_rand((2, 4) + sp), dtype, dev)
            w = _leaf(_rand((6, 2) + (3,) * n, 1), dtype, dev)
            b = _leaf(_rand((6,), 2), dtype, dev)
            w1 = _leaf(_rand((6, 4) + (1,) * n, 3), dtype, dev)
            wt = _leaf(_rand((4, 3) + (2,) * n, 4), dtype, dev)
            outs = [
                CONV[n](x, w, b, padding=1, groups=2),
                CONV[n](x, w, b, stride=2, dilation=2, padding="valid" if n < 3 else 2, groups=2),
                CONV[n](x, w1, b),  # a 1x1 kernel: the GEMM alone
                TRANSPOSE[n](x, wt, b[:3], stride=2, padding=1, output_padding=1),
            ]
            if n == 2:
                cols = F.unfold(x, 3, padding=1)
                outs += [cols, F.fold(cols, sp, 3, padding=1)]
            sum(o.float().sum() for o in outs).backward()
            assert x.grad is not None and w.grad is not None and b.grad is not None
            assert w1.grad is not None and wt.grad is not None
