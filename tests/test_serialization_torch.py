"""lucid.save / lucid.load against the real PyTorch, both ways: torch.load reads what Lucid
wrote and Lucid reads what torch.save wrote (zip and legacy formats): every dtype, shared
storages, non-contiguous, 0-d and empty tensors, state dicts with _metadata, optimizer
states, whole torch.nn modules into Lucid's classes, weights_only on both sides."""

import collections
import inspect
import io
import pickle

import numpy as np
import pytest

import lucid
from lucid import serialization
from lucid.errors import SerializationError, WeightsOnlyError

torch = pytest.importorskip("torch")

PAIRS = [
    (lucid.bool, torch.bool),
    (lucid.uint8, torch.uint8),
    (lucid.int8, torch.int8),
    (lucid.int16, torch.int16),
    (lucid.int32, torch.int32),
    (lucid.int64, torch.int64),
    (lucid.float16, torch.float16),
    (lucid.bfloat16, torch.bfloat16),
    (lucid.float32, torch.float32),
    (lucid.float64, torch.float64),
    (lucid.complex64, torch.complex64),
    (lucid.complex128, torch.complex128),
]
SHAPES = [(), (0,), (0, 3), (3, 4)]


@pytest.fixture(autouse=True)
def _no_leftover_safe_globals():
    yield
    serialization.clear_safe_globals()


def as_np(t):
    """A torch or Lucid tensor's values as NumPy (bfloat16 as float32)."""
    if isinstance(t, torch.Tensor):
        t = t.detach()
        return (t.float() if t.dtype == torch.bfloat16 else t).numpy()
    a = t.detach().numpy()
    return a.astype(np.float32) if t.dtype is lucid.bfloat16 else a


def torch_sample(tdt, shape):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(shape, generator=g, dtype=torch.float64) * 50
    if tdt.is_complex:
        return torch.complex(x, torch.randn(shape, generator=g, dtype=torch.float64)).to(tdt)
    return (x > 0) if tdt == torch.bool else (x.abs() if tdt == torch.uint8 else x).to(tdt)


def via_file(save, obj, load, tmp_path, **kw):
    p = tmp_path / "x.pt"
    save(obj, p)
    return load(p, **kw)


# -- Lucid writes, torch reads ---------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("ldt, tdt", PAIRS, ids=lambda d: str(d))
def test_torch_loads_every_dtype_lucid_saved(ldt, tdt, shape, tmp_path):
    t = lucid.tensor(as_np(torch_sample(tdt, shape))).to(ldt)
    got = via_file(lucid.save, t, torch.load, tmp_path)  # weights_only=True there
    assert got.dtype == tdt and tuple(got.shape) == shape
    np.testing.assert_array_equal(as_np(got), as_np(t))


def test_torch_loads_lucid_views_sharing_one_storage(tmp_path):
    base = lucid.arange(24.0).reshape(4, 6)
    obj = {
        "base": base,
        "t": base.t(),
        "cols": base[:, 1::2],
        "row": base[2],
        "exp": base[0, :3].expand(2, 3),
        "scalar": base[1, 1],
    }
    got = via_file(lucid.save, obj, torch.load, tmp_path)
    ptr = got["base"].untyped_storage().data_ptr()
    for k, v in obj.items():
        assert got[k].untyped_storage().data_ptr() == ptr
        assert got[k].stride() == v.stride() and got[k].storage_offset() == v.storage_offset()
        np.testing.assert_array_equal(got[k].numpy(), v.numpy())
    got["base"][2, 0] = -1.0
    assert got["row"][0].item() == -1.0


