"""autograd.grad(..., is_grads_batched=True) against PyTorch: Jacobians by batched
vector-Jacobian products, several inputs and outputs, create_graph, retain_graph, unused
inputs and the error paths."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import AutogradError, ShapeError

RNG = np.random.default_rng(2)


def _pair(a):
    return lucid.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _close(l, t):
    assert tuple(l.shape) == tuple(t.shape)
    np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_jacobian_of_a_vector_function():
    lx, tx = _pair(RNG.standard_normal(4))
    ly = (lx.exp() * lx.sin()).cumsum(0)
    ty = (tx.exp() * tx.sin()).cumsum(0)
    (lj,) = lucid.autograd.grad(ly, lx, lucid.eye(4, dtype=lucid.float64), is_grads_batched=True)
    (tj,) = torch.autograd.grad(ty, tx, torch.eye(4, dtype=torch.float64), is_grads_batched=True)
    _close(lj, tj)
    ref = lucid.autograd.functional.jacobian(lambda v: (v.exp() * v.sin()).cumsum(0), lx.detach())
    _close(lj, torch.tensor(ref.numpy()))


def test_several_inputs_and_outputs():
    (la, ta), (lb, tb) = _pair(RNG.standard_normal((2, 3))), _pair(RNG.standard_normal(3))
    lo = (la * lb, (la @ lb).tanh())
    to = (ta * tb, (ta @ tb).tanh())
    g1, g2 = RNG.standard_normal((5, 2, 3)), RNG.standard_normal((5, 2))
    lg = lucid.autograd.grad(
        lo, [la, lb], [lucid.tensor(g1), lucid.tensor(g2)], is_grads_batched=True
    )
    tg = torch.autograd.grad(
        to, [ta, tb], [torch.tensor(g1), torch.tensor(g2)], is_grads_batched=True
    )
    assert len(lg) == 2
    for l, t in zip(lg, tg):
        _close(l, t)


def test_create_graph_gives_a_differentiable_hessian():
    lx, tx = _pair(RNG.standard_normal(3))
    (lg,) = lucid.autograd.grad((lx**3).sum() * lx.sum(), lx, create_graph=True)
    (tg,) = torch.autograd.grad((tx**3).sum() * tx.sum(), tx, create_graph=True)
    eye_l, eye_t = lucid.eye(3, dtype=lucid.float64), torch.eye(3, dtype=torch.float64)
    (lh,) = lucid.autograd.grad(lg, lx, eye_l, is_grads_batched=True, create_graph=True)
    (th,) = torch.autograd.grad(tg, tx, eye_t, is_grads_batched=True, create_graph=True)
    _close(lh, th)
    assert lh.requires_grad
    (l3,) = lucid.autograd.grad(lh.sum(), lx)
    (t3,) = torch.autograd.grad(th.sum(), tx)
    _close(l3, t3)


def test_retain_graph_and_freed_graph():
    lx, _ = _pair(RNG.standard_normal(2))
    y = lx.exp()
    eye = lucid.eye(2, dtype=lucid.float64)
    a = lucid.autograd.grad(y, lx, eye, is_grads_batched=True, retain_graph=True)
    b = lucid.autograd.grad(y, lx, eye, is_grads_batched=True)
    _close(a[0], torch.tensor(b[0].numpy()))
    with pytest.raises(AutogradError):
        lucid.autograd.grad(y, lx, eye, is_grads_batched=True)


def test_unused_inputs():
    lx, _ = _pair(RNG.standard_normal(2))
    lu, _ = _pair(RNG.standard_normal(3))
    y = lx * 2
    eye = lucid.eye(2, dtype=lucid.float64)
    gx, gu = lucid.autograd.grad(
        y, [lx, lu], eye, is_grads_batched=True, allow_unused=True, retain_graph=True
    )
    np.testing.assert_array_equal(gx.numpy(), 2 * np.eye(2))
    assert gu is None
    # materialize_grads: Lucid gives a batch of zeros, one per batch entry
    _, gz = lucid.autograd.grad(
        y, [lx, lu], eye, is_grads_batched=True, materialize_grads=True, retain_graph=True
    )
    assert tuple(gz.shape) == (2, 3) and not np.any(gz.numpy())
    with pytest.raises(AutogradError, match="grad"):
        lucid.autograd.grad(y, [lx, lu], eye, is_grads_batched=True)


def test_batched_grad_errors():
    lx, _ = _pair(RNG.standard_normal(2))
    y = lx * 2
    with pytest.raises(AutogradError, match="is_grads_batched"):
        lucid.autograd.grad(y, lx, is_grads_batched=True)
    with pytest.raises(ShapeError, match="is_grads_batched"):
        lucid.autograd.grad(y, lx, lucid.ones(3, 3), is_grads_batched=True)
    with pytest.raises(ShapeError, match="batch"):
        lucid.autograd.grad(
            (y, y * 3), lx, (lucid.ones(2, 2), lucid.ones(3, 2)), is_grads_batched=True
        )
    with pytest.raises(AutogradError, match="grad_outputs"):
        lucid.autograd.grad((y, y), lx, (lucid.ones(2, 2),), is_grads_batched=True)
