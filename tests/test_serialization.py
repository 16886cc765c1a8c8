"""lucid.save / lucid.load on PyTorch's zip format, Lucid on both sides: round trips of every
kind, shared storages, weights_only and the safe globals, map_location, mmap, file objects,
the atomic write, truncated, corrupt and hostile files. (PyTorch reading and writing the
same files: test_serialization_torch.py; safetensors files: test_serialization_safetensors.py.)
"""

import collections
import io
import os
import pickle
import struct
import zipfile

import numpy as np
import pytest

import lucid
from lucid import serialization
from lucid.errors import ArgumentTypeError, SerializationError, WeightsOnlyError

DTYPES = [
    lucid.bool,
    lucid.uint8,
    lucid.int8,
    lucid.int16,
    lucid.int32,
    lucid.int64,
    lucid.float16,
    lucid.bfloat16,
    lucid.float32,
    lucid.float64,
    lucid.complex64,
    lucid.complex128,
]


def roundtrip(obj, tmp_path, via="path", **kw):
    if via == "path":
        p = tmp_path / "obj.pt"
        lucid.save(obj, p)
        return lucid.load(p, **kw)
    buf = io.BytesIO()
    lucid.save(obj, buf)
    buf.seek(0)
    return lucid.load(buf, **kw)


def values(t):
    a = t.detach().numpy()
    return a.astype(np.float32) if t.dtype is lucid.bfloat16 else a


def assert_same_tensor(a, b):
    assert isinstance(b, lucid.Tensor)
    assert b.dtype is a.dtype and tuple(b.shape) == tuple(a.shape)
    np.testing.assert_array_equal(values(b), values(a))


def sample(dtype, shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape) * 50
    if dtype.is_complex:
        x = x + 1j * rng.standard_normal(shape)
    return lucid.tensor(
        x > 0 if dtype is lucid.bool else np.abs(x) if dtype is lucid.uint8 else x
    ).to(dtype)