def test_torch_loads_a_lucid_checkpoint(tmp_path):
    lucid.manual_seed(0)
    m = lucid.nn.Sequential(lucid.nn.Linear(3, 4), lucid.nn.BatchNorm1d(4))
    m(lucid.randn(5, 3)).sum().backward()
    opt = lucid.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    opt.step()
    ckpt = {
        "model": m.state_dict(),
        "opt": opt.state_dict(),
        "epoch": 3,
        "p": lucid.nn.Parameter(lucid.ones(2)),
        "dt": lucid.bfloat16,
        "dev": lucid.device("cpu"),
        "size": lucid.Size([1, 2]),
        "bytes": b"\x00\x01",
        "set": {1, 2},
        "c": 1 - 1j,
    }
    got = via_file(lucid.save, ckpt, torch.load, tmp_path)
    assert type(got["model"]) is collections.OrderedDict
    assert got["model"]._metadata == ckpt["model"]._metadata
    for k, v in ckpt["model"].items():
        np.testing.assert_array_equal(got["model"][k].numpy(), v.numpy())
    assert isinstance(got["p"], torch.nn.Parameter) and got["p"].requires_grad
    assert got["dt"] is torch.bfloat16 and got["dev"] == torch.device("cpu")
    assert got["size"] == torch.Size([1, 2]) and type(got["size"]) is torch.Size
    assert (got["epoch"], got["bytes"], got["set"], got["c"]) == (3, b"\x00\x01", {1, 2}, 1 - 1j)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    theirs.load_state_dict(got["model"])
    topt = torch.optim.SGD(theirs.parameters(), lr=0.1, momentum=0.9)
    topt.load_state_dict(got["opt"])
    np.testing.assert_array_equal(
        topt.state_dict()["state"][0]["momentum_buffer"].numpy(),
        opt.state_dict()["state"][0]["momentum_buffer"].numpy(),
    )


def test_torch_reads_a_lucid_file_object_and_requires_grad(tmp_path):
    buf = io.BytesIO()
    w = lucid.randn(2, 2, requires_grad=True)
    lucid.save({"w": w, "y": w * 2}, buf)
    buf.seek(0)
    got = torch.load(buf)
    assert got["w"].requires_grad and got["y"].requires_grad and got["y"].is_leaf


# -- torch writes, Lucid reads ---------------------------------------------------------


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("ldt, tdt", PAIRS, ids=lambda d: str(d))
def test_lucid_loads_every_dtype_torch_saved(ldt, tdt, shape, legacy, tmp_path):
    t = torch_sample(tdt, shape)
    p = tmp_path / "t.pt"
    torch.save(t, p, _use_new_zipfile_serialization=not legacy)
    got = lucid.load(p)
    assert got.dtype is ldt and tuple(got.shape) == shape
    np.testing.assert_array_equal(as_np(got), as_np(t))


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_lucid_loads_torch_views_sharing_one_storage(legacy, tmp_path):
    base = torch.arange(24.0).reshape(4, 6)
    obj = {
        "base": base,
        "t": base.t(),
        "cols": base[:, 1::2],
        "row": base[2],
        "exp": base[0, :3].expand(2, 3),
        "narrow": base.narrow(1, 2, 3),
    }
    p = tmp_path / "v.pt"
    torch.save(obj, p, _use_new_zipfile_serialization=not legacy)
    got = lucid.load(p)
    ptr = got["base"].untyped_storage().data_ptr()
    for k, v in obj.items():
        assert got[k].untyped_storage().data_ptr() == ptr, k
        assert got[k].stride() == v.stride() and got[k].storage_offset() == v.storage_offset()
        np.testing.assert_array_equal(got[k].numpy(), v.numpy())
    got["base"][2, 1] = -1.0
    assert got["row"][1].item() == -1.0 and got["t"][1, 2].item() == -1.0


