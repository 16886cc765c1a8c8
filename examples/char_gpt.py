"""A small character-level GPT trained on the Python standard library's own source files.

Every machine that runs Python has the text: the ``.py`` files next to the ``os`` module,
found at run time (nothing is downloaded). The model is a decoder-only transformer
(token and position embeddings, pre-norm blocks of causal self-attention through
``scaled_dot_product_attention`` and a GELU MLP, a final LayerNorm and a linear head),
trained with AdamW and a warm-up + cosine schedule; as the loss falls it prints samples.

    python examples/char_gpt.py [--steps 600] [--every 150] [--layers 2] [--d 128] [--compile]

``--compile`` wraps the training step in ``lucid.compile`` (the same losses; the learning
rate the schedule sets is read at each replay).
"""

import argparse
import glob
import math
import os
import time

import lucid
from lucid import nn
from lucid.nn import functional as F


def stdlib_text(limit):
    """Up to ``limit`` characters of the standard library's sources, files in name order."""
    parts, size = [], 0
    for path in sorted(glob.glob(os.path.join(os.path.dirname(os.__file__), "*.py"))):
        with open(path, encoding="utf-8", errors="replace") as f:
            parts.append(f.read())
        size += len(parts[-1])
        if size >= limit:
            break
    return "".join(parts)[:limit]


class Block(nn.Module):
    def __init__(self, d, heads, dropout):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(
            nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d), nn.Dropout(dropout)
        )

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


class CharGPT(nn.Module):
    def __init__(self, vocab, block_size, d=128, heads=4, layers=2, dropout=0.1):
        super().__init__()
        self.block_size = block_size
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(block_size, d)
        self.blocks = nn.Sequential(*[Block(d, heads, dropout) for _ in range(layers)])
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(lucid.arange(idx.shape[1]))
        return self.head(self.ln(self.blocks(x)))

    @lucid.no_grad()
    def generate(self, idx, n, temperature=0.8):
        """Append ``n`` characters sampled one at a time from the softmax of the logits."""
        for _ in range(n):
            logits = self(idx[:, -self.block_size :])[:, -1] / temperature
            nxt = lucid.multinomial(F.softmax(logits, dim=-1), 1)
            idx = lucid.cat([idx, nxt], dim=1)
        return idx


def make_step(model, loss_fn, opt):
    """One step: forward, loss, backward, gradient clipping, AdamW; returns the loss."""

    def step(x, y):
        loss = loss_fn(model(x).flatten(0, 1), y.flatten())
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss

    return step


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--every", type=int, default=150)
    ap.add_argument("--chars", type=int, default=400_000)
    ap.add_argument("--block", type=int, default=64)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--compile", action="store_true", help="lucid.compile the training step")
    args = ap.parse_args()

    lucid.manual_seed(0)
    text = stdlib_text(args.chars)
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    data = lucid.tensor([index[c] for c in text], dtype=lucid.int64)
    split = int(0.95 * len(data))
    print(f"{len(text):,} characters of the standard library, {len(chars)} distinct")

    model = CharGPT(len(chars), args.block, d=args.d, layers=args.layers)
    print(f"{sum(p.numel() for p in model.parameters()):,} parameters")
    opt = lucid.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warm = max(1, args.steps // 20)
    sched = lucid.optim.lr_scheduler.LambdaLR(
        opt,
        lambda s: (
            min(1.0, (s + 1) / warm)
            * 0.5
            * (1 + math.cos(math.pi * min(s, args.steps) / args.steps))
        ),
    )
    loss_fn = nn.CrossEntropyLoss()

    def batch(lo, hi):
        starts = lucid.randint(lo, hi - args.block - 1, (args.batch,))
        offsets = lucid.arange(args.block)
        rows = starts[:, None] + offsets
        return data[rows], data[rows + 1]

    train_step = make_step(model, loss_fn, opt)
    if args.compile:
        train_step = lucid.compile(train_step)
    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        model.train()
        x, y = batch(0, split)
        loss = train_step(x, y)
        sched.step()
        if step % args.every == 0 or step == args.steps:
            model.eval()
            with lucid.no_grad():
                xv, yv = batch(split, len(data))
                val = loss_fn(model(xv).flatten(0, 1), yv.flatten()).item()
            prompt = data[None, split : split + 16]
            sample = "".join(chars[i] for i in model.generate(prompt, 120)[0].tolist())
            print(
                f"\nstep {step}  train loss {loss.item():.3f}  val loss {val:.3f}  "
                f"({time.perf_counter() - start:.0f} s)\n{'-' * 60}\n{sample}\n{'-' * 60}"
            )


if __name__ == "__main__":
    main()
