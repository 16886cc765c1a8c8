"""Data-parallel training of the small GPT on the CPU with 1, 2 and 4 MPI ranks: Lucid's
DistributedDataParallel over ``lucid.distributed`` (MPI), beside PyTorch's DDP over Gloo in
the same processes.

Each rank trains on its own batch (8 sequences of 64 tokens: weak scaling), one thread per
rank. Per rank count it prints

- step ms and throughput (global tokens/s) of Lucid and of PyTorch, and their ratio
  (Lucid / PyTorch step time; below 1: Lucid is faster);
- scaling efficiency: throughput on N ranks / (N x throughput on 1 rank);
- ddp+ms: what DDP adds to the step (the DDP step minus the same step under
  ``no_sync()``: bucket copies, hooks, the all-reduces, waiting for the slowest rank);
- ar ms: the all-reduce time of one step's gradients alone (the DDP buckets all-reduced
  back to back, nothing else running); wait ms: how long the DDP step waited for its
  all-reduces after the backward (the reducer's ``wait_s``), on the rank that waited
  least — the one whose backward ended last, which waits for the communication alone,
  not for a slower peer (median over the steps); and the fraction of the all-reduce
  hidden behind the backward, 1 - wait / all-reduce.

With more ranks than cores the ranks share cores and the figures say so.

The default 25 MiB buckets hold this 1.8 MiB model in two buckets (the first is capped at
1 MiB, as PyTorch's), so little can overlap; the 0.25 MiB rows show the overlap that
smaller buckets allow.

    python benchmarks/distributed.py [--ranks 1,2,4] [--bucket-mb 25,0.25] [--steps 10]
        [--warmup 3] [--repeats 5] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BATCH, SEQ, VOCAB = 8, 64, 256


def _args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ranks", default="1,2,4")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument(
        "--bucket-mb", default="25,0.25", help="DDP bucket sizes to run (MiB; one row each)"
    )
    p.add_argument("--json", default=None)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        a.bucket_mb = float(a.bucket_mb)
    return a


# -- one rank (under the launcher) ---------------------------------------------------------


def _timed(fns, sync, steps, repeats, warmup):
    """Median ms per call of each of ``fns``, the functions timed in turn within each
    repeat (so that a slow spell of a shared machine hits all of them alike)."""
    import statistics
    import time

    for f in fns:
        for _ in range(warmup):
            f()
    times = [[] for _ in fns]
    for _ in range(repeats):
        for f, t in zip(fns, times):
            sync()
            t0 = time.perf_counter()
            for _ in range(steps):
                f()
            sync()
            t.append((time.perf_counter() - t0) / steps * 1e3)
    return [statistics.median(t) for t in times]


def _worker(a):
    import numpy as np
    import torch

    sys.path.insert(0, os.path.join(HERE, ".."))
    sys.path.insert(0, HERE)
    import lucid
    import lucid.distributed as dist
    from transformer import gpt

    torch.set_num_threads(1)
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    rng = np.random.default_rng(rank)
    x = rng.integers(0, VOCAB, size=(BATCH, SEQ))
    y = rng.integers(0, VOCAB, size=BATCH * SEQ)

    def step_fn(lib, model, opt, xs, ys, ctx=_Null):
        loss_fn = lib.nn.CrossEntropyLoss()

        def step():
            with ctx():
                opt.zero_grad()
                loss_fn(model(xs), ys).backward()
                opt.step()

        return step

    lucid.manual_seed(0)
    model = lucid.nn.parallel.DistributedDataParallel(
        gpt(lucid, vocab=VOCAB, d=128, heads=4, layers=2, seq=SEQ), bucket_cap_mb=a.bucket_mb
    )
    opt = lucid.optim.AdamW(model.parameters(), lr=3e-4)
    lx, ly = lucid.from_numpy(x), lucid.from_numpy(y)
    flats = [b.flat for b in model.reducer.buckets]

    def allreduce_all():
        for w in [dist.all_reduce(f, async_op=True) for f in flats]:
            w.wait()

    import torch.distributed as tdist

    tdist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{29400 + world}", rank=rank, world_size=world
    )
    torch.manual_seed(0)
    tmodel = torch.nn.parallel.DistributedDataParallel(
        gpt(torch, vocab=VOCAB, d=128, heads=4, layers=2, seq=SEQ), bucket_cap_mb=a.bucket_mb
    )
    topt = torch.optim.AdamW(tmodel.parameters(), lr=3e-4)
    ddp_step = step_fn(lucid, model, opt, lx, ly)
    waited = []

    def counted():
        before = model.reducer.wait_s
        ddp_step()
        waited.append(model.reducer.wait_s - before)

    lucid_ms, local_ms, comm_ms, torch_ms = _timed(
        [
            counted,
            step_fn(lucid, model, opt, lx, ly, model.no_sync),
            allreduce_all,
            step_fn(torch, tmodel, topt, torch.from_numpy(x), torch.from_numpy(y)),
        ],
        dist.barrier,
        a.steps,
        a.repeats,
        a.warmup,
    )
    # the rank whose backward ends last waits for the communication alone, the others
    # also for it: per step the least wait over the ranks is the exposed all-reduce
    mine = lucid.tensor(waited, dtype=lucid.float64)
    every = [lucid.zeros_like(mine) for _ in range(world)]
    dist.all_gather(every, mine)
    least = lucid.stack(every).amin(0).tolist()
    wait_ms = sorted(least)[len(least) // 2] * 1e3
    tdist.destroy_process_group()
    if rank == 0:
        print(
            "RESULT "
            + json.dumps(
                {
                    "ranks": world,
                    "bucket_mb": a.bucket_mb,
                    "buckets": len(flats),
                    "lucid_ms": lucid_ms,
                    "local_ms": local_ms,
                    "comm_ms": comm_ms,
                    "wait_ms": wait_ms,
                    "torch_ms": torch_ms,
                    "grad_mb": sum(f.numel() * 4 for f in flats) / 2**20,
                }
            ),
            flush=True,
        )
    dist.destroy_process_group()


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# -- the driver --------------------------------------------------------------------------


def _launch(n, bucket_mb, a):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [
        sys.executable,
        "-m",
        "lucid.distributed.run",
        "--nproc-per-node",
        str(n),
        os.path.abspath(__file__),
        "--worker",
        "--steps",
        str(a.steps),
        "--warmup",
        str(a.warmup),
        "--repeats",
        str(a.repeats),
        "--bucket-mb",
        str(bucket_mb),
    ]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    print(f"!! {n} ranks failed:\n{p.stderr[-2000:]}", flush=True)
    return None


def main():
    a = _args()
    if a.worker:
        return _worker(a)
    sys.path.insert(0, HERE)
    from common import Table, write_json

    print(
        f"GPT d=128, 2 layers, batch {BATCH}x{SEQ} tokens per rank, 1 thread per rank, "
        f"{os.cpu_count()} cores"
    )
    table = Table(
        ("ranks", 6, "{}"),
        ("bucket", 8, "{:g}MB"),
        ("n", 4, "{}"),
        ("lucid ms", 10, "{:.1f}"),
        ("tok/s", 9, "{:.0f}"),
        ("eff", 6, "{:.0%}"),
        ("ddp+ms", 8, "{:.1f}"),
        ("ar ms", 7, "{:.1f}"),
        ("wait ms", 9, "{:.1f}"),
        ("hidden", 8, "{:.0%}"),
        ("torch ms", 10, "{:.1f}"),
        ("torch eff", 10, "{:.0%}"),
        ("ratio", 7, "{:.2f}"),
    )
    results, base = [], {}
    for mb in [float(v) for v in a.bucket_mb.split(",")]:
        for n in [int(v) for v in a.ranks.split(",")]:
            r = _launch(n, mb, a)
            if r is None:
                continue
            tokens = n * BATCH * SEQ
            r["tok_s"] = tokens / r["lucid_ms"] * 1e3
            r["torch_tok_s"] = tokens / r["torch_ms"] * 1e3
            base.setdefault((mb, "lucid"), r["tok_s"] / n)
            base.setdefault((mb, "torch"), r["torch_tok_s"] / n)
            r["efficiency"] = r["tok_s"] / (n * base[mb, "lucid"])
            r["torch_efficiency"] = r["torch_tok_s"] / (n * base[mb, "torch"])
            r["overhead_ms"] = r["lucid_ms"] - r["local_ms"]
            r["hidden"] = (
                None
                if n == 1 or r["comm_ms"] <= 0
                else min(max(1 - r["wait_ms"] / r["comm_ms"], 0.0), 1.0)
            )
            table.row(
                n,
                mb,
                r["buckets"],
                r["lucid_ms"],
                r["tok_s"],
                r["efficiency"],
                r["overhead_ms"],
                r["comm_ms"],
                r["wait_ms"],
                r["hidden"],
                r["torch_ms"],
                r["torch_efficiency"],
                r["lucid_ms"] / r["torch_ms"],
            )
            results.append(r)
    write_json(a.json, a, results)


if __name__ == "__main__":
    main()