def test_lucid_loads_a_torch_checkpoint_into_a_lucid_model(tmp_path):
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(
        torch.nn.Conv2d(1, 2, 3),
        torch.nn.BatchNorm2d(2),
        torch.nn.ReLU(),
        torch.nn.Flatten(),
        torch.nn.Linear(8, 3),
    )
    theirs(torch.randn(4, 1, 4, 4)).sum().backward()
    topt = torch.optim.Adam(theirs.parameters(), lr=1e-2)
    topt.step()
    p = tmp_path / "ckpt.pt"
    torch.save({"model": theirs.state_dict(), "opt": topt.state_dict(), "epoch": 2}, p)
    ckpt = lucid.load(p)
    sd = ckpt["model"]
    assert type(sd) is collections.OrderedDict and sd._metadata == theirs.state_dict()._metadata
    nn = lucid.nn
    ours = nn.Sequential(
        nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(8, 3)
    )
    ours.load_state_dict(sd)
    opt = lucid.optim.Adam(ours.parameters(), lr=1e-2)
    opt.load_state_dict(ckpt["opt"])
    assert ckpt["opt"]["state"][0]["step"].item() == 1.0 and ckpt["epoch"] == 2
    theirs.eval()
    ours.eval()
    x = np.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(np.float32)
    np.testing.assert_allclose(
        ours(lucid.tensor(x)).detach().numpy(),
        theirs(torch.tensor(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    assert ours.state_dict()._metadata == theirs.state_dict()._metadata


def test_lucid_reads_torch_non_contiguous_requires_grad_and_parameters(tmp_path):
    w = torch.randn(3, 4, requires_grad=True)
    obj = {
        "w": w,
        "y": w * 2,
        "p": torch.nn.Parameter(torch.ones(2)),
        "frozen": torch.nn.Parameter(torch.ones(2), requires_grad=False),
        "perm": torch.randn(2, 3, 4).permute(2, 0, 1),
        "dt": torch.float16,
        "dev": torch.device("cpu"),
        "size": torch.Size([3]),
    }
    got = via_file(torch.save, obj, lucid.load, tmp_path)
    assert got["w"].requires_grad and got["w"].is_leaf and got["y"].requires_grad
    assert isinstance(got["p"], lucid.nn.Parameter) and got["p"].requires_grad
    assert isinstance(got["frozen"], lucid.nn.Parameter) and not got["frozen"].requires_grad
    assert got["perm"].stride() == obj["perm"].stride() and not got["perm"].is_contiguous()
    np.testing.assert_array_equal(got["perm"].numpy(), obj["perm"].numpy())
    assert got["dt"] is lucid.float16 and got["dev"] == lucid.device("cpu")
    assert type(got["size"]) is lucid.Size


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_torch_cuda_files_load_on_cpu_with_map_location(legacy, tmp_path):
    # a file as torch writes one on a GPU machine: only the location string differs
    p = tmp_path / "c.pt"
    torch.save({"w": torch.arange(3.0)}, p, _use_new_zipfile_serialization=not legacy)
    raw = p.read_bytes()
    cpu = b"X\x03\x00\x00\x00cpu"
    assert cpu in raw
    p.write_bytes(raw.replace(cpu, b"X\x06\x00\x00\x00cuda:0") if legacy else _rezip(p, cpu))
    got = lucid.load(p, map_location="cpu")
    assert got["w"].device == lucid.device("cpu") and got["w"].tolist() == [0.0, 1.0, 2.0]
    got = lucid.load(p, map_location=lambda storage, loc: storage)
    assert got["w"].tolist() == [0.0, 1.0, 2.0]


def _rezip(p, cpu):
    import zipfile

    with zipfile.ZipFile(p) as zf:
        records = {n: zf.read(n) for n in zf.namelist()}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n, data in records.items():
            zf.writestr(
                n, data.replace(cpu, b"X\x06\x00\x00\x00cuda:0") if n.endswith("data.pkl") else data
            )
    return buf.getvalue()


def test_mmap_of_a_torch_file(tmp_path):
    obj = {"w": torch.randn(100, 3), "i": torch.arange(7)}
    p = tmp_path / "m.pt"
    torch.save(obj, p)
    got = lucid.load(p, mmap=True)
    for k in obj:
        np.testing.assert_array_equal(got[k].numpy(), obj[k].numpy())
    with pytest.raises(SerializationError, match="legacy format"):
        torch.save(obj, p, _use_new_zipfile_serialization=False)
        lucid.load(p, mmap=True)


def test_torch_dtypes_lucid_lacks_are_refused_by_name(tmp_path):
    p = tmp_path / "u16.pt"
    torch.save(torch.ones(2, dtype=torch.uint16), p)
    with pytest.raises(SerializationError, match="torch.uint16, which Lucid has no dtype"):
        lucid.load(p)


# -- whole modules ---------------------------------------------------------------------


def torch_model():
    nn = torch.nn
    return nn.Sequential(nn.Embedding(10, 4), nn.LSTM(4, 6, batch_first=True))


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(4)
        self.drop = torch.nn.Dropout(0.1)
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(self.drop(self.norm(x)))


def test_a_whole_torch_module_loads_into_lucid_classes(tmp_path):
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(
        torch.nn.Linear(5, 4), torch.nn.GELU(), torch.nn.GRU(4, 4, batch_first=True)
    ).eval()
    p = tmp_path / "model.pt"
    torch.save(theirs, p)
    with pytest.raises(
        WeightsOnlyError,
        match="GLOBAL torch.nn.modules.container.Sequential"
        ".*add_safe_globals\\(\\[Sequential\\]\\)",
    ):
        lucid.load(p)
    ours = lucid.load(p, weights_only=False)
    assert type(ours) is lucid.nn.Sequential and type(ours[0]) is lucid.nn.Linear
    assert type(ours[2]) is lucid.nn.GRU
    assert isinstance(ours[0].weight, lucid.nn.Parameter) and not ours.training
    x = np.random.default_rng(1).standard_normal((2, 3, 5)).astype(np.float32)
    np.testing.assert_allclose(
        ours(lucid.tensor(x))[0].detach().numpy(),
        theirs(torch.tensor(x))[0].detach().numpy(),
        rtol=1e-5,
        atol=1e-5,
    )


def test_a_whole_torch_transformer_layer_loads_and_computes_as_torch(tmp_path):
    # torch's MultiheadAttention pickles no num_kv_heads (Lucid's grouped-query switch)
    torch.manual_seed(0)
    theirs = torch.nn.TransformerEncoderLayer(
        16, 4, dim_feedforward=32, dropout=0.0, batch_first=True
    ).eval()
    p = tmp_path / "layer.pt"
    torch.save(theirs, p)
    ours = lucid.load(p, weights_only=False)
    assert type(ours.self_attn) is lucid.nn.MultiheadAttention
    assert ours.self_attn.num_kv_heads == 4
    x = np.random.default_rng(2).standard_normal((2, 5, 16)).astype(np.float32)
    np.testing.assert_allclose(
        ours(lucid.tensor(x)).detach().numpy(),
        theirs(torch.tensor(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-5,
    )


def test_torch_modules_under_safe_globals_as_the_word_language_model_example(tmp_path):
    torch.manual_seed(0)
    theirs = torch_model().eval()
    p = tmp_path / "lm.pt"
    torch.save(theirs, p)
    nn = lucid.nn
    with serialization.safe_globals([nn.Sequential, nn.Embedding, nn.LSTM]):
        ours = lucid.load(p)
    i = np.array([[1, 2, 3], [4, 5, 9]])
    want = theirs(torch.tensor(i))[0].detach().numpy()
    np.testing.assert_allclose(
        ours(lucid.tensor(i))[0].detach().numpy(), want, rtol=1e-5, atol=1e-6
    )
    # torch's own classes name what a file holds just as well
    with serialization.safe_globals([torch.nn.Sequential, torch.nn.Embedding, torch.nn.LSTM]):
        assert type(lucid.load(p)) is nn.Sequential


def test_a_torch_class_lucid_lacks_is_refused_by_name(tmp_path):
    p = tmp_path / "m.pt"
    torch.save(torch.nn.Sequential(torch.nn.Linear(2, 2), Head()), p)
    with pytest.raises(pickle.UnpicklingError):  # what torch raises, too
        lucid.load(p)
    # the user's own torch class: Lucid's full pickle imports it, and maps its torch parts
    got = lucid.load(p, weights_only=False)
    assert type(got[1]) is Head and type(got[1].fc) is lucid.nn.Linear
    assert not hasattr(lucid.nn, "CrossMapLRN2d")
    torch.save(torch.nn.CrossMapLRN2d(3), p)
    with pytest.raises(SerializationError, match="which Lucid has no module class"):
        lucid.load(p, weights_only=False)


def test_a_lucid_module_file_torch_reads_as_lucid_classes(tmp_path):
    m = lucid.nn.Linear(2, 3)
    p = tmp_path / "l.pt"
    lucid.save(m, p)
    with pytest.raises(pickle.UnpicklingError, match="lucid.nn.modules.linear.Linear"):
        torch.load(p)
    got = torch.load(p, weights_only=False)  # lucid is importable here
    assert type(got) is lucid.nn.Linear and isinstance(got.weight, torch.nn.Parameter)


def test_numpy_arrays_as_torch_saves_them(tmp_path):
    arr = np.arange(5.0)
    p = tmp_path / "a.pt"
    torch.save({"a": arr}, p)
    with pytest.raises(WeightsOnlyError):
        lucid.load(p)
    np.testing.assert_array_equal(lucid.load(p, weights_only=False)["a"], arr)
    lucid.save({"a": arr}, p)
    np.testing.assert_array_equal(torch.load(p, weights_only=False)["a"], arr)


# -- safetensors exports and the API ---------------------------------------------------


def cnn(nn):
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 8, 3, stride=1),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(8 * 2 * 2, 10),
    )


@pytest.mark.parametrize("fmt", ["safetensors", "pt"])
def test_pytorch_state_dict_exported_loads_by_name(fmt, tmp_path):
    from safetensors.torch import save_file

    torch.manual_seed(0)
    theirs = cnn(torch.nn)
    theirs.train()
    theirs(torch.randn(16, 1, 8, 8))
    theirs.eval()
    p = tmp_path / f"model.{fmt}"
    if fmt == "safetensors":
        save_file(theirs.state_dict(), str(p))
        sd = lucid.load_safetensors(p)
    else:
        torch.save(theirs.state_dict(), p)
        sd = lucid.load(p)
    ours = cnn(lucid.nn)
    ours.load_state_dict(sd)
    ours.eval()
    x = np.random.default_rng(0).standard_normal((5, 1, 8, 8)).astype(np.float32)
    with torch.no_grad():
        want = theirs(torch.tensor(x)).numpy()
    with lucid.no_grad():
        got = ours(lucid.tensor(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_load_signature_matches_torch():
    ours, theirs = inspect.signature(lucid.load), inspect.signature(torch.load)
    assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == [
        (p.name, p.kind, p.default) for p in theirs.parameters.values()
    ]
    ours, theirs = inspect.signature(lucid.save), inspect.signature(torch.save)
    assert [p.name for p in ours.parameters.values()] == [
        p.name for p in theirs.parameters.values()
    ]
    assert serialization.DEFAULT_PROTOCOL == torch.serialization.DEFAULT_PROTOCOL


def test_torch_functional_references_map_to_lucid_functions(tmp_path):
    p = tmp_path / "f.pt"
    torch.save({"activation": torch.nn.functional.gelu}, p)  # a C function of torch._C._nn
    with pytest.raises(WeightsOnlyError, match="GLOBAL torch._C._nn.gelu was not an allowed"):
        lucid.load(p)
    assert lucid.load(p, weights_only=False)["activation"] is lucid.nn.functional.gelu
    with serialization.safe_globals([lucid.nn.functional.gelu]):
        assert lucid.load(p)["activation"] is lucid.nn.functional.gelu


def test_get_unsafe_globals_in_checkpoint_agrees_with_torch(tmp_path):
    p = tmp_path / "m.pt"
    torch.save(
        {"m": torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU()), "a": np.ones(2)}, p
    )
    assert serialization.get_unsafe_globals_in_checkpoint(p) == sorted(
        torch.serialization.get_unsafe_globals_in_checkpoint(p)
    )
    torch.save({"w": torch.ones(2)}, p, _use_new_zipfile_serialization=False)
    assert serialization.get_unsafe_globals_in_checkpoint(p) == []


def test_a_torch_parameter_with_attributes_keeps_them(tmp_path):
    p = torch.nn.Parameter(torch.ones(2))
    p.tag = "embedding"
    got = via_file(torch.save, {"p": p}, lucid.load, tmp_path)["p"]
    assert isinstance(got, lucid.nn.Parameter) and got.tag == "embedding"
    p.numpy = "shadow"  # an attribute hiding one of Parameter's methods
    with pytest.raises(SerializationError, match="none shadowing Parameter's"):
        via_file(torch.save, {"p": p}, lucid.load, tmp_path)
