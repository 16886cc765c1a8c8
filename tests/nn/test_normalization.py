"""Norms against PyTorch: functional forms (values, gradients of input, weight and bias,
double backward), the modules' running statistics over several steps, train and eval
modes, and the error paths."""

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
LDT = {np.float64: lucid.float64, np.float32: lucid.float32}


def _rng(seed=0):
    return np.random.default_rng(seed)


def _pair(arr, dtype):
    a = np.asarray(arr, dtype=dtype)
    return lucid.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _check(lfn, tfn, arrays, dtype, create_graph=False):
    """Values and every gradient of ``lfn`` vs ``tfn`` on tensors made of ``arrays``
    (None entries passed as None)."""
    pairs = [(None, None) if a is None else _pair(a, dtype) for a in arrays]
    ls, ts = [p[0] for p in pairs], [p[1] for p in pairs]
    lo, to = lfn(*ls), tfn(*ts)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), **TOL[dtype])
    g = _rng(9).standard_normal(tuple(to.shape)).astype(dtype)
    lw = [t for t in ls if t is not None]
    tw = [t for t in ts if t is not None]
    lg = lucid.autograd.grad(lo, lw, lucid.tensor(g), create_graph=create_graph)
    tg = torch.autograd.grad(to, tw, torch.tensor(g))
    for a, b in zip(lg, tg):
        np.testing.assert_allclose(a.detach().numpy(), b.numpy(), **TOL[dtype])
    return lo, to


DTYPES = [np.float64, np.float32]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 2), (2, 3, 2, 2, 2)])
def test_batch_norm_train_parity(shape, dtype):
    r = _rng(1)
    c = shape[1]
    _check(
        lambda x, w, b: F.batch_norm(x, None, None, w, b, True),
        lambda x, w, b: TF.batch_norm(x, None, None, w, b, True),
        [r.standard_normal(shape) * 3 + 1, r.uniform(0.5, 2, c), r.standard_normal(c)],
        dtype,
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_norm_eval_parity_and_running_update(dtype):
    r = _rng(2)
    x = r.standard_normal((5, 3, 4))
    rm, rv = r.standard_normal(3).astype(dtype), r.uniform(0.5, 2, 3).astype(dtype)
    _check(
        lambda x, w, b: F.batch_norm(x, lucid.tensor(rm), lucid.tensor(rv), w, b),
        lambda x, w, b: TF.batch_norm(x, torch.tensor(rm), torch.tensor(rv), w, b),
        [x, r.uniform(0.5, 2, 3), r.standard_normal(3)],
        dtype,
    )
    lm, lv = lucid.tensor(rm), lucid.tensor(rv)
    tm, tv = torch.tensor(rm), torch.tensor(rv)
    for _ in range(3):
        xs = r.standard_normal((6, 3, 2)).astype(dtype)
        F.batch_norm(lucid.tensor(xs), lm, lv, training=True, momentum=0.3)
        TF.batch_norm(torch.tensor(xs), tm, tv, training=True, momentum=0.3)
    np.testing.assert_allclose(lm.numpy(), tm.numpy(), **TOL[dtype])
    np.testing.assert_allclose(lv.numpy(), tv.numpy(), **TOL[dtype])


def test_batch_norm_running_var_is_unbiased():
    x = lucid.tensor([[1.0], [3.0]], dtype=lucid.float64)
    rm, rv = lucid.zeros(1, dtype=lucid.float64), lucid.zeros(1, dtype=lucid.float64)
    F.batch_norm(x, rm, rv, training=True, momentum=1.0)
    assert rm.item() == 2.0 and rv.item() == 2.0  # biased variance would be 1


def test_batch_norm_in_place_update_bumps_version():
    rm, rv = lucid.zeros(2), lucid.ones(2)
    v = rm._version
    F.batch_norm(lucid.randn(4, 2), rm, rv, training=True)
    assert rm._version > v


def test_batch_norm_non_contiguous_input():
    r = _rng(3)
    a = r.standard_normal((3, 4, 5))  # transposed below: (5, 4, 3) non-contiguous
    lx = lucid.tensor(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    lo = F.batch_norm(lx.transpose(0, 2), None, None, training=True)
    to = TF.batch_norm(tx.transpose(0, 2), None, None, training=True)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-10, atol=1e-12)
    (lo * lo).sum().backward()
    (to * to).sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "ns,shape", [((4,), (2, 3, 4)), ((3, 4), (2, 3, 4)), ((5,), (5,)), ((4,), (0, 4))]
)
def test_layer_norm_parity(ns, shape, dtype):
    r = _rng(4)
    _check(
        lambda x, w, b: F.layer_norm(x, ns, w, b, 1e-4),
        lambda x, w, b: TF.layer_norm(x, ns, w, b, 1e-4),
        [r.standard_normal(shape) + 5, r.uniform(0.5, 2, ns), r.standard_normal(ns)],
        dtype,
    )


