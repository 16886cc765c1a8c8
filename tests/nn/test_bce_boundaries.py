"""Binary cross-entropy at probabilities 0 and 1 and their neighbours against PyTorch:
the -100 floor of each log, the 1e-12 floor of x(1 - x) in the gradient, every reduction,
weights, float32/float64/bfloat16, the target's gradient, double backward; the weight and
target checks; the siamese case (a sigmoid saturating at 1.0 in float32)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.errors import ArgumentError, DTypeError, ShapeError

REDS = ["none", "mean", "sum"]
# atol: at a denormal x the gradient's factor g (x - y) underflows; Lucid's mean scales g
# by 1/n before it, PyTorch after, so they differ by up to (smallest denormal) / 1e-12.
DTYPES = {
    "f64": (lucid.float64, torch.float64, dict(rtol=1e-12, atol=1e-311)),
    "f32": (lucid.float32, torch.float32, dict(rtol=1e-6, atol=2e-33)),
    "bf16": (lucid.bfloat16, torch.bfloat16, dict(rtol=2e-2, atol=1e-28)),
}  # ~5 ulp


def _boundary(npdt):
    """0, the smallest positive (denormal) and normal numbers, the largest number below 1,
    1 and an interior point, each against targets 0, 1 and 0.3."""
    xs = [
        0.0,
        np.nextafter(npdt(0), npdt(1)),
        np.finfo(npdt).tiny,
        np.nextafter(npdt(1), npdt(0)),
        1.0,
        0.25,
    ]
    x, y = np.meshgrid(np.array(xs, npdt), np.array([0.0, 1.0, 0.3], npdt), indexing="ij")
    return x.ravel(), y.ravel()


def _both(x, y, ldt, tdt, w=None):
    lx, ly = (lucid.tensor(a.astype(np.float64)).to(ldt).requires_grad_() for a in (x, y))
    tx, ty = (torch.tensor(a.astype(np.float64)).to(tdt).requires_grad_() for a in (x, y))
    lw = None if w is None else lucid.tensor(w).to(ldt)
    tw = None if w is None else torch.tensor(w).to(tdt)
    return (lx, ly, lw), (tx, ty, tw)


def _np(t):
    return np.asarray(
        t.detach().to(torch.float64).numpy()
        if isinstance(t, torch.Tensor)
        else t.detach().to(lucid.float64).numpy()
    )


def _close(a, b, tol):
    a, b = _np(a), _np(b)
    assert np.array_equal(np.isnan(a), np.isnan(b))
    assert np.array_equal(np.isinf(a), np.isinf(b)) and np.array_equal(
        a[np.isinf(a)], b[np.isinf(b)]
    )
    fin = np.isfinite(a)
    np.testing.assert_allclose(a[fin], b[fin], **tol)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("reduction", REDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_boundaries_match_torch(dt, reduction, weighted):
    ldt, tdt, tol = DTYPES[dt]
    x, y = _boundary(np.float32 if dt == "bf16" else {"f64": np.float64, "f32": np.float32}[dt])
    w = np.linspace(0.5, 2.0, x.size) if weighted else None
    (lx, ly, lw), (tx, ty, tw) = _both(x, y, ldt, tdt, w)
    lo = F.binary_cross_entropy(lx, ly, weight=lw, reduction=reduction)
    to = TF.binary_cross_entropy(tx, ty, weight=tw, reduction=reduction)
    assert lo.dtype is ldt and np.isfinite(_np(lo)).all()
    _close(lo, to, tol)
    g = np.linspace(-1.0, 1.0, x.size) if reduction == "none" else np.array(1.5)
    lo.backward(lucid.tensor(g).to(ldt))
    to.backward(torch.tensor(g).to(tdt))
    assert np.isfinite(_np(lx.grad)).all()  # finite at 0 and 1, as PyTorch
    _close(lx.grad, tx.grad, tol)
    _close(ly.grad, ty.grad, tol)  # -logit(x): +-inf at 0 and 1


def test_issue_values():
    x = lucid.tensor([1.0, 0.0, 0.5], requires_grad=True)
    F.binary_cross_entropy(x, lucid.tensor([1.0, 1.0, 0.0])).backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, -1e12 / 3, 2 / 3], rtol=1e-6)
    loss = F.binary_cross_entropy(
        lucid.tensor([0.0, 1.0]), lucid.tensor([1.0, 0.0]), reduction="none"
    )
    np.testing.assert_array_equal(loss.numpy(), [100.0, 100.0])  # exact in float32


@pytest.mark.parametrize("reduction", REDS)
def test_double_backward_inside(reduction):
    rng = np.random.default_rng(3)
    x, y = rng.uniform(0.05, 0.95, (3, 4)), rng.uniform(0, 1, (3, 4))
    w = rng.uniform(0.5, 2.0, (4,))
    (lx, ly, lw), (tx, ty, tw) = _both(x, y, lucid.float64, torch.float64, w)
    lo = F.binary_cross_entropy(lx, ly, weight=lw, reduction=reduction).sum()
    to = TF.binary_cross_entropy(tx, ty, weight=tw, reduction=reduction).sum()
    lg = lucid.autograd.grad(lo, (lx, ly), create_graph=True)
    tg = torch.autograd.grad(to, (tx, ty), create_graph=True)
    v = rng.uniform(-1, 1, (3, 4))
    lh = lucid.autograd.grad((lg[0] * lucid.tensor(v)).sum() + lg[1].sum(), (lx, ly))
    th = torch.autograd.grad((tg[0] * torch.tensor(v)).sum() + tg[1].sum(), (tx, ty))
    for a, b in zip(lg, tg):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12, atol=1e-14)
    for a, b in zip(lh, th):  # PyTorch's second derivative has (x + 1e-12) for x
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-8, atol=1e-12)


def test_gradcheck():
    rng = np.random.default_rng(4)
    x = lucid.tensor(rng.uniform(0.1, 0.9, (2, 3)), requires_grad=True)
    y = lucid.tensor(rng.uniform(0, 1, (2, 3)), requires_grad=True)
    fn = lambda a, b: F.binary_cross_entropy(a, b, reduction="sum")  # noqa: E731
    assert lucid.autograd.gradcheck(fn, (x, y))
    assert lucid.autograd.gradgradcheck(fn, (x, y))


def test_shapes_and_layouts():
    # 0-d, empty (mean is nan), non-contiguous
    for x, y in [(np.array(0.3), np.array(1.0)), (np.zeros((0, 2)), np.zeros((0, 2)))]:
        (lx, ly, _), (tx, ty, _) = _both(x, y, lucid.float64, torch.float64)
        _close(F.binary_cross_entropy(lx, ly), TF.binary_cross_entropy(tx, ty), dict(rtol=1e-12))
    x = np.random.default_rng(1).uniform(0, 1, (4, 3))
    y = (x > 0.5).astype(np.float64)
    lx = lucid.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    lo = F.binary_cross_entropy(lx.t(), lucid.tensor(y).t(), reduction="sum")
    to = TF.binary_cross_entropy(tx.t(), torch.tensor(y).t(), reduction="sum")
    lo.backward()
    to.backward()
    _close(lo, to, dict(rtol=1e-12))
    _close(lx.grad, tx.grad, dict(rtol=1e-12))


def test_weight_broadcasts_and_takes_the_input_dtype():
    x = lucid.full((2, 3), 0.25)
    y = lucid.ones(2, 3)
    for w in (lucid.tensor([1.0, 2.0, 3.0], dtype=lucid.float64), lucid.tensor([[2.0], [3.0]])):
        out = F.binary_cross_entropy(x, y, weight=w, reduction="none")
        ref = TF.binary_cross_entropy(
            torch.full((2, 3), 0.25),
            torch.ones(2, 3),
            weight=torch.tensor(w.numpy()),
            reduction="none",
        )
        assert out.dtype is lucid.float32 and tuple(out.shape) == (2, 3)
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-6)
    with lucid.no_grad():  # a weight that requires grad is fine without a graph
        F.binary_cross_entropy(x, y, weight=lucid.ones(3, requires_grad=True))


def test_errors():
    x, y = lucid.full((2, 3), 0.5), lucid.ones(2, 3)
    with pytest.raises(ShapeError, match="cross_entropy: weight of shape \\(4, 2, 3\\)"):
        F.binary_cross_entropy(x, y, weight=lucid.ones(4, 2, 3))
    with pytest.raises(ShapeError, match="binary_cross_entropy: weight of shape \\(2,\\)"):
        F.binary_cross_entropy(x, y, weight=lucid.ones(2))
    with pytest.raises(ArgumentError, match="not differentiable with respect to 'weight'"):
        F.binary_cross_entropy(x, y, weight=lucid.ones(3, requires_grad=True))
    with pytest.raises(
        DTypeError, match="target of the input's dtype lucid.float32, got lucid.float64"
    ):
        F.binary_cross_entropy(x, y.double())
    with pytest.raises(DTypeError, match="binary_cross_entropy: expected a floating point"):
        F.binary_cross_entropy(x.long(), y.long())
    with pytest.raises(ArgumentError, match="between 0 and 1"):
        F.binary_cross_entropy(lucid.tensor([float("nan")]), lucid.tensor([1.0]))
    # a target that is not a Tensor takes the input's dtype
    out = F.binary_cross_entropy(lucid.tensor([0.5], dtype=lucid.float64), [1])
    assert out.dtype is lucid.float64


def test_siamese_head_saturating_at_one_stays_finite():
    """A sigmoid head whose float32 output rounds to exactly 1.0 (the siamese example's
    second step): loss and every gradient stay finite, as in PyTorch."""
    head = nn.Linear(2, 1)
    thead = torch.nn.Linear(2, 1)
    with torch.no_grad():
        thead.weight.copy_(torch.tensor([[20.0, 5.0]]))
        thead.bias.fill_(0.0)
    head.load_state_dict({k: lucid.tensor(v.numpy()) for k, v in thead.state_dict().items()})
    feats = np.array([[1.0, 1.0], [-0.1, 0.2], [0.3, -0.2]], np.float32)
    y = np.array([[1.0], [0.0], [1.0]], np.float32)
    lp = head(lucid.tensor(feats)).sigmoid()
    tp = thead(torch.tensor(feats)).sigmoid()
    assert lp[0, 0].item() == 1.0 and tp[0, 0].item() == 1.0
    lo = nn.BCELoss()(lp, lucid.tensor(y))
    to = torch.nn.BCELoss()(tp, torch.tensor(y))
    lo.backward()
    to.backward()
    np.testing.assert_allclose(lo.item(), to.item(), rtol=1e-6)
    for name, p in head.named_parameters():
        tg = dict(thead.named_parameters())[name].grad
        assert np.isfinite(p.grad.numpy()).all()
        np.testing.assert_allclose(p.grad.numpy(), tg.numpy(), rtol=1e-5, atol=1e-7)
