"""Convolution and batch norm, forward + backward, Lucid and PyTorch side by side in one
process; prints ms per call and the ratio Lucid / PyTorch (below 1: Lucid is faster).

The cases are ResNet-style convolutions at batch 32 (3x3 and 1x1, 64-256 channels on
56x56 / 28x28 / 14x14 maps, a stride-2 3x3), the two convolutions of
``benchmarks/train.py``'s CNN, and batch norm in training mode on the same maps. Each call
is one forward and one backward of the input, the weight and the bias (with
``--no-backward``: the forward alone, under ``no_grad``).

Every case is timed ``--rounds`` times; a round lets Lucid and PyTorch take turns in the
same process, ``--steps`` calls each, ``--repeats`` times, and keeps each library's best
turn (:func:`common.interleaved_ms`), Lucid first in odd rounds and PyTorch first in even
ones. The row gives the best time of each library and the range of the rounds' ratios:
on a shared host load comes and goes (a busy host slows PyTorch's two spinning threads
most), so turns and best turns compare like with like.

Both libraries use the same number of threads: PyTorch's intra-op threads are set to the
intra-op threads Lucid runs with (``lucid.get_num_threads()``, its BLAS and
element-wise threads; printed first).

On ``--device cuda`` both run on the GPU (float32: cuDNN's TF32 convolutions where the
switches allow them, PyTorch's default and Lucid's), the clock stopping after the device
has finished; ``--dtype bfloat16`` runs both in bfloat16.

    python benchmarks/conv.py [--only conv,bn] [--cases NAME,...] [--steps 3]
        [--repeats 5] [--warmup 1] [--rounds 3] [--no-backward] [--json PATH]
        [--device cpu|cuda] [--dtype float32|bfloat16]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import lucid  # noqa: E402
from common import Table, guarded, interleaved_ms, write_json  # noqa: E402


# (name, batch, C_in, C_out, map size, kernel, stride, padding)
CONVS = [
    ("3x3 64->64 56", 32, 64, 64, 56, 3, 1, 1),
    ("3x3 128->128 28", 32, 128, 128, 28, 3, 1, 1),
    ("3x3 256->256 14", 32, 256, 256, 14, 3, 1, 1),
    ("3x3/2 128->128 28", 32, 128, 128, 28, 3, 2, 1),
    ("1x1 64->256 56", 32, 64, 256, 56, 1, 1, 0),
    ("1x1 256->64 56", 32, 256, 64, 56, 1, 1, 0),
    ("1x1 256->128 28", 32, 256, 128, 28, 1, 1, 0),
    ("cnn 3x3 3->32 32", 32, 3, 32, 32, 3, 1, 1),
    ("cnn 3x3 32->64 16", 32, 32, 64, 16, 3, 1, 1),
]
# (name, shape)
NORMS = [
    ("bn 64 56", (32, 64, 56, 56)),
    ("bn 256 14", (32, 256, 14, 14)),
    ("cnn bn 32 32", (32, 32, 32, 32)),
    ("cnn bn 64 16", (32, 64, 16, 16)),
]


def _input(lib, shape, backward, dev, dtype):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal(shape).astype(np.float32)).to(dev, getattr(lib, dtype))
    return x.requires_grad_(backward)


def conv_call(lib, case, backward, dev, dtype):
    _, n, ci, co, hw, k, stride, pad = case
    x = _input(lib, (n, ci, hw, hw), backward, dev, dtype)
    conv = lib.nn.Conv2d(ci, co, k, stride=stride, padding=pad).to(dev, getattr(lib, dtype))
    if not backward:

        def fwd():
            with lib.no_grad():
                return conv(x)

        return fwd
    g = lib.ones_like(conv(x)) * 0.01

    def step():
        conv(x).backward(g)

    return step


def norm_call(lib, case, backward, dev, dtype):
    _, shape = case
    x = _input(lib, shape, backward, dev, dtype)
    bn = lib.nn.BatchNorm2d(shape[1]).to(dev, getattr(lib, dtype))
    if not backward:

        def fwd():
            with lib.no_grad():
                return bn(x)

        return fwd
    g = _input(lib, shape, False, dev, dtype)

    def step():
        bn(x).backward(g)

    return step


def compare(make, case, args):
    """Best ms of each library over the rounds and the min / max of the rounds' ratios."""
    calls = {
        lib: make(lib, case, not args.no_backward, args.device, args.dtype)
        for lib in (lucid, torch)
    }
    cuda = args.device == "cuda"
    syncs = {lib: lib.cuda.synchronize if cuda else (lambda: None) for lib in (lucid, torch)}
    best = {lucid: float("inf"), torch: float("inf")}
    ratios = []
    for r in range(args.rounds):
        order = (lucid, torch) if r % 2 == 0 else (torch, lucid)
        times = dict(
            zip(
                order,
                interleaved_ms(
                    [calls[lib] for lib in order],
                    [syncs[lib] for lib in order],
                    args.steps,
                    args.repeats,
                    args.warmup,
                ),
            )
        )
        for lib in order:
            best[lib] = min(best[lib], times[lib])
        ratios.append(times[lucid] / times[torch])
    return best[lucid], best[torch], min(ratios), max(ratios)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="conv,bn")
    ap.add_argument("--cases", help="comma-separated case names (default: all)")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-backward", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    args = ap.parse_args()
    torch.set_num_threads(lucid.get_num_threads())
    print(
        f"threads: Lucid {lucid.get_num_threads()}, torch {torch.get_num_threads()}; "
        f"{'forward' if args.no_backward else 'forward + backward'}, batch 32, "
        f"{args.device} {args.dtype}"
        + (f" ({torch.cuda.get_device_name()})" if args.device == "cuda" else "")
    )
    wanted = None if args.cases is None else set(args.cases.split(","))
    table = Table(
        ("case", 20, "{}"),
        ("lucid ms", 10, "{:.2f}"),
        ("torch ms", 10, "{:.2f}"),
        ("ratio range", 14, "{}"),
    )
    results = []
    groups = {"conv": (conv_call, CONVS), "bn": (norm_call, NORMS)}
    for group in args.only.split(","):
        make, cases = groups[group]
        for case in cases:
            if wanted is not None and case[0] not in wanted:
                continue
            res = guarded(case[0], compare, make, case, args)
            lo_ms, to_ms, rmin, rmax = res or (None,) * 4
            results.append(
                {
                    "case": case[0],
                    "lucid_ms": lo_ms,
                    "torch_ms": to_ms,
                    "ratio_min": rmin,
                    "ratio_max": rmax,
                }
            )
            table.row(case[0], lo_ms, to_ms, None if res is None else f"{rmin:.2f}-{rmax:.2f}x")
    write_json(args.json, args, results)


if __name__ == "__main__":
    main()
