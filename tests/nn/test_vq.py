"""Vector quantisation: F.nearest_codebook, F.vector_quantize, F.straight_through (Lucid³'s
order: the value of the first, the gradient of the second) and nn.VectorQuantizer against
the same computation in torch (values, gradients of the input
and the codebook, the VQ-VAE loss), edge cases and errors."""

import numpy as np
import pytest
import torch

import lucid
from lucid import nn
from lucid.errors import ArgumentError, ArgumentTypeError, DTypeError, ShapeError
from lucid.nn import functional as F

NP = {lucid.float32: np.float32, lucid.float64: np.float64}
TOL = {lucid.float32: dict(rtol=1e-5, atol=1e-6), lucid.float64: dict(rtol=1e-12, atol=1e-12)}


def _rand(shape, dt=lucid.float64, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(NP[dt])


def _torch_nearest(x, cb):
    d = ((x.unsqueeze(-2) - cb) ** 2).sum(-1)
    return d.argmin(-1)


@pytest.mark.parametrize("dt", [lucid.float32, lucid.float64])
@pytest.mark.parametrize("shape", [(7, 3), (2, 5, 3), (3,), (0, 3)])
def test_nearest_codebook_matches_brute_force(dt, shape):
    x, cb = _rand(shape, dt), _rand((6, 3), dt, 1)
    got = F.nearest_codebook(lucid.tensor(x), lucid.tensor(cb))
    want = _torch_nearest(torch.tensor(x), torch.tensor(cb))
    assert got.dtype is lucid.int64 and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_nearest_codebook_exact_codes_and_ties():
    cb = lucid.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    x = lucid.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [0.5, 0.5]])
    # an exact code is its own nearest; (0.5, 0.5) is equally far from codes 0, 1 and 2
    assert F.nearest_codebook(x, cb).tolist() == [1, 2, 0, 0]


def test_nearest_codebook_records_no_graph():
    x = lucid.tensor(_rand((4, 3)), requires_grad=True)
    cb = lucid.tensor(_rand((5, 3), seed=1), requires_grad=True)
    idx = F.nearest_codebook(x, cb)
    assert not idx.requires_grad and idx.grad_fn is None


@pytest.mark.parametrize("dt", [lucid.float32, lucid.float64])
def test_vector_quantize_is_straight_through(dt):
    x, cb = _rand((2, 4, 3), dt), _rand((5, 3), dt, 1)
    lcb = lucid.tensor(cb, requires_grad=True)
    lx = lucid.tensor(x, requires_grad=True)
    q, idx = F.vector_quantize(lx, lcb)
    tx, tcb = torch.tensor(x, requires_grad=True), torch.tensor(cb, requires_grad=True)
    tidx = _torch_nearest(tx.detach(), tcb.detach())
    tq = tx + (tcb[tidx] - tx).detach()
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())
    np.testing.assert_allclose(q.detach().numpy(), tq.detach().numpy(), **TOL[dt])
    np.testing.assert_array_equal(q.detach().numpy(), cb[idx.numpy()])  # the codes exactly
    w = _rand(q.shape, dt, 2)
    (q * lucid.tensor(w)).sum().backward()
    (tq * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **TOL[dt])
    assert lcb.grad is None  # the straight-through path goes around the codebook


def test_straight_through_value_and_gradients():
    x = lucid.tensor(_rand((3, 4)), requires_grad=True)
    y = lucid.tensor(_rand((3, 4), seed=1), requires_grad=True)
    z = F.straight_through(y, x)  # the value of y, the gradient of x
    np.testing.assert_array_equal(z.detach().numpy(), y.detach().numpy())
    w = _rand((3, 4), seed=2)
    (z * lucid.tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), w)
    assert y.grad is None


def test_straight_through_value_is_exact_where_the_composition_rounds():
    x = lucid.tensor([1e8, float("inf")], dtype=lucid.float32, requires_grad=True)
    y = lucid.tensor([1.0, 2.0], dtype=lucid.float32)
    assert F.straight_through(y, x).tolist() == [1.0, 2.0]
    composed = (x + (y - x).detach()).tolist()
    assert composed[0] != 1.0 and np.isnan(composed[1])


def test_straight_through_broadcasts_and_promotes():
    x = lucid.tensor(_rand((3, 1)), requires_grad=True)
    y = lucid.tensor(_rand((4,), lucid.float32, seed=1))
    z = F.straight_through(y, x)
    assert tuple(z.shape) == (3, 4) and z.dtype is lucid.float64
    np.testing.assert_allclose(z.detach().numpy(), np.broadcast_to(y.numpy(), (3, 4)))
    z.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((3, 1), 4.0))