def test_layer_norm_affine_options():
    r = _rng(5)
    x = r.standard_normal((3, 4))
    _check(lambda x: F.layer_norm(x, (4,)), lambda x: TF.layer_norm(x, (4,)), [x], np.float64)
    _check(
        lambda x, w: F.layer_norm(x, 4, w),
        lambda x, w: TF.layer_norm(x, (4,), w),
        [x, r.standard_normal(4)],
        np.float64,
    )
    _check(
        lambda x, b: F.layer_norm(x, (4,), None, b),
        lambda x, b: TF.layer_norm(x, (4,), None, b),
        [x, r.standard_normal(4)],
        np.float64,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "shape,groups", [((2, 4, 3), 2), ((2, 6), 3), ((2, 4, 2, 3), 4), ((3, 4, 5), 1)]
)
def test_group_norm_parity(shape, groups, dtype):
    r = _rng(6)
    c = shape[1]
    _check(
        lambda x, w, b: F.group_norm(x, groups, w, b),
        lambda x, w, b: TF.group_norm(x, groups, w, b),
        [r.standard_normal(shape), r.uniform(0.5, 2, c), r.standard_normal(c)],
        dtype,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 3, 2, 3), (1, 2, 2, 2, 2)])
def test_instance_norm_parity(shape, dtype):
    r = _rng(7)
    c = shape[1]
    _check(
        lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
        lambda x, w, b: TF.instance_norm(x, weight=w, bias=b),
        [r.standard_normal(shape), r.uniform(0.5, 2, c), r.standard_normal(c)],
        dtype,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ns,shape", [((4,), (3, 4)), ((3, 4), (2, 3, 4))])
@pytest.mark.parametrize("eps", [None, 1e-3])
def test_rms_norm_parity(ns, shape, eps, dtype):
    r = _rng(8)
    _check(
        lambda x, w: F.rms_norm(x, ns, w, eps),
        lambda x, w: TF.rms_norm(x, ns, w, eps),
        [r.standard_normal(shape), r.uniform(0.5, 2, ns)],
        dtype,
    )


def test_rms_norm_default_eps_is_the_dtype_epsilon():
    x = lucid.zeros(1, 3)  # mean square 0: the result is 0 * rsqrt(eps)
    x32 = F.rms_norm(x + 1e-4, (3,))
    t32 = TF.rms_norm(torch.zeros(1, 3) + 1e-4, (3,))
    np.testing.assert_allclose(x32.numpy(), t32.numpy(), rtol=1e-5)
    assert not np.allclose(x32.numpy(), F.rms_norm(x + 1e-4, (3,), eps=1e-5).numpy())


@pytest.mark.parametrize("size", [1, 2, 3, 4])
@pytest.mark.parametrize("shape", [(2, 5, 3), (2, 6, 3, 2), (1, 4, 2, 2, 3)])
def test_local_response_norm_parity(size, shape):
    r = _rng(10)
    _check(
        lambda x: F.local_response_norm(x, size, 0.1, 0.6, 2.0),
        lambda x: TF.local_response_norm(x, size, 0.1, 0.6, 2.0),
        [r.standard_normal(shape)],
        np.float64,
    )


# -- double backward -----------------------------------------------------------------------

_DOUBLE = [
    (
        "batch_norm",
        lambda x, w, b: F.batch_norm(x, None, None, w, b, True),
        lambda x, w, b: TF.batch_norm(x, None, None, w, b, True),
        (5, 3, 2),
    ),
    (
        "layer_norm",
        lambda x, w, b: F.layer_norm(x, (2,), w[:2], b[:2]),
        lambda x, w, b: TF.layer_norm(x, (2,), w[:2], b[:2]),
        (5, 3, 2),
    ),
    (
        "group_norm",
        lambda x, w, b: F.group_norm(x, 3, w, b),
        lambda x, w, b: TF.group_norm(x, 3, w, b),
        (5, 3, 2),
    ),
    (
        "instance_norm",
        lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
        lambda x, w, b: TF.instance_norm(x, weight=w, bias=b),
        (5, 3, 2),
    ),
    (
        "rms_norm",
        lambda x, w, b: F.rms_norm(x, (2,), w[:2]),
        lambda x, w, b: TF.rms_norm(x, (2,), w[:2]),
        (5, 3, 2),
    ),
]


@pytest.mark.parametrize("name,lfn,tfn,shape", _DOUBLE, ids=[d[0] for d in _DOUBLE])
def test_double_backward_matches_torch(name, lfn, tfn, shape):
    r = _rng(11)
    arrays = [r.standard_normal(shape), r.uniform(0.5, 2, 3), r.standard_normal(3)]
    ls = [lucid.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    g = r.standard_normal(shape)
    lo, to = lfn(*ls), tfn(*ts)
    lgx = lucid.autograd.grad(lo, ls[0], lucid.tensor(g), create_graph=True)[0]
    tgx = torch.autograd.grad(to, ts[0], torch.tensor(g), create_graph=True)[0]
    lh = lucid.autograd.grad((lgx * lgx).sum(), ls[:2], allow_unused=True)
    th = torch.autograd.grad((tgx * tgx).sum(), ts[:2], allow_unused=True)
    for a, b in zip(lh, th):
        if b is None:
            assert a is None or not np.any(a.numpy())
        else:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-11)


def test_half_input_keeps_its_dtype_and_computes_in_float32():
    r = _rng(12)
    a = (r.standard_normal((4, 8)) * 10 + 100).astype(np.float16)
    lo = F.layer_norm(lucid.tensor(a), (8,))
    assert lo.dtype is lucid.float16
    ref = TF.layer_norm(torch.tensor(a.astype(np.float32)), (8,)).numpy()
    np.testing.assert_allclose(lo.numpy().astype(np.float32), ref, atol=2e-3)


# -- modules -------------------------------------------------------------------------------


def _copy_params(lm, tm):
    for name, p in tm.named_parameters():
        getattr(lm, name).data.copy_(lucid.tensor(p.detach().numpy()))


@pytest.mark.parametrize(
    "cls,shape",
    [
        ("BatchNorm1d", (6, 3)),
        ("BatchNorm1d", (6, 3, 4)),
        ("BatchNorm2d", (4, 3, 2, 2)),
        ("BatchNorm3d", (2, 3, 2, 2, 2)),
    ],
)
@pytest.mark.parametrize("momentum", [0.1, None])
def test_batchnorm_module_training_steps_match_torch(cls, shape, momentum):
    r = _rng(13)
    lm = getattr(nn, cls)(3, momentum=momentum)
    tm = getattr(tnn, cls)(3, momentum=momentum)
    with torch.no_grad():
        tm.weight.uniform_(0.5, 2)
        tm.bias.normal_()
    _copy_params(lm, tm)
    for step in range(4):
        a = r.standard_normal(shape).astype(np.float32) * (step + 1) + step
        lx, tx = lucid.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        lo, to = lm(lx), tm(tx)
        np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-4, atol=1e-5)
        lo.sum().backward() if step == 0 else (lo * lo).sum().backward()
        to.sum().backward() if step == 0 else (to * to).sum().backward()
        np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-4)
    for name in ("running_mean", "running_var"):
        np.testing.assert_allclose(
            getattr(lm, name).numpy(), getattr(tm, name).numpy(), rtol=1e-5, atol=1e-6
        )
    assert lm.num_batches_tracked.item() == tm.num_batches_tracked.item() == 4
    assert lm.num_batches_tracked.dtype is lucid.int64
    np.testing.assert_allclose(lm.weight.grad.numpy(), tm.weight.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(lm.bias.grad.numpy(), tm.bias.grad.numpy(), rtol=1e-4, atol=1e-4)
    lm.eval()
    tm.eval()
    a = r.standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(
        lm(lucid.tensor(a)).detach().numpy(),
        tm(torch.tensor(a)).detach().numpy(),
        rtol=1e-4,
        atol=1e-5,
    )


def test_batchnorm_momentum_none_is_the_cumulative_average():
    m = nn.BatchNorm1d(2, momentum=None)
    batches = [lucid.randn(8, 2) * 3 + 1 for _ in range(5)]
    for b in batches:
        m(b)
    want = np.mean([b.numpy().mean(0) for b in batches], axis=0)
    np.testing.assert_allclose(m.running_mean.numpy(), want, rtol=1e-5, atol=1e-6)


def test_batchnorm_options():
    x = lucid.randn(8, 3)
    m = nn.BatchNorm1d(3, affine=False, track_running_stats=False)
    assert m.weight is None and m.running_mean is None and m.num_batches_tracked is None
    assert list(m.state_dict()) == []
    m.eval()  # no running statistics: batch statistics in eval too
    np.testing.assert_allclose(
        m(x).detach().numpy(),
        TF.batch_norm(torch.tensor(x.numpy()), None, None, training=True).numpy(),
        rtol=1e-4,
        atol=1e-5,
    )
    m = nn.BatchNorm1d(3)
    m.eval()  # fresh running stats (0, 1): y = x / sqrt(1 + eps)
    np.testing.assert_allclose(m(x).detach().numpy(), x.numpy() / np.sqrt(1 + 1e-5), rtol=1e-6)
    m.train()
    m(x)
    assert m.running_mean.abs().sum().item() > 0
    m.reset_running_stats()
    assert m.running_mean.abs().sum().item() == 0 and m.running_var.eq(1).all().item()
    assert m.num_batches_tracked.item() == 0


def test_batchnorm_state_dict_and_old_checkpoints():
    m = nn.BatchNorm2d(3)
    m(lucid.randn(2, 3, 2, 2))
    sd = m.state_dict()
    assert list(sd) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    old = {k: v for k, v in sd.items() if k != "num_batches_tracked"}  # no metadata
    m2 = nn.BatchNorm2d(3)
    m2.load_state_dict(old)
    np.testing.assert_array_equal(m2.running_mean.numpy(), m.running_mean.numpy())


def test_batchnorm_input_checks():
    with pytest.raises(ShapeError, match="expected 4D input"):
        nn.BatchNorm2d(3)(lucid.randn(2, 3, 4))
    with pytest.raises(ShapeError, match="expected 2D or 3D input"):
        nn.BatchNorm1d(3)(lucid.randn(2, 3, 4, 5))
    with pytest.raises(ShapeError, match="expected 5D input"):
        nn.BatchNorm3d(3)(lucid.randn(2, 3, 4, 5))
    with pytest.raises(ArgumentError, match="more than 1 value per channel"):
        nn.BatchNorm1d(3)(lucid.randn(1, 3))
    with pytest.raises(ShapeError, match="running_mean of shape"):
        F.batch_norm(lucid.randn(2, 3), lucid.zeros(4), lucid.ones(4))
    with pytest.raises(ShapeError, match="weight of shape"):
        F.batch_norm(lucid.randn(2, 3), None, None, lucid.ones(2), training=True)
    with pytest.raises(ArgumentError, match="evaluation mode"):
        F.batch_norm(lucid.randn(2, 3), None, None)
    with pytest.raises(DTypeError, match="floating point"):
        F.batch_norm(lucid.tensor([[1, 2], [3, 4]]), None, None, training=True)


def test_batchnorm_empty_batch():
    m = nn.BatchNorm1d(3)
    x = lucid.randn(0, 3, requires_grad=True)
    y = m(x)
    assert tuple(y.shape) == (0, 3)
    y.sum().backward()
    assert tuple(x.grad.shape) == (0, 3)
    assert m.running_mean.abs().sum().item() == 0 and m.running_var.eq(1).all().item()


@pytest.mark.parametrize(
    "cls,shape",
    [
        ("InstanceNorm1d", (3, 2, 5)),
        ("InstanceNorm2d", (3, 2, 3, 3)),
        ("InstanceNorm3d", (2, 2, 2, 3, 2)),
        ("InstanceNorm1d", (2, 5)),
    ],
)
def test_instancenorm_module_tracking_matches_torch(cls, shape):
    r = _rng(14)
    lm = getattr(nn, cls)(2, affine=True, track_running_stats=True, momentum=0.2)
    tm = getattr(tnn, cls)(2, affine=True, track_running_stats=True, momentum=0.2)
    with torch.no_grad():
        tm.weight.uniform_(0.5, 2)
        tm.bias.normal_()
    _copy_params(lm, tm)
    for _ in range(3):
        a = r.standard_normal(shape).astype(np.float32) * 2 + 1
        np.testing.assert_allclose(
            lm(lucid.tensor(a)).detach().numpy(),
            tm(torch.tensor(a)).detach().numpy(),
            rtol=1e-4,
            atol=1e-5,
        )
    np.testing.assert_allclose(
        lm.running_mean.numpy(), tm.running_mean.numpy(), rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(lm.running_var.numpy(), tm.running_var.numpy(), rtol=1e-5, atol=1e-6)
    lm.eval()
    tm.eval()
    a = r.standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(
        lm(lucid.tensor(a)).detach().numpy(),
        tm(torch.tensor(a)).detach().numpy(),
        rtol=1e-4,
        atol=1e-5,
    )


def test_instancenorm_defaults_and_checks():
    m = nn.InstanceNorm2d(3)
    assert m.weight is None and m.running_mean is None
    a = np.random.default_rng(15).standard_normal((2, 3, 4, 4)).astype(np.float32)
    m.eval()  # not tracking: instance statistics in eval as well
    np.testing.assert_allclose(
        m(lucid.tensor(a)).numpy(), TF.instance_norm(torch.tensor(a)).numpy(), rtol=1e-4, atol=1e-5
    )
    with pytest.raises(ShapeError, match="expected 3D or 4D input"):
        m(lucid.randn(2, 3))
    with pytest.raises(ShapeError, match="match num_features"):
        nn.InstanceNorm1d(4, affine=True)(lucid.randn(2, 3, 5))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        nn.InstanceNorm1d(4)(lucid.randn(2, 3, 5))
    assert any("num_features" in str(x.message) for x in w)
    with pytest.raises(ArgumentError, match="more than 1 spatial element"):
        F.instance_norm(lucid.randn(2, 3, 1))


@pytest.mark.parametrize("bias", [True, False])
def test_layernorm_module(bias):
    r = _rng(16)
    lm, tm = nn.LayerNorm((3, 4), bias=bias), tnn.LayerNorm((3, 4), bias=bias)
    assert (lm.bias is None) == (not bias)
    assert lm.weight.eq(1).all().item()
    with torch.no_grad():
        tm.weight.normal_()
    _copy_params(lm, tm)
    a = r.standard_normal((2, 3, 4)).astype(np.float32)
    lx, tx = lucid.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    lo, to = lm(lx), tm(tx)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-4, atol=1e-5)
    (lo**3).sum().backward()
    (to**3).sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(lm.weight.grad.numpy(), tm.weight.grad.numpy(), rtol=1e-4, atol=1e-4)
    assert repr(lm) == repr(tm)
    none = nn.LayerNorm(4, elementwise_affine=False)
    assert none.weight is None and none.bias is None and list(none.parameters()) == []


def test_groupnorm_rmsnorm_lrn_modules():
    r = _rng(17)
    a = r.standard_normal((2, 4, 3)).astype(np.float32)
    for lm, tm in [
        (nn.GroupNorm(2, 4), tnn.GroupNorm(2, 4)),
        (nn.GroupNorm(2, 4, affine=False), tnn.GroupNorm(2, 4, affine=False)),
        (nn.RMSNorm(3), tnn.RMSNorm(3)),
        (nn.RMSNorm([4, 3], eps=1e-3), tnn.RMSNorm([4, 3], eps=1e-3)),
        (nn.LocalResponseNorm(3), tnn.LocalResponseNorm(3)),
    ]:
        np.testing.assert_allclose(
            lm(lucid.tensor(a)).detach().numpy(),
            tm(torch.tensor(a)).detach().numpy(),
            rtol=1e-4,
            atol=1e-5,
        )
        assert repr(lm) == repr(tm)
        assert [n for n, _ in lm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    with pytest.raises(ArgumentError, match="divisible"):
        nn.GroupNorm(3, 4)


def test_functional_errors():
    with pytest.raises(ShapeError, match="normalized_shape"):
        F.layer_norm(lucid.randn(2, 3), (4,))
    with pytest.raises(ShapeError, match="normalized_shape"):
        F.rms_norm(lucid.randn(3), (2, 3))
    with pytest.raises(ShapeError, match="divisible by num_groups"):
        F.group_norm(lucid.randn(2, 5, 3), 2)
    with pytest.raises(ShapeError, match="weight of shape"):
        F.layer_norm(lucid.randn(2, 3), (3,), lucid.ones(2))
    with pytest.raises(ArgumentError, match="size must be a positive int"):
        F.local_response_norm(lucid.randn(2, 3, 4), 0)
    with pytest.raises(DTypeError, match="floating point"):
        F.layer_norm(lucid.tensor([1, 2]), (2,))


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.BatchNorm1d(3, bias=False),
        lambda m: m.BatchNorm2d(3, momentum=None, affine=False),
        lambda m: m.InstanceNorm1d(3, affine=True, bias=False),
        lambda m: m.GroupNorm(1, 3, bias=False),
        lambda m: m.LayerNorm(3, bias=False),
        lambda m: m.LayerNorm(3, elementwise_affine=False),
        lambda m: m.RMSNorm(3, elementwise_affine=False),
        lambda m: m.GroupNorm(1, 3, affine=False),
        lambda m: m.InstanceNorm3d(2, track_running_stats=True),
    ],
)
def test_bias_option_repr_and_parameters_as_torch(make):
    lm, tm = make(nn), make(tnn)
    assert repr(lm) == repr(tm)
    assert [n for n, _ in lm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert [n for n, _ in lm.named_buffers()] == [n for n, _ in tm.named_buffers()]


@pytest.mark.parametrize("eps", [1e-5, 0.5])
def test_eps_reaches_every_norm(eps):
    r = _rng(18)
    x = r.standard_normal((3, 4, 5)) * 0.5
    for lfn, tfn in [
        (lambda x: F.group_norm(x, 2, eps=eps), lambda x: TF.group_norm(x, 2, eps=eps)),
        (lambda x: F.instance_norm(x, eps=eps), lambda x: TF.instance_norm(x, eps=eps)),
        (
            lambda x: F.batch_norm(x, None, None, training=True, eps=eps),
            lambda x: TF.batch_norm(x, None, None, training=True, eps=eps),
        ),
        (lambda x: F.layer_norm(x, (5,), eps=eps), lambda x: TF.layer_norm(x, (5,), eps=eps)),
    ]:
        _check(lfn, tfn, [x], np.float64)


def test_instance_norm_functional_momentum_and_weight_only():
    r = _rng(19)
    a = r.standard_normal((4, 3, 6))
    lm, lv = lucid.zeros(3, dtype=lucid.float64), lucid.ones(3, dtype=lucid.float64)
    tm, tv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    F.instance_norm(lucid.tensor(a), lm, lv, momentum=0.7)
    TF.instance_norm(torch.tensor(a), tm, tv, momentum=0.7)
    np.testing.assert_allclose(lm.numpy(), tm.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lv.numpy(), tv.numpy(), rtol=1e-10, atol=1e-12)
    _check(
        lambda x, w: F.batch_norm(x, None, None, w, training=True),
        lambda x, w: TF.batch_norm(x, None, None, w, training=True),
        [a, r.uniform(0.5, 2, 3)],
        np.float64,
    )


def test_argument_type_errors():
    from lucid.errors import ArgumentTypeError

    x = lucid.randn(2, 3, 4)
    with pytest.raises(ArgumentTypeError, match="normalized_shape"):
        F.layer_norm(x, "ab")
    with pytest.raises(ArgumentTypeError, match="normalized_shape"):
        F.layer_norm(x, None)
    with pytest.raises(ArgumentTypeError, match="momentum"):
        F.batch_norm(x, lucid.zeros(3), lucid.ones(3), training=True, momentum="0.1")
    with pytest.raises(ArgumentTypeError, match="eps"):
        F.group_norm(x, 3, eps=None)
    with pytest.raises(ArgumentTypeError, match="num_groups"):
        F.group_norm(x, 1.5)
    with pytest.raises(ArgumentTypeError, match="Tensor"):
        F.layer_norm([1.0, 2.0], (2,))


def test_saved_statistics_are_freed_after_backward():
    x = lucid.randn(4, 3, 5, requires_grad=True)
    for y in (
        F.batch_norm(x, None, None, training=True),
        F.layer_norm(x, (5,)),
        F.group_norm(x, 3),
        F.rms_norm(x, (5,)),
        F.instance_norm(x),
    ):
        node = y.grad_fn
        assert node.extra is not None and node.extra["rstd"] is not None
        y.sum().backward()
        assert node.extra is None and node.saved is None


def test_torch_state_dict_loads_into_the_same_layers():
    r = _rng(20)
    layers = [
        (tnn.BatchNorm2d(3), nn.BatchNorm2d(3), (4, 3, 2, 2)),
        (
            tnn.InstanceNorm1d(3, affine=True, track_running_stats=True),
            nn.InstanceNorm1d(3, affine=True, track_running_stats=True),
            (4, 3, 5),
        ),
        (tnn.LayerNorm(5), nn.LayerNorm(5), (2, 5)),
        (tnn.GroupNorm(1, 3), nn.GroupNorm(1, 3), (2, 3, 4)),
        (tnn.RMSNorm(5), nn.RMSNorm(5), (2, 5)),
    ]
    for tm, lm, shape in layers:
        with torch.no_grad():
            for p in tm.parameters():
                p.normal_()
        for _ in range(2):
            tm(torch.tensor(r.standard_normal(shape).astype(np.float32)))
        lm.load_state_dict({k: lucid.tensor(v.numpy()) for k, v in tm.state_dict().items()})
        tm.eval()
        lm.eval()
        a = r.standard_normal(shape).astype(np.float32)
        np.testing.assert_allclose(
            lm(lucid.tensor(a)).detach().numpy(),
            tm(torch.tensor(a)).detach().numpy(),
            rtol=1e-5,
            atol=1e-6,
        )
        assert list(lm.state_dict()) == list(tm.state_dict())


@pytest.mark.parametrize("norm", ["layer", "group", "batch"])
def test_only_the_bias_wants_a_gradient(norm):
    r = _rng(21)
    a, wa, ba = r.standard_normal((4, 6, 3)), r.standard_normal(6), r.standard_normal(6)
    lx, lw, lb = lucid.tensor(a), lucid.tensor(wa), lucid.tensor(ba, requires_grad=True)
    tx, tw, tb = torch.tensor(a), torch.tensor(wa), torch.tensor(ba, requires_grad=True)
    fn = {
        "layer": (lambda x, w, b, m: m.layer_norm(x.transpose(1, 2), (6,), w, b)),
        "group": (lambda x, w, b, m: m.group_norm(x, 3, w, b)),
        "batch": (lambda x, w, b, m: m.batch_norm(x, None, None, w, b, True)),
    }[norm]
    lo, to = fn(lx, lw, lb, F), fn(tx, tw, tb, TF)
    for graph in (False, True):
        (lg,) = lucid.autograd.grad((lo * lo).sum(), lb, create_graph=graph, retain_graph=True)
        (tg,) = torch.autograd.grad((to * to).sum(), tb, retain_graph=True)
        np.testing.assert_allclose(lg.detach().numpy(), tg.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_blocked_passes_match_torch(monkeypatch, dtype, affine):
    """The CPU's batch-blocked statistics, normalisation and backward (one sample a block
    here, so several blocks and a short last one) in training and in eval, on a
    non-contiguous input."""
    from lucid.backend import CpuBackend

    monkeypatch.setattr(CpuBackend, "norm_block_bytes", 1)
    r = _rng(22)
    a = r.standard_normal((3, 4, 2, 5)) * 2 + 3  # transposed: (5, 4, 2, 3)
    wb = [r.uniform(0.5, 2, 4), r.standard_normal(4)] if affine else [None, None]
    rm, rv = r.standard_normal(4).astype(dtype), r.uniform(0.5, 2, 4).astype(dtype)
    for training in (True, False):
        _check(
            lambda x, w, b: F.batch_norm(
                x.transpose(0, 3), lucid.tensor(rm), lucid.tensor(rv), w, b, training
            ),
            lambda x, w, b: TF.batch_norm(
                x.transpose(0, 3), torch.tensor(rm), torch.tensor(rv), w, b, training
            ),
            [a] + wb,
            dtype,
        )
