r"""Autoregressive generation for the decoder models: a key/value cache and the choice of
the next token (greedy, or sampled with temperature, top-k and top-p).

A decoder's ``forward(input_ids, cache)`` takes the positions of its new tokens from the
cache (:meth:`KVCache.positions`), appends each layer's new keys and values to it
(:meth:`~KVCache.update`) and attends to all of them (:func:`attend`), so after the prompt
each step feeds one token. :class:`KVCache` grows along the sequence; a
:class:`StaticKVCache` keeps buffers of a fixed length and masks the positions not yet
written, so every decoding step has the same shapes and ``generate(...,
cache_implementation="static", compile=True)`` records the step once with
:func:`lucid.compile` and replays it (on a GPU as one CUDA graph) for every later token,
as Hugging Face's static cache with ``torch.compile`` does.
"""

from __future__ import annotations

from .. import arange, cat, multinomial, no_grad, ones, zeros
from .. import bool as bool_
from .. import int64
from ..compiler import compile as _compile
from ..errors import ArgumentError
from ..nn import functional as F

__all__ = [
    "KVCache",
    "StaticKVCache",
    "GenerationMixin",
    "attend",
    "causal_attention",
    "positions",
]


class KVCache:
    """Each layer's keys and values so far, ``(B, heads, T, head dim)``, grown along T."""

    def __init__(self):
        self.layers: list = []

    def __len__(self):
        """The number of positions cached."""
        return 0 if not self.layers else self.layers[0][0].shape[2]

    def extent(self, T):
        """The positions held once ``T`` more are added."""
        return len(self) + T

    def positions(self, T, device):
        """The positions of ``T`` new tokens, ``(T,)`` int64: those after the cached ones."""
        past = len(self)
        return arange(past, past + T, device=device)

    def update(self, layer, k, v):
        """Append the new keys and values of ``layer``; returns all of that layer's."""
        if layer == len(self.layers):
            self.layers.append((k, v))
        else:
            pk, pv = self.layers[layer]
            self.layers[layer] = (cat([pk, k], 2), cat([pv, v], 2))
        return self.layers[layer]

    def attention(self, q, k, v, dropout_p=0.0, enable_gqa=False):
        """The new queries over every cached key (:func:`causal_attention`)."""
        return causal_attention(q, k, v, dropout_p, enable_gqa)


class StaticKVCache:
    r"""Each layer's keys and values in zero-filled buffers ``(B, heads, max_len, head
    dim)``, made at the layer's first update. A step writes its new keys and values at
    their positions (``index_copy_``) and attends over the whole buffer, query :math:`i`
    at position :math:`p_i` to the keys at positions :math:`j \le p_i` (the rest masked
    out). The next position is a device tensor advanced in place by each step, so a step
    reads no host value and every decoding step has the same shapes: one recording of
    :func:`lucid.compile` replays them all. Writing past ``max_len`` is the caller's to
    prevent (``generate`` checks it before the first step)."""

    def __init__(self, max_len):
        if isinstance(max_len, bool) or not isinstance(max_len, int) or max_len < 1:
            raise ArgumentError(f"StaticKVCache: max_len must be a positive int, got {max_len!r}")
        self.max_len = max_len
        self.layers: list = []
        self._next = None  # the position of the next token, a 0-d int64 device tensor
        self._at = None  # the positions of the current step's tokens, (T,)

    def __len__(self):
        """The number of positions written (reads the device counter)."""
        return 0 if self._next is None else int(self._next.item())

    def rewind(self):
        """Start again at position 0, keeping the buffers (what they hold stays masked out
        until overwritten)."""
        if self._next is not None:
            self._next.zero_()

    def extent(self, T):
        """The positions the buffers hold, whatever is written: ``max_len``."""
        return self.max_len

    def positions(self, T, device):
        """The positions of ``T`` new tokens (from the device counter, then advanced)."""
        if self._next is None:
            self._next = zeros((), dtype=int64, device=device)
        self._at = self._next + arange(T, device=device)
        self._next.add_(T)
        return self._at

    def update(self, layer, k, v):
        """Write ``layer``'s new keys and values at the step's positions; returns the
        layer's buffers."""
        if layer == len(self.layers):
            shape = k.shape[:2] + (self.max_len,) + k.shape[3:]
            self.layers.append(tuple(zeros(shape, dtype=t.dtype, device=t.device) for t in (k, v)))
        bk, bv = self.layers[layer]
        bk.index_copy_(2, self._at, k)
        bv.index_copy_(2, self._at, v)
        return bk, bv

    def attention(self, q, k, v, dropout_p=0.0, enable_gqa=False):
        """The step's queries over the buffers, each to the positions up to its own."""
        keys = arange(self.max_len, device=q.device)
        mask = keys.unsqueeze(0) <= self._at.unsqueeze(1)  # (T, max_len)
        return F.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, dropout_p=dropout_p, enable_gqa=enable_gqa
        )


