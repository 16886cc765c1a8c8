"""lucid.hub (checkpoints fetched by URL into a cache, the name's SHA-256 prefix checked)
and lucid.models.weights (torchvision's checkpoints by name), offline: the "downloads"
are file:// URLs of checkpoints written here."""

import hashlib

import numpy as np
import pytest

import lucid
import lucid.models as models
from lucid import hub
from lucid.errors import ArgumentError
from lucid.models import weights as W


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LUCID_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(hub, "_DIR", [])
    return tmp_path / "home" / "hub" / "checkpoints"


def _checkpoint(tmp_path, sd, stem="tiny", good=True):
    raw = tmp_path / "raw.pth"
    lucid.save(sd, raw)
    digest = hashlib.sha256(raw.read_bytes()).hexdigest()
    prefix = digest[:8] if good else ("0" if digest[0] != "0" else "1") + digest[1:8]
    path = tmp_path / "src" / f"{stem}-{prefix}.pth"
    path.parent.mkdir(exist_ok=True)
    raw.rename(path)
    return path


def test_fetched_once_into_the_cache_and_read_from_it(tmp_path, cache):
    sd = {"w": lucid.arange(6.0).reshape(2, 3)}
    src = _checkpoint(tmp_path, sd)
    got = hub.load_state_dict_from_url(src.as_uri(), check_hash=True, progress=False)
    np.testing.assert_array_equal(got["w"].numpy(), sd["w"].numpy())
    assert (cache / src.name).exists() and hub.get_dir() == str(tmp_path / "home" / "hub")
    src.unlink()  # the second call reads the cache
    again = hub.load_state_dict_from_url(src.as_uri(), check_hash=True, progress=False)
    np.testing.assert_array_equal(again["w"].numpy(), sd["w"].numpy())


def test_a_file_whose_hash_differs_is_refused_and_not_kept(tmp_path, cache):
    src = _checkpoint(tmp_path, {"w": lucid.ones(3)}, good=False)
    with pytest.raises(hub.HashMismatchError, match="does not start with"):
        hub.load_state_dict_from_url(src.as_uri(), check_hash=True, progress=False)
    assert not (cache / src.name).exists()
    assert list(cache.iterdir()) == []  # (no temporary file left either)


def test_set_dir_and_model_dir(tmp_path, cache):
    src = _checkpoint(tmp_path, {"b": lucid.zeros(2)})
    hub.set_dir(tmp_path / "elsewhere")
    assert hub.get_dir() == str(tmp_path / "elsewhere")
    hub.load_state_dict_from_url(src.as_uri(), model_dir=tmp_path / "mine", progress=False)
    assert (tmp_path / "mine" / src.name).exists()


def test_create_model_loads_weights_through_the_registry(tmp_path, cache, monkeypatch):
    ref = models.create_model("resnet18", num_classes=3)
    src = _checkpoint(tmp_path, ref.state_dict(), stem="resnet18")
    fake = W.Weights(src.as_uri(), dict(W.ResNet18_Weights.IMAGENET1K_V1.meta))
    monkeypatch.setattr(W.ResNet18_Weights.IMAGENET1K_V1, "_value_", fake)
    model = models.create_model("resnet18", weights="IMAGENET1K_V1", num_classes=3, progress=False)
    for (k, a), b in zip(model.state_dict().items(), ref.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)
    with pytest.raises(ArgumentError, match="unknown weights 'IMAGENET9K'"):
        models.create_model("resnet18", weights="IMAGENET9K")
    with pytest.raises(ArgumentError, match="no weights are registered"):
        models.create_model("bert-base-uncased", pretrained=True)


@pytest.mark.parametrize("name", [n for n in models.list_models() if W.weights_for(n)])
def test_every_registered_checkpoint_is_well_formed(name):
    enum = W.weights_for(name)
    assert enum.DEFAULT in enum and enum.verify("DEFAULT") is enum.DEFAULT
    for member in enum:
        assert member.url.startswith("https://download.pytorch.org/models/")
        assert member.url.rsplit("/", 1)[-1].startswith(name + "-")
        assert len(member.value.sha256_prefix) >= 8
        assert member.meta["num_params"] == models.model_entry(name).params
        assert 60 < member.meta["acc@1"] < member.meta["acc@5"] < 100
        cats = member.meta["categories"]
        assert len(cats) == len(set(cats)) == 1000 and all(c and c.strip() == c for c in cats)


def test_categories_are_imagenets_in_logit_order():
    cats = W.ResNet50_Weights.DEFAULT.meta["categories"]
    # class 0, the first dog (151) and the last (999) as ImageNet-1k indexes them
    assert (cats[0], cats[1], cats[151], cats[999]) == (
        "tench",
        "goldfish",
        "Chihuahua",
        "toilet tissue",
    )
