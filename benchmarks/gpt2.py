"""A GPT-2-small training step in Lucid and in PyTorch, side by side in one process.

The model (benchmarks/transformer.py: 12 pre-LN blocks, d=768, 12 heads, GELU tanh,
learned positional embeddings, untied head, vocabulary 50304) is built once per framework
from the same weights (normal(0, 0.02) matrices and embeddings, zero biases), so the
first-step losses must agree (float32: to ~1e-4; bfloat16: to ~1e-2). A step is
zero_grad, forward and cross-entropy (under autocast for bf16), backward, AdamW.

Configurations (``--only``): fp32-math, fp32-sdpa, bf16-math, bf16-sdpa; "math" writes
attention out (matmul, causal mask, softmax, matmul), "sdpa" calls
``scaled_dot_product_attention(is_causal=True)``. Per configuration: ms per step (loops of
``--steps`` steps after ``--warmup`` steps, the GPU synchronised before and after each
loop; on the GPU the two libraries take turns, ``--repeats`` loops each, and each reports
its best loop, as benchmarks/train.py; on the CPU the median of each one's loops), tokens
per second, peak memory (``max_memory_allocated``
after ``reset_peak_memory_stats``, so weights, gradients, AdamW state and activations)
and the ratios Lucid / PyTorch. TF32 stays at both frameworks' default (off). A
configuration that fails prints its error and n/a cells; the others still run.

    python benchmarks/gpt2.py [--device cuda] [--only bf16-sdpa,...] [--steps 5]
        [--layers 12 --d 768 --heads 12 --seq 1024 --batch 8 --vocab 50304] [--json PATH]
        [--compile [--mode reduce-overhead]]

With ``--compile`` each library's whole step is compiled (``lucid.compile`` and
``torch.compile``, both in ``--mode``) and the columns compare the compiled steps.

A CPU smoke run: ``--device cpu --layers 2 --d 64 --heads 2 --seq 32 --batch 2 --vocab 512
--steps 2``.
"""

from __future__ import annotations

import argparse
import contextlib
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
    peak_bytes,  # noqa: E402
    ratio,
    require_gpu,
    reset_peak,
    scaled,
    syncer,
    time_steps,
    write_json,
)
from transformer import gpt  # noqa: E402

torch.set_num_threads(os.cpu_count() or 1)

CONFIGS = ["fp32-math", "fp32-sdpa", "bf16-math", "bf16-sdpa"]


def weights(args):
    """The shared initial weights, as NumPy arrays by state_dict name."""
    torch.manual_seed(0)
    model = gpt(torch, args.vocab, args.d, args.heads, args.layers, args.seq)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("bias"):
                p.zero_()
            elif p.dim() == 2:
                p.normal_(0.0, 0.02)
    return {k: v.numpy().copy() for k, v in model.state_dict().items()}


def batch(args):
    rng = np.random.default_rng(0)
    x = rng.integers(0, args.vocab, size=(args.batch, args.seq))
    return x, rng.integers(0, args.vocab, size=args.batch * args.seq)


def build(lib, config, args, state, xy):
    """The training step of one configuration in ``lib`` (it returns the loss)."""
    precision, attention = config.split("-")
    model = gpt(
        lib, args.vocab, args.d, args.heads, args.layers, args.seq, attention=attention, gelu="tanh"
    )
    model.load_state_dict({k: lib.from_numpy(v) for k, v in state.items()})
    model.to(args.device)
    opt = lib.optim.AdamW(model.parameters(), lr=3e-4)
    x, y = (lib.from_numpy(a).to(args.device) for a in xy)
    loss_fn = lib.nn.CrossEntropyLoss()
    device_type = args.device.split(":")[0]

    def autocast():
        if precision == "fp32":
            return contextlib.nullcontext()
        return lib.amp.autocast(device_type, dtype=lib.bfloat16)

    def step():
        opt.zero_grad()
        with autocast():
            loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    if not args.compile:
        return step
    if lib is lucid:
        return lucid.compile(step, mode=args.mode)
    compiled = torch.compile(step, mode=args.mode)

    def marked():  # a reduce-overhead replay may reuse the previous step's output memory
        torch.compiler.cudagraph_mark_step_begin()
        return compiled()

    return marked


