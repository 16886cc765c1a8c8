"""CosineSimilarity, PairwiseDistance, F.cosine_similarity, F.pairwise_distance, F.pdist,
F.normalize against torch (values and gradients)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import lucid
from lucid import nn
from lucid.errors import ArgumentError, ShapeError
from lucid.nn import functional as F

NP = {lucid.float32: np.float32, lucid.float64: np.float64}
TOL = {lucid.float32: dict(rtol=1e-5, atol=1e-6), lucid.float64: dict(rtol=1e-10, atol=1e-12)}


def _run(lfn, tfn, arrays, dt):
    ls = [lucid.tensor(a.astype(NP[dt]), requires_grad=True) for a in arrays]
    ts = [torch.tensor(a.astype(NP[dt]), requires_grad=True) for a in arrays]
    lo, to = lfn(*ls), tfn(*ts)
    assert tuple(lo.shape) == tuple(to.shape)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), **TOL[dt])
    g = np.random.default_rng(5).standard_normal(tuple(to.shape)).astype(NP[dt])
    lo.backward(lucid.tensor(g))
    to.backward(torch.tensor(g))
    for l, t in zip(ls, ts):
        np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), **TOL[dt])


R = np.random.default_rng(0)


@pytest.mark.parametrize("dt", [lucid.float32, lucid.float64])
@pytest.mark.parametrize(
    "shapes,dim",
    [
        (((4, 3), (4, 3)), 1),
        (((2, 3, 5), (2, 3, 5)), -1),
        (((4, 3), (1, 3)), 1),
        (((3, 4), (3, 4)), 0),
    ],
)
def test_cosine_similarity(dt, shapes, dim):
    arrays = [R.standard_normal(s) for s in shapes]
    _run(
        lambda a, b: F.cosine_similarity(a, b, dim=dim),
        lambda a, b: TF.cosine_similarity(a, b, dim=dim),
        arrays,
        dt,
    )
    _run(
        lambda a, b: nn.CosineSimilarity(dim=dim)(a, b),
        lambda a, b: torch.nn.CosineSimilarity(dim=dim)(a, b),
        arrays,
        dt,
    )


def test_cosine_similarity_eps_for_zero_vectors():
    a = lucid.zeros(2, 3)
    out = F.cosine_similarity(a, lucid.ones(2, 3), eps=0.5)
    assert out.tolist() == [0.0, 0.0]
    x, y = R.standard_normal((2, 3)) * 1e-3, R.standard_normal((2, 3))
    np.testing.assert_allclose(
        F.cosine_similarity(lucid.tensor(x), lucid.tensor(y), eps=0.1).numpy(),
        TF.cosine_similarity(torch.tensor(x), torch.tensor(y), eps=0.1).numpy(),
        rtol=1e-10,
    )


@pytest.mark.parametrize("dt", [lucid.float32, lucid.float64])
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance(dt, p, keepdim):
    arrays = [R.standard_normal((5, 4)), R.standard_normal((5, 4))]
    _run(
        lambda a, b: F.pairwise_distance(a, b, p=p, eps=1e-3, keepdim=keepdim),
        lambda a, b: TF.pairwise_distance(a, b, p=p, eps=1e-3, keepdim=keepdim),
        arrays,
        dt,
    )
    _run(
        lambda a, b: nn.PairwiseDistance(p=p, keepdim=keepdim)(a, b),
        lambda a, b: torch.nn.PairwiseDistance(p=p, keepdim=keepdim)(a, b),
        arrays,
        dt,
    )


def test_pairwise_distance_broadcast_and_1d():
    _run(
        F.pairwise_distance,
        TF.pairwise_distance,
        [R.standard_normal((3, 4)), R.standard_normal((4,))],
        lucid.float64,
    )
    _run(
        F.pairwise_distance,
        TF.pairwise_distance,
        [R.standard_normal((4,)), R.standard_normal((4,))],
        lucid.float64,
    )
    with pytest.raises(ShapeError):
        F.pairwise_distance(lucid.tensor(1.0), lucid.tensor(2.0))


@pytest.mark.parametrize("p", [2.0, 1.0, 0.5, 3.0])
def test_pdist(p):
    _run(
        lambda a: F.pdist(a, p),
        lambda a: TF.pdist(a, p),
        [R.standard_normal((5, 3))],
        lucid.float64,
    )


def test_pdist_edges():
    assert F.pdist(lucid.ones(1, 3)).shape == (0,)
    with pytest.raises(ShapeError, match="2D"):
        F.pdist(lucid.ones(3))
    with pytest.raises(ArgumentError, match="non-negative"):
        F.pdist(lucid.ones(2, 2), -1.0)


@pytest.mark.parametrize("dt", [lucid.float32, lucid.float64])
@pytest.mark.parametrize("p,dim", [(2.0, 1), (1.0, 0), (3.0, -1)])
def test_normalize(dt, p, dim):
    _run(
        lambda a: F.normalize(a, p=p, dim=dim),
        lambda a: TF.normalize(a, p=p, dim=dim),
        [R.standard_normal((3, 4))],
        dt,
    )


def test_normalize_eps_and_out():
    z = lucid.zeros(2, 3)
    assert F.normalize(z).abs().sum().item() == 0
    x = lucid.tensor([[3.0, 4.0]])
    out = lucid.empty(1, 2)
    assert F.normalize(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), [[0.6, 0.8]], rtol=1e-6)
    np.testing.assert_allclose(F.normalize(x, eps=10.0).numpy(), [[0.3, 0.4]], rtol=1e-6)
