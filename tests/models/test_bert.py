"""BERT (lucid.models.bert) against Hugging Face transformers' BertModel on the same
random weights: hidden states and pooled output with padding and segments, one training
step's gradients, a head model's checkpoint; the declared parameter count of BERT-base."""

import numpy as np
import pytest

import lucid
import lucid.models as models
from lucid.errors import ArgumentError
from lucid.models import bert as lbert

from .parity import close, lucid_state

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

SMALL = dict(
    vocab_size=71,
    hidden_size=48,
    num_hidden_layers=2,
    num_attention_heads=4,
    intermediate_size=80,
    max_position_embeddings=32,
    hidden_dropout_prob=0.0,
    attention_probs_dropout_prob=0.0,
)


def _hf(seed=0):
    torch.manual_seed(seed)
    return transformers.BertModel(transformers.BertConfig(**SMALL)).eval()


def _lucid_from(hf):
    model = lbert.BertModel(lbert.BertConfig.from_dict(hf.config.to_dict()))
    sd = lucid_state(hf, skip=("position_ids",))
    model.load_state_dict(sd)
    return model.eval()


def _batch(seed=1):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, SMALL["vocab_size"], (3, 10))
    mask = np.ones((3, 10), np.int64)
    mask[1, 6:] = 0  # padding
    mask[2, 3:] = 0
    types = (np.arange(10) >= 5).astype(np.int64)[None].repeat(3, 0)
    return ids, mask, types


def test_outputs_match_transformers_with_padding_and_segments():
    hf = _hf()
    ids, mask, types = _batch()
    with torch.no_grad():
        out = hf(
            torch.from_numpy(ids),
            attention_mask=torch.from_numpy(mask),
            token_type_ids=torch.from_numpy(types),
        )
    h, pooled = _lucid_from(hf)(
        lucid.from_numpy(ids), lucid.from_numpy(mask), lucid.from_numpy(types)
    )
    keep = mask.astype(bool)  # (the states at padding positions are not compared)
    close(h.detach().numpy()[keep], out.last_hidden_state.numpy()[keep])
    close(pooled.detach().numpy(), out.pooler_output.numpy())


def test_one_training_step_gradients_match_transformers():
    hf = _hf(seed=2).train()
    model = _lucid_from(hf).train()
    ids, _, types = _batch(seed=3)
    w = np.random.default_rng(4).standard_normal((3, 10, SMALL["hidden_size"]))
    out = hf(torch.from_numpy(ids), token_type_ids=torch.from_numpy(types))
    (
        (out.last_hidden_state * torch.from_numpy(w).float()).sum() + out.pooler_output.sum()
    ).backward()
    h, pooled = model(lucid.from_numpy(ids), token_type_ids=lucid.from_numpy(types))
    ((h * lucid.from_numpy(w).float()).sum() + pooled.sum()).backward()
    want = dict(hf.named_parameters())
    got = dict(model.named_parameters())
    assert set(got) == set(want)
    scale = max(float(p.grad.abs().max()) for p in want.values())
    for name, p in got.items():
        close(p.grad.numpy(), want[name].grad.numpy(), rtol=2e-4, floor=1e-3 * scale)


def test_from_pretrained_takes_a_head_models_body(tmp_path):
    torch.manual_seed(5)
    head = transformers.BertForMaskedLM(transformers.BertConfig(**SMALL)).eval()
    head.save_pretrained(tmp_path)
    model = lbert.from_pretrained(str(tmp_path)).eval()
    assert model.pooler is None  # (the masked-LM model has no pooler)
    ids, mask, _ = _batch(seed=6)
    with torch.no_grad():
        want = head.bert(torch.from_numpy(ids), attention_mask=torch.from_numpy(mask))
    h, _ = model(lucid.from_numpy(ids), lucid.from_numpy(mask))
    keep = mask.astype(bool)
    close(h.detach().numpy()[keep], want.last_hidden_state.numpy()[keep])


def test_declared_parameter_count_and_errors():
    entry = models.model_entry("bert-base-uncased")
    assert sum(p.numel() for p in models.create_model("bert-base-uncased").parameters()) == (
        entry.params
    )
    with torch.device("meta"):
        hf = transformers.BertModel(transformers.BertConfig())
    assert hf.num_parameters() == entry.params
    with pytest.raises(ArgumentError, match="not a multiple of num_attention_heads"):
        models.create_model("bert-base-uncased", num_attention_heads=5, num_hidden_layers=1)
