"""Losses: nn.functional and the loss layers against PyTorch (values, gradients to the input
and, where differentiable, the target; every option and reduction; K-dim cross-entropy;
empty batches; float32/float64), double backward of the fused ops, CTC, errors."""

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.errors import ArgumentError, DTypeError, IndexingError, ShapeError

from ..ops.surface_helpers import check

TOL = {np.float64: dict(rtol=1e-9, atol=1e-11), np.float32: dict(rtol=2e-5, atol=2e-6)}
REDS = ["none", "mean", "sum"]
RNG = np.random.default_rng(0)


def _r(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed + len(shape)).uniform(low, high, shape)


def _pair(lfn, tfn, consts=()):
    """Lucid and torch callables with constant float arrays ``consts`` (class weights:
    no gradient, in the dtype of the first argument) appended."""

    def lf(*a):
        return lfn(*a, *[lucid.tensor(c, dtype=a[0].dtype) for c in consts])

    def tf(*a):
        return tfn(*a, *[torch.tensor(c).to(a[0].dtype) for c in consts])

    return lf, tf


# -- cross-entropy and NLL -----------------------------------------------------------------

_W = np.array([0.5, 2.0, 1.0, 1.5])
_T = np.array([0, 3, 1, 3, 2, 1])
_TI = np.array([0, -100, 1, 3, -100, 2])
_TI7 = np.array([0, 7, 1, 3, 7, 2])


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("reduction", REDS)
@pytest.mark.parametrize("smoothing", [0.0, 0.25])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_indices(reduction, smoothing, weighted, dtype):
    kw = dict(reduction=reduction, label_smoothing=smoothing)
    lf, tf = _pair(
        lambda x, t, *w: F.cross_entropy(x, t, *w, **kw),
        lambda x, t, *w: TF.cross_entropy(x, t, *w, **kw),
        [_W] if weighted else [],
    )
    check(lf, tf, _r(6, 4).astype(dtype), _TI, tol=TOL[dtype])
    check(lf, tf, _r(6, 4).astype(dtype), _T, tol=TOL[dtype])


@pytest.mark.parametrize("reduction", REDS)
def test_cross_entropy_ignore_index_option(reduction):
    kw = dict(reduction=reduction, ignore_index=7, label_smoothing=0.1)
    lf, tf = _pair(
        lambda x, t, *w: F.cross_entropy(x, t, *w, **kw),
        lambda x, t, *w: TF.cross_entropy(x, t, *w, **kw),
        [_W],
    )
    check(lf, tf, _r(6, 4), _TI7, tol=TOL[np.float64])


@pytest.mark.parametrize("reduction", REDS)
def test_cross_entropy_k_dim_and_single_sample(reduction):
    kw = dict(reduction=reduction, label_smoothing=0.2)
    lf, tf = _pair(
        lambda x, t, *w: F.cross_entropy(x, t, *w, **kw),
        lambda x, t, *w: TF.cross_entropy(x, t, *w, **kw),
        [_W[:3]],
    )
    t = RNG.integers(0, 3, (2, 4, 5))
    t[0, 1, 2] = -100
    check(lf, tf, _r(2, 3, 4, 5), t, tol=TOL[np.float64])
    check(lf, tf, _r(2, 3, 4, 5), t, noncontig=True, tol=TOL[np.float64])
    check(lf, tf, _r(3), np.array(1), tol=TOL[np.float64])


@pytest.mark.parametrize("reduction", REDS)
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_cross_entropy_probabilities(reduction, smoothing):
    kw = dict(reduction=reduction, label_smoothing=smoothing)
    p = np.random.default_rng(1).dirichlet(np.ones(4), 5)
    for consts in ([], [_W]):
        lf, tf = _pair(
            lambda x, t, *w: F.cross_entropy(x, t, *w, **kw),
            lambda x, t, *w: TF.cross_entropy(x, t, *w, **kw),
            consts,
        )
        check(lf, tf, _r(5, 4), p, tol=TOL[np.float64])  # gradient to the target too
    pk = np.random.default_rng(2).dirichlet(np.ones(3), (2, 4)).transpose(0, 2, 1)
    lf, tf = _pair(
        lambda x, t: F.cross_entropy(x, t, **kw), lambda x, t: TF.cross_entropy(x, t, **kw)
    )
    check(lf, tf, _r(2, 3, 4), np.ascontiguousarray(pk), tol=TOL[np.float64])


