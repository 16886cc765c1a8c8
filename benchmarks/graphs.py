"""Whole training steps captured as CUDA graphs and replayed, Lucid and PyTorch side by side
in one process on the GPU; prints ms per step eager and replayed, and the ratios.

The steps of :mod:`train`'s CNN and small GPT (attention through
scaled_dot_product_attention), both with SGD with momentum (optimizers that count steps on
the host, as Adam does, cannot be captured in Lucid). Each library warms its step up on a
side stream, captures forward, loss, backward and the update with ``lib.cuda.graph`` and
times ``replay()`` against its eager step, the two libraries taking turns
(:func:`common.interleaved_ms`). Eager, the steps are bound by the host's Python; replayed,
by the GPU's kernels.

    python benchmarks/graphs.py [--only cnn,gpt] [--steps 50] [--repeats 10]
"""

from __future__ import annotations

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import lucid  # noqa: E402
from common import Table, free, guarded, interleaved_ms, ratio, require_gpu  # noqa: E402
from train import cnn, data  # noqa: E402
from transformer import gpt as gpt_model  # noqa: E402


def gpt(lib):
    model = gpt_model(lib, vocab=256, d=128, heads=4, layers=2, seq=64, attention="sdpa")
    return (model, lambda params: lib.optim.SGD(params, lr=0.01, momentum=0.9),
            data((8, 64), 256, tokens=True))


def steps(lib, build):
    """``(eager step, replay of the captured step)`` of workload ``build`` in ``lib``."""
    model, make_opt, (x, y) = build(lib)
    model.to("cuda")
    opt = make_opt(model.parameters())
    x, y = lib.from_numpy(x).to("cuda"), lib.from_numpy(y).to("cuda")
    loss_fn = lib.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    side = lib.cuda.Stream()
    side.wait_stream(lib.cuda.current_stream())
    with lib.cuda.stream(side):
        for _ in range(3):
            step()
    lib.cuda.current_stream().wait_stream(side)
    opt.zero_grad()
    graph = lib.cuda.CUDAGraph()
    with lib.cuda.graph(graph):
        loss_fn(model(x), y).backward()
        opt.step()
    return step, graph.replay


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="cnn,gpt")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=10)
    args = ap.parse_args()
    require_gpu(lucid, torch)
    table = Table(("workload", 10, "{}"), ("lucid eager", 12, "{:.3f}"),
                  ("lucid graph", 12, "{:.3f}"), ("torch eager", 12, "{:.3f}"),
                  ("torch graph", 12, "{:.3f}"), ("eager", 8, "{:.2f}x"),
                  ("graph", 8, "{:.2f}x"), ("lucid graph/torch eager", 25, "{:.2f}x"))
    for name in args.only.split(","):
        build = {"cnn": cnn, "gpt": gpt}[name]

        def run():
            fns = []
            for lib in (lucid, torch):
                lib.manual_seed(0)
                fns += steps(lib, build)
            syncs = [lucid.cuda.synchronize] * 2 + [torch.cuda.synchronize] * 2
            return interleaved_ms(fns, syncs, args.steps, args.repeats, 3)

        ms = guarded(name, run)
        if ms is None:
            continue
        le, lg, te, tg = ms
        table.row(name, le, lg, te, tg, ratio(le, te), ratio(lg, tg), ratio(lg, te))
        for lib in (lucid, torch):
            free(lib, "cuda")


if __name__ == "__main__":
    main()
