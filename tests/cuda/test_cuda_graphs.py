"""CUDA graphs (``lucid.cuda.CUDAGraph``, ``lucid.cuda.graph``): a captured block replayed
on new data gives what running the block eagerly gives; a whole training step (forward,
backward, SGD with momentum) replayed over a sequence of batches trains the model as the
eager loop does; value checks captured in a graph report at the next host read after a
replay; what a replay cannot redo (a random op, an optimizer counting steps on the host)
is refused inside a capture; misuse gets clear errors."""

import copy

import numpy as np
import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
import lucid.optim as optim
from lucid.errors import DeviceError

from .conftest import DEVICE

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(DEVICE == "cpu", reason="captures CUDA graphs (a GPU)")]


def _t(a, **kw):
    return lucid.tensor(np.asarray(a, np.float32)).to(DEVICE, **kw)


def test_replay_on_new_inputs():
    rng = np.random.default_rng(0)
    x = _t(rng.standard_normal((64, 33)))
    w = _t(rng.standard_normal((33, 17)))
    f = lambda: F.gelu(x @ w + 1.5).sum(dim=0) * x.mean()   # noqa: E731
    f()                                                      # compile before capturing
    g = lucid.cuda.CUDAGraph()
    with lucid.cuda.graph(g):
        out = f()
    assert repr(g) == "<lucid.cuda.CUDAGraph captured>"
    for _ in range(3):
        new = rng.standard_normal((64, 33))
        x.copy_(_t(new))
        g.replay()
        want = f()
        np.testing.assert_allclose(out.cpu().numpy(), want.cpu().numpy(), rtol=1e-6,
                                   atol=1e-6)


def _cnn():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8 * 4 * 4, 5))


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_whole_training_step(momentum):
    """Forward, loss, backward and SGD captured once, replayed over 8 batches, against the
    eager loop over the same batches from the same weights (batch norm's running
    statistics included)."""
    lucid.manual_seed(0)
    eager = _cnn().to(DEVICE)
    graphed = copy.deepcopy(eager)
    opts = [optim.SGD(m.parameters(), lr=0.05, momentum=momentum) for m in (eager, graphed)]
    rng = np.random.default_rng(1)
    batches = [(rng.standard_normal((6, 3, 8, 8)), rng.integers(0, 5, 6)) for _ in range(11)]

    def step(model, opt, x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    losses = []
    for xb, yb in batches:
        losses.append(step(eager, opts[0], _t(xb), lucid.tensor(yb).to(DEVICE)).item())
    sx, sy = _t(batches[0][0]), lucid.tensor(batches[0][1]).to(DEVICE)
    for xb, yb in batches[:3]:                       # warm up: state made, kernels built
        sx.copy_(_t(xb))
        sy.copy_(lucid.tensor(yb).to(DEVICE))
        step(graphed, opts[1], sx, sy)
    opts[1].zero_grad()
    g = lucid.cuda.CUDAGraph()
    with lucid.cuda.graph(g):
        loss = F.cross_entropy(graphed(sx), sy)
        loss.backward()
        opts[1].step()
    for k, (xb, yb) in enumerate(batches[3:], 3):
        sx.copy_(_t(xb))
        sy.copy_(lucid.tensor(yb).to(DEVICE))
        g.replay()
        assert abs(loss.item() - losses[k]) <= 1e-4 * max(1.0, abs(losses[k]))
    for (name, a), b in zip(eager.state_dict().items(), graphed.state_dict().values()):
        np.testing.assert_allclose(b.cpu().numpy(), a.cpu().numpy(), rtol=1e-4, atol=1e-5,
                                   err_msg=name)


def test_captured_check_reports_after_replay():
    """An embedding's index check captured in a graph: quiet while the indices are in
    range, the index error at the next host read once a replay saw a bad one."""
    emb = nn.Embedding(10, 4).to(DEVICE)
    idx = lucid.tensor(np.array([1, 2, 3])).to(DEVICE)
    emb(idx)
    g = lucid.cuda.CUDAGraph()
    with lucid.cuda.graph(g):
        out = emb(idx)
    g.replay()
    lucid.cuda.synchronize()
    np.testing.assert_array_equal(out.detach().cpu().numpy(),
                                  emb.weight.detach()[1:4].cpu().numpy())
    idx.copy_(lucid.tensor(np.array([1, 12, 3])).to(DEVICE))
    g.replay()
    with pytest.raises(IndexError):
        lucid.cuda.synchronize()
    idx.copy_(lucid.tensor(np.array([0, 0, 0])).to(DEVICE))
    g.replay()
    lucid.cuda.synchronize()                         # the failure was reported once


def test_shared_pool():
    a = _t(np.arange(8.0))
    g1, g2 = lucid.cuda.CUDAGraph(), lucid.cuda.CUDAGraph()
    (a * 2).exp()
    with lucid.cuda.graph(g1):
        b = a * 2
    with lucid.cuda.graph(g2, pool=g1.pool()):
        c = b.exp() + a
    a.copy_(_t(np.arange(8.0) / 8))
    g1.replay()
    g2.replay()
    np.testing.assert_allclose(c.cpu().numpy(), np.exp(np.arange(8.0) / 4) + np.arange(8.0) / 8,
                               rtol=1e-6)
    assert isinstance(lucid.cuda.graph_pool_handle(), type(g1.pool()))


def test_refused_inside_a_capture():
    """Random ops and Adam's host step count cannot be replayed: a DeviceError naming
    them, and the graph stays empty (the stream is usable afterwards)."""
    x = _t(np.ones((4, 4)))
    for block in (lambda: F.dropout(x, 0.5, training=True),
                  lambda: lucid.rand(3, device=DEVICE)):
        g = lucid.cuda.CUDAGraph()
        with pytest.raises(DeviceError, match="random op"):
            with lucid.cuda.graph(g):
                block()
        with pytest.raises(DeviceError, match="nothing has been captured"):
            g.replay()
    w = nn.Parameter(_t(np.ones(3)))
    opt = optim.Adam([w])
    (w * 2).sum().backward()
    opt.step()
    g = lucid.cuda.CUDAGraph()
    with pytest.raises(DeviceError, match="counts steps on the host"):
        with lucid.cuda.graph(g):
            opt.step()
    assert not lucid.cuda.is_current_stream_capturing()
    np.testing.assert_allclose((x + 1).cpu().numpy(), 2.0)


def test_misuse():
    g = lucid.cuda.CUDAGraph()
    with pytest.raises(DeviceError, match="nothing has been captured"):
        g.replay()
    with pytest.raises(DeviceError, match="no pool"):
        g.pool()
    with pytest.raises(DeviceError, match="default stream cannot capture"):
        g.capture_begin()
    with pytest.raises(DeviceError, match="no capture in progress"):
        g.capture_end()
    x = _t(np.ones(3))
    with lucid.cuda.graph(g):
        assert lucid.cuda.is_current_stream_capturing()
        y = x + 1
    with pytest.raises(DeviceError, match="already been captured"):
        g.capture_begin()
    g.replay()
    np.testing.assert_allclose(y.cpu().numpy(), 2.0)
    g.reset()
    assert repr(g) == "<lucid.cuda.CUDAGraph empty>"