@pytest.mark.parametrize("reduction", REDS)
def test_nll_loss(reduction):
    for consts in ([], [_W]):
        for ii in (-100, 7):
            kw = dict(reduction=reduction, ignore_index=ii)
            lf, tf = _pair(
                lambda x, t, *w: F.nll_loss(x, t, *w, **kw),
                lambda x, t, *w: TF.nll_loss(x, t, *w, **kw),
                consts,
            )
            check(lf, tf, _r(6, 4), _TI if ii == -100 else _TI7, tol=TOL[np.float64])
            check(
                lf,
                tf,
                _r(6, 4).astype(np.float32),
                _TI if ii == -100 else _TI7,
                tol=TOL[np.float32],
            )
    t = RNG.integers(0, 4, (2, 3, 2))
    kw = dict(reduction=reduction)
    check(
        lambda x, t: F.nll_loss(x, t, **kw),
        lambda x, t: TF.nll_loss(x, t, **kw),
        _r(2, 4, 3, 2),
        t,
        tol=TOL[np.float64],
    )


@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_mean_over_nothing_is_nan_with_zero_gradient(fn):
    for x, t in [(_r(0, 4), np.zeros(0, np.int64)), (_r(3, 4), np.full(3, -100))]:
        a, b = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        la, tb = getattr(F, fn)(a, lucid.tensor(t)), getattr(TF, fn)(b, torch.tensor(t))
        assert np.isnan(la.item()) and np.isnan(tb.item())
        la.backward()
        tb.backward()
        np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())
        assert not np.any(a.grad.numpy())
    out = getattr(F, fn)(
        lucid.tensor(_r(0, 4)), lucid.tensor(np.zeros(0, np.int64)), reduction="sum"
    )
    assert out.item() == 0.0


@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_double_backward_matches_torch(fn):
    x = _r(4, 3)
    t = np.array([0, 2, -100, 1])
    kw = dict(label_smoothing=0.2) if fn == "cross_entropy" else {}
    w = np.array([1.0, 0.5, 2.0])
    a, b = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (ga,) = lucid.autograd.grad(
        getattr(F, fn)(a, lucid.tensor(t), lucid.tensor(w), **kw), [a], create_graph=True
    )
    (gb,) = torch.autograd.grad(
        getattr(TF, fn)(b, torch.tensor(t), torch.tensor(w), **kw), [b], create_graph=True
    )
    v = _r(4, 3, seed=5)
    (hb,) = torch.autograd.grad((gb * torch.tensor(v)).sum(), [b], allow_unused=True)
    if not ga.requires_grad:  # NLL's gradient does not depend on the input
        assert hb is None or not np.any(hb.numpy())
        return
    (ha,) = lucid.autograd.grad((ga * lucid.tensor(v)).sum(), [a], allow_unused=True)
    if hb is None:
        assert ha is None or not np.any(ha.numpy())
    else:
        np.testing.assert_allclose(ha.numpy(), hb.numpy(), rtol=1e-9, atol=1e-12)


def test_cross_entropy_float32_logits_far_apart():
    x = np.array([[1000.0, -1000.0, 0.0], [-5e3, 5e3, 1.0]], np.float32)
    check(
        lambda a, t: F.cross_entropy(a, t),
        lambda a, t: TF.cross_entropy(a, t),
        x,
        np.array([1, 1]),
        tol=TOL[np.float32],
    )


def test_class_loss_errors_name_the_function():
    x = lucid.randn(3, 4)
    with pytest.raises(DTypeError, match="cross_entropy"):
        F.cross_entropy(x, lucid.tensor([0.0, 1.0, 2.0]))
    with pytest.raises(ShapeError, match="cross_entropy.*target size"):
        F.cross_entropy(x, lucid.tensor([0, 1]))
    with pytest.raises(ShapeError, match="nll_loss.*target size"):
        F.nll_loss(lucid.randn(2, 3, 4), lucid.tensor([0, 1]))
    with pytest.raises(IndexingError, match="out of bounds"):
        F.cross_entropy(x, lucid.tensor([0, 4, 1]))
    with pytest.raises(IndexingError, match="out of bounds"):
        F.nll_loss(x, lucid.tensor([0, -3, 1]))
    with pytest.raises(ShapeError, match="weight"):
        F.cross_entropy(x, lucid.tensor([0, 1, 2]), weight=lucid.ones(3))
    with pytest.raises(ArgumentError, match="label_smoothing"):
        F.cross_entropy(x, lucid.tensor([0, 1, 2]), label_smoothing=1.5)
    with pytest.raises(ArgumentError, match="reduction"):
        F.cross_entropy(x, lucid.tensor([0, 1, 2]), reduction="avg")
    with pytest.raises(ShapeError, match="nll_loss"):
        F.nll_loss(lucid.tensor(1.0), lucid.tensor(0))
    with pytest.raises(ArgumentError, match="legacy"):
        F.mse_loss(x, x, size_average=True)


