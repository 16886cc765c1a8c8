"""nn.AdaptiveLogSoftmaxWithLoss against torch's with the same weights: output, loss, the
gradients of the input and of every parameter, log_prob, predict, unbatched input, and
the argument errors."""

import numpy as np
import pytest

import lucid
import lucid.nn as nn
from lucid.errors import ArgumentError, IndexingError, ShapeError

torch = pytest.importorskip("torch")


def pair(in_f=8, n=20, cutoffs=(4, 10), **kw):
    torch.manual_seed(0)
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(in_f, n, list(cutoffs), **kw).double()
    m = nn.AdaptiveLogSoftmaxWithLoss(in_f, n, list(cutoffs), dtype=lucid.float64, **kw)
    sd = {k: lucid.tensor(v.detach().numpy()) for k, v in t.state_dict().items()}
    assert set(sd) == set(m.state_dict())
    m.load_state_dict(sd)
    return t, m


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize(
    "kw",
    [{}, {"head_bias": True}, {"div_value": 2.0}, {"cutoffs": (3,)}, {"cutoffs": (2, 5, 9, 15)}],
)
def test_forward_and_gradients_match_torch(kw):
    kw = dict(kw)
    t, m = pair(cutoffs=kw.pop("cutoffs", (4, 10)), **kw)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((12, 8))
    y = np.array([0, 3, 4, 9, 10, 19, 1, 12, 5, 15, 2, 18])
    tx, lx = torch.tensor(x, requires_grad=True), lucid.tensor(x, requires_grad=True)
    tout, lout = t(tx, torch.tensor(y)), m(lx, lucid.tensor(y))
    close(lout.output, tout.output)
    close(lout.loss, tout.loss)
    assert lout.output is lout[0] and lout.loss is lout[1]
    (lout.loss + lout.output.square().sum()).backward()
    (tout.loss + tout.output.square().sum()).backward()
    close(lx.grad, tx.grad)
    tp = dict(t.named_parameters())
    for name, p in m.named_parameters():
        close(p.grad, tp[name].grad)
    close(m.log_prob(lx), t.log_prob(tx))
    assert m.predict(lx).tolist() == t.predict(tx).tolist()


def test_targets_all_in_the_shortlist_or_all_in_one_cluster():
    t, m = pair()
    x = np.random.default_rng(2).standard_normal((5, 8))
    for y in ([0, 1, 2, 3, 0], [10, 11, 19, 15, 12]):
        close(
            m(lucid.tensor(x), lucid.tensor(y)).output, t(torch.tensor(x), torch.tensor(y)).output
        )


def test_unbatched_input_matches_torch():
    t, m = pair()
    x = np.random.default_rng(3).standard_normal(8)
    tout, lout = t(torch.tensor(x), torch.tensor(12)), m(lucid.tensor(x), lucid.tensor(12))
    assert lout.output.shape == tout.output.shape == ()
    close(lout.output, tout.output)
    # torch 2.13's log_prob and predict refuse 1-D input; Lucid's take it as one row
    close(m.log_prob(lucid.tensor(x)), t.log_prob(torch.tensor(x)[None])[0])
    assert m.predict(lucid.tensor(x)).item() == t.predict(torch.tensor(x)[None]).item()


def test_log_prob_is_a_distribution_and_predict_its_argmax():
    _, m = pair(head_bias=True)
    x = lucid.randn(7, 8, dtype=lucid.float64) * 3
    lp = m.log_prob(x)
    assert lucid.allclose(lp.exp().sum(1), lucid.ones(7, dtype=lucid.float64))
    assert m.predict(x).tolist() == lp.argmax(1).tolist()


@pytest.mark.parametrize("cutoffs", [[], [5, 3], [0, 4], [4, 20], [4, 4], [2.5]])
def test_bad_cutoffs_raise_value_error_as_torch(cutoffs):
    with pytest.raises(ValueError):
        torch.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs)
    with pytest.raises(ArgumentError, match="AdaptiveLogSoftmaxWithLoss: cutoffs"):
        nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs)


def test_bad_inputs_raise_runtime_errors_as_torch():
    t, m = pair()
    cases = [
        (np.zeros((3, 8)), np.array([1, 2])),
        (np.zeros((3, 2, 8)), np.array([1, 2, 3])),
        (np.zeros((3, 8)), np.array(1)),
        (np.zeros((3, 8)), np.zeros((3, 1), int)),
    ]
    for x, y in cases:
        with pytest.raises(RuntimeError):
            t(torch.tensor(x), torch.tensor(y))
        with pytest.raises(ShapeError, match="AdaptiveLogSoftmaxWithLoss"):
            m(lucid.tensor(x), lucid.tensor(y))
    for y in ([0, 20, 1], [-1, 0, 1]):
        with pytest.raises(RuntimeError):
            t(torch.zeros(3, 8, dtype=torch.float64), torch.tensor(y))
        with pytest.raises(IndexingError, match=r"target values should be in \[0, 19\]"):
            m(lucid.zeros(3, 8, dtype=lucid.float64), lucid.tensor(y))


def test_structure_and_repr_match_torch():
    t, m = pair()
    assert repr(m) == repr(t)
    assert (m.shortlist_size, m.n_clusters, m.head_size, m.cutoffs) == (
        t.shortlist_size,
        t.n_clusters,
        t.head_size,
        t.cutoffs,
    )
