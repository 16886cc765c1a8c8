r"""Autoregressive generation for the decoder models: a key/value cache and the choice of
the next token (greedy, or sampled with temperature, top-k and top-p).

A decoder's ``forward(input_ids, cache)`` appends each layer's new keys and values to the
:class:`KVCache` and attends to all of them, so after the prompt each step feeds one
token. Its attention layers use :func:`causal_attention`.
"""

from __future__ import annotations

from .. import bool as bool_
from .. import cat, multinomial, no_grad, ones
from ..errors import ArgumentError
from ..nn import functional as F

__all__ = ["KVCache", "GenerationMixin", "causal_attention"]


class KVCache:
    """Each layer's keys and values so far, ``(B, heads, T, head dim)``, grown along T."""

    def __init__(self):
        self.layers: list = []

    def __len__(self):
        """The number of positions cached."""
        return 0 if not self.layers else self.layers[0][0].shape[2]

    def update(self, layer, k, v):
        """Append the new keys and values of ``layer``; returns all of that layer's."""
        if layer == len(self.layers):
            self.layers.append((k, v))
        else:
            pk, pv = self.layers[layer]
            self.layers[layer] = (cat([pk, k], 2), cat([pv, v], 2))
        return self.layers[layer]


def causal_attention(q, k, v, dropout_p=0.0, enable_gqa=False):
    r"""Causal attention of the ``T`` newest queries over ``S >= T`` keys (the last ``T``
    new, the others cached): query :math:`i` attends to keys :math:`j \le S - T + i`."""
    T, S = q.shape[2], k.shape[2]
    kw = dict(dropout_p=dropout_p, enable_gqa=enable_gqa)
    if S == T:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, **kw)
    if T == 1:  # one new token attends to everything
        return F.scaled_dot_product_attention(q, k, v, **kw)
    mask = ones(T, S, dtype=bool_, device=q.device).tril(S - T)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, **kw)


class GenerationMixin:
    """``generate`` for a module whose ``forward(input_ids, cache)`` returns logits."""

    def generate(
        self,
        input_ids,
        max_new_tokens,
        do_sample=False,
        temperature=1.0,
        top_k=None,
        top_p=None,
        generator=None,
    ):
        """``input_ids (B, T)`` followed by ``max_new_tokens`` tokens, each from the logits
        of the last position with a :class:`KVCache` (one token a step after the prompt):
        the argmax (greedy), or with ``do_sample`` a draw from
        :math:`\\mathrm{softmax}(z / \\text{temperature})` restricted to the ``top_k``
        largest and then to the smallest set whose probability reaches ``top_p``. Runs
        in eval mode without gradients; the training flag is restored after."""
        was_training = self.training
        self.eval()
        try:
            with no_grad():
                cache = KVCache()
                out = [input_ids]
                logits = self(input_ids, cache)[:, -1]
                for i in range(max_new_tokens):
                    nxt = _pick(logits, do_sample, temperature, top_k, top_p, generator)
                    out.append(nxt)
                    if i + 1 < max_new_tokens:
                        logits = self(nxt, cache)[:, -1]
                return cat(out, 1)
        finally:
            self.train(was_training)


def _pick(logits, do_sample, temperature, top_k, top_p, generator):
    """The next token ``(B, 1)`` from last-position logits ``(B, vocab)``."""
    if not do_sample:
        return logits.argmax(-1, keepdim=True)
    if temperature <= 0:
        raise ArgumentError(f"generate: temperature must be positive, got {temperature}")
    logits = logits / temperature
    if top_k is not None:
        kth = logits.topk(min(top_k, logits.shape[-1]), dim=-1).values[:, -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    probs = logits.softmax(-1)
    if top_p is None:
        return multinomial(probs, 1, generator=generator)
    sorted_p, order = probs.sort(-1, descending=True)
    # drop a token once the tokens before it already reach top_p (the first always stays)
    drop = (sorted_p.cumsum(-1) - sorted_p) >= top_p
    pick = multinomial(sorted_p.masked_fill(drop, 0.0), 1, generator=generator)
    return order.gather(-1, pick)