def test_other_shape_and_option_errors_name_the_function():
    x = lucid.randn(3, 4)
    with pytest.raises(ShapeError, match="binary_cross_entropy_with_logits"):
        F.binary_cross_entropy_with_logits(x, lucid.randn(4))
    with pytest.raises(ShapeError, match="soft_margin_loss"):
        F.soft_margin_loss(x, lucid.randn(3))
    with pytest.raises(ShapeError, match="margin_ranking_loss"):
        F.margin_ranking_loss(lucid.randn(3), lucid.randn(3), lucid.randn(3, 1))
    with pytest.raises(ShapeError, match="cosine_embedding_loss"):
        F.cosine_embedding_loss(x, lucid.randn(3, 5), lucid.ones(3))
    with pytest.raises(ShapeError, match="multilabel_margin_loss"):
        F.multilabel_margin_loss(x, lucid.tensor([[0, 1]]))
    with pytest.raises(DTypeError, match="multilabel_margin_loss"):
        F.multilabel_margin_loss(x, lucid.zeros(3, 4))
    with pytest.raises(ShapeError, match="multi_margin_loss"):
        F.multi_margin_loss(x, lucid.tensor([0, 1]))
    with pytest.raises(ArgumentError, match="kl_div.*reduction"):
        F.kl_div(x, x, reduction="batch")
    with pytest.raises(ArgumentError, match="huber_loss"):
        F.huber_loss(x, x, delta=0.0)
    with pytest.raises(ArgumentError, match="smooth_l1_loss"):
        F.smooth_l1_loss(x, x, beta=-1.0)
    with pytest.raises(DTypeError, match="mse_loss"):
        F.mse_loss(lucid.tensor([1, 2]), lucid.tensor([1, 2]))


# -- regression losses ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("reduction", REDS)
@pytest.mark.parametrize(
    "name,kw",
    [
        ("mse_loss", {}),
        ("l1_loss", {}),
        ("smooth_l1_loss", {}),
        ("smooth_l1_loss", {"beta": 0.4}),
        ("smooth_l1_loss", {"beta": 0.0}),
        ("huber_loss", {}),
        ("huber_loss", {"delta": 0.3}),
    ],
)
def test_regression_losses(name, kw, reduction, dtype):
    kw = dict(kw, reduction=reduction)
    check(
        lambda a, b: getattr(F, name)(a, b, **kw),
        lambda a, b: getattr(TF, name)(a, b, **kw),
        _r(4, 5).astype(dtype),
        _r(4, 5, seed=3).astype(dtype),
        tol=TOL[dtype],
    )


@pytest.mark.parametrize("reduction", REDS)
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
def test_elementwise_weight(name, reduction):
    w = np.random.default_rng(4).uniform(0.1, 2.0, (4, 5))
    lf, tf = _pair(
        lambda a, b, w: getattr(F, name)(a, b, reduction=reduction, weight=w),
        lambda a, b, w: getattr(TF, name)(a, b, reduction=reduction, weight=w),
        [w],
    )
    check(lf, tf, _r(4, 5), _r(4, 5, seed=3), tol=TOL[np.float64])
    with pytest.raises(ShapeError, match=name):
        getattr(F, name)(lucid.randn(4, 5), lucid.randn(4, 5), weight=lucid.ones(5))


