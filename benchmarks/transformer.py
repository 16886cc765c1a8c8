"""A GPT (pre-LN blocks, learned positional embeddings, untied head) written once against
the PyTorch-shaped API and built with ``lib`` bound to ``lucid`` or to ``torch``.

Block: :math:`x \\leftarrow x + W_o\\,\\mathrm{attn}(\\mathrm{LN}_1 x)`, then
:math:`x \\leftarrow x + W_2\\,\\mathrm{GELU}(W_1\\,\\mathrm{LN}_2 x)`; causal attention per
head :math:`\\mathrm{softmax}(QK^\\top/\\sqrt{d_h} + M)\\,V` with :math:`M` = -inf above the
diagonal, either written out (``attention="math"``: matmul, masked_fill, softmax, matmul)
or fused (``"sdpa"``: ``scaled_dot_product_attention(is_causal=True)``).
"""

from __future__ import annotations

import math


def gpt(lib, vocab, d, heads, layers, seq, attention="sdpa", gelu="none"):
    """The model; ``forward(idx)`` maps ``(B, T)`` token ids to ``(B*T, vocab)`` logits."""
    nn, F = lib.nn, lib.nn.functional
    if attention not in ("math", "sdpa"):
        raise ValueError(f"attention must be 'math' or 'sdpa', got {attention!r}")

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
            if attention == "math":
                self.register_buffer(
                    "mask", lib.ones(seq, seq, dtype=lib.bool).triu(1), persistent=False
                )

        def attend(self, q, k, v):
            if attention == "sdpa":
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)
            t = q.shape[2]
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
            att = att.masked_fill(self.mask[:t, :t], float("-inf"))
            return F.softmax(att, dim=-1) @ v

        def forward(self, x):
            b, t, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
            q, k, v = (z.view(b, t, heads, d // heads).transpose(1, 2) for z in (q, k, v))
            x = x + self.proj(self.attend(q, k, v).transpose(1, 2).reshape(b, t, d))
            return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate=gelu))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
            self.blocks = nn.Sequential(*[Block() for _ in range(layers)])
            self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(lib.arange(idx.shape[1], device=idx.device))
            return self.head(self.ln(self.blocks(x))).flatten(0, 1)

    return GPT()