def positions(cache, T, device):
    """The positions of a decoder's ``T`` new tokens, ``(T,)`` int64: ``0 .. T - 1``
    without a cache, else the cache's own."""
    return arange(T, device=device) if cache is None else cache.positions(T, device)


def attend(cache, q, k, v, dropout_p=0.0, enable_gqa=False):
    """A decoder layer's attention: causal without a cache, else the cache's own."""
    if cache is None:
        return causal_attention(q, k, v, dropout_p, enable_gqa)
    return cache.attention(q, k, v, dropout_p, enable_gqa)


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
        cache_implementation=None,
        compile=False,
    ):
        """``input_ids (B, T)`` followed by ``max_new_tokens`` tokens, each from the logits
        of the last position with a key/value cache (one token a step after the prompt):
        the argmax (greedy), or with ``do_sample`` a draw from
        :math:`\\mathrm{softmax}(z / \\text{temperature})` restricted to the ``top_k``
        largest and then to the smallest set whose probability reaches ``top_p``. Runs
        in eval mode without gradients; the training flag is restored after.

        ``cache_implementation``: None or ``"dynamic"`` (a :class:`KVCache`, grown each
        step) or ``"static"`` (a :class:`StaticKVCache` of ``T + max_new_tokens`` positions). With
        ``compile=True`` (which implies the static cache) each decoding step after the
        prompt runs through one :func:`lucid.compile` recording (``mode="reduce-overhead"``:
        a CUDA graph on a GPU); the tokens are those of the eager steps."""
        if cache_implementation not in (None, "dynamic", "static"):
            raise ArgumentError(
                "generate: cache_implementation must be None, 'dynamic' or 'static', got "
                f"{cache_implementation!r}"
            )
        static = compile or cache_implementation == "static"
        if static and cache_implementation == "dynamic":
            raise ArgumentError("generate: compile=True needs the static cache")
        was_training = self.training
        self.eval()
        try:
            with no_grad():
                total = input_ids.shape[-1] + max_new_tokens
                if compile:
                    cache, step, decode = self._compiled_decoding(input_ids, total)
                else:
                    cache = StaticKVCache(total) if static else KVCache()
                    step = decode = _step(self, cache)
                out = [input_ids]
                logits = step(input_ids)
                for i in range(max_new_tokens):
                    nxt = _pick(logits, do_sample, temperature, top_k, top_p, generator)
                    out.append(nxt)
                    if i + 1 < max_new_tokens:
                        logits = decode(nxt)
                return cat(out, 1)
        finally:
            self.train(was_training)

    def __getstate__(self):
        """The module's state without the kept compiled decoding (it runs this very
        module: a copy or a pickle makes its own)."""
        state = self.__dict__.copy()
        state.pop("_static_decoding", None)
        return state

    def _compiled_decoding(self, input_ids, total):
        """``(cache, step, decode)`` for ``compile=True``: a :class:`StaticKVCache` of
        ``total`` positions, the eager step and its compiled form. Kept on the model for the
        next call with the same batch, length, device and dtype (the cache rewound, the
        recording replayed from its first step), as Hugging Face reuses its static cache."""
        param = next(iter(self.parameters()), None)
        key = (input_ids.shape[0], total, input_ids.device, None if param is None else param.dtype)
        kept = self.__dict__.get("_static_decoding")
        if kept is not None and kept[0] == key:
            kept[1].rewind()
            return kept[1:]
        cache = StaticKVCache(total)
        step = _step(self, cache)
        made = (cache, step, _compile(step, mode="reduce-overhead"))
        object.__setattr__(self, "_static_decoding", (key,) + made)
        return made


def _step(model, cache):
    """One step of generation: token ids ``(B, T)`` to the last position's logits."""

    def step(ids):
        return model(ids, cache)[:, -1]

    return step


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
