"""Where a Lucid training step on the GPU spends its time.

For each workload: host milliseconds per step (the Python that queues the kernels) against
wall milliseconds (until the GPU is done) - equal means the step is bound by host time -
then the GPU time per kernel (PyTorch's profiler reads CUPTI, which sees CuPy's kernels as
well as cuBLAS's) and the host functions by own time (cProfile).

    python benchmarks/profile_gpu.py mlp,cnn,gpt        # benchmarks/train.py's workloads
    python benchmarks/profile_gpu.py gpt2 --config bf16-sdpa
    python benchmarks/profile_gpu.py sdpa               # one attention forward + backward
    python benchmarks/profile_gpu.py resnet50           # benchmarks/models.py's workloads
    python benchmarks/profile_gpu.py gpt2-generate      # (its gpt2: generation)
"""

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import lucid  # noqa: E402
from common import require_gpu  # noqa: E402


def gpt2_step(config):
    """One GPT-2-small training step of benchmarks/gpt2.py's ``config``, in Lucid."""
    import gpt2

    args = argparse.Namespace(
        device="cuda", vocab=50304, d=768, heads=12, layers=12, seq=1024, batch=8
    )
    precision, attention = config.split("-")
    model = gpt2.gpt(
        lucid,
        args.vocab,
        args.d,
        args.heads,
        args.layers,
        args.seq,
        attention=attention,
        gelu="tanh",
    )
    model.load_state_dict({k: lucid.from_numpy(v) for k, v in gpt2.weights(args).items()})
    model.to("cuda")
    opt = lucid.optim.AdamW(model.parameters(), lr=3e-4)
    x, y = (lucid.from_numpy(a).to("cuda") for a in gpt2.batch(args))
    loss_fn = lucid.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        with lucid.amp.autocast("cuda", dtype=lucid.bfloat16, enabled=precision == "bf16"):
            loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    return step


def sdpa_step(shape="8x12x1024x64"):
    """One causal bf16 ``scaled_dot_product_attention`` forward + backward of ``shape``."""
    b, h, s, d = (int(n) for n in shape.split("x"))
    q, k, v = (
        lucid.randn(b, h, s, d, device="cuda", dtype=lucid.bfloat16).requires_grad_()
        for _ in range(3)
    )
    g = lucid.randn(b, h, s, d, device="cuda", dtype=lucid.bfloat16)

    def step():
        q.grad = k.grad = v.grad = None
        lucid.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).backward(g)

    return step


def profile(name, step, steps, rows):
    for _ in range(3):
        step()
    lucid.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    t1 = time.perf_counter()
    lucid.cuda.synchronize()
    t2 = time.perf_counter()
    print(
        f"== {name}: host {1e3 * (t1 - t0) / steps:.2f} ms/step, "
        f"wall {1e3 * (t2 - t0) / steps:.2f} ms/step"
    )
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        lucid.cuda.synchronize()
    print(
        prof.key_averages().table(
            sort_by="cuda_time_total", row_limit=rows, max_name_column_width=60
        )
    )
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(steps):
        step()
    lucid.cuda.synchronize()
    pr.disable()
    print_host_table(pstats.Stats(pr), steps, rows)


def print_host_table(stats, steps, rows):
    """The functions with the most own host time, in microseconds per step."""
    entries = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:rows]
    print(f"{'own us/step':>12} {'total us/step':>14} {'calls/step':>11}  function")
    for (path, line, fn), (_, calls, own, total, _) in entries:
        where = f"{Path(path).name}:{line}({fn})" if line else fn
        print(
            f"{1e6 * own / steps:12.1f} {1e6 * total / steps:14.1f} {calls / steps:11.1f}  {where}"
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workloads", nargs="?", default="mlp,cnn,gpt")
    ap.add_argument("--config", default="bf16-sdpa", help="gpt2: fp32|bf16 - math|sdpa")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--rows", type=int, default=20)
    ap.add_argument("--batch", type=int, default=8, help="benchmarks/models.py's workloads")
    args = ap.parse_args()
    require_gpu(lucid)
    if args.workloads == "sdpa":
        profile("sdpa 8x12x1024x64 bf16 causal", sdpa_step(), args.steps, args.rows)
        return
    if args.workloads == "gpt2":
        profile(f"gpt2 {args.config}", gpt2_step(args.config), args.steps, args.rows)
        return
    import models

    name = {"gpt2-generate": "gpt2"}.get(args.workloads, args.workloads)
    if name in models.WORKLOADS:
        shape = argparse.Namespace(device="cuda", batch=args.batch, new_tokens=32)
        calls, _ = models.WORKLOADS[name](shape)
        profile(args.workloads, calls[0], args.steps, args.rows)
        return
    import train

    for name, build in train.workloads(args.workloads, "both"):
        profile(name, train.step_fn(lucid, build, "cuda"), args.steps, args.rows)


if __name__ == "__main__":
    main()
