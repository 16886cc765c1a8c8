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

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(DEVICE == "cpu", reason="captures CUDA graphs (a GPU)"),
]


def _t(a, **kw):
    return lucid.tensor(np.asarray(a, np.float32)).to(DEVICE, **kw)


def test_replay_on_new_inputs():
    rng = np.random.default_rng(0)
    x = _t(rng.standard_normal((64, 33)))
    w = _t(rng.standard_normal((33, 17)))
    f = lambda: F.gelu(x @ w + 1.5).sum(dim=0) * x.mean()  # noqa: E731
    f()  # compile before capturing
    g = lucid.cuda.CUDAGraph()
    with lucid.cuda.graph(g):
        out = f()
    assert repr(g) == "<lucid.cuda.CUDAGraph captured>"
    for _ in range(3):
        new = rng.standard_normal((64, 33))
        x.copy_(_t(new))
        g.replay()
        want = f()
        np.testing.assert_allclose(out.cpu().numpy(), want.cpu().numpy(), rtol=1e-6, atol=1e-6)


def _cnn():
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(8 * 4 * 4, 5),
    )


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
    for xb, yb in batches[:3]:  # warm up: state made, kernels built
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
        np.testing.assert_allclose(
            b.cpu().numpy(), a.cpu().numpy(), rtol=1e-4, atol=1e-5, err_msg=name
        )


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
    np.testing.assert_array_equal(
        out.detach().cpu().numpy(), emb.weight.detach()[1:4].cpu().numpy()
    )
    idx.copy_(lucid.tensor(np.array([1, 12, 3])).to(DEVICE))
    g.replay()
    with pytest.raises(IndexError):
        lucid.cuda.synchronize()
    idx.copy_(lucid.tensor(np.array([0, 0, 0])).to(DEVICE))
    g.replay()
    lucid.cuda.synchronize()  # the failure was reported once


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
    np.testing.assert_allclose(
        c.cpu().numpy(), np.exp(np.arange(8.0) / 4) + np.arange(8.0) / 8, rtol=1e-6
    )
    assert isinstance(lucid.cuda.graph_pool_handle(), type(g1.pool()))


def test_refused_inside_a_capture():
    """Random ops and Adam's host step count cannot be replayed: a DeviceError naming
    them, and the graph stays empty (the stream is usable afterwards)."""
    x = _t(np.ones((4, 4)))
    for block in (lambda: F.dropout(x, 0.5, training=True), lambda: lucid.rand(3, device=DEVICE)):
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


def _mlp():
    return nn.Sequential(nn.Linear(12, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 4))


@pytest.mark.parametrize(
    "cls,kw",
    [(optim.Adam, {}), (optim.Adam, {"amsgrad": True}), (optim.AdamW, {"weight_decay": 0.1})],
)
def test_capturable_adam_matches_host_counts(cls, kw):
    """capturable=True (float32 step counts on the device, read by the kernel) follows
    the same trajectory as host counts; the count is a CUDA tensor; a state dict of either
    kind loads into the other (counts, and the group's capturable, as saved) and steps."""
    lucid.manual_seed(0)
    models = [_mlp().to(DEVICE) for _ in range(2)]
    models[1].load_state_dict(models[0].state_dict())
    opts = [cls(m.parameters(), lr=0.01, capturable=c, **kw) for m, c in zip(models, (False, True))]
    rng = np.random.default_rng(2)
    for _ in range(5):
        x, y = _t(rng.standard_normal((8, 12))), lucid.tensor(rng.integers(0, 4, 8)).to(DEVICE)
        for m, o in zip(models, opts):
            o.zero_grad()
            F.cross_entropy(m(x), y).backward()
            o.step()
    for a, b in zip(models[0].parameters(), models[1].parameters()):
        np.testing.assert_allclose(
            b.detach().cpu().numpy(), a.detach().cpu().numpy(), rtol=1e-5, atol=1e-6
        )
    step = opts[1].state[next(models[1].parameters())]["step"]
    assert step.device.type == "cuda" and step.dtype == lucid.float32 and step.item() == 5
    host = cls(models[1].parameters(), lr=0.01, **kw)
    host.load_state_dict(opts[1].state_dict())
    back = cls(models[1].parameters(), lr=0.01, capturable=True, **kw)
    back.load_state_dict(opts[0].state_dict())
    for o, where in ((host, "cuda"), (back, "cpu")):
        o.zero_grad()
        F.cross_entropy(models[1](x), y).backward()
        o.step()
        step = o.state[next(models[1].parameters())]["step"]
        assert step.device.type == where and step.item() == 6


def test_captured_step_with_capturable_adamw():
    """A whole MLP step with AdamW(capturable=True) captured and replayed over batches
    trains as the eager loop with host counts does."""
    lucid.manual_seed(0)
    eager, graphed = _mlp().to(DEVICE), _mlp().to(DEVICE)
    graphed.load_state_dict(eager.state_dict())
    o_eager = optim.AdamW(eager.parameters(), lr=0.01)
    o_graph = optim.AdamW(graphed.parameters(), lr=0.01, capturable=True)
    rng = np.random.default_rng(3)
    batches = [(rng.standard_normal((8, 12)), rng.integers(0, 4, 8)) for _ in range(10)]
    sx, sy = _t(batches[0][0]), lucid.tensor(batches[0][1]).to(DEVICE)
    losses = []
    for k, (xb, yb) in enumerate(batches):
        x, y = _t(xb), lucid.tensor(yb).to(DEVICE)
        o_eager.zero_grad()
        loss = F.cross_entropy(eager(x), y)
        loss.backward()
        o_eager.step()
        losses.append(loss.item())
        if k < 2:  # warm-up of the graphed copy
            o_graph.zero_grad()
            F.cross_entropy(graphed(x), y).backward()
            o_graph.step()
    o_graph.zero_grad()
    g = lucid.cuda.CUDAGraph()
    with lucid.cuda.graph(g):
        static_loss = F.cross_entropy(graphed(sx), sy)
        static_loss.backward()
        o_graph.step()
    for k, (xb, yb) in enumerate(batches[2:], 2):
        sx.copy_(_t(xb))
        sy.copy_(lucid.tensor(yb).to(DEVICE))
        g.replay()
        assert abs(static_loss.item() - losses[k]) <= 1e-4 * max(1.0, abs(losses[k]))
    for a, b in zip(eager.parameters(), graphed.parameters()):
        np.testing.assert_allclose(
            b.detach().cpu().numpy(), a.detach().cpu().numpy(), rtol=1e-4, atol=1e-5
        )
    assert o_graph.state[next(graphed.parameters())]["step"].item() == 10
