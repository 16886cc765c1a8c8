"""Lucid vs PyTorch vs raw NumPy, side by side in one process; prints times and ratios.

Each case is timed as the median of several repeats of a loop (per-call time). The ratio
is Lucid / PyTorch: below 1 means Lucid is faster.
"""

from __future__ import annotations

import os
import statistics
import sys
import timeit

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import lucid  # noqa: E402

torch.set_num_threads(os.cpu_count() or 1)


def bench(fn, target_s=0.2, repeats=7):
    """Median seconds per call of ``fn`` (loop count chosen to fill ``target_s``)."""
    fn()
    n, t = 1, 0.0
    while True:
        t = timeit.timeit(fn, number=n)
        if t > target_s / 5:
            break
        n *= 4
    n = max(1, int(n * target_s / 5 / t))
    return statistics.median(timeit.repeat(fn, number=n, repeat=repeats)) / n


def case_exp():
    xn = np.random.default_rng(0).standard_normal(16).astype(np.float32)
    xl, xt = lucid.tensor(xn), torch.tensor(xn)
    return (lambda: lucid.exp(xl)), (lambda: torch.exp(xt)), (lambda: np.exp(xn))


def case_chain():
    xn = np.random.default_rng(0).standard_normal(16).astype(np.float32)
    xl = lucid.tensor(xn, requires_grad=True)
    xt = torch.tensor(xn, requires_grad=True)

    def lucid_step():
        ((xl * 2).exp() + 1).sum().backward()

    def torch_step():
        ((xt * 2).exp() + 1).sum().backward()

    def numpy_step():
        y = np.exp(xn * 2)
        (y + 1).sum()
        return 2 * y

    return lucid_step, torch_step, numpy_step


def case_matmul():
    rng = np.random.default_rng(0)
    an = rng.standard_normal((1024, 1024)).astype(np.float32)
    bn = rng.standard_normal((1024, 1024)).astype(np.float32)
    al, bl = lucid.tensor(an, requires_grad=True), lucid.tensor(bn, requires_grad=True)
    at, bt = torch.tensor(an, requires_grad=True), torch.tensor(bn, requires_grad=True)

    def lucid_step():
        (al @ bl).sum().backward()

    def torch_step():
        (at @ bt).sum().backward()

    def numpy_step():
        y = an @ bn
        g = np.ones_like(y)
        return g @ bn.T, an.T @ g

    return lucid_step, torch_step, numpy_step


def case_hvp():
    rng = np.random.default_rng(0)
    wn = (rng.standard_normal((256, 256)) / 16).astype(np.float32)
    xn = rng.standard_normal(256).astype(np.float32)
    vn = rng.standard_normal(256).astype(np.float32)
    wl, vl = lucid.tensor(wn), lucid.tensor(vn)
    xl = lucid.tensor(xn, requires_grad=True)
    wt, vt = torch.tensor(wn), torch.tensor(vn)
    xt = torch.tensor(xn, requires_grad=True)

    def lucid_step():
        f = (lucid.tanh(wl @ xl) ** 3).sum()
        (g,) = lucid.autograd.grad(f, xl, create_graph=True)
        return lucid.autograd.grad(g, xl, vl)

    def torch_step():
        f = (torch.tanh(wt @ xt) ** 3).sum()
        (g,) = torch.autograd.grad(f, xt, create_graph=True)
        return torch.autograd.grad(g, xt, vt)

    def numpy_step():
        z = wn @ xn
        t = np.tanh(z)
        s = 1 - t * t
        # f = sum t^3; grad = W^T (3 t^2 s); H v = W^T diag(d/dz(3 t^2 s)) W v
        d2 = 6 * t * s * s - 6 * t**3 * s
        return wn.T @ (d2 * (wn @ vn))

    return lucid_step, torch_step, numpy_step


def case_profiled():
    """Twenty steps of the chain recorded by each library's profiler, and the averages
    table made from them (with no profiler, the chain case above: its time is the
    profiler-off cost, one flag read per op)."""
    xn = np.random.default_rng(0).standard_normal(16).astype(np.float32)
    xl = lucid.tensor(xn, requires_grad=True)
    xt = torch.tensor(xn, requires_grad=True)

    def profiled(lib, x):
        def step():
            with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU]) as p:
                for _ in range(20):
                    ((x * 2).exp() + 1).sum().backward()
            return p.key_averages().table(row_limit=5)

        return step

    def numpy_step():
        for _ in range(20):
            np.exp(xn * 2).sum()

    return profiled(lucid, xl), profiled(torch, xt), numpy_step


CASES = [
    ("exp, 16 x float32, no grad", case_exp),
    ("((x*2).exp()+1).sum().backward(), 16 elems", case_chain),
    ("1024x1024 float32 matmul fwd+bwd", case_matmul),
    ("HVP by double backward, 256-dim tanh(W@x)**3", case_hvp),
    ("20 x the chain under the profiler, + its table", case_profiled),
]


def fmt(s):
    return f"{s * 1e6:10.1f} us" if s < 1e-2 else f"{s * 1e3:10.2f} ms"


def main():
    print(f"{'case':48s} {'lucid':>13s} {'torch':>13s} {'numpy':>13s} {'lucid/torch':>12s}")
    for name, make in CASES:
        fl, ft, fn = make()
        tl, tt, tn = bench(fl), bench(ft), bench(fn)
        print(f"{name:48s} {fmt(tl)} {fmt(tt)} {fmt(tn)} {tl / tt:11.2f}x", flush=True)


if __name__ == "__main__":
    main()
