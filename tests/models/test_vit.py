"""ViT (lucid.models.vit) against Hugging Face transformers' ViTForImageClassification on
the same random weights: logits, one training step's gradients, the checkpoint directory;
the declared parameter count of ViT-B/16; errors."""

import numpy as np
import pytest

import lucid
import lucid.models as models
import lucid.nn.functional as F
from lucid.errors import ArgumentError
from lucid.models import vit as lvit

from .parity import close, lucid_state

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

SMALL = dict(
    image_size=32,
    patch_size=8,
    hidden_size=48,
    num_hidden_layers=2,
    num_attention_heads=4,
    intermediate_size=96,
    num_labels=5,
)


def _hf(seed=0):
    torch.manual_seed(seed)
    return transformers.ViTForImageClassification(transformers.ViTConfig(**SMALL)).eval()


def _lucid_from(hf):
    model = lvit.ViTForImageClassification(lvit.ViTConfig.from_dict(hf.config.to_dict()))
    sd = lucid_state(hf)
    model.load_state_dict(lvit.convert_hf_state_dict(sd))
    return model.eval()


def _images(seed=1):
    return np.random.default_rng(seed).standard_normal((3, 3, 32, 32)).astype(np.float32)


def test_logits_match_transformers():
    hf = _hf()
    x = _images()
    with torch.no_grad():
        want = hf(torch.from_numpy(x)).logits.numpy()
    close(_lucid_from(hf)(lucid.from_numpy(x)).detach().numpy(), want)


def test_one_training_step_gradients_match_transformers():
    hf = _hf(seed=2).train()
    model = _lucid_from(hf).train()
    x, y = _images(seed=3), np.array([0, 3, 4])
    torch.nn.functional.cross_entropy(
        hf(torch.from_numpy(x)).logits, torch.from_numpy(y)
    ).backward()
    F.cross_entropy(model(lucid.from_numpy(x)), lucid.from_numpy(y)).backward()
    want = lvit.convert_hf_state_dict(dict(hf.named_parameters()))
    scale = max(float(p.grad.abs().max()) for p in want.values())
    got = dict(model.named_parameters())
    assert set(got) == set(want)
    for name, p in got.items():  # (a key bias's gradient is zero but for rounding)
        close(p.grad.numpy(), want[name].grad.numpy(), rtol=2e-4, floor=1e-3 * scale)


def test_from_pretrained(tmp_path):
    hf = _hf(seed=4)
    hf.save_pretrained(tmp_path)
    model = lvit.from_pretrained(str(tmp_path)).eval()
    x = _images(seed=5)
    with torch.no_grad():
        want = hf(torch.from_numpy(x)).logits.numpy()
    close(model(lucid.from_numpy(x)).detach().numpy(), want)


def test_declared_parameter_count_and_errors():
    entry = models.model_entry("vit_b_16")
    assert sum(p.numel() for p in models.create_model("vit_b_16").parameters()) == entry.params
    with torch.device("meta"):
        hf = transformers.ViTForImageClassification(transformers.ViTConfig(num_labels=1000))
    assert hf.num_parameters() == entry.params
    model = models.create_model("vit_b_16", **{**SMALL, "num_hidden_layers": 1})
    with pytest.raises(ArgumentError, match="expected images of 32x32"):
        model(lucid.zeros(1, 3, 48, 48))
    with pytest.raises(ArgumentError, match="not a multiple of patch_size"):
        models.create_model("vit_b_16", image_size=30, patch_size=8)
