"""The LLaMA-style decoder (lucid.models.llama) against Hugging Face transformers'
LlamaForCausalLM on the same random weights: logits with grouped-query attention, one
training step's gradients, the checkpoint directory, the cache and greedy generation; the
declared parameter count of SmolLM-135M's configuration."""

import numpy as np
import pytest

import lucid
import lucid.models as models
import lucid.nn.functional as F
from lucid.errors import ArgumentError
from lucid.models import llama as lllama

from .parity import close, hf_greedy, lucid_state

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

SMALL = dict(
    vocab_size=89,
    hidden_size=64,
    intermediate_size=96,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=64,
    rms_norm_eps=1e-6,
)


def _hf(seed=0, **kw):
    torch.manual_seed(seed)
    cfg = transformers.LlamaConfig(**{**SMALL, **kw}, bos_token_id=0, eos_token_id=0)
    return transformers.LlamaForCausalLM(cfg).eval()


def _lucid_from(hf):
    cfg = lllama.LlamaConfig.from_dict(hf.config.to_dict())
    model = lllama.LlamaForCausalLM(cfg)
    sd = lucid_state(hf)
    model.load_state_dict(sd)
    return model.eval()


def _ids(b=2, t=9, seed=1):
    return np.random.default_rng(seed).integers(0, SMALL["vocab_size"], (b, t))


@pytest.mark.parametrize("kv", [2, 4, 1], ids=["gqa", "mha", "mqa"])
def test_logits_match_transformers(kv):
    hf = _hf(num_key_value_heads=kv)
    ids = _ids()
    with torch.no_grad():
        want = hf(torch.from_numpy(ids)).logits.numpy()
    close(_lucid_from(hf)(lucid.from_numpy(ids)).detach().numpy(), want)


def test_one_training_step_gradients_match_transformers():
    hf = _hf(seed=2).train()
    model = _lucid_from(hf).train()
    ids, tgt = _ids(), _ids(seed=3)
    out = hf(torch.from_numpy(ids)).logits
    torch.nn.functional.cross_entropy(
        out.reshape(-1, out.shape[-1]), torch.from_numpy(tgt).reshape(-1)
    ).backward()
    logits = model(lucid.from_numpy(ids))
    F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), lucid.from_numpy(tgt).reshape(-1)
    ).backward()
    want = dict(hf.named_parameters())
    got = dict(model.named_parameters())
    assert set(got) == set(want)
    for name, p in got.items():
        close(p.grad.numpy(), want[name].grad.numpy(), rtol=2e-4)


def test_from_pretrained_and_tied_embeddings(tmp_path):
    hf = _hf(seed=4, tie_word_embeddings=True)
    hf.save_pretrained(tmp_path)
    model = lllama.from_pretrained(str(tmp_path)).eval()
    assert model.lm_head.weight is model.model.embed_tokens.weight
    ids = _ids(2, 5)
    with torch.no_grad():
        want = hf(torch.from_numpy(ids)).logits.numpy()
    close(model(lucid.from_numpy(ids)).detach().numpy(), want)


def test_cache_gives_the_full_forward_and_greedy_generation_matches_transformers():
    hf = _hf(seed=5)
    model = _lucid_from(hf)
    ids = _ids(2, 6, seed=6)
    full = model(lucid.from_numpy(ids)).detach().numpy()
    cache = models.generation.KVCache()
    parts = [model(lucid.from_numpy(ids[:, :2]), cache), model(lucid.from_numpy(ids[:, 2:]), cache)]
    close(np.concatenate([p.detach().numpy() for p in parts], 1), full)
    got = model.generate(lucid.from_numpy(ids), 7).numpy()
    want = hf_greedy(hf, ids, 7)
    np.testing.assert_array_equal(got, want)


def test_declared_parameter_count_and_config_errors():
    entry = models.model_entry("smollm-135m")
    built = models.create_model("smollm-135m")
    assert sum(p.numel() for p in built.parameters()) == entry.params
    c = built.config
    with torch.device("meta"):
        hf = transformers.LlamaForCausalLM(
            transformers.LlamaConfig(
                vocab_size=c.vocab_size,
                hidden_size=c.hidden_size,
                intermediate_size=c.intermediate_size,
                num_hidden_layers=c.num_hidden_layers,
                num_attention_heads=c.num_attention_heads,
                num_key_value_heads=c.num_key_value_heads,
                tie_word_embeddings=True,
            )
        )
    assert hf.num_parameters() == entry.params
    with pytest.raises(ArgumentError, match="not a multiple of num_key_value_heads"):
        models.create_model("smollm-135m", num_key_value_heads=4, num_hidden_layers=1)
