"""GPT-2 (lucid.models.gpt2) against Hugging Face transformers' GPT2LMHeadModel on the same
random weights: logits, one training step's gradients, checkpoints in both file formats,
the key/value cache and greedy generation; the declared parameter counts; sampling and
errors."""

import numpy as np
import pytest

import lucid
import lucid.models as models
import lucid.nn.functional as F
from lucid.errors import ArgumentError
from lucid.models import gpt2 as lgpt2

from .parity import close, hf_greedy, lucid_state

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

SMALL = dict(n_layer=2, n_embd=64, n_head=4, vocab_size=97, n_positions=40)


def _hf(dropout=0.0, seed=0):
    torch.manual_seed(seed)
    cfg = transformers.GPT2Config(
        **SMALL,
        resid_pdrop=dropout,
        embd_pdrop=dropout,
        attn_pdrop=dropout,
        bos_token_id=0,
        eos_token_id=0,
    )
    return transformers.GPT2LMHeadModel(cfg).eval()


def _lucid_from(hf):
    sd = lucid_state(hf)
    model = models.create_model("gpt2", **SMALL, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    model.load_state_dict(lgpt2.convert_hf_state_dict(sd))
    return model.eval()


def _ids(b=3, t=11, seed=1):
    return np.random.default_rng(seed).integers(0, SMALL["vocab_size"], (b, t))


def test_logits_match_transformers():
    hf = _hf()
    ids = _ids()
    with torch.no_grad():
        want = hf(torch.from_numpy(ids)).logits.numpy()
    got = _lucid_from(hf)(lucid.from_numpy(ids)).detach().numpy()
    assert got.shape == want.shape == (3, 11, SMALL["vocab_size"])
    close(got, want)


def test_one_training_step_gradients_match_transformers():
    hf = _hf()
    hf.train()
    model = _lucid_from(hf).train()
    ids, tgt = _ids(), _ids(seed=2)
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
    assert set(got) == set(want) - {"lm_head.weight"} or set(got) == set(want)
    for name, p in got.items():
        g = want[name].grad.numpy()
        if name.endswith(lgpt2._CONV1D):
            g = g.T
        close(p.grad.numpy(), g, rtol=2e-4)


@pytest.mark.parametrize("safetensors", [True, False])
def test_from_pretrained_reads_both_checkpoint_files(tmp_path, safetensors):
    hf = _hf(seed=3)
    if safetensors:
        hf.save_pretrained(tmp_path)
        assert (tmp_path / "model.safetensors").exists()
    else:
        hf.config.to_json_file(tmp_path / "config.json")
        torch.save(hf.transformer.state_dict(), tmp_path / "pytorch_model.bin")  # no prefix
    model = lgpt2.from_pretrained(str(tmp_path)).eval()
    ids = _ids(2, 7)
    with torch.no_grad():
        want = hf(torch.from_numpy(ids)).logits.numpy()
    close(model(lucid.from_numpy(ids)).detach().numpy(), want)


def test_cache_gives_the_full_forward_and_greedy_generation_matches_transformers():
    hf = _hf(seed=4)
    model = _lucid_from(hf)
    ids = _ids(2, 6, seed=5)
    full = model(lucid.from_numpy(ids)).detach().numpy()
    cache = lgpt2.KVCache()
    parts = [model(lucid.from_numpy(ids[:, :3]), cache)]
    parts.append(model(lucid.from_numpy(ids[:, 3:5]), cache))  # two new tokens at once
    parts.append(model(lucid.from_numpy(ids[:, 5:]), cache))
    assert len(cache) == 6
    close(np.concatenate([p.detach().numpy() for p in parts], 1), full)
    got = model.generate(lucid.from_numpy(ids), 8).numpy()
    want = hf_greedy(hf, ids, 8)
    np.testing.assert_array_equal(got, want)


def test_sampling_restrictions():
    model = _lucid_from(_hf(seed=6))
    ids = lucid.from_numpy(_ids(2, 4, seed=7))
    greedy = model.generate(ids, 5).numpy()
    for kw in (dict(top_k=1), dict(top_p=1e-9)):
        np.testing.assert_array_equal(model.generate(ids, 5, do_sample=True, **kw).numpy(), greedy)
    g1, g2 = (lucid.Generator().manual_seed(11) for _ in range(2))
    a = model.generate(ids, 6, do_sample=True, top_k=5, top_p=0.9, generator=g1).numpy()
    b = model.generate(ids, 6, do_sample=True, top_k=5, top_p=0.9, generator=g2).numpy()
    np.testing.assert_array_equal(a, b)
    assert a.shape == (2, 10) and (a[:, :4] == ids.numpy()).all()
    with pytest.raises(ArgumentError, match="temperature"):
        model.generate(ids, 2, do_sample=True, temperature=0.0)


@pytest.mark.parametrize("name", ["gpt2", "gpt2-medium"])
def test_declared_parameter_counts(name):
    entry = models.model_entry(name)
    built = models.create_model(name)
    assert sum(p.numel() for p in built.parameters()) == entry.params
    cfg = built.config
    with torch.device("meta"):
        hf = transformers.GPT2LMHeadModel(
            transformers.GPT2Config(n_embd=cfg.n_embd, n_layer=cfg.n_layer, n_head=cfg.n_head)
        )
    assert hf.num_parameters() == entry.params


def test_registry_and_errors():
    assert models.list_models(task="text-generation", pattern="gpt2*") == ["gpt2", "gpt2-medium"]
    assert models.list_models(task="image-classification", pattern="gpt2*") == []
    with pytest.raises(ArgumentError, match="did you mean gpt2"):
        models.create_model("gpt2-tiny")
    with pytest.raises(ArgumentError, match="no weights are registered"):
        models.create_model("gpt2", pretrained=True)
    with pytest.raises(ArgumentError, match="unknown configuration key"):
        models.create_model("gpt2", n_layers=2)
    model = models.create_model("gpt2", **SMALL)
    with pytest.raises(ArgumentError, match="exceed n_positions 40"):
        model(lucid.zeros(1, 41, dtype=lucid.int64))