def test_regression_broadcast_warns_and_empty_mean_is_nan():
    with pytest.warns(UserWarning, match="target size"):
        lo = F.mse_loss(lucid.tensor(_r(3, 4)), lucid.tensor(_r(4)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        to = TF.mse_loss(torch.tensor(_r(3, 4)), torch.tensor(_r(4)))
    np.testing.assert_allclose(lo.item(), to.item(), rtol=1e-12)
    assert np.isnan(F.l1_loss(lucid.zeros(0), lucid.zeros(0)).item())
    check(
        lambda a, b: F.mse_loss(a, b),
        lambda a, b: TF.mse_loss(a, b),
        _r(3, 4),
        _r(3, 4, seed=2),
        noncontig=True,
        tol=TOL[np.float64],
    )


@pytest.mark.parametrize("reduction", REDS)
@pytest.mark.parametrize(
    "name",
    [
        "mse_loss",
        "l1_loss",
        "smooth_l1_loss",
        "huber_loss",
        "binary_cross_entropy",
        "binary_cross_entropy_with_logits",
        "soft_margin_loss",
        "multilabel_soft_margin_loss",
        "hinge_embedding_loss",
        "poisson_nll_loss",
    ],
)
def test_empty_batch(name, reduction):
    x, y = np.full((0, 3), 0.5), np.ones((0, 3))
    grad_y = name not in ("soft_margin_loss", "hinge_embedding_loss", "multilabel_soft_margin_loss")
    lf, tf = _pair(
        lambda a, *b: getattr(F, name)(a, *b, reduction=reduction),
        lambda a, *b: getattr(TF, name)(a, *b, reduction=reduction),
        [] if grad_y else [y],
    )
    lo, _ = check(lf, tf, x, *([y] if grad_y else []), tol=TOL[np.float64])
    if reduction == "mean":
        assert np.isnan(lo.item())


# -- binary and distribution losses --------------------------------------------------------


@pytest.mark.parametrize("reduction", REDS)
def test_binary_cross_entropy(reduction):
    p = np.random.default_rng(5).uniform(0.02, 0.98, (4, 3))
    y = np.random.default_rng(6).uniform(0, 1, (4, 3))
    for consts in ([], [_r(4, 3, low=0.1, high=2.0)]):
        lf, tf = _pair(
            lambda a, b, *w: F.binary_cross_entropy(a, b, *w, reduction=reduction),
            lambda a, b, *w: TF.binary_cross_entropy(a, b, *w, reduction=reduction),
            consts,
        )
        check(lf, tf, p, y, tol=TOL[np.float64])
        check(lf, tf, p.astype(np.float32), y.astype(np.float32), tol=TOL[np.float32])


def test_binary_cross_entropy_clamps_log_at_minus_100():
    p, y = np.array([0.0, 1.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0, 1.0])
    out = F.binary_cross_entropy(lucid.tensor(p), lucid.tensor(y), reduction="none")
    np.testing.assert_allclose(out.numpy(), [100.0, 100.0, 0.0, 0.0], atol=1e-12)
    with pytest.raises(ArgumentError, match="between 0 and 1"):
        F.binary_cross_entropy(lucid.tensor([1.5]), lucid.tensor([1.0]))
    with pytest.raises(ShapeError, match="binary_cross_entropy"):
        F.binary_cross_entropy(lucid.tensor([0.5, 0.5]), lucid.tensor([1.0]))


@pytest.mark.parametrize("reduction", REDS)
def test_bce_with_logits(reduction):
    x = _r(4, 3, low=-30, high=30)
    y = np.random.default_rng(6).uniform(0, 1, (4, 3))
    pw = np.array([0.5, 2.0, 3.0])
    w = _r(4, 3, low=0.1, high=2.0)
    for kw_l, kw_t in [
        ({}, {}),
        ({"pos_weight": pw}, {"pos_weight": pw}),
        ({"weight": w, "pos_weight": pw}, {"weight": w, "pos_weight": pw}),
    ]:
        lf = lambda a, b, kw=kw_l: F.binary_cross_entropy_with_logits(
            a, b, reduction=reduction, **{k: lucid.tensor(v) for k, v in kw.items()}
        )
        tf = lambda a, b, kw=kw_t: TF.binary_cross_entropy_with_logits(
            a, b, reduction=reduction, **{k: torch.tensor(v) for k, v in kw.items()}
        )
        check(lf, tf, x, y, tol=TOL[np.float64])
    big = np.array([-1000.0, 1000.0])
    out = F.binary_cross_entropy_with_logits(
        lucid.tensor(big), lucid.tensor([1.0, 0.0]), reduction="none"
    )
    np.testing.assert_allclose(out.numpy(), [1000.0, 1000.0])


@pytest.mark.parametrize("reduction", ["none", "mean", "sum", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    q = np.random.default_rng(7).dirichlet(np.ones(4), 3)
    q[0, 1] = 0.0  # a zero probability: 0 log 0 = 0
    t = np.log(q + 1e-3) if log_target else q
    kw = dict(reduction=reduction, log_target=log_target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(
            lambda a, b: F.kl_div(a, b, **kw),
            lambda a, b: TF.kl_div(a, b, **kw),
            np.log(np.random.default_rng(8).dirichlet(np.ones(4), 3)),
            t,
            tol=TOL[np.float64],
        )
    if reduction == "mean":
        with pytest.warns(UserWarning, match="batchmean"):
            F.kl_div(lucid.zeros(2, 2), lucid.zeros(2, 2))


@pytest.mark.parametrize("reduction", REDS)
@pytest.mark.parametrize(
    "log_input,full", [(True, False), (True, True), (False, False), (False, True)]
)
def test_poisson_nll_loss(log_input, full, reduction):
    y = np.random.default_rng(9).integers(0, 6, (4, 3)).astype(float)
    x = _r(4, 3) if log_input else _r(4, 3, low=0.1, high=3.0)
    kw = dict(log_input=log_input, full=full, reduction=reduction, eps=1e-3)
    check(
        lambda a, b: F.poisson_nll_loss(a, b, **kw),
        lambda a, b: TF.poisson_nll_loss(a, b, **kw),
        x,
        y,
        tol=TOL[np.float64],
    )


@pytest.mark.parametrize("reduction", REDS)
def test_gaussian_nll_loss(reduction):
    x, y = _r(4, 3), _r(4, 3, seed=1)
    for var in (_r(4, 3, low=0.0, high=2.0), _r(4, low=0.1, high=2.0), _r(4, 1, low=0.1, high=2.0)):
        for full, eps in ((False, 1e-6), (True, 0.5)):
            kw = dict(full=full, eps=eps, reduction=reduction)
            check(
                lambda a, b, v: F.gaussian_nll_loss(a, b, v, **kw),
                lambda a, b, v: TF.gaussian_nll_loss(a, b, v, **kw),
                x,
                y,
                var,
                tol=TOL[np.float64],
            )
    check(
        lambda a, b: F.gaussian_nll_loss(a, b, 0.7),
        lambda a, b: TF.gaussian_nll_loss(a, b, 0.7),
        x,
        y,
        tol=TOL[np.float64],
    )
    with pytest.raises(ArgumentError, match="negative"):
        F.gaussian_nll_loss(lucid.randn(3), lucid.randn(3), -lucid.ones(3))
    with pytest.raises(ShapeError, match="var"):
        F.gaussian_nll_loss(lucid.randn(4, 3), lucid.randn(4, 3), lucid.ones(2, 2))


# -- margin and embedding losses -----------------------------------------------------------

_SIGN = np.array([1.0, -1.0, -1.0, 1.0, 1.0])


@pytest.mark.parametrize("reduction", REDS)
def test_margin_losses(reduction):
    kw = dict(reduction=reduction)
    for m in (0.0, 0.5):
        check(
            lambda a, b, y: F.margin_ranking_loss(a, b, y, margin=m, **kw),
            lambda a, b, y: TF.margin_ranking_loss(a, b, y, margin=m, **kw),
            _r(5),
            _r(5, seed=1),
            _SIGN,
            tol=TOL[np.float64],
        )
        check(
            lambda a, b, y: F.cosine_embedding_loss(a, b, y, margin=m, **kw),
            lambda a, b, y: TF.cosine_embedding_loss(a, b, y, margin=m, **kw),
            _r(5, 3),
            _r(5, 3, seed=1),
            _SIGN,
            grad=True,
            tol=TOL[np.float64],
        )
    for m in (1.0, 0.3):
        check(
            lambda a, y: F.hinge_embedding_loss(a, y, margin=m, **kw),
            lambda a, y: TF.hinge_embedding_loss(a, y, margin=m, **kw),
            _r(5, 3),
            np.sign(_r(5, 3, seed=4)),
            tol=TOL[np.float64],
        )
    # PyTorch's soft margin loss has no gradient to the target: the labels are constants
    lf, tf = _pair(
        lambda a, y: F.soft_margin_loss(a, y, **kw),
        lambda a, y: TF.soft_margin_loss(a, y, **kw),
        [np.sign(_r(5, 3, seed=4))],
    )
    check(lf, tf, _r(5, 3), tol=TOL[np.float64])
    check(
        lambda a, b, y: F.cosine_embedding_loss(a, b, y, **kw),
        lambda a, b, y: TF.cosine_embedding_loss(a, b, y, **kw),
        _r(3),
        _r(3, seed=1),
        np.array(-1.0),
        tol=TOL[np.float64],
    )


@pytest.mark.parametrize("reduction", REDS)
def test_triplet_losses(reduction):
    a, p, n = _r(5, 4), _r(5, 4, seed=1), _r(5, 4, seed=2)
    for kw in ({}, {"margin": 2.0}, {"p": 1}, {"p": 3.0, "eps": 1e-3}, {"swap": True}):
        kw = dict(kw, reduction=reduction)
        check(
            lambda *t: F.triplet_margin_loss(*t, **kw),
            lambda *t: TF.triplet_margin_loss(*t, **kw),
            a,
            p,
            n,
            tol=TOL[np.float64],
        )
    for kw in ({}, {"margin": 0.5, "swap": True}):
        kw = dict(kw, reduction=reduction)
        check(
            lambda *t: F.triplet_margin_with_distance_loss(*t, **kw),
            lambda *t: TF.triplet_margin_with_distance_loss(*t, **kw),
            a,
            p,
            n,
            tol=TOL[np.float64],
        )
    l1 = dict(reduction=reduction, distance_function=lambda u, v: (u - v).abs().sum(-1))
    check(
        lambda *t: F.triplet_margin_with_distance_loss(*t, **l1),
        lambda *t: TF.triplet_margin_with_distance_loss(*t, **l1),
        a,
        p,
        n,
        tol=TOL[np.float64],
    )
    with pytest.raises(ArgumentError, match="margin"):
        F.triplet_margin_loss(lucid.tensor(a), lucid.tensor(p), lucid.tensor(n), margin=0.0)
    with pytest.raises(ShapeError, match="dimensions"):
        F.triplet_margin_loss(lucid.tensor(a), lucid.tensor(p), lucid.tensor(n[0]))


@pytest.mark.parametrize("reduction", REDS)
def test_multi_margin_loss(reduction):
    t = np.array([0, 3, 1, 3, 2, 1])
    for p_ in (1, 2):
        for m in (1.0, 0.4):
            for consts in ([], [_W]):
                lf, tf = _pair(
                    lambda x, y, *w: F.multi_margin_loss(x, y, p_, m, *w, reduction=reduction),
                    lambda x, y, *w: TF.multi_margin_loss(x, y, p_, m, *w, reduction=reduction),
                    consts,
                )
                check(lf, tf, _r(6, 4, low=-0.6, high=0.6), t, tol=TOL[np.float64])
    check(
        lambda x, y: F.multi_margin_loss(x, y, reduction=reduction),
        lambda x, y: TF.multi_margin_loss(x, y, reduction=reduction),
        _r(4),
        np.array(2),
        tol=TOL[np.float64],
    )
    with pytest.raises(ArgumentError, match="p == 1"):
        F.multi_margin_loss(lucid.randn(2, 3), lucid.tensor([0, 1]), p=3)
    with pytest.raises(IndexingError):
        F.multi_margin_loss(lucid.randn(2, 3), lucid.tensor([0, 3]))


@pytest.mark.parametrize("reduction", REDS)
def test_multilabel_losses(reduction):
    t = np.array([[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 0, 0], [-1, 0, 0, 0], [2, 1, -1, -1]])
    check(
        lambda x, y: F.multilabel_margin_loss(x, y, reduction=reduction),
        lambda x, y: TF.multilabel_margin_loss(x, y, reduction=reduction),
        _r(5, 4, low=-0.7, high=0.7),
        t,
        tol=TOL[np.float64],
    )
    check(
        lambda x, y: F.multilabel_margin_loss(x, y, reduction=reduction),
        lambda x, y: TF.multilabel_margin_loss(x, y, reduction=reduction),
        _r(4),
        np.array([2, 0, -1, 1]),
        tol=TOL[np.float64],
    )
    y = (np.random.default_rng(3).uniform(size=(5, 4)) > 0.5).astype(float)
    for consts in ([], [_W]):
        kw = dict(reduction=reduction)
        lf, tf = _pair(
            lambda x, y, *w: F.multilabel_soft_margin_loss(x, y, *w, **kw),
            lambda x, y, *w: TF.multilabel_soft_margin_loss(x, y, *w, **kw),
            consts,
        )
        check(lf, tf, _r(5, 4), y, tol=TOL[np.float64])


# -- CTC -----------------------------------------------------------------------------------


def _ctc(**kw):
    return (
        lambda x, t, il, tl: F.ctc_loss(F.log_softmax(x, -1), t, il, tl, **kw),
        lambda x, t, il, tl: TF.ctc_loss(TF.log_softmax(x, -1), t, il, tl, **kw),
    )


@pytest.mark.parametrize("reduction", REDS)
def test_ctc_loss_padded_and_concatenated(reduction):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((12, 3, 5))
    t = rng.integers(1, 5, (3, 4))
    t[1, 1] = t[1, 0]  # a repeated label needs a blank
    il, tl = np.array([12, 10, 9]), np.array([4, 2, 0])
    check(*_ctc(reduction=reduction), x, t, il, tl, tol=TOL[np.float64])
    flat = np.concatenate([t[0, :4], t[1, :2]])
    check(*_ctc(reduction=reduction), x, flat, il, tl, tol=TOL[np.float64])
    check(
        *_ctc(reduction=reduction, blank=4),
        x,
        np.minimum(t, 3) * 0 + 2,
        il,
        tl,
        tol=TOL[np.float64],
    )
    check(*_ctc(reduction=reduction), x.astype(np.float32), t, il, tl, tol=TOL[np.float32])


def test_ctc_loss_unbatched_and_tuple_lengths():
    rng = np.random.default_rng(12)
    x = rng.standard_normal((8, 4))
    for red in REDS:
        lf, tf = _ctc(reduction=red)
        check(
            lambda a, t: lf(a, t, lucid.tensor(8), lucid.tensor(3)),
            lambda a, t: tf(a, t, torch.tensor(8), torch.tensor(3)),
            x,
            np.array([1, 2, 2]),
            tol=TOL[np.float64],
        )
    x3 = rng.standard_normal((8, 2, 4))
    lf, tf = _ctc()
    check(
        lambda a, t: lf(a, t, (8, 6), (3, 1)),
        lambda a, t: tf(a, t, (8, 6), (3, 1)),
        x3,
        np.array([[1, 2, 3], [3, 0, 0]]),
        tol=TOL[np.float64],
    )


def test_ctc_loss_impossible_alignment():
    x = np.random.default_rng(13).standard_normal((3, 2, 4))
    t = np.array([[1, 1, 1], [2, 3, 0]])
    il, tl = np.array([3, 3]), np.array([3, 2])  # 1,1,1 needs 5 frames
    out = F.ctc_loss(
        F.log_softmax(lucid.tensor(x), -1),
        lucid.tensor(t),
        lucid.tensor(il),
        lucid.tensor(tl),
        reduction="none",
    )
    assert np.isinf(out.numpy()[0]) and np.isfinite(out.numpy()[1])
    check(*_ctc(reduction="none", zero_infinity=True), x, t, il, tl, tol=TOL[np.float64])
    check(*_ctc(reduction="mean", zero_infinity=True), x, t, il, tl, tol=TOL[np.float64])


def test_ctc_loss_half_input_computes_in_float32():
    x = np.random.default_rng(14).standard_normal((6, 2, 4))
    t, il, tl = np.array([[1, 2], [3, 3]]), np.array([6, 5]), np.array([2, 2])
    lp = F.log_softmax(lucid.tensor(x), -1)
    ref = F.ctc_loss(lp, lucid.tensor(t), lucid.tensor(il), lucid.tensor(tl))
    half = F.ctc_loss(lp.to(lucid.float16), lucid.tensor(t), lucid.tensor(il), lucid.tensor(tl))
    assert half.dtype is lucid.float16
    np.testing.assert_allclose(half.float().item(), ref.item(), rtol=2e-3)


def test_ctc_loss_errors():
    lp = lucid.randn(5, 2, 4).log_softmax(-1)
    with pytest.raises(ShapeError, match="ctc_loss"):
        F.ctc_loss(lp, lucid.tensor([[1, 2], [1, 1]]), [5], [2, 2])
    with pytest.raises(ArgumentError, match="blank"):
        F.ctc_loss(lp, lucid.tensor([[1, 2], [1, 1]]), [5, 5], [2, 2], blank=4)
    with pytest.raises(DTypeError, match="ctc_loss"):
        F.ctc_loss(lp, lucid.tensor([[1.0, 2.0], [1.0, 1.0]]), [5, 5], [2, 2])


# -- modules -------------------------------------------------------------------------------


def _module_case(lm, tm, *arrays, tol=TOL[np.float64]):
    assert repr(lm) == repr(tm)
    check(lm, tm, *arrays, tol=tol)


def test_loss_modules():
    x, y = _r(6, 4), _r(6, 4, seed=1)
    w = lucid.tensor(_W)
    tw = torch.tensor(_W)
    for name, kw in [
        ("L1Loss", {}),
        ("MSELoss", {"reduction": "sum"}),
        ("SmoothL1Loss", {"beta": 0.5}),
        ("HuberLoss", {"delta": 0.5}),
    ]:
        _module_case(getattr(nn, name)(**kw), getattr(torch.nn, name)(**kw), x, y)
    lm, tm = nn.SoftMarginLoss(), torch.nn.SoftMarginLoss()
    assert repr(lm) == repr(tm)
    check(*_pair(lm, tm, [np.sign(y)]), x, tol=TOL[np.float64])
    _module_case(
        nn.CrossEntropyLoss(weight=w, ignore_index=7, label_smoothing=0.1),
        torch.nn.CrossEntropyLoss(weight=tw, ignore_index=7, label_smoothing=0.1),
        x,
        _TI7,
    )
    _module_case(
        nn.NLLLoss(weight=w, reduction="sum"), torch.nn.NLLLoss(weight=tw, reduction="sum"), x, _T
    )
    p = 1 / (1 + np.exp(-x))
    yb = (y > 0).astype(float)
    _module_case(nn.BCELoss(), torch.nn.BCELoss(), p, yb)
    _module_case(
        nn.BCEWithLogitsLoss(pos_weight=w), torch.nn.BCEWithLogitsLoss(pos_weight=tw), x, yb
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _module_case(
            nn.KLDivLoss(reduction="batchmean", log_target=True),
            torch.nn.KLDivLoss(reduction="batchmean", log_target=True),
            x,
            y,
        )
    _module_case(
        nn.PoissonNLLLoss(log_input=False, full=True),
        torch.nn.PoissonNLLLoss(log_input=False, full=True),
        np.abs(x) + 0.1,
        np.round(np.abs(y) * 3),
    )
    _module_case(
        nn.GaussianNLLLoss(full=True), torch.nn.GaussianNLLLoss(full=True), x, y, np.abs(y) + 0.1
    )
    _module_case(
        nn.MarginRankingLoss(0.2), torch.nn.MarginRankingLoss(0.2), x[:5, 0], y[:5, 0], _SIGN
    )
    _module_case(nn.HingeEmbeddingLoss(0.5), torch.nn.HingeEmbeddingLoss(0.5), x, np.sign(y))
    _module_case(
        nn.CosineEmbeddingLoss(0.1), torch.nn.CosineEmbeddingLoss(0.1), x[:5], y[:5], _SIGN
    )
    _module_case(
        nn.TripletMarginLoss(p=1, swap=True),
        torch.nn.TripletMarginLoss(p=1, swap=True),
        x,
        y,
        _r(6, 4, seed=2),
    )
    _module_case(
        nn.TripletMarginWithDistanceLoss(margin=0.5),
        torch.nn.TripletMarginWithDistanceLoss(margin=0.5),
        x,
        y,
        _r(6, 4, seed=2),
    )
    _module_case(
        nn.MultiMarginLoss(p=2, margin=0.5, weight=w),
        torch.nn.MultiMarginLoss(p=2, margin=0.5, weight=tw),
        x * 0.3,
        _T,
    )
    _module_case(
        nn.MultiLabelMarginLoss(),
        torch.nn.MultiLabelMarginLoss(),
        x * 0.3,
        np.array([[3, 0, -1, 1]] * 6),
    )
    _module_case(
        nn.MultiLabelSoftMarginLoss(weight=w), torch.nn.MultiLabelSoftMarginLoss(weight=tw), x, yb
    )
    lm, tm = nn.CTCLoss(blank=1, zero_infinity=True), torch.nn.CTCLoss(blank=1, zero_infinity=True)
    assert repr(lm) == repr(tm)
    check(
        lambda a, t: lm(F.log_softmax(a, -1), t, [6, 5], [2, 1]),
        lambda a, t: tm(TF.log_softmax(a, -1), t, [6, 5], [2, 1]),
        _r(6, 2, 4),
        np.array([[2, 3], [0, 0]]),
        tol=TOL[np.float64],
    )


def test_loss_module_buffers_and_options():
    w = lucid.tensor(_W)
    m = nn.CrossEntropyLoss(weight=w)
    assert list(m.state_dict()) == ["weight"]
    assert list(nn.BCEWithLogitsLoss(pos_weight=w).state_dict()) == ["pos_weight"]
    assert list(nn.CrossEntropyLoss().state_dict()) == []
    assert m.reduction == "mean" and m.ignore_index == -100 and m.label_smoothing == 0.0
    with pytest.raises(ArgumentError, match="p == 1"):
        nn.MultiMarginLoss(p=3)
    m64 = nn.CrossEntropyLoss(weight=lucid.ones(4, dtype=lucid.float32)).to(lucid.float64)
    assert m64.weight.dtype is lucid.float64


def test_half_inputs_and_autocast():
    x = _r(4, 5).astype(np.float32)
    t = lucid.tensor([0, 4, 2, 1])
    ref = F.cross_entropy(lucid.tensor(x), t).item()
    for dt in (lucid.float16, lucid.bfloat16):
        h = lucid.tensor(x).to(dt).requires_grad_()
        out = F.cross_entropy(h, t, label_smoothing=0.1)
        assert out.dtype is dt
        out.backward()
        assert h.grad.dtype is dt
        np.testing.assert_allclose(
            F.cross_entropy(lucid.tensor(x).to(dt), t).float().item(), ref, rtol=2e-2
        )
    with lucid.autocast("cpu", dtype=lucid.bfloat16):
        assert F.cross_entropy(lucid.tensor(x), t).dtype is lucid.float32  # FORCE_FP32


@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_class_index_out_of_range_names_the_loss(fn):
    with pytest.raises(
        IndexingError,
        match=f"{fn}: target out of bounds for 4 "
        r"classes \(index 7",
    ):
        getattr(lucid.nn.functional, fn)(lucid.randn(3, 4), lucid.tensor([0, 1, 7]))
