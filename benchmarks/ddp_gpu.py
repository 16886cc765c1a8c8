"""Data-parallel GPT-2-small training on 1 and N GPUs: Lucid's DistributedDataParallel over
NCCL beside PyTorch's DDP over NCCL, in the same processes (issue 10's benchmark).

Each rank trains on its own batch (benchmarks/gpt2.py's configuration: 12 layers, d=768,
12 heads, sequence 1024, batch 8 a rank, vocabulary 50304, untied head, AdamW, bfloat16
autocast, ``scaled_dot_product_attention``), so the global batch grows with the ranks
(weak scaling). Per GPU count it prints the step ms of each framework (the median over
repeats, timed in turn), the global tokens per second, the scaling efficiency (tokens/s
on N GPUs over N times those on one) and the ratio Lucid / PyTorch of the step times.

    python benchmarks/ddp_gpu.py [--gpus 1,2] [--steps 5] [--repeats 3] [--warmup 3]
        [--json PATH]
    python benchmarks/ddp_gpu.py --device cpu --backend mpi --tiny --gpus 1,2   # smoke run

The CPU form (MPI for Lucid, Gloo for PyTorch, a two-layer model) only checks that the
script works; its figures mean nothing. On the GPUs keep NCCL's NVLink multicast off
(``NCCL_NVLS_ENABLE=0``), as the machine's notes require.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GPT2 = dict(vocab=50304, d=768, heads=12, layers=12, seq=1024, batch=8)
TINY = dict(vocab=512, d=64, heads=2, layers=2, seq=32, batch=2)


def _args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gpus", default="1,2", help="process counts to run, one row each")
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    p.add_argument("--backend", default="nccl", choices=["nccl", "mpi"])
    p.add_argument("--tiny", action="store_true", help="a two-layer model (smoke runs)")
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--json", default=None)
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--torch-port", type=int, default=0, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(a):
    """One rank: both frameworks' DDP steps, timed in turn; rank 0 writes the result."""
    import numpy as np
    import torch
    import torch.distributed as tdist

    sys.path.insert(0, os.path.join(HERE, ".."))
    sys.path.insert(0, HERE)
    import lucid
    import lucid.distributed as dist
    from distributed import _timed
    from gpt2 import weights
    from transformer import gpt

    cfg = argparse.Namespace(**(TINY if a.tiny else GPT2))
    dist.init_process_group(a.backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    local = int(os.environ.get("LOCAL_RANK", os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", rank)))
    cuda = a.device == "cuda"
    if cuda:
        lucid.cuda.set_device(local)
        torch.cuda.set_device(local)
    dev = f"cuda:{local}" if cuda else "cpu"
    tdist.init_process_group(
        "nccl" if cuda else "gloo",
        init_method=f"tcp://127.0.0.1:{a.torch_port}",
        rank=rank,
        world_size=world,
    )
    state = weights(cfg)
    rng = np.random.default_rng(rank)
    x = rng.integers(0, cfg.vocab, size=(cfg.batch, cfg.seq))
    y = rng.integers(0, cfg.vocab, size=cfg.batch * cfg.seq)

    def build(lib, wrap):
        model = gpt(
            lib, cfg.vocab, cfg.d, cfg.heads, cfg.layers, cfg.seq, attention="sdpa", gelu="tanh"
        )
        model.load_state_dict({k: lib.from_numpy(v) for k, v in state.items()})
        model = wrap(model.to(dev))
        opt = lib.optim.AdamW(model.parameters(), lr=3e-4)
        xs, ys = lib.from_numpy(x).to(dev), lib.from_numpy(y).to(dev)
        loss_fn = lib.nn.CrossEntropyLoss()
        cast = (
            (lambda: lib.amp.autocast(a.device, dtype=lib.bfloat16))
            if cuda
            else contextlib.nullcontext
        )

        def step():
            opt.zero_grad()
            with cast():
                loss = loss_fn(model(xs), ys)
            loss.backward()
            opt.step()

        return step

    lucid_step = build(lucid, lucid.nn.parallel.DistributedDataParallel)
    torch_step = build(
        torch,
        lambda m: torch.nn.parallel.DistributedDataParallel(
            m, device_ids=[local] if cuda else None
        ),
    )

    def sync():
        if cuda:
            lucid.cuda.synchronize()
            torch.cuda.synchronize()
        dist.barrier()
        tdist.barrier()

    lucid_ms, torch_ms = _timed([lucid_step, torch_step], sync, a.steps, a.repeats, a.warmup)
    if rank == 0:
        with open(a.worker, "w") as f:
            json.dump(
                {
                    "world": world,
                    "lucid_ms": lucid_ms,
                    "torch_ms": torch_ms,
                    "tokens_per_step": world * cfg.batch * cfg.seq,
                },
                f,
            )
    tdist.destroy_process_group()
    dist.destroy_process_group()


def _run(a, n):
    """Launch ``n`` ranks of this script; their rank 0's result."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        cmd = [
            sys.executable,
            "-m",
            "lucid.distributed.run",
            "--backend",
            a.backend,
            "--nproc-per-node",
            str(n),
            os.path.abspath(__file__),
            "--worker",
            out,
            "--torch-port",
            str(_free_port()),
            "--device",
            a.device,
            "--backend",
            a.backend,
            "--steps",
            str(a.steps),
            "--repeats",
            str(a.repeats),
            "--warmup",
            str(a.warmup),
        ] + (["--tiny"] if a.tiny else [])
        env = dict(
            os.environ,
            PYTHONPATH=os.path.join(HERE, "..") + os.pathsep + os.environ.get("PYTHONPATH", ""),
            NCCL_NVLS_ENABLE="0",
        )
        proc = subprocess.run(cmd, env=env)
        if proc.returncode:
            sys.exit(f"ddp_gpu: the {n}-process run failed (exit {proc.returncode})")
        with open(out) as f:
            return json.load(f)


def main():
    a = _args()
    if a.worker:
        _worker(a)
        return
    rows = [_run(a, int(n)) for n in a.gpus.split(",")]
    base = {
        k: rows[0]["tokens_per_step"] / rows[0][k] / rows[0]["world"]
        for k in ("lucid_ms", "torch_ms")
    }
    print(
        f"{'processes':>9} {'lucid ms':>9} {'torch ms':>9} {'lucid tok/s':>12} "
        f"{'torch tok/s':>12} {'lucid eff':>9} {'torch eff':>9} {'ratio':>6}"
    )
    for r in rows:
        tok = {k: r["tokens_per_step"] / r[k] * 1e3 for k in ("lucid_ms", "torch_ms")}
        eff = {k: tok[k] / 1e3 / (r["world"] * base[k]) for k in tok}
        r.update(
            lucid_tokens_s=tok["lucid_ms"],
            torch_tokens_s=tok["torch_ms"],
            lucid_efficiency=eff["lucid_ms"],
            torch_efficiency=eff["torch_ms"],
            ratio=r["lucid_ms"] / r["torch_ms"],
        )
        print(
            f"{r['world']:>9} {r['lucid_ms']:9.1f} {r['torch_ms']:9.1f} "
            f"{tok['lucid_ms']:12.0f} {tok['torch_ms']:12.0f} {eff['lucid_ms']:9.0%} "
            f"{eff['torch_ms']:9.0%} {r['ratio']:5.2f}x"
        )
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"args": vars(a), "results": rows}, f, indent=1)


if __name__ == "__main__":
    main()