def shares_buffer(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


@pytest.fixture(autouse=True)
def _no_leftover_safe_globals():
    yield
    serialization.clear_safe_globals()


# -- tensors ---------------------------------------------------------------------------


@pytest.mark.parametrize("via", ["path", "file"])
@pytest.mark.parametrize("shape", [(), (0, 3), (2, 3, 4)])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_tensor_roundtrip_every_dtype(dtype, shape, via, tmp_path):
    t = sample(dtype, shape)
    assert_same_tensor(t, roundtrip(t, tmp_path, via))


def test_views_of_one_base_save_one_storage_and_load_sharing_it(tmp_path):
    base = lucid.arange(24.0).reshape(4, 6)
    obj = {
        "base": base,
        "t": base.t(),
        "cols": base[:, ::2],
        "row": base[1],
        "exp": base[0, :3].expand(2, 3),
    }
    p = tmp_path / "views.pt"
    lucid.save(obj, p)
    with zipfile.ZipFile(p) as zf:
        assert [n for n in zf.namelist() if "/data/" in n] == ["views/data/0"]
        assert zf.getinfo("views/data/0").file_size == 24 * 4
    out = lucid.load(p)
    for k in obj:
        assert_same_tensor(obj[k], out[k])
        assert out[k].stride() == obj[k].stride()
        assert out[k].storage_offset() == obj[k].storage_offset()
        assert shares_buffer(out[k], out["base"])
    out["base"][1, 0] = -5.0  # one buffer: a write shows through the views
    assert out["row"][0].item() == -5.0 and out["t"][0, 1].item() == -5.0


def test_a_view_alone_saves_its_whole_storage_as_pytorch(tmp_path):
    base = lucid.arange(10.0)
    out = roundtrip(base[7:9], tmp_path)
    assert out.tolist() == [7.0, 8.0] and out.storage_offset() == 7
    assert out.untyped_storage().nbytes() == 40


def test_a_repeated_tensor_loads_as_one_object(tmp_path):
    w = lucid.randn(3, 4)
    out = roundtrip({"a": w, "b": [w, (w,)]}, tmp_path)
    assert out["a"] is out["b"][0] is out["b"][1][0]


def test_separate_tensors_stay_separate(tmp_path):
    a, b = lucid.ones(3), lucid.ones(3)
    out = roundtrip([a, b], tmp_path)
    assert not shares_buffer(out[0], out[1])


def test_dtype_views_of_one_storage_are_refused_as_pytorch_does(tmp_path):
    x = lucid.ones(4)
    with pytest.raises(SerializationError, match="same storage as different dtypes"):
        lucid.save([x, x.view(lucid.int32)], tmp_path / "x.pt")
    assert os.listdir(tmp_path) == []


def test_requires_grad_is_restored_and_loaded_tensors_are_leaves(tmp_path):
    w = lucid.randn(2, 2, requires_grad=True)
    out = roundtrip({"w": w, "y": (w * 2), "i": lucid.arange(3)}, tmp_path)
    assert out["w"].requires_grad and out["w"].is_leaf
    assert out["y"].requires_grad and out["y"].grad_fn is None
    assert not out["i"].requires_grad
    np.testing.assert_array_equal(out["y"].detach().numpy(), (w * 2).detach().numpy())


def test_parameters_load_as_parameters(tmp_path):
    p = lucid.nn.Parameter(lucid.randn(3))
    q = lucid.nn.Parameter(lucid.randn(2), requires_grad=False)
    out = roundtrip({"p": p, "q": q, "t": lucid.randn(3)}, tmp_path)
    assert isinstance(out["p"], lucid.nn.Parameter) and out["p"].requires_grad
    assert isinstance(out["q"], lucid.nn.Parameter) and not out["q"].requires_grad
    assert not isinstance(out["t"], lucid.nn.Parameter)
    assert_same_tensor(p.detach(), out["p"].detach())


def test_uninitialized_parameters_are_refused(tmp_path):
    with pytest.raises(SerializationError, match="uninitialized"):
        lucid.save(lucid.nn.LazyLinear(3).state_dict(keep_vars=True), tmp_path / "x.pt")


# -- structures ------------------------------------------------------------------------


def model():
    nn = lucid.nn
    return nn.Sequential(
        nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(8, 3)
    )


def test_state_dict_keeps_type_order_values_and_metadata(tmp_path):
    m = model()
    sd = m.state_dict()
    assert sd._metadata[""] == {"version": 1} and sd._metadata["1"] == {"version": 2}
    out = roundtrip(sd, tmp_path)
    assert type(out) is collections.OrderedDict and list(out) == list(sd)
    assert out._metadata == sd._metadata
    for k in sd:
        assert_same_tensor(sd[k], out[k])
    seen = []
    m2 = model()
    m2[1]._load_from_state_dict = lambda sd_, prefix, meta, *a: seen.append(meta)
    m2.load_state_dict(out, strict=False)
    assert seen == [{"version": 2}]


def test_optimizer_state_keeps_int_keys_tuples_and_number_types(tmp_path):
    m = model()
    opt = lucid.optim.Adam(m.parameters(), lr=1e-2, amsgrad=True)
    m(lucid.randn(2, 1, 4, 4)).sum().backward()
    opt.step()
    state = opt.state_dict()
    out = roundtrip(state, tmp_path, via="file")
    assert list(out["state"]) == list(state["state"])
    assert out["param_groups"] == state["param_groups"]
    g = out["param_groups"][0]
    assert type(g["weight_decay"]) is int and type(g["lr"]) is float
    assert type(g["betas"]) is tuple and g["amsgrad"] is True
    for i, s in state["state"].items():
        for k, v in s.items():
            assert_same_tensor(v, out["state"][i][k])
    opt2 = lucid.optim.Adam(model().parameters(), lr=1e-2, amsgrad=True)
    opt2.load_state_dict(out)


def test_scalars_strings_and_nested_containers(tmp_path):
    obj = [
        None,
        True,
        False,
        0,
        -5,
        2**70,
        1.5,
        -0.0,
        float("inf"),
        -float("inf"),
        "naïve ✓",
        "",
        b"\x00\xffbytes",
        bytearray(b"ba"),
        (),
        [],
        {},
        1 + 2j,
        {1, 2},
        frozenset({3}),
        ((1, [2, (3,)]), {"k": [{}]}),
        {(1, "a"): "tuple key", 2.5: "float key", None: "none key", 7: "int key"},
        lucid.float16,
        lucid.bfloat16,
        lucid.device("cpu"),
        lucid.Size([2, 0, 3]),
        slice(1, None, 2),
    ]
    out = roundtrip(obj, tmp_path)
    assert out == obj
    assert [type(v) for v in out] == [type(v) for v in obj]
    assert str(out[7]) == "-0.0"
    assert out[22] is lucid.float16 and out[23] is lucid.bfloat16
    assert out[24] == lucid.device("cpu") and type(out[25]) is lucid.Size
    nan = roundtrip(float("nan"), tmp_path)
    assert nan != nan


def test_namedtuples_and_arrays_need_weights_only_false(tmp_path):
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    p = tmp_path / "np.pt"
    lucid.save({"a": arr, "s": np.float64(2.5)}, p)
    with pytest.raises(WeightsOnlyError, match="Unsupported global: GLOBAL numpy"):
        lucid.load(p)
    out = lucid.load(p, weights_only=False)
    np.testing.assert_array_equal(out["a"], arr)
    assert out["s"] == 2.5


def mlp():
    nn = lucid.nn
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))


