"""F.pad and the padding layers: parity with PyTorch (values and gradients), PyTorch's mode
rules and errors, reprs."""

import numpy as np
import pytest
import torch
import torch.nn as tnn
import torch.nn.functional as TF

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.errors import ArgumentError, ShapeError

TOL = {np.float64: dict(rtol=1e-12, atol=1e-12), np.float32: dict(rtol=1e-6, atol=1e-6)}


def _check(fl, ft, shape, dtype=np.float64, seed=0, transpose=False):
    """Forward and input gradient of ``fl`` (Lucid) and ``ft`` (torch) on the same data."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape).astype(dtype)
    tx = torch.tensor(a, requires_grad=True)
    if transpose:  # the same values through a non-contiguous view
        lx = lucid.tensor(np.swapaxes(a, -1, -2).copy(), requires_grad=True)
        lin = lx.transpose(-1, -2)
        assert not lin.is_contiguous()
    else:
        lx = lin = lucid.tensor(a, requires_grad=True)
    lo, to = fl(lin), ft(tx)
    assert tuple(lo.shape) == tuple(to.shape)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), **TOL[dtype])
    g = rng.standard_normal(tuple(to.shape)).astype(dtype)
    lo.backward(lucid.tensor(g))
    to.backward(torch.tensor(g))
    lg = lx.grad.numpy()
    if transpose:
        lg = np.swapaxes(lg, -1, -2)
    np.testing.assert_allclose(lg, tx.grad.numpy(), **TOL[dtype])


CASES = [
    # (input shape, pad, mode)
    ((2, 3, 5), (1, 2), "reflect"),
    ((3, 5), (4, 4), "reflect"),
    ((2, 3, 4, 5), (1, 2, 3, 0), "reflect"),
    ((1, 2, 3, 4, 5), (1, 1, 2, 2, 2, 1), "reflect"),
    ((2, 3, 5), (3, 4), "replicate"),
    ((2, 3, 4, 5), (1, 0, 2, 5), "replicate"),
    ((2, 2, 3, 4, 2), (1, 2, 2, 1, 3, 3), "replicate"),
    ((2, 3, 5), (2, 5), "circular"),
    ((2, 3, 4, 5), (1, 2, 4, 3), "circular"),
    ((1, 2, 3, 4, 5), (2, 1, 0, 2, 3, 1), "circular"),
    ((2, 3, 4), (1, 2, 0, 3, 1, 1), "constant"),
    ((5,), (2, 3), "constant"),
    # negative widths: reflect / replicate read the full input, then crop (PyTorch's order)
    ((1, 5), (-1, 2), "reflect"),
    ((1, 5), (2, -1), "reflect"),
    ((1, 5), (-3, 2), "reflect"),
    ((1, 5), (1, -3), "reflect"),
    ((2, 3, 5), (1, -1, 2, -2), "reflect"),
    ((1, 5), (-3, 2), "replicate"),
    ((2, 5), (-5, 1), "replicate"),
    ((1, 5), (-1, 2), "circular"),
    ((1, 5), (2, -1), "circular"),
    ((1, 5), (-3, 2), "circular"),
    ((1, 5), (-2, -1), "reflect"),
    ((2, 3, 4), (-1, 2, 1, -2), "constant"),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("shape,widths,mode", CASES, ids=[f"{m}{p}{s}" for s, p, m in CASES])
def test_pad_matches_torch(shape, widths, mode, dtype):
    _check(lambda x: F.pad(x, widths, mode), lambda x: TF.pad(x, widths, mode), shape, dtype)


def test_pad_constant_value_and_non_contiguous():
    _check(
        lambda x: F.pad(x, (1, 2, 2, 1), value=-2.5),
        lambda x: TF.pad(x, (1, 2, 2, 1), value=-2.5),
        (2, 3, 4),
    )
    _check(
        lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect"),
        lambda x: TF.pad(x, (1, 2, 2, 1), mode="reflect"),
        (2, 3, 4),
        transpose=True,
    )


def test_pad_empty_outputs_torch_allows():
    # one padded dim may shrink to 0 when another stays (PyTorch's check); circular may crop
    # a dim away entirely
    for shape, widths, mode in (
        ((2, 3, 4), (1, 1, -3, 0), "reflect"),
        ((2, 3), (-1, -2), "circular"),
    ):
        y = F.pad(lucid.zeros(*shape), widths, mode)
        assert tuple(y.shape) == tuple(TF.pad(torch.zeros(*shape), widths, mode).shape)


def test_pad_empty_batch():
    _check(lambda x: F.pad(x, (1, 2), "reflect"), lambda x: TF.pad(x, (1, 2), "reflect"), (0, 3, 5))
    _check(
        lambda x: F.pad(x, (1, 2, 1, 1), "circular"),
        lambda x: TF.pad(x, (1, 2, 1, 1), "circular"),
        (0, 2, 3, 4),
    )


@pytest.mark.parametrize(
    "shape,widths,mode,match",
    [
        ((2, 5), (5, 1), "reflect", "less than the corresponding input dimension"),
        ((2, 5), (-3, 5), "reflect", "less than the corresponding input dimension"),
        ((2, 5), (6, 0), "circular", "at most the size"),
        ((5,), (1, 1), "reflect", "padding size 2 is not supported for 1D"),
        ((2, 3, 4, 5), (1, 1), "replicate", "padding size 2 is not supported for 4D"),
        ((2, 3, 5), (1, 1, 1, 1, 1, 1), "circular", "padding size 6 is not supported for 3D"),
        ((2, 5), (1, 1, 1), "constant", "divisible by 2"),
        ((2, 5), (1, 1, 1, 1, 1, 1), "constant", "less than or equal to two times"),
        ((2, 5), (-3, -3), "constant", "negative output size"),
        ((2, 3), (-1, -2), "reflect", "too small"),
        ((3, 1, 2, 2), (-2, 0, -4, 2), "replicate", "too small"),
        ((0, 3), (1, 1), "replicate", "non-zero dimensions"),
        ((2, 0, 3), (1, 1), "reflect", "non-zero dimensions"),
    ],
)
def test_pad_errors(shape, widths, mode, match):
    x = lucid.zeros(*shape)
    with pytest.raises(ShapeError, match=match):
        F.pad(x, widths, mode)
    with pytest.raises(Exception):  # torch refuses these too
        TF.pad(torch.zeros(*shape), widths, mode)


def test_pad_mode_and_value_errors():
    with pytest.raises(ArgumentError, match="padding mode 'foo'"):
        F.pad(lucid.zeros(2, 5), (1, 1), mode="foo")
    with pytest.raises(ArgumentError, match="doesn't take in a value"):
        F.pad(lucid.zeros(2, 5), (1, 1), mode="reflect", value=2.0)
    assert F.pad(lucid.zeros(2, 5), (1, 1), mode="reflect", value=0).shape == (2, 7)


# -- layers ---------------------------------------------------------------------------------

LAYERS = [
    ("ZeroPad1d", (2,), (2, 3, 4)),
    ("ZeroPad1d", ((1, 3),), (3, 4)),
    ("ZeroPad2d", ((1, 0, 2, 3),), (2, 3, 4, 4)),
    ("ZeroPad3d", (1,), (1, 2, 2, 3, 3)),
    ("ConstantPad1d", (2, 3.5), (2, 3, 4)),
    ("ConstantPad2d", ((1, 2, 0, 1), -1.0), (2, 3, 3)),
    ("ConstantPad3d", (1, 2.0), (1, 2, 2, 2, 2)),
    ("ReflectionPad1d", (2,), (2, 3, 4)),
    ("ReflectionPad2d", ((1, 2, 2, 1),), (1, 2, 3, 4)),
    ("ReflectionPad3d", (1,), (1, 2, 2, 3, 3)),
    ("ReplicationPad1d", ((3, 1),), (2, 3, 4)),
    ("ReplicationPad2d", (2,), (2, 3, 4)),
    ("ReplicationPad3d", ((1, 0, 2, 1, 0, 2),), (1, 2, 2, 3, 3)),
    ("CircularPad1d", (2,), (2, 3, 4)),
    ("CircularPad2d", ((1, 2, 2, 0),), (1, 2, 3, 4)),
    ("CircularPad3d", (1,), (1, 2, 2, 3, 3)),
]


@pytest.mark.parametrize("name,args,shape", LAYERS, ids=[f"{n}{a}" for n, a, _ in LAYERS])
def test_layers_match_torch(name, args, shape):
    lm, tm = getattr(nn, name)(*args), getattr(tnn, name)(*args)
    assert repr(lm) == repr(tm)
    assert lm.padding == tm.padding
    _check(lm, tm, shape)


def test_zero_pad_is_a_constant_pad():
    for n in (1, 2, 3):
        m = getattr(nn, f"ZeroPad{n}d")(1)
        assert isinstance(m, getattr(nn, f"ConstantPad{n}d")) and m.value == 0.0


def test_circular_layer_checks_its_dims():
    with pytest.raises(ShapeError, match="expected 3D or 4D input"):
        nn.CircularPad2d(1)(lucid.zeros(2, 3))
