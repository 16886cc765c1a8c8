"""``lucid.compile`` on the GPU: replays of whole training steps (dropout's Philox draws,
BatchNorm statistics, AdamW) and of a compiled module give the eager run's losses and
parameters on the device."""

import numpy as np
import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F

from .conftest import DEVICE

pytestmark = pytest.mark.cuda


def _cnn():
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(8 * 4 * 4, 5),
    )


class _Block(nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads = heads
        self.ln = nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.head = nn.Linear(d, 5)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, -1).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=0.1)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return self.head(x + self.mlp(x)).mean(1)


CASES = {
    "cnn": (_cnn, lambda: lucid.randn(4, 3, 8, 8)),
    "attention": (_Block, lambda: lucid.randn(4, 8, 32)),
}


def _run(case, compiled, whole_step):
    make, data = CASES[case]
    lucid.manual_seed(0)
    model = make().to(DEVICE)
    opt = lucid.optim.AdamW(model.parameters(), lr=1e-2)

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    if compiled and whole_step:
        step = lucid.compile(step)
    elif compiled:
        m = lucid.compile(model)

        def step(x, y):  # noqa: F811 (the module compiled, the step eager)
            opt.zero_grad()
            loss = F.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
            return loss

    lucid.manual_seed(1)
    batches = [(data().to(DEVICE), lucid.randint(0, 5, (4,)).to(DEVICE)) for _ in range(8)]
    lucid.manual_seed(2)
    lucid.cuda.manual_seed(2)
    losses = [step(x, y).item() for x, y in batches]
    state = [t.detach().cpu().numpy() for t in (*model.parameters(), *model.buffers())]
    return losses, state


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("whole_step", [True, False])
def test_compiled_training_matches_eager_on_the_gpu(case, whole_step):
    lucid.compiler.reset()
    la, sa = _run(case, False, whole_step)
    lb, sb = _run(case, True, whole_step)
    st = lucid.compiler.stats()
    assert st["graph_breaks"] == [] and st["replays"] >= 5
    np.testing.assert_allclose(lb, la, rtol=1e-5, atol=1e-6)
    for a, b in zip(sa, sb):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)
    lucid.compiler.reset()


def _mlp_run(compiled, opt_name, dropout):
    lucid.manual_seed(0)
    layers = [nn.Linear(16, 32), nn.ReLU()] + ([nn.Dropout(0.3)] if dropout else [])
    model = nn.Sequential(*layers, nn.Linear(32, 5)).to(DEVICE)
    kw = {"momentum": 0.9} if opt_name == "SGD" else {}
    opt = getattr(lucid.optim, opt_name)(model.parameters(), lr=1e-2, **kw)

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    if compiled:
        step = lucid.compile(step, mode="reduce-overhead")
    lucid.manual_seed(1)
    batches = [(lucid.randn(8, 16), lucid.randint(0, 5, (8,))) for _ in range(8)]
    lucid.cuda.manual_seed(3)
    losses = [step(x.to(DEVICE), y.to(DEVICE)).item() for x, y in batches]
    return losses, [p.detach().cpu().numpy() for p in model.parameters()]


@pytest.mark.parametrize("opt_name", ["SGD", "AdamW"])
def test_reduce_overhead_replays_a_cuda_graph(opt_name):
    lucid.compiler.reset()
    la, pa = _mlp_run(False, opt_name, False)
    lb, pb = _mlp_run(True, opt_name, False)
    st = lucid.compiler.stats()
    np.testing.assert_allclose(lb, la, rtol=1e-5, atol=1e-6)
    for a, b in zip(pa, pb):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-6)
    if DEVICE == "cuda":  # (a CPU dry run has no graphs: plain replays)
        assert st["cudagraph_fallbacks"] == [] and st["cudagraph_replays"] >= 5
    lucid.compiler.reset()


def test_reduce_overhead_with_dropout_falls_back_to_plain_replays():
    lucid.compiler.reset()
    la, _ = _mlp_run(False, "SGD", True)
    lb, _ = _mlp_run(True, "SGD", True)
    st = lucid.compiler.stats()
    np.testing.assert_allclose(lb, la, rtol=1e-5, atol=1e-6)
    assert st["replays"] >= 5
    if DEVICE == "cuda":
        assert st["cudagraph_replays"] == 0 and "random" in st["cudagraph_fallbacks"][0]
    lucid.compiler.reset()