def test_training_resumes_exactly_from_a_checkpoint(tmp_path):
    def setup():
        lucid.manual_seed(0)
        model = mlp()
        opt = lucid.optim.Adam(model.parameters(), lr=1e-2, amsgrad=True)
        sched = lucid.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        return model, opt, sched

    def step(model, opt, sched, i):
        g = lucid.Generator().manual_seed(i)
        x, y = lucid.randn(8, 1, 8, 8, generator=g), lucid.randint(0, 10, (8,), generator=g)
        opt.zero_grad()
        lucid.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        sched.step()

    model, opt, sched = setup()
    for i in range(3):
        step(model, opt, sched, i)
    p = tmp_path / "ckpt.pt"
    lucid.save(
        {
            "model": model.state_dict(),
            "opt": opt.state_dict(),
            "sched": sched.state_dict(),
            "step": 3,
        },
        p,
    )
    for i in range(3, 6):
        step(model, opt, sched, i)

    ckpt = lucid.load(p)
    model2, opt2, sched2 = setup()
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["opt"])
    sched2.load_state_dict(ckpt["sched"])
    for i in range(ckpt["step"], 6):
        step(model2, opt2, sched2, i)
    for a, b in zip(model.parameters(), model2.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert opt.param_groups[0]["lr"] == opt2.param_groups[0]["lr"]


# -- whole modules ---------------------------------------------------------------------


class TinyNet(lucid.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = lucid.nn.Embedding(5, 4)
        self.drop = lucid.nn.Dropout(0.25)
        self.fc = lucid.nn.Linear(4, 2)

    def forward(self, i):
        return self.fc(self.drop(self.emb(i)))


def test_whole_module_loads_with_weights_only_false_or_its_classes_allowed(tmp_path):
    net = TinyNet().eval()
    p = tmp_path / "net.pt"
    lucid.save(net, p)
    with pytest.raises(WeightsOnlyError, match="GLOBAL tests.test_serialization.TinyNet"):
        lucid.load(p)
    classes = [TinyNet, lucid.nn.Embedding, lucid.nn.Dropout, lucid.nn.Linear]
    with pytest.raises(WeightsOnlyError, match="modules.linear.Linear was not an allowed"):
        with serialization.safe_globals(classes[:-1]):
            lucid.load(p)
    i = lucid.tensor([[0, 3, 4]])
    for loaded in (lucid.load(p, weights_only=False), _load_allowed(p, classes)):
        assert type(loaded) is TinyNet and type(loaded.fc) is lucid.nn.Linear
        assert not loaded.training and loaded.drop.p == 0.25
        np.testing.assert_array_equal(loaded(i).detach().numpy(), net(i).detach().numpy())
        assert isinstance(loaded.fc.weight, lucid.nn.Parameter)
    assert serialization.get_safe_globals() == []


def _load_allowed(p, classes):
    with serialization.safe_globals(classes):
        assert serialization.get_safe_globals() == classes
        return lucid.load(p)


def test_add_get_clear_safe_globals():
    serialization.add_safe_globals([TinyNet, (lucid.nn.Linear, "old.place.Linear")])
    assert serialization.get_safe_globals() == [TinyNet, (lucid.nn.Linear, "old.place.Linear")]
    serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []
    with pytest.raises(ArgumentTypeError, match="expected a list"):
        serialization.add_safe_globals(TinyNet)
    with pytest.raises(ArgumentTypeError, match="tuple entry"):
        serialization.add_safe_globals([(TinyNet, 3)])


def test_an_allowed_global_under_another_name(tmp_path):
    data = b"\x80\x02cold.place\nThing\nq\x00)\x81q\x01}q\x02X\x01\x00\x00\x00aq\x03K\x07sb."
    p = zip_with_pickle(tmp_path, data)
    with pytest.raises(WeightsOnlyError, match="GLOBAL old.place.Thing"):
        lucid.load(p)
    serialization.add_safe_globals([(Thing, "old.place.Thing")])
    out = lucid.load(p)
    assert type(out) is Thing and out.a == 7


class Thing:
    pass


def test_module_surface_matches_torch_serialization():
    for name in (
        "save",
        "load",
        "add_safe_globals",
        "safe_globals",
        "get_safe_globals",
        "clear_safe_globals",
        "get_unsafe_globals_in_checkpoint",
    ):
        assert callable(getattr(serialization, name))
    assert serialization.DEFAULT_PROTOCOL == 2
    assert lucid.save is serialization.save and lucid.load is serialization.load


# -- hostile files ---------------------------------------------------------------------


def zip_with_pickle(tmp_path, data, name="hostile.pt", storages=()):
    """A zip archive laid out as torch's with data.pkl = ``data``."""
    p = tmp_path / name
    with zipfile.ZipFile(p, "w") as zf:
        zf.writestr("archive/data.pkl", data)
        zf.writestr("archive/byteorder", "little")
        for key, raw in storages:
            zf.writestr(f"archive/data/{key}", raw)
        zf.writestr("archive/version", "3\n")
    return p


class Marker:
    """Calling it would leave a file behind: proof that a hostile file ran nothing."""


@pytest.mark.parametrize("make", ["global", "reduce", "build", "call_storage_type", "inst"])
def test_a_file_asking_to_run_code_is_refused_and_runs_nothing(tmp_path, make):
    marker = tmp_path / "ran"
    cmd = f"touch {marker}".encode()
    data = {
        "global": b"\x80\x02cos\nsystem\nq\x00(X" + struct.pack("<I", len(cmd)) + cmd + b"tR.",
        "reduce": b"\x80\x02cposix\nsystem\n(X" + struct.pack("<I", len(cmd)) + cmd + b"tR.",
        # BUILD on a dtype (a default global) would change Lucid's state
        "build": b"\x80\x02ctorch\nfloat32\n}X\x02\x00\x00\x00npK\x01sb.",
        # REDUCE of a storage type (a default global that is no function)
        "call_storage_type": b"\x80\x02ctorch\nFloatStorage\n)R.",
        "inst": b"(ios\nsystem\nX" + struct.pack("<I", len(cmd)) + cmd + b".",
    }[make]
    p = zip_with_pickle(tmp_path, data)
    with pytest.raises(WeightsOnlyError, match="Weights only load failed") as info:
        lucid.load(p)
    assert isinstance(info.value, pickle.UnpicklingError)
    if make == "global":
        assert "GLOBAL os.system was not an allowed global by default" in str(info.value)
        assert "lucid.serialization.add_safe_globals([system])" in str(info.value)
    assert not marker.exists()
    assert lucid.float32.name == "float32"


def test_weights_only_false_is_the_explicit_opt_in_to_run_the_pickle(tmp_path):
    marker = tmp_path / "ran"
    data = pickle.dumps(_Touch(str(marker)), protocol=2)
    p = zip_with_pickle(tmp_path, data)
    with pytest.raises(WeightsOnlyError):
        lucid.load(p)
    assert not marker.exists()
    lucid.load(p, weights_only=False)
    assert marker.exists()


class _Touch:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.mark.parametrize(
    "pid, match",
    [
        (b"X\x03\x00\x00\x00abcQ.", "persistent id 'abc'"),
        (
            b"(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x007X\x03\x00\x00\x00cpu"
            b"K\x02tQ.",
            "lacks the record archive/data/7",
        ),
        (
            b"(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpu"
            b"K\x09tQ.",
            "has 8 bytes, the storage needs 36",
        ),
    ],
)
def test_bad_storage_references_are_refused(tmp_path, pid, match):
    p = zip_with_pickle(tmp_path, b"\x80\x02" + pid, storages=[("0", b"\x00" * 8)])
    with pytest.raises(SerializationError, match=match):
        lucid.load(p)


def test_a_tensor_reaching_past_its_storage_is_refused(tmp_path):
    t = lucid.arange(4.0)
    p = tmp_path / "t.pt"
    lucid.save(t, p)
    with zipfile.ZipFile(p) as zf:
        records = {n: zf.read(n) for n in zf.namelist()}
    pkl = records["t/data.pkl"].replace(b"K\x04\x85", b"K\x09\x85")  # size (4,) -> (9,)
    assert pkl != records["t/data.pkl"]
    bad = zip_with_pickle(tmp_path, pkl, storages=[("0", records["t/data/0"])])
    with pytest.raises(SerializationError, match="reaches element 9 of storage '0'"):
        lucid.load(bad)


@pytest.mark.parametrize("cut", [0, 3, 30, 400, -1, -30])
def test_truncated_files_raise_serialization_error(tmp_path, cut):
    p = tmp_path / "ckpt.pt"
    lucid.save({"w": lucid.randn(64, 4), "n": 3}, p)
    data = p.read_bytes()
    p.write_bytes(data[:cut])
    with pytest.raises(SerializationError):
        lucid.load(p)
    with pytest.raises(SerializationError):
        lucid.load(io.BytesIO(data[:cut]))


def test_a_corrupted_storage_fails_its_crc(tmp_path):
    p = tmp_path / "ckpt.pt"
    lucid.save({"w": lucid.ones(256)}, p)
    with zipfile.ZipFile(p) as zf:
        info = zf.getinfo("ckpt/data/0")
    raw = bytearray(p.read_bytes())
    n, m = struct.unpack("<HH", raw[info.header_offset + 26 : info.header_offset + 30])
    raw[info.header_offset + 30 + n + m + 100] ^= 0xFF
    p.write_bytes(bytes(raw))
    with pytest.raises(SerializationError, match="record ckpt/data/0 .* unreadable.*CRC"):
        lucid.load(p)


def test_garbage_and_a_corrupt_pickle_are_refused(tmp_path):
    p = tmp_path / "junk"
    p.write_bytes(b"\x00not a checkpoint" * 10)
    with pytest.raises(SerializationError, match="not a file that lucid.save"):
        lucid.load(p)
    bad = zip_with_pickle(tmp_path, b"\x80\x02}q\x00(X\x01\x00")
    with pytest.raises(SerializationError, match="corrupt pickle"):
        lucid.load(bad)
    with pytest.raises(SerializationError, match="corrupt pickle"):
        lucid.load(bad, weights_only=False)


# -- map_location, mmap, files ---------------------------------------------------------


def saved_on(tmp_path, location):
    """A file whose one tensor says it was saved on ``location``."""
    p = tmp_path / "t.pt"
    lucid.save(lucid.arange(3.0), p)
    with zipfile.ZipFile(p) as zf:
        records = {n: zf.read(n) for n in zf.namelist()}
    pkl = records["t/data.pkl"].replace(
        b"X\x03\x00\x00\x00cpu", b"X" + struct.pack("<I", len(location)) + location.encode()
    )
    return zip_with_pickle(tmp_path, pkl, name="cuda.pt", storages=[("0", records["t/data/0"])])


def test_a_tensor_saved_on_cuda_loads_with_map_location_cpu(tmp_path):
    p = saved_on(tmp_path, "cuda:0")
    if not lucid.cuda.is_available():
        with pytest.raises(lucid.errors.DeviceError, match="saved on cuda:0 .*map_location"):
            lucid.load(p)
    for loc in (
        "cpu",
        lucid.device("cpu"),
        {"cuda:0": "cpu"},
        lambda s, loc: s,
        lambda s, loc: None if loc == "cpu" else s.cpu(),
    ):
        out = lucid.load(p, map_location=loc)
        assert out.device == lucid.device("cpu") and out.tolist() == [0.0, 1.0, 2.0]


def test_a_location_lucid_has_no_device_for_names_map_location(tmp_path):
    with pytest.raises(lucid.errors.DeviceError, match="'mps' is not a Lucid device.*map_location"):
        lucid.load(saved_on(tmp_path, "mps"))
    assert lucid.load(saved_on(tmp_path, "mps"), map_location="cpu").tolist() == [0, 1, 2]


def test_map_location_callable_sees_each_storage_once(tmp_path):
    base = lucid.arange(6.0)
    p = tmp_path / "a.pt"
    lucid.save({"a": base, "b": base[2:], "c": lucid.ones(2, dtype=lucid.int64)}, p)
    seen = []

    def fn(storage, loc):
        seen.append((storage.dtype, tuple(storage.shape), loc))
        return storage * 10

    out = lucid.load(p, map_location=fn)
    assert sorted(seen, key=str) == sorted(
        [(lucid.float32, (6,), "cpu"), (lucid.int64, (2,), "cpu")], key=str
    )
    assert out["b"].tolist() == [20.0, 30.0, 40.0, 50.0] and out["c"].tolist() == [10, 10]
    assert shares_buffer(out["a"], out["b"])
    with pytest.raises(ArgumentTypeError, match="map_location returned a int"):
        lucid.load(p, map_location=lambda s, loc: 3)
    with pytest.raises(SerializationError, match="map_location turned storage"):
        lucid.load(p, map_location=lambda s, loc: s[:1])
    with pytest.raises(ArgumentTypeError, match="map_location"):
        lucid.load(p, map_location=3)


def test_storages_are_64_byte_aligned_and_mmap_maps_them(tmp_path):
    p = tmp_path / "big.pt"
    obj = {"w": lucid.randn(33, 7), "b": lucid.arange(5, dtype=lucid.int16), "x": lucid.ones(1)}
    lucid.save(obj, p)
    raw = p.read_bytes()
    with zipfile.ZipFile(p) as zf:
        for info in zf.infolist():
            assert info.compress_type == zipfile.ZIP_STORED
            n, m = struct.unpack("<HH", raw[info.header_offset + 26 : info.header_offset + 30])
            assert (info.header_offset + 30 + n + m) % 64 == 0, info.filename
    out = lucid.load(p, mmap=True)
    for k in obj:
        assert_same_tensor(obj[k], out[k])
    out["w"][0, 0] = 123.0  # copy on write: the file is not changed
    assert p.read_bytes() == raw
    with open(p, "rb") as fh:
        assert_same_tensor(obj["w"], lucid.load(fh, mmap=True)["w"])
    with pytest.raises(SerializationError, match="mmap=True needs a file on disk"):
        lucid.load(io.BytesIO(raw), mmap=True)


def test_atomic_write_failure_mid_write_leaves_the_old_file(tmp_path, monkeypatch):
    p = tmp_path / "ckpt.pt"
    lucid.save({"v": lucid.tensor([1.0, 2.0])}, p)
    old = p.read_bytes()
    from lucid.serialization import _container

    def boom(*args):
        raise OSError("disk full")

    monkeypatch.setattr(_container.hs, "storage_bytes", boom)
    with pytest.raises(OSError, match="disk full"):
        lucid.save({"v": lucid.tensor([3.0])}, p)
    assert p.read_bytes() == old
    assert os.listdir(tmp_path) == ["ckpt.pt"]
    assert lucid.load(p)["v"].tolist() == [1.0, 2.0]


def test_an_unpicklable_object_writes_nothing(tmp_path):
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        lucid.save({"f": lambda: 1}, tmp_path / "x.pt")
    assert os.listdir(tmp_path) == []


def test_save_replaces_the_file_and_keeps_its_mode(tmp_path):
    p = tmp_path / "ckpt.pt"
    lucid.save(1, p)
    os.chmod(p, 0o640)
    lucid.save({"a": 2}, str(p))
    assert lucid.load(str(p)) == {"a": 2}
    assert os.stat(p).st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == ["ckpt.pt"]


def test_a_non_seekable_stream_loads():
    buf = io.BytesIO()
    lucid.save({"w": lucid.arange(3)}, buf)

    class Stream(io.RawIOBase):
        def __init__(self, data):
            self._data = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, b):
            return self._data.readinto(b)

    assert lucid.load(io.BufferedReader(Stream(buf.getvalue())))["w"].tolist() == [0, 1, 2]


def test_bad_arguments(tmp_path):
    with pytest.raises(ArgumentTypeError, match="f must be a path"):
        lucid.save(1, 123)
    with pytest.raises(ArgumentTypeError, match="f must be a path"):
        lucid.load(123)
    p = tmp_path / "a.pt"
    lucid.save(1, p)
    with (
        open(p, "r", encoding="latin-1") as fh,
        pytest.raises(ArgumentTypeError, match="binary mode"),
    ):
        lucid.load(fh)
    with pytest.raises(ArgumentTypeError, match="binary mode"):
        lucid.save(1, io.StringIO())
    with pytest.raises(ArgumentTypeError, match="explicit pickle_module"):
        lucid.load(p, pickle_module=pickle, weights_only=True)
    assert lucid.load(p, pickle_module=pickle) == 1  # weights_only then False
    with pytest.raises(ArgumentTypeError, match="unexpected keyword"):
        lucid.load(p, bogus=1)
    with pytest.raises(ArgumentTypeError, match="pickle_protocol"):
        lucid.save(1, p, pickle_protocol=1)
    with pytest.raises(ArgumentTypeError, match="only PyTorch's zip format"):
        lucid.save(1, p, _use_new_zipfile_serialization=False)
    with pytest.raises(FileNotFoundError):
        lucid.load(tmp_path / "missing.pt")


def test_higher_pickle_protocols_round_trip(tmp_path):
    for proto in range(2, pickle.HIGHEST_PROTOCOL + 1):
        p = tmp_path / f"p{proto}.pt"
        lucid.save({"w": lucid.arange(4), "s": {1}, "b": b"x"}, p, pickle_protocol=proto)
        out = lucid.load(p)
        assert out["w"].tolist() == [0, 1, 2, 3] and out["s"] == {1} and out["b"] == b"x"


# -- sharded checkpoints ---------------------------------------------------------------


def test_save_sharded_splits_by_size_and_loads_back(tmp_path):
    m = lucid.nn.Sequential(
        lucid.nn.Linear(16, 16), lucid.nn.Linear(16, 16), lucid.nn.Linear(16, 4)
    )
    sd = m.state_dict()
    sd["tied"] = sd["0.weight"]
    index = lucid.save_sharded(sd, tmp_path / "ck", max_shard_size=1200)
    import json

    meta = json.loads(open(index).read())
    shards = sorted(set(meta["weight_map"].values()))
    assert len(shards) > 1 and shards[0] == f"model-00001-of-{len(shards):05d}.pt"
    assert meta["weight_map"]["tied"] == meta["weight_map"]["0.weight"]
    assert meta["metadata"]["total_size"] == sum(
        v.untyped_storage().nbytes() for k, v in sd.items() if k != "tied"
    )
    for s in shards:
        assert os.path.getsize(tmp_path / "ck" / s) < 1200 + 4096
    out = lucid.load_sharded(tmp_path / "ck")
    assert list(out) == list(sd) and out._metadata == sd._metadata
    for k in sd:
        assert_same_tensor(sd[k], out[k])
    assert shares_buffer(out["tied"], out["0.weight"])
    m2 = lucid.nn.Sequential(
        lucid.nn.Linear(16, 16), lucid.nn.Linear(16, 16), lucid.nn.Linear(16, 4)
    )
    del out["tied"]
    m2.load_state_dict(out)

    # a smaller save into the same folder removes the shards it no longer names
    lucid.save_sharded({"a": lucid.ones(2)}, tmp_path / "ck")
    assert sorted(os.listdir(tmp_path / "ck")) == ["model-00001-of-00001.pt", "model.pt.index.json"]


def test_save_sharded_safetensors_and_errors(tmp_path):
    sd = collections.OrderedDict(
        [
            ("a", lucid.randn(40)),
            ("b", lucid.arange(30)),
            ("c", lucid.ones(3, dtype=lucid.bfloat16)),
        ]
    )
    index = lucid.save_sharded(sd, tmp_path, max_shard_size="0.2kB", filename="model.safetensors")
    assert os.path.basename(index) == "model.safetensors.index.json"
    from safetensors.numpy import load_file

    assert set(load_file(str(tmp_path / "model-00001-of-00003.safetensors"))) == {"a"}
    out = lucid.load_sharded(index)
    for k in sd:
        assert_same_tensor(sd[k], out[k])
    with pytest.raises(ArgumentTypeError, match="tensors only"):
        lucid.save_sharded({"n": 3}, tmp_path, filename="x.safetensors")
    with pytest.raises(ArgumentTypeError, match="max_shard_size"):
        lucid.save_sharded(sd, tmp_path, max_shard_size="lots")
    with pytest.raises(ArgumentTypeError, match="plain file name"):
        lucid.save_sharded(sd, tmp_path, filename="../model.pt")
    (tmp_path / "evil.index.json").write_text('{"weight_map": {"a": "../../etc/passwd"}}')
    with pytest.raises(SerializationError, match="shard file names in its folder"):
        lucid.load_sharded(tmp_path / "evil.index.json")


@pytest.mark.parametrize("proto", [2, pickle.HIGHEST_PROTOCOL])
def test_get_unsafe_globals_in_checkpoint_names_what_weights_only_refuses(tmp_path, proto):
    p = tmp_path / "m.pt"
    lucid.save(
        {"net": TinyNet(), "w": lucid.ones(2), "sd": TinyNet().state_dict()},
        p,
        pickle_protocol=proto,
    )
    found = serialization.get_unsafe_globals_in_checkpoint(p)
    assert found == sorted(
        f"{c.__module__}.{c.__qualname__}"
        for c in (TinyNet, lucid.nn.Embedding, lucid.nn.Dropout, lucid.nn.Linear)
    )
    assert "tests.test_serialization.TinyNet" in found
    with serialization.safe_globals([TinyNet, lucid.nn.Embedding]):
        left = serialization.get_unsafe_globals_in_checkpoint(p)
        assert len(left) == 2 and all("Embedding" not in g and "TinyNet" not in g for g in left)
    with serialization.safe_globals(
        [TinyNet, lucid.nn.Embedding, lucid.nn.Dropout, lucid.nn.Linear]
    ):
        assert serialization.get_unsafe_globals_in_checkpoint(p) == []
        assert type(lucid.load(p)["net"]) is TinyNet
    lucid.save({"w": lucid.ones(2)}, p)
    assert serialization.get_unsafe_globals_in_checkpoint(p) == []


def test_build_can_not_shadow_a_state_dicts_methods(tmp_path):
    # OrderedDict() with BUILD {"keys": 1}: would replace sd.keys for whoever reads it
    data = b"\x80\x02ccollections\nOrderedDict\n)R}X\x04\x00\x00\x00keysK\x01sb."
    with pytest.raises(WeightsOnlyError, match="BUILD of an OrderedDict"):
        lucid.load(zip_with_pickle(tmp_path, data))
    ok = b"\x80\x02ccollections\nOrderedDict\n)R}X\t\x00\x00\x00_metadataK\x01sb."
    assert lucid.load(zip_with_pickle(tmp_path, ok, name="ok.pt"))._metadata == 1
