"""Training steps of Lucid and PyTorch side by side in one process; prints ms per step and
the ratio Lucid / PyTorch (below 1: Lucid is faster).

The models are written once against the PyTorch-shaped API and built twice, with ``lib``
bound to ``lucid`` or to ``torch``: the same code, only the import differs.

- mlp: 784-512-512-10 with ReLU, batch 128, cross-entropy, Adam;
- cnn: two [conv3x3 + BatchNorm2d + ReLU + MaxPool2d] blocks (3 -> 32 -> 64 channels) and a
  linear head on 32x32 images, batch 32, SGD with momentum;
- gpt: 2 pre-norm transformer blocks (d=128, 4 heads, causal attention, GELU MLP), sequence
  64, batch 8, vocabulary 256, AdamW.

    python benchmarks/train.py [--steps 20] [--repeats 3] [--only mlp,cnn,gpt]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import lucid  # noqa: E402

torch.set_num_threads(os.cpu_count() or 1)


def mlp(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10))
    return model, lib.optim.Adam(model.parameters(), lr=1e-3), (128, 784), 10


def cnn(lib):
    nn = lib.nn

    def block(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                nn.MaxPool2d(2)]

    model = nn.Sequential(*block(3, 32), *block(32, 64), nn.Flatten(),
                          nn.Linear(64 * 8 * 8, 10))
    return (model, lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9),
            (32, 3, 32, 32), 10)


def gpt(lib, vocab=256, d=128, heads=4, layers=2, seq=64, batch=8):
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x):
            b, t, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
            q, k, v = (z.view(b, t, heads, d // heads).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
            self.blocks = nn.Sequential(*[Block() for _ in range(layers)])
            self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(lib.arange(idx.shape[1]))
            return self.head(self.ln(self.blocks(x))).flatten(0, 1)

    model = GPT()
    return model, lib.optim.AdamW(model.parameters(), lr=3e-4), (batch, seq), vocab


def data(shape, classes, tokens):
    rng = np.random.default_rng(0)
    if tokens:
        x = rng.integers(0, classes, size=shape)
        y = rng.integers(0, classes, size=shape[0] * shape[1])
    else:
        x = rng.standard_normal(shape).astype(np.float32)
        y = rng.integers(0, classes, size=shape[0])
    return x, y


def step_fn(lib, build):
    model, opt, shape, classes = build(lib)
    x, y = data(shape, classes, tokens=build is gpt)
    x, y = lib.from_numpy(x), lib.from_numpy(y)
    loss_fn = lib.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def ms_per_step(step, steps, repeats):
    step(), step()                                  # warm up (state allocation)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(steps):
            step()
        times.append((time.perf_counter() - t) / steps * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", default="mlp,cnn,gpt")
    args = ap.parse_args()
    builds = {"mlp": mlp, "cnn": cnn, "gpt": gpt}
    print(f"{'workload':10s}{'lucid ms':>11s}{'torch ms':>11s}{'ratio':>8s}")
    for name in args.only.split(","):
        lucid.manual_seed(0), torch.manual_seed(0)
        tl = ms_per_step(step_fn(lucid, builds[name]), args.steps, args.repeats)
        tt = ms_per_step(step_fn(torch, builds[name]), args.steps, args.repeats)
        print(f"{name:10s}{tl:11.2f}{tt:11.2f}{tl / tt:7.2f}x", flush=True)


if __name__ == "__main__":
    main()
