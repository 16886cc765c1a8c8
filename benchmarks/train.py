"""Training steps of Lucid and PyTorch side by side in one process; prints ms per step and
the ratio Lucid / PyTorch (below 1: Lucid is faster).

The models are written once against the PyTorch-shaped API and built twice, with ``lib``
bound to ``lucid`` or to ``torch``: the same code, only the import differs.

- mlp: 784-512-512-10 with ReLU, batch 128, cross-entropy, Adam;
- cnn: two [conv3x3 + BatchNorm2d + ReLU + MaxPool2d] blocks (3 -> 32 -> 64 channels) and a
  linear head on 32x32 images, batch 32, SGD with momentum;
- gpt: 2 pre-norm transformer blocks (d=128, 4 heads, causal attention, GELU MLP), sequence
  64, batch 8, vocabulary 256, AdamW; attention through scaled_dot_product_attention
  (gpt-sdpa) and/or written out as matmul, causal mask, softmax, matmul (gpt-math).

On ``--device cuda`` both run on the GPU and the clock stops only after the device has
finished (``lib.cuda.synchronize()`` after the warm-up and after each timed loop), and
the two libraries take turns, ``--steps`` steps each, ``--repeats`` times, each reporting
its best turn (:func:`common.interleaved_ms`): the GPU host is shared, and timing one
library after the other let a burst of load land on one side only. On the CPU each
library is timed on its own (the median of its repeats): there turns would not be fair,
as BLAS threads keep spinning for a while after Lucid's last NumPy call and take the
cores from PyTorch's first steps.

    python benchmarks/train.py [--device cpu|cuda] [--steps 20] [--repeats 3] [--warmup 2]
        [--only mlp,cnn,gpt] [--attention sdpa|math|both] [--json PATH]
        [--compile [--torch-compile] [--mode reduce-overhead]]

``--attention`` defaults to sdpa on the CPU and both on the GPU. ``--compile`` also times
each step wrapped whole in ``lucid.compile`` (and, with ``--torch-compile``, the default on
the GPU, in ``torch.compile(mode=--mode)``) and prints compiled / Lucid eager, compiled /
PyTorch eager and compiled / PyTorch compiled.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import lucid  # noqa: E402
from common import (
    Table,
    add_gc_option,
    free,
    guarded,
    on_gpu,
    ratio,
    require_gpu,  # noqa: E402
    syncer,
    time_steps,
    write_json,
)
from transformer import gpt as gpt_model  # noqa: E402

torch.set_num_threads(os.cpu_count() or 1)


def data(shape, classes, tokens=False):
    """Inputs (features, or token ids when ``tokens``) and class targets, as NumPy."""
    rng = np.random.default_rng(0)
    if tokens:
        x = rng.integers(0, classes, size=shape)
        y = rng.integers(0, classes, size=shape[0] * shape[1])
    else:
        x = rng.standard_normal(shape).astype(np.float32)
        y = rng.integers(0, classes, size=shape[0])
    return x, y


def mlp(lib):
    nn = lib.nn
    model = nn.Sequential(
        nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)
    )
    return model, lambda params: lib.optim.Adam(params, lr=1e-3), data((128, 784), 10)


def cnn(lib):
    nn = lib.nn

    def block(cin, cout):
        return [
            nn.Conv2d(cin, cout, 3, padding=1),
            nn.BatchNorm2d(cout),
            nn.ReLU(),
            nn.MaxPool2d(2),
        ]

    model = nn.Sequential(*block(3, 32), *block(32, 64), nn.Flatten(), nn.Linear(64 * 8 * 8, 10))
    return (
        model,
        lambda params: lib.optim.SGD(params, lr=0.01, momentum=0.9),
        data((32, 3, 32, 32), 10),
    )


def gpt(lib, attention):
    model = gpt_model(lib, vocab=256, d=128, heads=4, layers=2, seq=64, attention=attention)
    return (model, lambda params: lib.optim.AdamW(params, lr=3e-4), data((8, 64), 256, tokens=True))


def step_fn(lib, build, device):
    """One training step of the workload ``build`` on ``device`` (model moved there before
    its optimizer is made)."""
    model, make_opt, (x, y) = build(lib)
    model.to(device)
    opt = make_opt(model.parameters())
    x, y = lib.from_numpy(x).to(device), lib.from_numpy(y).to(device)
    loss_fn = lib.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def workloads(only, attention):
    """``(row name, builder)`` for each workload asked for."""
    modes = ["math", "sdpa"] if attention == "both" else [attention]
    out = []
    for name in only.split(","):
        if name == "gpt":
            out += [(f"gpt-{m}", lambda lib, m=m: gpt(lib, m)) for m in modes]
        else:
            out.append((name, {"mlp": mlp, "cnn": cnn}[name]))
    return out


def _torch_compiled(build, args):
    """``torch.compile(step, mode=--mode)``, run three times here (a reduce-overhead
    failure may show only at a replay) so that a compile failure costs only its own
    column; each call first marks a new CUDA-graph step (PyTorch's way to let a
    reduce-overhead replay reuse the memory of the previous step's outputs)."""
    compiled = torch.compile(step_fn(torch, build, args.device), mode=args.mode)

    def step():
        torch.compiler.cudagraph_mark_step_begin()
        return compiled()

    for _ in range(3):
        step()
    return step


def time_both(build, args):
    """ms per step of ``build`` in each library (:func:`common.time_steps`), and compiled
    with ``--compile``."""
    names, libs, steps = ["lucid", "torch"], [lucid, torch], []
    for lib in libs:
        lib.manual_seed(0)
        steps.append(step_fn(lib, build, args.device))
    if args.compile:
        lucid.manual_seed(0)
        names.append("lucid_compiled")
        libs.append(lucid)
        steps.append(lucid.compile(step_fn(lucid, build, args.device), mode=args.mode))
        if args.torch_compile:
            torch.manual_seed(0)
            tstep = guarded("torch.compile", _torch_compiled, build, args)
            if tstep is not None:
                names.append("torch_compiled")
                libs.append(torch)
                steps.append(tstep)
    times = time_steps(
        steps,
        [syncer(lib, args.device) for lib in libs],
        args.device,
        args.steps,
        args.repeats,
        args.warmup,
        args.gc_every,
    )
    if args.compile:
        st = lucid.compiler.stats()
        for b in st["graph_breaks"]:
            print(f"!! graph break: {b['reason']} at {b['where']}", flush=True)
        lucid.compiler.reset()
    del steps
    for lib in (lucid, torch):
        free(lib, args.device)
    return dict(zip(names, times))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--only", default="mlp,cnn,gpt")
    ap.add_argument("--attention", choices=["math", "sdpa", "both"])
    ap.add_argument("--json")
    ap.add_argument("--compile", action="store_true", help="also time lucid.compile'd steps")
    ap.add_argument("--torch-compile", action="store_true", default=None)
    ap.add_argument("--mode", default="reduce-overhead", help="the compile mode of both")
    add_gc_option(ap)
    args = ap.parse_args()
    if args.attention is None:
        args.attention = "both" if on_gpu(args.device) else "sdpa"
    if args.torch_compile is None:
        args.torch_compile = on_gpu(args.device)
    if on_gpu(args.device):
        require_gpu(lucid, torch)
    cols = [
        ("workload", 10, "{}"),
        ("lucid ms", 10, "{:.2f}"),
        ("torch ms", 10, "{:.2f}"),
        ("ratio", 7, "{:.2f}x"),
    ]
    if args.compile:
        cols += [("compiled ms", 12, "{:.2f}"), ("/eager", 7, "{:.2f}x"), ("/torch", 7, "{:.2f}x")]
        if args.torch_compile:
            cols += [("torch.compile ms", 17, "{:.2f}"), ("/t.compile", 11, "{:.2f}x")]
    table = Table(*cols)
    results = []
    for name, build in workloads(args.only, args.attention):
        ms = guarded(name, time_both, build, args) or {}
        got = {k: ms.get(k) for k in ("lucid", "torch", "lucid_compiled", "torch_compiled")}
        row = {
            "workload": name,
            "lucid_ms": got["lucid"],
            "torch_ms": got["torch"],
            "ratio": ratio(got["lucid"], got["torch"]),
        }
        cells = [name, got["lucid"], got["torch"], row["ratio"]]
        if args.compile:
            c = got["lucid_compiled"]
            row.update(
                compiled_ms=c,
                compiled_vs_eager=ratio(c, got["lucid"]),
                compiled_vs_torch=ratio(c, got["torch"]),
            )
            cells += [c, row["compiled_vs_eager"], row["compiled_vs_torch"]]
            if args.torch_compile:
                row.update(
                    torch_compiled_ms=got["torch_compiled"],
                    compiled_vs_torch_compiled=ratio(c, got["torch_compiled"]),
                )
                cells += [got["torch_compiled"], row["compiled_vs_torch_compiled"]]
        results.append(row)
        table.row(*cells)
    write_json(args.json, args, results)


if __name__ == "__main__":
    main()
