"""GEMM throughput on the GPU: Lucid (``lucid.matmul``) against CuPy alone (``cupy.matmul``
on the same memory, through DLPack) and PyTorch (``torch.matmul``, likewise).

TFLOP/s = :math:`2 M N K \\cdot \\text{batch} / t`, with :math:`t` the median over
``--repeats`` loops (each about ``--seconds / --repeats`` long, the device synchronised
before and after). "% of CuPy" is Lucid's throughput over CuPy's: the cost of Lucid's
dispatch on top of the same cuBLAS call. "rel err" is
:math:`\\max|C_\\text{Lucid} - C_\\text{torch}| / \\max|C_\\text{torch}|`: about 1e-3 in
bfloat16; in float32 about 1e-6 with TF32 off on both sides (1e-3 would mean TF32 is on).
TF32 is turned off in Lucid (``lucid.backends.cuda.matmul.allow_tf32``, where it exists)
and in PyTorch; CuPy uses it only under ``CUPY_TF32=1``. CuPy's ``matmul`` has no batched
bfloat16 GEMM, so its batched cells read n/a (the reason printed above the table).

    python benchmarks/gemm.py [--seconds 1] [--repeats 5] [--json PATH]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import lucid  # noqa: E402
from common import Table, free, guarded, ms_per_call, ratio, require_gpu, write_json  # noqa: E402

CASES = [  # name, dtype, A's shape, B's shape
    ("bf16 8192^3", "bfloat16", (8192, 8192), (8192, 8192)),
    ("fp32 8192^3 TF32 off", "float32", (8192, 8192), (8192, 8192)),
    ("bf16 96x(1024x64 @ 64x1024)", "bfloat16", (96, 1024, 64), (96, 64, 1024)),
    ("bf16 96x(1024x1024 @ 1024x64)", "bfloat16", (96, 1024, 1024), (96, 1024, 64)),
]


def tf32_off():
    matmul = getattr(getattr(getattr(lucid, "backends", None), "cuda", None), "matmul", None)
    if matmul is not None:
        matmul.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False


def tflops(view, matmul, sync, a, b, flop, args):
    """TFLOP/s of ``matmul`` on the framework's views of ``a`` and ``b``: two warm-up calls,
    then one that sizes the timed loops."""
    x, y = view(a), view(b)
    for _ in range(2):
        matmul(x, y)
    sync()
    t = time.perf_counter()
    matmul(x, y)
    sync()
    calls = max(1, round(args.seconds / args.repeats / (time.perf_counter() - t)))
    return flop / ms_per_call(lambda: matmul(x, y), sync, calls, args.repeats, 0) / 1e9


def rel_err(a, b):
    """Lucid's product against PyTorch's, both read by PyTorch."""
    got = torch.from_dlpack(lucid.matmul(a, b)).float()
    want = torch.matmul(torch.from_dlpack(a), torch.from_dlpack(b)).float()
    return ((got - want).abs().max() / want.abs().max()).item()


def case(cupy, name, dtype, a_shape, b_shape, args):
    """``{framework: TFLOP/s, "rel_err": ...}`` of one case, on one pair of Lucid tensors."""
    lucid.manual_seed(0)
    a = lucid.randn(*a_shape, dtype=getattr(lucid, dtype), device="cuda")
    b = lucid.randn(*b_shape, dtype=getattr(lucid, dtype), device="cuda")
    flop = 2 * math.prod(a_shape) * b_shape[-1]
    frameworks = [
        ("lucid", lambda t: t, lucid.matmul, lucid.cuda.synchronize),
        ("cupy", cupy.from_dlpack, cupy.matmul, cupy.cuda.Device().synchronize),
        ("torch", torch.from_dlpack, torch.matmul, torch.cuda.synchronize),
    ]
    got = {
        k: guarded(f"{k} {name}", tflops, view, matmul, sync, a, b, flop, args)
        for k, view, matmul, sync in frameworks
    }
    got["rel_err"] = guarded(f"rel err {name}", rel_err, a, b)
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--seconds", type=float, default=1.0, help="timed seconds per framework and case"
    )
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    require_gpu(lucid, torch)
    import cupy

    tf32_off()
    print(
        f"{torch.cuda.get_device_name()}; CuPy {cupy.__version__}, torch {torch.__version__}",
        flush=True,
    )
    rows = []
    for c in CASES:
        rows.append(case(cupy, *c, args))
        free(lucid, "cuda"), free(torch, "cuda")
    table = Table(
        ("case", 31, "{}"),
        ("lucid TF/s", 11, "{:.1f}"),
        ("cupy TF/s", 10, "{:.1f}"),
        ("torch TF/s", 11, "{:.1f}"),
        ("% of cupy", 10, "{:.1%}"),
        ("% of torch", 11, "{:.1%}"),
        ("rel err", 9, "{:.1e}"),
    )
    results = []
    for (name, *_), got in zip(CASES, rows):
        r = {
            "case": name,
            **got,
            "lucid_of_cupy": ratio(got["lucid"], got["cupy"]),
            "lucid_of_torch": ratio(got["lucid"], got["torch"]),
        }
        results.append(r)
        table.row(
            name,
            r["lucid"],
            r["cupy"],
            r["torch"],
            r["lucid_of_cupy"],
            r["lucid_of_torch"],
            r["rel_err"],
        )
    write_json(args.json, args, results)


if __name__ == "__main__":
    main()
