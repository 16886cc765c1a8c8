"""Convolutions: F.conv1d/2d/3d and F.conv_transpose1d/2d/3d against PyTorch (values and
gradients of input, weight and bias), double backward, argument checks, and the
Conv/ConvTranspose layers (weights copied from torch's, padding modes, output_size,
initialisation statistics, repr)."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.errors import ArgumentError, DTypeError, ShapeError

pytestmark = pytest.mark.filterwarnings("ignore:Using padding=.same.:UserWarning")

TOL = {np.float64: dict(rtol=1e-10, atol=1e-10), np.float32: dict(rtol=1e-4, atol=1e-4)}


def _rng(seed=0):
    return np.random.default_rng(seed)


def _parity(lfn, tfn, arrays, dtype=np.float64, grad=True):
    """Compare ``lfn(*lucid tensors)`` with ``tfn(*torch tensors)``: value and gradients."""
    arrays = [a.astype(dtype) for a in arrays]
    lt = [lucid.tensor(a, requires_grad=grad) for a in arrays]
    tt = [torch.tensor(a, requires_grad=grad) for a in arrays]
    ly, ty = lfn(*lt), tfn(*tt)
    assert tuple(ly.shape) == tuple(ty.shape)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **TOL[dtype])
    if not grad:
        return
    g = _rng(9).standard_normal(tuple(ty.shape)).astype(dtype)
    lg = lucid.autograd.grad([ly], lt, [lucid.tensor(g)])
    tg = torch.autograd.grad([ty], tt, [torch.tensor(g)])
    for a, b in zip(lg, tg):
        assert a.dtype == ly.dtype
        np.testing.assert_allclose(a.numpy(), b.numpy(), **TOL[dtype])


CONV = [
    # (n, x shape, w shape, kwargs)
    (1, (2, 3, 9), (4, 3, 3), dict()),
    (1, (2, 4, 10), (6, 2, 4), dict(stride=3, padding=2, dilation=2, groups=2)),
    (1, (2, 3, 8), (4, 3, 4), dict(padding="same")),
    (1, (2, 3, 8), (4, 3, 3), dict(padding="valid")),
    (2, (2, 3, 7, 8), (5, 3, 3, 3), dict(stride=2, padding=1)),
    (2, (2, 4, 7, 8), (6, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)),
    (2, (2, 4, 6, 7), (4, 1, 3, 3), dict(padding=1, groups=4)),  # depthwise
    (2, (2, 3, 6, 7), (4, 3, 2, 4), dict(padding="same", dilation=(2, 1))),
    (2, (1, 3, 5, 5), (2, 3, 1, 1), dict()),  # 1x1
    (3, (1, 2, 4, 5, 6), (3, 2, 2, 3, 2), dict(stride=(1, 2, 1), padding=(1, 0, 1))),
    (3, (2, 4, 4, 4, 5), (4, 2, 3, 3, 3), dict(padding="same", groups=2)),
]
FN = {1: (F.conv1d, TF.conv1d), 2: (F.conv2d, TF.conv2d), 3: (F.conv3d, TF.conv3d)}


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "nobias"])
@pytest.mark.parametrize("case", CONV, ids=[str(i) for i in range(len(CONV))])
def test_conv_matches_torch(case, bias, dtype):
    n, xs, ws, kw = case
    lf, tf = FN[n]
    r = _rng(1)
    arrays = [r.standard_normal(xs), r.standard_normal(ws)]
    if bias:
        arrays.append(r.standard_normal(ws[0]))
    _parity(lambda *a: lf(*a, **kw), lambda *a: tf(*a, **kw), arrays, dtype)


TRANSPOSED = [
    (1, (2, 3, 5), (3, 4, 3), dict()),
    (1, (2, 4, 5), (4, 2, 3), dict(stride=2, padding=1, output_padding=1, groups=2)),
    (2, (2, 3, 4, 5), (3, 2, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    (
        2,
        (2, 4, 3, 3),
        (4, 3, 3, 2),
        dict(stride=(2, 3), padding=(0, 1), output_padding=(1, 2), groups=2, dilation=(1, 2)),
    ),
    (2, (1, 2, 3, 4), (2, 3, 2, 2), dict(stride=1, dilation=3, output_padding=2)),
    (3, (1, 2, 2, 3, 2), (2, 2, 2, 2, 2), dict(stride=2)),
    (3, (1, 2, 3, 3, 3), (2, 1, 3, 3, 3), dict(stride=2, padding=1, output_padding=1)),
]
TFN = {
    1: (F.conv_transpose1d, TF.conv_transpose1d),
    2: (F.conv_transpose2d, TF.conv_transpose2d),
    3: (F.conv_transpose3d, TF.conv_transpose3d),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "nobias"])
@pytest.mark.parametrize("case", TRANSPOSED, ids=[str(i) for i in range(len(TRANSPOSED))])
def test_conv_transpose_matches_torch(case, bias, dtype):
    n, xs, ws, kw = case
    lf, tf = TFN[n]
    r = _rng(2)
    arrays = [r.standard_normal(xs), r.standard_normal(ws)]
    if bias:
        arrays.append(r.standard_normal(ws[1] * kw.get("groups", 1)))
    _parity(lambda *a: lf(*a, **kw), lambda *a: tf(*a, **kw), arrays, dtype)


WIDE = [
    # stride-1 convolutions with >= 64 input channels a group: the input gradient (and a
    # stride-1 transposed convolution's forward) is the convolution of the output gradient
    # with the flipped kernel
    (2, (2, 64, 6, 5), (8, 64, 3, 3), dict(padding=1)),
    (2, (2, 128, 6, 7), (6, 64, 3, 2), dict(padding=(2, 0), dilation=(2, 1), groups=2)),
    (2, (1, 64, 5, 5), (4, 64, 1, 1), dict()),
    (2, (1, 64, 6, 6), (4, 64, 4, 4), dict(padding="same")),
    (1, (2, 64, 9), (3, 64, 3), dict(padding=1, dilation=3)),  # padding < d (k - 1)
    (3, (1, 64, 3, 4, 3), (2, 64, 3, 3, 3), dict(padding=1)),
]
WIDE_T = [
    (2, (2, 3, 4, 5), (3, 64, 3, 3), dict(padding=1)),
    (2, (1, 4, 4, 3), (4, 64, 2, 3), dict(output_padding=0, groups=2, dilation=2)),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("case", WIDE + WIDE_T, ids=[str(i) for i in range(len(WIDE + WIDE_T))])
def test_wide_stride_one_input_gradient_matches_torch(case, dtype):
    n, xs, ws, kw = case
    lf, tf = (FN if case in WIDE else TFN)[n]
    r = _rng(11)
    _parity(
        lambda *a: lf(*a, **kw),
        lambda *a: tf(*a, **kw),
        [r.standard_normal(xs), r.standard_normal(ws) * 0.1],
        dtype,
    )


MERGED = [
    # 2-D stride-1 width-keeping convolutions of small maps (C_g K_1 >= 64, N P >= 4096):
    # the CPU forward and weight gradient run one GEMM per kernel row over the whole batch
    (2, (16, 32, 16, 16), (8, 32, 3, 3), dict(padding=1)),
    (2, (24, 64, 14, 14), (6, 32, 3, 3), dict(padding=2, dilation=2, groups=2)),
    (2, (25, 32, 13, 13), (4, 32, 4, 4), dict(padding="same")),
    (2, (24, 32, 16, 16), (4, 32, 3, 3), dict(padding=(0, 1))),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("case", MERGED, ids=[str(i) for i in range(len(MERGED))])
def test_batch_merged_row_forward_matches_torch(case, dtype):
    n, xs, ws, kw = case
    lf, tf = FN[n]
    r = _rng(12)
    _parity(
        lambda *a: lf(*a, **kw),
        lambda *a: tf(*a, **kw),
        [
            r.standard_normal(xs) * 0.1,
            r.standard_normal(ws) * 0.1,  # (weight sums of
            r.standard_normal(ws[0]),
        ],
        dtype,
    )  # ~5000 terms)


def test_non_contiguous_input_and_weight():
    r = _rng(3)
    x = r.standard_normal((7, 6, 3, 2))  # transposed to (2, 3, 6, 7) below
    w = r.standard_normal((3, 3, 4, 2))  # permuted to (4, 3, 3, 3)

    def lf(x, w):
        return F.conv2d(
            x.permute(3, 2, 1, 0), w.permute(2, 1, 0, 3)[..., :1].expand(4, 3, 3, 3), padding=1
        )

    def tf(x, w):
        return TF.conv2d(
            x.permute(3, 2, 1, 0), w.permute(2, 1, 0, 3)[..., :1].expand(4, 3, 3, 3), padding=1
        )

    _parity(lf, tf, [x, w])


def test_empty_batch():
    r = _rng(4)
    _parity(
        lambda x, w: F.conv2d(x, w, padding=1),
        lambda x, w: TF.conv2d(x, w, padding=1),
        [r.standard_normal((0, 3, 5, 5)), r.standard_normal((2, 3, 3, 3))],
    )
    _parity(
        lambda x, w: F.conv_transpose2d(x, w, stride=2),
        lambda x, w: TF.conv_transpose2d(x, w, stride=2),
        [r.standard_normal((0, 3, 4, 4)), r.standard_normal((3, 2, 3, 3))],
    )


def test_unbatched_input():
    r = _rng(5)
    _parity(
        lambda x, w, b: F.conv1d(x, w, b, padding=1),
        lambda x, w, b: TF.conv1d(x, w, b, padding=1),
        [r.standard_normal((3, 8)), r.standard_normal((2, 3, 3)), r.standard_normal(2)],
    )
    _parity(
        lambda x, w: F.conv_transpose2d(x, w, stride=2),
        lambda x, w: TF.conv_transpose2d(x, w, stride=2),
        [r.standard_normal((3, 4, 4)), r.standard_normal((3, 2, 3, 3))],
    )


@pytest.mark.parametrize("transposed", [False, True], ids=["conv", "transposed"])
def test_double_backward_matches_torch(transposed):
    """A gradient penalty: d/dw of |dL/dx|^2 (the graph-mode gradient is a conv again)."""
    r = _rng(6)
    if transposed:
        xs, ws, kw = (
            (2, 4, 4, 5),
            (4, 3, 3, 2),
            dict(stride=2, padding=1, output_padding=1, groups=2),
        )
        lf, tf = F.conv_transpose2d, TF.conv_transpose2d
    else:
        xs, ws, kw = (
            (2, 4, 6, 5),
            (6, 2, 3, 2),
            dict(stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
        )
        lf, tf = F.conv2d, TF.conv2d
    x, w, b = (
        r.standard_normal(xs),
        r.standard_normal(ws),
        r.standard_normal(ws[1] * 2 if transposed else ws[0]),
    )
    res = []
    for lib, fn in ((lucid, lf), (torch, tf)):
        xt, wt, bt = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
        y = fn(xt, wt, bt, **kw)
        (gx,) = lib.autograd.grad([(y * y).sum()], [xt], create_graph=True)
        gw, gb, gx2 = lib.autograd.grad([(gx * gx).sum()], [wt, bt, xt], allow_unused=True)
        res.append([t.detach().numpy() if t is not None else None for t in (gx, gw, gb, gx2)])
    for a, b_ in zip(*res):
        if b_ is None:
            assert a is None or not np.any(a)
        else:
            np.testing.assert_allclose(a, b_, rtol=1e-9, atol=1e-9)


def test_conv_under_no_grad_records_nothing():
    x = lucid.randn(1, 2, 4, 4, requires_grad=True)
    w = lucid.randn(3, 2, 3, 3, requires_grad=True)
    with lucid.no_grad():
        y = F.conv2d(x, w)
    assert y.grad_fn is None and not y.requires_grad


def test_saves_only_what_the_wanted_gradients_need():
    """The weight's gradient needs the input, the input's the weight: an input that needs
    no gradient may change in place after the forward."""
    x = lucid.randn(1, 2, 5, 5)
    w = lucid.randn(3, 2, 3, 3, requires_grad=True)
    y = F.conv2d(x, w)
    w2 = lucid.randn(3, 2, 3, 3)
    x2 = lucid.randn(1, 2, 5, 5, requires_grad=True)
    y2 = F.conv2d(x2, w2)
    w2.add_(1.0)  # x2's gradient needs w2: in-place change is an error
    with pytest.raises(lucid.errors.VersionMismatchError):
        y2.sum().backward()
    y.sum().backward()
    assert w.grad is not None


def test_errors():
    x = lucid.randn(1, 4, 8, 8)
    w = lucid.randn(2, 3, 3, 3)
    with pytest.raises(
        ShapeError,
        match=r"conv2d: Given groups=1, weight of size \[2, 3, 3, "
        r"3\], expected input\[1, 4, 8, 8\] to have 3 channels, but got 4",
    ):
        F.conv2d(x, w)
    with pytest.raises(ShapeError, match="Expected 3D .unbatched. or 4D .batched. input"):
        F.conv2d(lucid.randn(4, 8), w)
    with pytest.raises(ArgumentError, match="padding='same' is not supported for strided"):
        F.conv2d(x, lucid.randn(2, 4, 3, 3), stride=2, padding="same")
    with pytest.raises(ArgumentError, match="Invalid padding string"):
        F.conv2d(x, lucid.randn(2, 4, 3, 3), padding="full")
    with pytest.raises(ShapeError, match="Kernel size can't be greater than actual input"):
        F.conv2d(lucid.randn(1, 4, 2, 2), lucid.randn(2, 4, 3, 3))
    with pytest.raises(ShapeError, match=r"expected bias of shape \[2\]"):
        F.conv2d(x, lucid.randn(2, 4, 3, 3), lucid.randn(3))
    with pytest.raises(ShapeError, match="divisible by 3 at dimension 0"):
        F.conv2d(lucid.randn(1, 3, 5, 5), lucid.randn(4, 1, 3, 3), groups=3)
    with pytest.raises(ArgumentError, match="non-positive groups"):
        F.conv2d(x, lucid.randn(2, 4, 3, 3), groups=0)
    with pytest.raises(ArgumentError, match="stride should be positive"):
        F.conv2d(x, lucid.randn(2, 4, 3, 3), stride=0)
    with pytest.raises(DTypeError, match="input type .float32. and weight type .float64."):
        F.conv2d(x, lucid.randn(2, 4, 3, 3, dtype=lucid.float64))
    with pytest.raises(DTypeError, match="floating point"):
        F.conv1d(lucid.ones(1, 1, 4, dtype=lucid.int64), lucid.ones(1, 1, 2))
    with pytest.raises(
        ArgumentError, match="output padding must be smaller than either stride or dilation"
    ):
        F.conv_transpose2d(x, lucid.randn(4, 2, 3, 3), stride=2, output_padding=2)
    with pytest.raises(ShapeError, match=r"Given transposed=1, weight of size \[3, 2, 3, 3\]"):
        F.conv_transpose2d(x, lucid.randn(3, 2, 3, 3))


# -- layers ---------------------------------------------------------------------------


def _copy(lmod, tmod):
    lmod.weight.data = lucid.tensor(tmod.weight.detach().numpy().copy())
    if tmod.bias is not None:
        lmod.bias.data = lucid.tensor(tmod.bias.detach().numpy().copy())


def _module_parity(lmod, tmod, x, **fwd):
    _copy(lmod, tmod)
    lx = lucid.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    ly, ty = lmod(lx, **fwd), tmod(tx, **fwd)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-5)
    g = _rng(7).standard_normal(tuple(ty.shape)).astype(np.float32)
    ly.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(
        lmod.weight.grad.numpy(), tmod.weight.grad.numpy(), rtol=1e-4, atol=1e-4
    )
    if tmod.bias is not None:
        np.testing.assert_allclose(
            lmod.bias.grad.numpy(), tmod.bias.grad.numpy(), rtol=1e-4, atol=1e-4
        )


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_conv_layers_match_torch(n, mode):
    args = (4, 6, 3)
    kw = dict(
        stride=1 if n == 3 else 2,
        padding=(1,) * (n - 1) + (2,),
        dilation=1,
        groups=2,
        bias=n != 2,
        padding_mode=mode,
    )
    lmod = getattr(nn, f"Conv{n}d")(*args, **kw)
    tmod = getattr(torch.nn, f"Conv{n}d")(*args, **kw)
    x = _rng(8).standard_normal((2, 4) + (5,) * n).astype(np.float32)
    _module_parity(lmod, tmod, x)


def test_padding_mode_is_applied():
    x = lucid.randn(1, 1, 6)
    convs = {
        m: nn.Conv1d(1, 1, 3, padding=1, padding_mode=m, bias=False)
        for m in ("zeros", "reflect", "circular")
    }
    for c in convs.values():
        c.weight.data = lucid.ones(1, 1, 3)
    outs = {m: c(x).detach().numpy() for m, c in convs.items()}
    xs = x.numpy()[0, 0]
    assert np.isclose(outs["zeros"][0, 0, 0], xs[0] + xs[1])
    assert np.isclose(outs["reflect"][0, 0, 0], xs[1] + xs[0] + xs[1])
    assert np.isclose(outs["circular"][0, 0, 0], xs[-1] + xs[0] + xs[1])


@pytest.mark.parametrize("padding", ["same", "valid"])
def test_conv_layer_string_padding(padding):
    lmod = nn.Conv2d(3, 4, (2, 3), padding=padding, dilation=(3, 1), padding_mode="reflect")
    tmod = torch.nn.Conv2d(3, 4, (2, 3), padding=padding, dilation=(3, 1), padding_mode="reflect")
    _module_parity(lmod, tmod, _rng(9).standard_normal((2, 3, 7, 6)).astype(np.float32))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_conv_transpose_layers_match_torch(n):
    kw = dict(stride=2, padding=1, output_padding=1, groups=2, dilation=1, bias=True)
    lmod = getattr(nn, f"ConvTranspose{n}d")(4, 6, 3, **kw)
    tmod = getattr(torch.nn, f"ConvTranspose{n}d")(4, 6, 3, **kw)
    _module_parity(lmod, tmod, _rng(10).standard_normal((2, 4) + (3,) * n).astype(np.float32))


def test_conv_transpose_output_size():
    lmod = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    tmod = torch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    x = _rng(11).standard_normal((1, 3, 4, 5)).astype(np.float32)
    for size in [(7, 9), (8, 10), (1, 2, 8, 9)]:
        _module_parity(lmod, tmod, x, output_size=size)
        lmod.zero_grad()
        tmod.zero_grad()
    assert tuple(lmod(lucid.tensor(x), output_size=(8, 10)).shape) == (1, 2, 8, 10)
    with pytest.raises(ShapeError, match="requested an output size of"):
        lmod(lucid.tensor(x), output_size=(9, 9))


@pytest.mark.parametrize(
    "make,shape,fan_in",
    [
        (lambda: nn.Conv1d(4, 8, 5), (8, 4, 5), 20),
        (lambda: nn.Conv2d(4, 16, 3, groups=2), (16, 2, 3, 3), 18),
        (lambda: nn.Conv3d(3, 6, 2), (6, 3, 2, 2, 2), 24),
        (lambda: nn.ConvTranspose2d(4, 16, 3, groups=2), (4, 8, 3, 3), 72),
        (lambda: nn.Conv2d(64, 64, 3), (64, 64, 3, 3), 576),
    ],
    ids=["1d", "2d", "3d", "t2d", "big"],
)
def test_initialisation_as_torch(make, shape, fan_in):
    """kaiming_uniform_(a=sqrt(5)) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)), and so is the
    bias (ConvTranspose takes fan_in from its weight's dim 1, as PyTorch does)."""
    lucid.manual_seed(0)
    m = make()
    assert tuple(m.weight.shape) == shape and m.weight.requires_grad
    bound = 1 / math.sqrt(fan_in)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.7 * bound
    assert np.abs(b).max() <= bound and b.shape == (m.out_channels,)
    if w.size > 10000:  # the std of U(-a, a) is a / sqrt(3)
        assert abs(w.std() * math.sqrt(3) / bound - 1) < 0.02


def test_repr_as_torch():
    cases = [
        ("Conv2d", (3, 8, 3), dict()),
        (
            "Conv2d",
            (4, 8, (3, 2)),
            dict(stride=2, padding=1, dilation=2, groups=2, bias=False, padding_mode="reflect"),
        ),
        ("Conv1d", (3, 8, 3), dict(padding="same")),
        ("Conv3d", (2, 4, 3), dict(padding=(1, 0, 1))),
        ("ConvTranspose2d", (3, 8, 3), dict(stride=2, output_padding=1)),
        ("ConvTranspose1d", (4, 8, 3), dict(groups=4, dilation=2)),
    ]
    for cls, args, kw in cases:
        assert repr(getattr(nn, cls)(*args, **kw)) == repr(getattr(torch.nn, cls)(*args, **kw))


def test_layer_argument_checks():
    with pytest.raises(ArgumentError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ArgumentError, match="out_channels must be divisible by groups"):
        nn.Conv2d(4, 3, 3, groups=2)
    with pytest.raises(ArgumentError, match="padding_mode must be one of"):
        nn.Conv2d(4, 3, 3, padding_mode="mirror")
    with pytest.raises(ArgumentError, match="padding='same' is not supported for strided"):
        nn.Conv2d(4, 3, 3, stride=2, padding="same")
    with pytest.raises(ArgumentError, match='Only "zeros" padding mode'):
        nn.ConvTranspose2d(4, 3, 3, padding_mode="reflect")


def test_state_dict_keys_as_torch():
    assert set(nn.Conv2d(3, 4, 3).state_dict()) == {"weight", "bias"}
    assert set(nn.ConvTranspose2d(3, 4, 3, bias=False).state_dict()) == {"weight"}


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_precision_computes_in_float32(dt):
    """Half inputs multiply in float32 and round back: close to the float32 result, in the
    input's dtype, gradients too."""
    dt = getattr(lucid, dt)
    r = _rng(12)
    x = lucid.tensor(r.standard_normal((2, 3, 6, 6)).astype(np.float32))
    w = lucid.tensor(r.standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.3)
    ref = F.conv2d(x, w, padding=1).numpy()
    xh, wh = x.to(dt).requires_grad_(), w.to(dt).requires_grad_()
    y = F.conv2d(xh, wh, padding=1)
    assert y.dtype == dt
    tol = 2e-2 if dt == lucid.float16 else 1e-1
    np.testing.assert_allclose(y.float().detach().numpy(), ref, atol=tol * 3, rtol=tol)
    y.sum().backward()
    assert xh.grad.dtype == dt and wh.grad.dtype == dt
    yt = F.conv_transpose2d(xh, wh.transpose(0, 1).contiguous(), stride=2)
    assert yt.dtype == dt


def test_autocast_runs_conv_in_the_autocast_dtype():
    x, w = lucid.randn(1, 2, 5, 5), lucid.randn(3, 2, 3, 3, requires_grad=True)
    with lucid.amp.autocast("cpu", dtype=lucid.bfloat16):
        y = F.conv2d(x, w)
    assert y.dtype == lucid.bfloat16
    y.float().sum().backward()
    assert w.grad.dtype == lucid.float32


@pytest.mark.parametrize(
    "name,kw,shape",
    [
        ("LazyConv1d", dict(padding=1), (2, 4, 7)),
        ("LazyConv2d", dict(stride=2, groups=2), (2, 4, 7, 6)),
        ("LazyConv3d", dict(bias=False), (1, 4, 4, 4, 4)),
        ("LazyConvTranspose2d", dict(stride=2, output_padding=1, groups=2), (2, 4, 3, 3)),
        ("LazyConvTranspose1d", dict(), (4, 5)),
    ],
)
def test_lazy_layers_become_their_layer(name, kw, shape):
    m = getattr(nn, name)(6, 3, **kw)
    assert isinstance(m.weight, nn.UninitializedParameter)
    x = lucid.tensor(_rng(13).standard_normal(shape).astype(np.float32))
    y = m(x)
    base = name.replace("Lazy", "")
    assert type(m) is getattr(nn, base) and m.in_channels == 4
    t = getattr(torch.nn, base)(4, 6, 3, **kw)
    assert tuple(m.weight.shape) == tuple(t.weight.shape) and repr(m) == repr(t)
    assert (m.bias is None) == (t.bias is None)
    bound = 1 / math.sqrt(math.prod(t.weight.shape[1:]))
    assert np.abs(m.weight.detach().numpy()).max() <= bound
    _copy(m, t)
    np.testing.assert_allclose(
        m(x).detach().numpy(), t(torch.tensor(x.numpy())).detach().numpy(), rtol=1e-4, atol=1e-5
    )
    assert tuple(y.shape) == tuple(t(torch.tensor(x.numpy())).shape)


def test_lazy_layer_from_state_dict():
    m = nn.LazyConv2d(5, 2, groups=1)
    src = nn.Conv2d(3, 5, 2)
    m.load_state_dict(src.state_dict())
    x = lucid.randn(1, 3, 4, 4)
    np.testing.assert_array_equal(m(x).detach().numpy(), src(x).detach().numpy())
    assert type(m) is nn.Conv2d and m.in_channels == 3
    with pytest.raises(ArgumentError, match="in_channels must be divisible by groups"):
        nn.LazyConv2d(4, 3, groups=2)(lucid.randn(1, 3, 5, 5))


def test_large_inputs_match_torch():
    """A realistic size (multi-threaded GEMMs, odd channel counts): conv + max pool
    forward and backward against torch."""
    r = _rng(14)
    x = r.standard_normal((8, 17, 34, 33)).astype(np.float32)
    w = r.standard_normal((19, 17, 3, 3)).astype(np.float32) * 0.1
    b = r.standard_normal(19).astype(np.float32)

    def step(lib, fn, pool):
        xt, wt, bt = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
        y = pool(fn(xt, wt, bt, padding=1), 2)
        g = lib.tensor(
            np.cos(np.arange(math.prod(y.shape), dtype=np.float32)).reshape(tuple(y.shape))
        )
        y.backward(g)
        return [t.detach().numpy() for t in (y, xt.grad, wt.grad, bt.grad)]

    for a, t in zip(step(lucid, F.conv2d, F.max_pool2d), step(torch, TF.conv2d, TF.max_pool2d)):
        np.testing.assert_allclose(a, t, rtol=1e-4, atol=2e-4)
