"""``scaled_dot_product_attention`` forward + backward on the GPU: Lucid through cuDNN, Lucid
on its own flash kernels (``lucid.backends.cudnn.enabled = False``) and PyTorch, side by
side in one process (the three take turns: :func:`common.interleaved_ms`); prints ms per
call and the ratios to PyTorch.

    python benchmarks/attention.py [--shapes 8x12x1024x64,...] [--dtype bfloat16]
        [--causal 1] [--calls 20] [--repeats 5]

A shape is ``batch x heads x sequence x head dim``; the default is GPT-2 small's
(8 x 12 x 1024 x 64) and a head dim of 128.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import lucid  # noqa: E402
import lucid.nn.functional as F  # noqa: E402
from common import Table, interleaved_ms, ratio, require_gpu  # noqa: E402


def _case(lib, arrays, dtype, causal, sdpa):
    q, k, v, g = (
        lib.from_numpy(a).to("cuda").to(getattr(lib, dtype)).requires_grad_() for a in arrays
    )

    def call():
        q.grad = k.grad = v.grad = None
        sdpa(q, k, v, is_causal=causal).backward(g)

    return call


def _with_cudnn(on, fn):
    def call():
        prev = lucid.backends.cudnn.enabled
        lucid.backends.cudnn.enabled = on
        try:
            fn()
        finally:
            lucid.backends.cudnn.enabled = prev

    return call


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default="8x12x1024x64,8x12x1024x128")
    ap.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float16"])
    ap.add_argument("--causal", type=int, default=1)
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    require_gpu(lucid, torch)
    print(
        f"{torch.cuda.get_device_name()}; cuDNN {lucid.backends.cudnn.version()} for Lucid, "
        f"{torch.backends.cudnn.version()} for PyTorch; {args.dtype}, causal={bool(args.causal)}"
    )
    table = Table(
        ("shape", 16, "{}"),
        ("cudnn ms", 9, "{:.3f}"),
        ("own ms", 9, "{:.3f}"),
        ("torch ms", 9, "{:.3f}"),
        ("cudnn/t", 8, "{:.2f}x"),
        ("own/t", 8, "{:.2f}x"),
        ("path", 8, "{}"),
    )
    for shape in args.shapes.split(","):
        b, h, s, d = (int(x) for x in shape.split("x"))
        rng = np.random.default_rng(0)
        arrays = [rng.standard_normal((b, h, s, d)).astype(np.float32) for _ in range(4)]
        lucid_call = _case(
            lucid, arrays, args.dtype, bool(args.causal), F.scaled_dot_product_attention
        )
        torch_call = _case(
            torch,
            arrays,
            args.dtype,
            bool(args.causal),
            torch.nn.functional.scaled_dot_product_attention,
        )
        fns = [_with_cudnn(True, lucid_call), _with_cudnn(False, lucid_call), torch_call]
        syncs = [lucid.cuda.synchronize, lucid.cuda.synchronize, torch.cuda.synchronize]
        fns[0]()
        path = lucid.backends.cudnn.chosen().get("attention_backward", "n/a")
        t = interleaved_ms(fns, syncs, args.calls, args.repeats, 3)
        table.row(shape, t[0], t[1], t[2], ratio(t[0], t[2]), ratio(t[1], t[2]), path[:8])


if __name__ == "__main__":
    main()
