"""Training does not grow the process: no graph, saved tensor or optimizer state outlives its
step.

tracemalloc sees every allocation of Python objects and of NumPy array buffers, so the
traced size after thousands of steps, compared with the size after a warm-up (where the
optimizer's state is allocated), measures what the steps keep alive.
"""

import gc
import tracemalloc

import numpy as np

import lucid
from lucid import nn


def traced_growth(step, warmup, steps):
    for _ in range(warmup):
        step()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(steps):
            step()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_training_steps_keep_nothing_alive():
    rng = np.random.default_rng(0)
    x = lucid.from_numpy(rng.standard_normal((16, 1, 8, 8)).astype(np.float32))
    y = lucid.from_numpy(rng.integers(0, 4, 16))
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Dropout(0.1),
        nn.Linear(64, 16),
        nn.LayerNorm(16),
        nn.GELU(),
        nn.Linear(16, 4),
    )
    opt = lucid.optim.AdamW(model.parameters(), lr=1e-3)
    sched = lucid.optim.lr_scheduler.StepLR(opt, 100)
    losses = []

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())  # a float per step: 2000 of them are ~50 kB

    growth = traced_growth(step, warmup=50, steps=2000)
    assert losses[-1] < losses[0]
    # one step allocates ~100 kB; a leak of anything per step would add megabytes
    assert growth < 512 * 1024, f"{growth / 1024:.0f} kB kept alive over 2000 steps"


def test_a_graph_dropped_unbackwarded_is_freed():
    w = nn.Linear(32, 32)

    def step():
        w(lucid.randn(8, 32)).tanh().sum()  # a graph built and dropped, no backward

    assert traced_growth(step, warmup=10, steps=1000) < 256 * 1024
