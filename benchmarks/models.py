"""The model zoo's models in Lucid and in PyTorch side by side in one process, on the same
weights: ResNet-50 inference and a training step (torchvision's model, where torchvision
imports), ViT-B/16 inference (transformers'), and GPT-2-small generation with the
key/value cache (transformers'), in ms per call or tokens per second, and the ratios
Lucid / PyTorch (below 1: Lucid is faster; for tokens/s, PyTorch / Lucid).

With ``--compile`` the fixed-shape workloads are also timed with Lucid's call wrapped whole
in ``lucid.compile(mode=--mode)``, and generation with ``generate(compile=True)`` (the
static cache, each decoding step one replay), against PyTorch eager (the ``compiled`` and
``c-ratio`` columns).

    python benchmarks/models.py [--device cpu|cuda] [--only resnet50,vit,gpt2]
        [--batch 8] [--calls 5] [--repeats 3] [--new-tokens 32]
        [--compile [--mode reduce-overhead]]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import lucid  # noqa: E402
import lucid.models as models  # noqa: E402
from common import Table, guarded, ratio, require_gpu, syncer, time_steps  # noqa: E402


def _copy_into(model, ref_state, convert=lambda sd: sd):
    sd = {k: lucid.from_numpy(v.detach().cpu().numpy().copy()) for k, v in ref_state.items()}
    model.load_state_dict(convert(sd))


def resnet50(args, train):
    import torchvision

    ref = torchvision.models.resnet50().to(args.device)
    model = models.create_model("resnet50")
    _copy_into(model, ref.state_dict())
    model.to(args.device)
    x = np.random.default_rng(0).standard_normal((args.batch, 3, 224, 224)).astype(np.float32)
    calls = []
    for lib, m in ((lucid, model), (torch, ref)):
        xt = lib.from_numpy(x).to(args.device)
        if train:
            m.train()
            opt = lib.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)

            def step(m=m, xt=xt, opt=opt):
                opt.zero_grad()
                m(xt).square().mean().backward()
                opt.step()

        else:
            m.eval()

            def step(m=m, xt=xt, lib=lib):
                with lib.no_grad():
                    m(xt)

        calls.append(step)
    return calls, "ms"


def vit(args, train):
    import transformers

    cfg = transformers.ViTConfig(num_labels=1000)
    ref = transformers.ViTForImageClassification(cfg).eval().to(args.device)
    model = models.create_model("vit_b_16")
    _copy_into(model, ref.state_dict(), models.vit.convert_hf_state_dict)
    model.eval().to(args.device)
    x = np.random.default_rng(0).standard_normal((args.batch, 3, 224, 224)).astype(np.float32)
    xl, xt = lucid.from_numpy(x).to(args.device), torch.from_numpy(x).to(args.device)

    def lucid_call():
        with lucid.no_grad():
            model(xl)

    def torch_call():
        with torch.no_grad():
            ref(xt)

    return [lucid_call, torch_call], "ms"


def gpt2(args, train):
    import transformers

    ref = transformers.GPT2LMHeadModel(transformers.GPT2Config()).eval().to(args.device)
    model = models.create_model("gpt2")
    _copy_into(model, ref.state_dict(), models.gpt2.convert_hf_state_dict)
    model.eval().to(args.device)
    ids = np.random.default_rng(0).integers(0, 50257, (1, 16))
    il, it = lucid.from_numpy(ids).to(args.device), torch.from_numpy(ids).to(args.device)
    n = args.new_tokens

    def lucid_call():
        model.generate(il, n)

    def lucid_compiled_call():
        model.generate(il, n, compile=True)

    def torch_call():
        with torch.no_grad():
            ref.generate(
                it,
                max_new_tokens=n,
                min_new_tokens=n,
                do_sample=False,
                pad_token_id=0,
                attention_mask=torch.ones_like(it),
            )

    return [lucid_call, torch_call, lucid_compiled_call], "tok/s"


WORKLOADS = {
    "resnet50": lambda a: resnet50(a, False),
    "resnet50-train": lambda a: resnet50(a, True),
    "vit": lambda a: vit(a, False),
    "gpt2": lambda a: gpt2(a, False),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--only", default=",".join(WORKLOADS))
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--new-tokens", type=int, default=32)
    ap.add_argument("--compile", action="store_true", help="also Lucid in lucid.compile")
    ap.add_argument("--mode", default="reduce-overhead", help="lucid.compile's mode")
    args = ap.parse_args()
    if args.device.startswith("cuda"):
        require_gpu(lucid, torch)
    table = Table(
        ("workload", 15, "{}"),
        ("lucid", 10, "{:.1f}"),
        ("torch", 10, "{:.1f}"),
        ("unit", 6, "{}"),
        ("ratio", 7, "{:.2f}x"),
        *((("compiled", 10, "{:.1f}"), ("c-ratio", 8, "{:.2f}x")) if args.compile else ()),
    )
    blank = (None, None) if args.compile else ()
    for name in args.only.split(","):
        got = guarded(name, WORKLOADS[name], args)
        if got is None:
            table.row(name, None, None, "", None, *blank)
            continue
        calls, unit = got
        syncs = [syncer(lucid, args.device), syncer(torch, args.device)]
        ms = guarded(name, time_steps, calls, syncs, args.device, args.calls, args.repeats, 1)
        if ms is None:
            table.row(name, None, None, unit, None, *blank)
            continue
        if unit == "tok/s":
            vals = [args.new_tokens * 1e3 / t for t in ms]
            more = blank
            if args.compile:  # generate(compile=True): the static cache, one recording
                got = guarded(
                    name, time_steps, calls[2:0:-1], syncs, args.device, args.calls, args.repeats, 1
                )
                tok = None if got is None else args.new_tokens * 1e3 / got[0]
                more = (tok, None if tok is None else ratio(vals[1], tok))
            table.row(name, vals[0], vals[1], unit, ratio(vals[1], vals[0]), *more)
            continue
        more = blank
        if args.compile:
            compiled = guarded(name, _compiled_ms, calls, syncs, args)
            more = (compiled, ratio(compiled, ms[1]))
        table.row(name, ms[0], ms[1], unit, ratio(ms[0], ms[1]), *more)


def _compiled_ms(calls, syncs, args):
    """ms per call of Lucid's call in ``lucid.compile`` (timed in turns with PyTorch's,
    which is timed again: the turns share the card's state)."""
    step = lucid.compile(calls[0], mode=args.mode)
    ms = time_steps([step, calls[1]], syncs, args.device, args.calls, args.repeats, 3)
    return ms[0]


if __name__ == "__main__":
    main()
