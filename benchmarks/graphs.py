"""Whole training steps captured as CUDA graphs and replayed, Lucid and PyTorch side by side
in one process on the GPU; prints ms per step eager and replayed, and the ratios.

The steps of :mod:`train`'s MLP (Adam), CNN (SGD with momentum) and small GPT (AdamW,
attention through scaled_dot_product_attention), with ``capturable=True`` for the Adam
family in both libraries (the step counts on the device). Each library warms its step up
on a side stream, captures the whole step with ``lib.cuda.graph`` and times ``replay()``
against its eager step, the four taking turns (:func:`common.interleaved_ms`). Eager,
these steps are bound by the host's Python; replayed, by the GPU's kernels.

    python benchmarks/graphs.py [--only mlp,cnn,gpt] [--steps 50] [--repeats 10]
"""

from __future__ import annotations

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import lucid  # noqa: E402
from common import Table, free, guarded, interleaved_ms, ratio, require_gpu  # noqa: E402
import train  # noqa: E402

# workload -> (train.py's builder, the optimizer of its step in capturable form)
WORKLOADS = {
    "mlp": (train.mlp, lambda lib, p: lib.optim.Adam(p, lr=1e-3, capturable=True)),
    "cnn": (train.cnn, lambda lib, p: lib.optim.SGD(p, lr=0.01, momentum=0.9)),
    "gpt": (
        lambda lib: train.gpt(lib, "sdpa"),
        lambda lib, p: lib.optim.AdamW(p, lr=3e-4, capturable=True),
    ),
}


def steps(lib, name):
    """``(eager step, replay of the captured step)`` of workload ``name`` in ``lib``: the
    step of :func:`train.step_fn` (zero_grad, forward, loss, backward, update) with the
    capturable optimizer, warmed up on a side stream, then captured whole."""
    build, make_opt = WORKLOADS[name]

    def capturable(lib):
        model, _, data = build(lib)
        return model, lambda params: make_opt(lib, params), data

    step = train.step_fn(lib, capturable, "cuda")
    side = lib.cuda.Stream()
    side.wait_stream(lib.cuda.current_stream())
    with lib.cuda.stream(side):
        for _ in range(3):
            step()
    lib.cuda.current_stream().wait_stream(side)
    graph = lib.cuda.CUDAGraph()
    with lib.cuda.graph(graph):
        step()
    return step, graph.replay


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="mlp,cnn,gpt")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=10)
    args = ap.parse_args()
    require_gpu(lucid, torch)
    table = Table(
        ("workload", 10, "{}"),
        ("lucid eager", 12, "{:.3f}"),
        ("lucid graph", 12, "{:.3f}"),
        ("torch eager", 12, "{:.3f}"),
        ("torch graph", 12, "{:.3f}"),
        ("eager", 8, "{:.2f}x"),
        ("graph", 8, "{:.2f}x"),
        ("lucid graph/torch eager", 25, "{:.2f}x"),
    )
    for name in args.only.split(","):

        def run():
            fns = []
            for lib in (lucid, torch):
                lib.manual_seed(0)
                fns += steps(lib, name)
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