def test_straight_through_graph_mode_and_0d():
    x = lucid.tensor(2.0, dtype=lucid.float64, requires_grad=True)
    z = F.straight_through(lucid.tensor(5.0, dtype=lucid.float64), x**3)
    (g,) = lucid.autograd.grad(z, x, create_graph=True)
    (gg,) = lucid.autograd.grad(g, x)
    assert z.item() == 5.0 and g.item() == 12.0 and gg.item() == 12.0


@pytest.mark.parametrize("dt", [lucid.float32, lucid.float64])
@pytest.mark.parametrize("beta", [0.25, 1.0])
def test_vector_quantizer_matches_torch_vqvae(dt, beta):
    lucid.manual_seed(0)
    m = nn.VectorQuantizer(6, 3, commitment_cost=beta, dtype=dt)
    cb = m.embedding.weight.detach().numpy().copy()
    x = _rand((2, 4, 3), dt)
    lx = lucid.tensor(x, requires_grad=True)
    q, loss, idx = m(lx)

    tx = torch.tensor(x, requires_grad=True)
    tcb = torch.tensor(cb, requires_grad=True)
    tidx = _torch_nearest(tx.detach(), tcb.detach())
    e = tcb[tidx]
    tloss = torch.nn.functional.mse_loss(e, tx.detach()) + beta * torch.nn.functional.mse_loss(
        tx, e.detach()
    )
    tq = tx + (e - tx).detach()

    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())
    np.testing.assert_allclose(q.detach().numpy(), tq.detach().numpy(), **TOL[dt])
    np.testing.assert_allclose(loss.item(), tloss.item(), **TOL[dt])
    w = _rand(q.shape, dt, 3)
    ((q * lucid.tensor(w)).sum() + loss).backward()
    ((tq * torch.tensor(w)).sum() + tloss).backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **TOL[dt])
    np.testing.assert_allclose(m.embedding.weight.grad.numpy(), tcb.grad.numpy(), **TOL[dt])


def test_vector_quantizer_init_state_dict_and_repr():
    lucid.manual_seed(1)
    m = nn.VectorQuantizer(10, 4)
    w = m.embedding.weight
    assert tuple(w.shape) == (10, 4) and w.requires_grad
    assert float(w.abs().max()) <= 0.1 and float(w.std()) > 0.01
    assert list(m.state_dict()) == ["embedding.weight"]
    t = torch.nn.Embedding(10, 4)
    m.load_state_dict({"embedding.weight": t.weight.detach()})
    np.testing.assert_array_equal(m.embedding.weight.detach().numpy(), t.weight.detach().numpy())
    assert "num_embeddings=10, embedding_dim=4, commitment_cost=0.25" in repr(m)


def test_vector_quantizer_commitment_cost_is_used():
    lucid.manual_seed(2)
    x = lucid.tensor(_rand((5, 3), lucid.float32))
    a, b = nn.VectorQuantizer(4, 3, 0.0), nn.VectorQuantizer(4, 3, 1.0)
    b.load_state_dict(a.state_dict())
    la, lb = a(x)[1].item(), b(x)[1].item()
    assert lb == pytest.approx(2 * la)  # both terms have the same value


def test_errors():
    cb = lucid.tensor(_rand((4, 3)))
    with pytest.raises(ShapeError, match="nearest_codebook: input of shape"):
        F.nearest_codebook(lucid.tensor(_rand((2, 5))), cb)
    with pytest.raises(ShapeError, match="codebook must be 2-D"):
        F.nearest_codebook(lucid.tensor(_rand((2, 3))), lucid.tensor(_rand((3,))))
    with pytest.raises(ShapeError, match="at least one code"):
        F.vector_quantize(lucid.tensor(_rand((2, 3))), lucid.zeros(0, 3, dtype=lucid.float64))
    with pytest.raises(DTypeError, match="vector_quantize: input"):
        F.vector_quantize(lucid.tensor(_rand((2, 3)), dtype=lucid.float32), cb)
    with pytest.raises(ArgumentTypeError, match="nearest_codebook: argument 'codebook'"):
        F.nearest_codebook(lucid.tensor(_rand((2, 3))), [[1.0, 2.0, 3.0]])
    with pytest.raises(ShapeError, match="straight_through"):
        F.straight_through(lucid.zeros(2, 3), lucid.zeros(4))
    for bad in (dict(num_embeddings=0, embedding_dim=3), dict(num_embeddings=4, embedding_dim=2.0)):
        with pytest.raises(ArgumentError, match="VectorQuantizer"):
            nn.VectorQuantizer(**bad)
    with pytest.raises(ArgumentError, match="commitment_cost"):
        nn.VectorQuantizer(4, 3, commitment_cost=-1.0)