def first_step(lib, config, args, state, xy):
    """``(step, first loss)`` of one configuration in ``lib``, the peak memory counted
    from before that first step."""
    step = build(lib, config, args, state, xy)
    reset_peak(lib, args.device)
    return step, step().item()


def run(config, args, state, xy):
    """Per library: ``(first loss, ms per step, peak bytes)``, or Nones where it failed;
    timed by :func:`common.time_steps`."""
    libs = (lucid, torch)
    got = {
        lib: guarded(f"{lib.__name__} {config}", first_step, lib, config, args, state, xy)
        for lib in libs
    }
    ran = [lib for lib in libs if got[lib]]
    times = guarded(
        config,
        time_steps,
        [got[lib][0] for lib in ran],
        [syncer(lib, args.device) for lib in ran],
        args.device,
        args.steps,
        args.repeats,
        max(args.warmup - 1, 0),
        args.gc_every,
    )
    times = times or [None] * len(ran)
    out = {lib: (None, None, None) for lib in libs}
    for lib, ms in zip(ran, times):
        out[lib] = (got[lib][1], ms, peak_bytes(lib, args.device))
    got.clear()
    for lib in libs:
        free(lib, args.device)
    return out[lucid], out[torch]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--only", default=",".join(CONFIGS))
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument(
        "--warmup",
        type=int,
        default=3,
        help="steps before timing, the first (whose loss is printed) included",
    )
    for name, default in [
        ("layers", 12),
        ("d", 768),
        ("heads", 12),
        ("seq", 1024),
        ("batch", 8),
        ("vocab", 50304),
    ]:
        ap.add_argument(f"--{name}", type=int, default=default)
    ap.add_argument("--json")
    ap.add_argument(
        "--compile",
        action="store_true",
        help="each step whole in lucid.compile and torch.compile (mode --mode)",
    )
    ap.add_argument("--mode", default="reduce-overhead", help="the compile mode of both")
    add_gc_option(ap)
    args = ap.parse_args()
    configs = args.only.split(",")
    if not set(configs) <= set(CONFIGS):
        ap.error(f"--only takes a comma-separated subset of {','.join(CONFIGS)}")
    if on_gpu(args.device):
        require_gpu(lucid, torch)
    state, xy = weights(args), batch(args)
    tokens = args.batch * args.seq
    print(
        f"GPT-2: {args.layers} layers, d={args.d}, {args.heads} heads, seq {args.seq}, "
        f"batch {args.batch}, vocab {args.vocab}: "
        f"{sum(v.size for v in state.values()) / 1e6:.1f}M parameters; {args.device}"
        + (f"; both compiled (mode {args.mode})" if args.compile else ""),
        flush=True,
    )
    table = Table(
        ("config", 10, "{}"),
        ("lucid ms", 10, "{:.1f}"),
        ("torch ms", 10, "{:.1f}"),
        ("ratio", 7, "{:.2f}x"),
        ("lucid tok/s", 12, "{:.0f}"),
        ("torch tok/s", 12, "{:.0f}"),
        ("lucid GiB", 10, "{:.2f}"),
        ("torch GiB", 10, "{:.2f}"),
        ("mem", 7, "{:.2f}x"),
        ("lucid loss", 11, "{:.4f}"),
        ("torch loss", 11, "{:.4f}"),
    )
    results = []
    for config in configs:
        (ll, lms, lmem), (tl, tms, tmem) = run(config, args, state, xy)
        r = {
            "config": config,
            "lucid_ms": lms,
            "torch_ms": tms,
            "ratio": ratio(lms, tms),
            "lucid_tokens_s": ratio(tokens * 1e3, lms),
            "torch_tokens_s": ratio(tokens * 1e3, tms),
            "lucid_peak_bytes": lmem,
            "torch_peak_bytes": tmem,
            "mem_ratio": ratio(lmem, tmem),
            "lucid_loss0": ll,
            "torch_loss0": tl,
        }
        results.append(r)
        table.row(
            config,
            lms,
            tms,
            r["ratio"],
            r["lucid_tokens_s"],
            r["torch_tokens_s"],
            scaled(lmem, 2.0**-30),
            scaled(tmem, 2.0**-30),
            r["mem_ratio"],
            ll,
            tl,
        )
    write_json(args.json, args, results)


if __name__ == "__main__":
    main()
