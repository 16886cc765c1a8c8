"""ViT (lucid.models.vit) against Hugging Face transformers' ViTForImageClassification on
the same random weights: logits, one training step's gradients, the checkpoint directory;
the declared parameter count of ViT-B/16; errors."""

import hashlib

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


def _torchvision_vit(seed=0):
    try:
        import torchvision
    except Exception:  # noqa: BLE001 (no torchvision build for this torch: skip)
        pytest.skip("torchvision is not importable here")
    torch.manual_seed(seed)
    tv = torchvision.models.VisionTransformer(
        image_size=32,
        patch_size=8,
        num_layers=2,
        num_heads=4,
        hidden_dim=48,
        mlp_dim=96,
        num_classes=5,
    )
    for p in tv.parameters():  # (torchvision zero-initialises the head and some biases)
        torch.nn.init.normal_(p, std=0.1)
    return tv.eval()


def _tv_config():
    return lvit.ViTConfig(**SMALL, layer_norm_eps=1e-6)


def test_torchvision_weights_load_through_the_key_map():
    tv = _torchvision_vit()
    model = lvit.ViTForImageClassification(_tv_config())
    model.load_state_dict(lvit.convert_torchvision_state_dict(lucid_state(tv)))
    x = _images()
    with torch.no_grad():
        want = tv(torch.from_numpy(x)).numpy()
    close(model.eval()(lucid.tensor(x)).detach().numpy(), want)


def _as_torchvision(sd):
    """A Lucid ViT's state dict under torchvision's names (each layer's query, key and
    value packed into ``in_proj``), written here from torchvision's module layout."""
    back = {v: k for k, v in lvit._TV_NAMES.items()}
    tv = {}
    for k, v in sd.items():
        if not k.startswith("vit.encoder.layer."):
            stem, _, leaf = k.rpartition(".")
            tv[back[k] if k in back else f"{back[stem]}.{leaf}"] = v
            continue
        i, rest = k[len("vit.encoder.layer.") :].split(".", 1)
        at, stem, leaf = f"encoder.layers.encoder_layer_{i}.", *rest.rsplit(".", 1)
        if stem == "attention.attention.query":
            qkv = [
                sd[f"vit.encoder.layer.{i}.attention.attention.{n}.{leaf}"]
                for n in ("query", "key", "value")
            ]
            tv[f"{at}self_attention.in_proj_{leaf}"] = lucid.cat(qkv, 0)
        elif not stem.startswith("attention.attention."):
            tv[f"{at}{back[stem]}.{leaf}"] = v
    return tv


def test_torchvision_key_map_splits_the_packed_projection_and_refuses_strangers():
    """Without torchvision: a state dict under its names maps back onto the model's own."""
    sd = lvit.ViTForImageClassification(_tv_config()).state_dict()
    got = lvit.convert_torchvision_state_dict(_as_torchvision(sd))
    assert sorted(got) == sorted(sd)
    for k, v in sd.items():
        np.testing.assert_array_equal(got[k].numpy(), v.numpy(), err_msg=k)
    with pytest.raises(ArgumentError, match="unexpected key 'encoder.dropout.p'"):
        lvit.convert_torchvision_state_dict({"encoder.dropout.p": lucid.zeros(1)})


def test_create_model_with_torchvision_weights(tmp_path, monkeypatch):
    """``create_model("vit_b_16", weights=...)`` builds with the weights' configuration
    (torchvision's epsilon) and loads the file through the key map."""
    from lucid import hub
    from lucid.models import weights as W

    ref = lvit.ViTForImageClassification(_tv_config())
    raw = tmp_path / "raw.pth"
    lucid.save(_as_torchvision(ref.state_dict()), raw)
    path = raw.rename(tmp_path / f"vit_b_16-{hashlib.sha256(raw.read_bytes()).hexdigest()[:8]}.pth")
    member = W.ViT_B_16_Weights.IMAGENET1K_V1
    assert member.config == {"layer_norm_eps": 1e-6}
    fake = W.Weights(path.as_uri(), dict(member.meta), member.config, member.value.convert)
    monkeypatch.setattr(member, "_value_", fake)
    monkeypatch.setenv("LUCID_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(hub, "_DIR", [])
    model = models.create_model("vit_b_16", weights="DEFAULT", progress=False, **SMALL)
    assert model.config.layer_norm_eps == 1e-6
    x = lucid.tensor(_images())
    close(model.eval()(x).detach().numpy(), ref.eval()(x).detach().numpy(), rtol=1e-6)
