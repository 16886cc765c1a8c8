"""Generation's caches: the static cache (fixed-length buffers, masked positions) gives the
growing cache's logits and tokens, and its decoding steps replay one lucid.compile
recording (GPT-2 and the LLaMA decoder with grouped-query attention, small random
configurations)."""

import numpy as np
import pytest

import lucid
import lucid.models as models
from lucid.errors import ArgumentError
from lucid.models.generation import KVCache, StaticKVCache

GPT2 = dict(
    n_layer=2,
    n_embd=32,
    n_head=4,
    vocab_size=61,
    n_positions=24,
    resid_pdrop=0.0,
    embd_pdrop=0.0,
    attn_pdrop=0.0,
)
LLAMA = dict(
    vocab_size=61,
    hidden_size=32,
    intermediate_size=48,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=64,
)


def _model(name):
    lucid.manual_seed(0)
    if name == "gpt2":
        return models.create_model("gpt2", **GPT2).eval()
    return models.llama.LlamaForCausalLM(**LLAMA).eval()


def _ids(b=2, t=5, seed=3):
    return lucid.from_numpy(np.random.default_rng(seed).integers(0, 61, (b, t)))


@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_static_cache_in_chunks_gives_the_full_forward(name):
    model = _model(name)
    ids = _ids(t=7)
    with lucid.no_grad():
        full = model(ids).numpy()
        for cache in (KVCache(), StaticKVCache(10)):
            parts = [
                model(ids[:, :3], cache),
                model(ids[:, 3:5], cache),
                model(ids[:, 5:6], cache),
                model(ids[:, 6:], cache),
            ]
            got = np.concatenate([p.numpy() for p in parts], 1)
            np.testing.assert_allclose(got, full, rtol=1e-5, atol=1e-5)
            assert len(cache) == 7
    assert cache.layers[0][0].shape == (2, 4 if name == "gpt2" else 2, 10, 8)


@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_static_and_compiled_generation_give_the_growing_cache_tokens(name):
    model = _model(name)
    ids = _ids()
    want = model.generate(ids, 9).numpy()
    np.testing.assert_array_equal(
        model.generate(ids, 9, cache_implementation="static").numpy(), want
    )
    before = lucid.compiler.stats()
    got = model.generate(ids, 9, compile=True).numpy()
    after = lucid.compiler.stats()
    np.testing.assert_array_equal(got, want)
    # 8 decoding steps: the first is recorded, the other seven replay it
    assert after["captures"] - before["captures"] == 1
    assert after["replays"] - before["replays"] == 7
    assert after["graph_breaks"] == before["graph_breaks"]
    assert model.training is False


def test_compiled_sampling_draws_the_eager_tokens():
    model = _model("gpt2")
    ids = _ids(seed=4)
    runs = []
    for kw in (dict(), dict(compile=True)):
        g = lucid.Generator().manual_seed(7)
        runs.append(model.generate(ids, 6, do_sample=True, top_k=8, top_p=0.9, generator=g, **kw))
    np.testing.assert_array_equal(runs[0].numpy(), runs[1].numpy())


def test_generation_cache_arguments_are_checked():
    model = _model("gpt2")
    ids = _ids()
    with pytest.raises(ArgumentError, match="cache_implementation"):
        model.generate(ids, 2, cache_implementation="sliding")
    with pytest.raises(ArgumentError, match="static cache"):
        model.generate(ids, 2, cache_implementation="dynamic", compile=True)
    with pytest.raises(ArgumentError, match="max_len"):
        StaticKVCache(0)
    with pytest.raises(ArgumentError, match="n_positions"):  # 5 + 20 positions > 24
        model.generate(ids, 20, cache_implementation="static")


def test_llama_overrides_derive_head_dim_and_kv_heads_again():
    # as transformers' LlamaConfig: head_dim = hidden_size / heads, kv heads = heads, unless given
    cfg = models.llama.LlamaConfig().updated("Llama", dict(hidden_size=32, num_attention_heads=4))
    assert (cfg.head_dim, cfg.num_key_value_heads) == (8, 4)
    cfg = models.llama.LlamaConfig(head_dim=64, num_key_value_heads=8)
    cfg = cfg.updated("Llama", dict(hidden_size=256, num_attention_heads=16))
    assert (cfg.head_dim, cfg.num_key_value_heads) == (64, 8)


def test_compiled_decoding_is_kept_for_the_next_call_and_not_copied():
    import copy
    import io

    model = _model("gpt2")
    ids = _ids(seed=5)
    want = model.generate(ids, 5).numpy()
    model.generate(ids, 5, compile=True)
    before = lucid.compiler.stats()
    np.testing.assert_array_equal(model.generate(ids, 5, compile=True).numpy(), want)
    after = lucid.compiler.stats()
    assert after["captures"] == before["captures"]  # the same recording, from position 0
    assert after["replays"] - before["replays"] == 4
    twin = copy.deepcopy(model)
    assert "_static_decoding" not in twin.__dict__
    with lucid.no_grad():
        twin.lm_head.weight.mul_(-1.0)  # the copy's own weights, its own recording
    flipped = twin.generate(ids, 5).numpy()
    np.testing.assert_array_equal(twin.generate(ids, 5, compile=True).numpy(), flipped)
    np.testing.assert_array_equal(model.generate(ids, 5, compile=True).numpy(), want)
    lucid.save(model, io.BytesIO())  # picklable after a compiled generation
