"""lucid.save / lucid.load and save_safetensors / load_safetensors: round trips of every kind,
corrupt and hostile files, the atomic write, files exported by PyTorch."""

import collections
import io
import json
import math
import os

import numpy as np
import pytest
import safetensors.numpy
import torch
from safetensors.torch import save_file as torch_save_file

import lucid
from lucid.errors import ArgumentTypeError, SerializationError

DTYPES = [lucid.bool, lucid.uint8, lucid.int8, lucid.int16, lucid.int32, lucid.int64,
          lucid.float16, lucid.bfloat16, lucid.float32, lucid.float64]


def roundtrip(obj, tmp_path, via="path", **kw):
    if via == "path":
        p = tmp_path / "obj.lucid"
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
    return lucid.tensor(x > 0 if dtype is lucid.bool else
                        np.abs(x) if dtype is lucid.uint8 else x).to(dtype)


# -- tensors ---------------------------------------------------------------------------

@pytest.mark.parametrize("via", ["path", "file"])
@pytest.mark.parametrize("shape", [(), (0, 3), (2, 3, 4)])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_tensor_roundtrip_every_dtype(dtype, shape, via, tmp_path):
    t = sample(dtype, shape)
    assert_same_tensor(t, roundtrip(t, tmp_path, via))


def test_bfloat16_is_stored_as_bf16(tmp_path):
    p = tmp_path / "b.lucid"
    lucid.save({"w": lucid.tensor([1.5, -2.25, 3.0], dtype=lucid.bfloat16)}, p)
    t = torch.tensor([0.0])
    from safetensors import safe_open
    with safe_open(str(p), framework="pt") as f:
        (key,) = f.keys()
        t = f.get_tensor(key)
    assert t.dtype == torch.bfloat16 and t.tolist() == [1.5, -2.25, 3.0]


def test_views_and_non_contiguous_are_saved_as_their_values(tmp_path):
    base = lucid.arange(24.0).reshape(4, 6)
    obj = {"t": base.t(), "cols": base[:, ::2], "row": base[1], "exp": lucid.ones(3).expand(2, 3)}
    out = roundtrip(obj, tmp_path)
    for k in obj:
        assert_same_tensor(obj[k], out[k])
        assert out[k].is_contiguous()


def test_a_repeated_tensor_loads_as_one_object_and_views_keep_values(tmp_path):
    w = lucid.randn(3, 4)
    obj = {"a": w, "b": [w, w[0]], "c": w.t()}
    out = roundtrip(obj, tmp_path)
    assert out["a"] is out["b"][0]
    assert_same_tensor(w[0], out["b"][1])
    assert_same_tensor(w.t(), out["c"])


def test_requires_grad_is_restored(tmp_path):
    w = lucid.randn(2, 2, requires_grad=True)
    out = roundtrip({"w": w, "y": (w * 2), "i": lucid.arange(3)}, tmp_path)
    assert out["w"].requires_grad and out["w"].is_leaf
    assert out["y"].requires_grad and out["y"].grad_fn is None
    assert not out["i"].requires_grad
    np.testing.assert_array_equal(out["y"].detach().numpy(), (w * 2).detach().numpy())


def test_parameters_load_as_parameters(tmp_path):
    Parameter = getattr(lucid.nn, "Parameter", None)
    if Parameter is None:
        pytest.skip("lucid.nn.Parameter is not defined yet")
    p = Parameter(lucid.randn(3))
    out = roundtrip({"p": p, "t": lucid.randn(3)}, tmp_path)
    assert isinstance(out["p"], Parameter) and out["p"].requires_grad
    assert not isinstance(out["t"], Parameter)
    assert_same_tensor(p.detach(), out["p"].detach())


# -- structures ------------------------------------------------------------------------

def test_state_dict_keeps_type_order_and_values(tmp_path):
    sd = collections.OrderedDict([("fc2.weight", lucid.randn(2, 3)), ("fc1.bias", lucid.randn(3)),
                                  ("bn.num_batches_tracked", lucid.tensor(7))])
    out = roundtrip(sd, tmp_path)
    assert type(out) is collections.OrderedDict and list(out) == list(sd)
    for k in sd:
        assert_same_tensor(sd[k], out[k])


def test_optimizer_like_state_keeps_int_keys_tuples_and_number_types(tmp_path):
    state = {"state": {0: {"step": lucid.tensor(3.0), "exp_avg": lucid.randn(2, 2),
                           "exp_avg_sq": lucid.rand(2, 2)},
                       1: {"step": 3, "momentum_buffer": None}},
             "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8,
                               "weight_decay": 0, "amsgrad": False, "foreach": None,
                               "params": [0, 1], "name": "all"}]}
    out = roundtrip(state, tmp_path, via="file")
    assert list(out["state"]) == [0, 1]
    g = out["param_groups"][0]
    assert g == state["param_groups"][0]
    assert type(g["weight_decay"]) is int and type(g["lr"]) is float
    assert type(g["betas"]) is tuple and g["amsgrad"] is False and g["foreach"] is None
    assert out["state"][1] == {"step": 3, "momentum_buffer": None}
    for k in ("step", "exp_avg", "exp_avg_sq"):
        assert_same_tensor(state["state"][0][k], out["state"][0][k])


def test_scalars_strings_and_nested_containers(tmp_path):
    obj = [None, True, False, 0, -5, 2 ** 70, 1.5, -0.0, float("inf"), -float("inf"),
           "naïve ✓", "", b"\x00\xffbytes", (), [], {}, ((1, [2, (3,)]), {"k": [{}]}),
           {(1, "a"): "tuple key", 2.5: "float key", None: "none key", True: "bool key"},
           lucid.float16, lucid.device("cpu"), lucid.Size([2, 0, 3]), np.int64(4),
           np.float32(0.25)]
    out = roundtrip(obj, tmp_path)
    assert out[:18] == obj[:18]
    assert [type(v) for v in out[:18]] == [type(v) for v in obj[:18]]
    assert math.copysign(1.0, out[7]) == -1.0
    assert out[18] is lucid.float16 and out[19] == lucid.device("cpu")
    assert type(out[20]) is lucid.Size and out[20] == (2, 0, 3)
    assert out[21] == 4 and type(out[21]) is int
    assert out[22] == 0.25 and type(out[22]) is float
    assert math.isnan(roundtrip(float("nan"), tmp_path))


def test_namedtuples_load_as_tuples(tmp_path):
    Point = collections.namedtuple("Point", "x y")
    assert roundtrip(Point(1, 2), tmp_path) == (1, 2)


def test_unsupported_objects_are_refused_and_nothing_is_written(tmp_path):
    p = tmp_path / "x.lucid"
    with pytest.raises(ArgumentTypeError, match="save: can't save an object of type set"):
        lucid.save({"s": {1, 2}}, p)
    with pytest.raises(TypeError, match="object"):
        lucid.save([object()], p)
    assert os.listdir(tmp_path) == []


# -- the files on disk -----------------------------------------------------------------

def test_atomic_write_failure_mid_write_leaves_the_old_file(tmp_path, monkeypatch):
    p = tmp_path / "ckpt.lucid"
    lucid.save({"v": lucid.tensor([1.0, 2.0])}, p)
    old = p.read_bytes()

    def boom(arrays, filename, metadata=None):
        with open(filename, "wb") as fh:
            fh.write(b"\x10\x00\x00\x00partial")
        raise OSError("disk full")

    monkeypatch.setattr(safetensors.numpy, "save_file", boom)
    with pytest.raises(OSError, match="disk full"):
        lucid.save({"v": lucid.tensor([3.0])}, p)
    assert p.read_bytes() == old
    assert os.listdir(tmp_path) == ["ckpt.lucid"]
    np.testing.assert_array_equal(lucid.load(p)["v"].numpy(), [1.0, 2.0])


def test_save_replaces_the_file_and_keeps_its_mode(tmp_path):
    p = tmp_path / "ckpt.lucid"
    lucid.save(1, p)
    os.chmod(p, 0o640)
    lucid.save({"a": 2}, str(p))
    assert lucid.load(str(p)) == {"a": 2}
    assert os.stat(p).st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == ["ckpt.lucid"]


@pytest.mark.parametrize("cut", [0, 4, 8, 30, -1, -9])
def test_truncated_files_raise_serialization_error(tmp_path, cut):
    p = tmp_path / "ckpt.lucid"
    lucid.save({"w": lucid.randn(4, 4), "n": 3}, p)
    data = p.read_bytes()
    p.write_bytes(data[:cut])
    with pytest.raises(SerializationError, match="not a readable safetensors file"):
        lucid.load(p)
    with pytest.raises(RuntimeError):
        lucid.load(io.BytesIO(data[:cut]))


def test_garbage_and_pytorch_pickle_files_are_refused(tmp_path):
    p = tmp_path / "junk"
    p.write_bytes(os.urandom(256))
    with pytest.raises(SerializationError):
        lucid.load(p)
    pt = tmp_path / "model.pt"
    torch.save({"w": torch.ones(2)}, pt)
    with pytest.raises(SerializationError, match="not a readable safetensors file"):
        lucid.load(pt)


def hostile(tmp_path, structure, fmt="lucid/1", arrays=None):
    p = tmp_path / "hostile.lucid"
    meta = {"format": fmt, "lucid": structure if isinstance(structure, str)
            else json.dumps(structure)}
    safetensors.numpy.save_file(arrays or {"0": np.zeros(2, np.float32)}, str(p), meta)
    return p


@pytest.mark.parametrize("structure, match", [
    ({"$t": "pickle", "v": "cos\nsystem\n(S'echo pwned'\ntR."}, "unknown type 'pickle'"),
    ({"$t": "dtype", "v": "os.system"}, "the dtype 'os.system'"),
    ({"$t": "tensor", "key": "7", "device": "cpu", "requires_grad": False, "param": False},
     "tensor '7', which the file does not hold"),
    ({"$t": "tensor"}, "malformed 'tensor' entry"),
    ({"$t": "dict", "items": [[[1, 2], 3]]}, "unhashable dict key"),
    ({"__class__": "subprocess.Popen", "args": ["ls"]}, "unknown type None"),
    ({"$t": "float", "v": "__import__('os')"}, "the float"),
    ({"$t": "size", "items": ["x"]}, "size that is not a list of ints"),
    ("[1, NaN]", "invalid JSON"),
    ("{not json", "invalid JSON"),
])
def test_hostile_structure_is_refused(tmp_path, structure, match):
    with pytest.raises(SerializationError, match=match):
        lucid.load(hostile(tmp_path, structure))


def test_absurdly_deep_structure_is_refused(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(SerializationError, match="nested too deeply"):
        lucid.load(hostile(tmp_path, deep))
    nested = lucid.load(hostile(tmp_path, "[" * 50 + "]" * 50))
    for _ in range(49):
        (nested,) = nested
    assert nested == []


def test_tensor_saved_on_an_absent_device_names_map_location(tmp_path):
    if getattr(lucid, "cuda", None) is not None and lucid.cuda.is_available():
        pytest.skip("a CUDA device is present")
    node = {"$t": "tensor", "key": "0", "device": "cuda:0", "requires_grad": False,
            "param": False}
    p = hostile(tmp_path, node)
    with pytest.raises(lucid.errors.DeviceError, match="saved on cuda:0 .*map_location='cpu'"):
        lucid.load(p)
    np.testing.assert_array_equal(lucid.load(p, map_location="cpu").numpy(), [0.0, 0.0])
    out = lucid.load(p, map_location={"cuda:0": "cpu"})
    assert out.device == lucid.device("cpu")


def test_unknown_format_version_is_refused(tmp_path):
    with pytest.raises(SerializationError, match="format 'lucid/99'"):
        lucid.load(hostile(tmp_path, [1], fmt="lucid/99"))


def test_unsupported_file_dtype_is_refused(tmp_path):
    p = tmp_path / "u16.safetensors"
    safetensors.numpy.save_file({"x": np.zeros(3, np.uint16)}, str(p))
    with pytest.raises(SerializationError, match="'x' .* has dtype U16"):
        lucid.load_safetensors(p)


def test_bad_arguments(tmp_path):
    with pytest.raises(ArgumentTypeError, match="f must be a path"):
        lucid.save(1, 123)
    with pytest.raises(ArgumentTypeError, match="f must be a path"):
        lucid.load(123)
    p = tmp_path / "a.lucid"
    lucid.save(1, p)
    with open(p, "r", encoding="latin-1") as fh, pytest.raises(ArgumentTypeError,
                                                                match="binary mode"):
        lucid.load(fh)
    with pytest.raises(ArgumentTypeError, match="binary mode"):
        lucid.save(1, io.StringIO())
    import pickle
    with pytest.raises(ArgumentTypeError, match="pickle_module must be None"):
        lucid.load(p, pickle_module=pickle)
    with pytest.raises(ArgumentTypeError, match="map_location"):
        lucid.load(p, map_location=3)
    with pytest.raises(FileNotFoundError):
        lucid.load(tmp_path / "missing.lucid")


def test_weights_only_and_mmap_are_accepted(tmp_path):
    p = tmp_path / "a.lucid"
    lucid.save({"w": lucid.ones(2)}, p)
    for kw in ({"weights_only": False}, {"weights_only": True}, {"mmap": True}):
        np.testing.assert_array_equal(lucid.load(p, **kw)["w"].numpy(), [1.0, 1.0])


def test_map_location_forms(tmp_path):
    p = tmp_path / "a.lucid"
    t = lucid.arange(3.0)
    lucid.save({"t": t}, p)
    seen = []

    def fn(tensor, loc):
        seen.append(loc)
        return tensor * 10

    np.testing.assert_array_equal(lucid.load(p, map_location=fn)["t"].numpy(), [0, 10, 20])
    assert seen == ["cpu"]
    for loc in ("cpu", lucid.device("cpu"), {"cpu": "cpu"}, {"cuda:0": "cpu"}):
        out = lucid.load(p, map_location=loc)["t"]
        assert out.device == lucid.device("cpu")
        assert_same_tensor(t, out)
    with pytest.raises(ArgumentTypeError, match="map_location returned a int"):
        lucid.load(p, map_location=lambda tensor, loc: 3)


# -- flat safetensors files ------------------------------------------------------------

def test_save_safetensors_roundtrip_with_metadata(tmp_path):
    p = tmp_path / "m.safetensors"
    tensors = {"b": lucid.randn(2, 3).t(), "a": lucid.arange(4), "h": lucid.ones(2, dtype=lucid.bfloat16)}
    lucid.save_safetensors(tensors, p, metadata={"epoch": "3"})
    out = lucid.load_safetensors(p)
    assert list(out) == sorted(tensors) or set(out) == set(tensors)
    for k in tensors:
        assert_same_tensor(tensors[k], out[k])
    from safetensors import safe_open
    with safe_open(str(p), framework="numpy") as f:
        assert f.metadata() == {"epoch": "3"}
    # lucid.load reads a plain safetensors file as its dict of tensors
    assert set(lucid.load(p)) == set(tensors)


def test_save_safetensors_refuses_nested_or_bad_entries(tmp_path):
    p = tmp_path / "m.safetensors"
    with pytest.raises(ArgumentTypeError, match="str keys and Tensor values"):
        lucid.save_safetensors({"a": [lucid.ones(1)]}, p)
    with pytest.raises(ArgumentTypeError, match="str keys and Tensor values"):
        lucid.save_safetensors({1: lucid.ones(1)}, p)
    with pytest.raises(ArgumentTypeError, match="expected a dict"):
        lucid.save_safetensors([lucid.ones(1)], p)
    with pytest.raises(ArgumentTypeError, match="metadata must be a dict of str to str"):
        lucid.save_safetensors({"a": lucid.ones(1)}, p, metadata={"epoch": 3})
    assert not p.exists()


def test_load_safetensors_reads_a_pytorch_export_by_name(tmp_path):
    torch.manual_seed(0)
    sd = {"fc.weight": torch.randn(4, 3), "fc.bias": torch.randn(4),
          "emb": torch.randn(2, 2).to(torch.bfloat16), "steps": torch.tensor(5),
          "mask": torch.tensor([True, False])}
    p = tmp_path / "torch.safetensors"
    torch_save_file(sd, str(p))
    out = lucid.load_safetensors(str(p))
    assert set(out) == set(sd)
    for k, v in sd.items():
        assert out[k].dtype.name == str(v.dtype).replace("torch.", "")
        np.testing.assert_array_equal(values(out[k]), v.float().numpy() if
                                      v.dtype == torch.bfloat16 else v.numpy())
    out2 = lucid.load_safetensors(p, device=lucid.device("cpu"))
    assert_same_tensor(out["fc.weight"], out2["fc.weight"])


# -- PyTorch models into Lucid by name ---------------------------------------------------

def cnn(nn):
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(4, 8, 3, stride=1), nn.ReLU(),
                         nn.Flatten(), nn.Linear(8 * 2 * 2, 10))


def mlp(nn):
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 32),
                         nn.ReLU(), nn.Linear(32, 10))


@pytest.mark.parametrize("build", [cnn, mlp], ids=["cnn", "mlp"])
def test_pytorch_state_dict_exported_as_safetensors_loads_by_name(build, tmp_path):
    torch.manual_seed(0)
    theirs = build(torch.nn)
    if isinstance(theirs[1], torch.nn.BatchNorm2d):      # non-trivial running statistics
        theirs.train()
        theirs(torch.randn(16, 1, 8, 8))
    theirs.eval()
    p = tmp_path / "model.safetensors"
    torch_save_file(theirs.state_dict(), str(p))

    ours = build(lucid.nn)
    ours.load_state_dict(lucid.load_safetensors(p))
    ours.eval()
    x = np.random.default_rng(0).standard_normal((5, 1, 8, 8)).astype(np.float32)
    with torch.no_grad():
        want = theirs(torch.tensor(x)).numpy()
    with lucid.no_grad():
        got = ours(lucid.tensor(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert all(isinstance(v, lucid.nn.Parameter) for v in ours.parameters())

    # lucid.load reads the same file as a dict, and a Lucid checkpoint round-trips
    again = build(lucid.nn)
    again.load_state_dict(lucid.load(p))
    ckpt = tmp_path / "ckpt.lucid"
    lucid.save({"model": again.state_dict(), "epoch": 3}, ckpt)
    third = build(lucid.nn)
    third.load_state_dict(lucid.load(ckpt)["model"])
    third.eval()
    with lucid.no_grad():
        np.testing.assert_array_equal(third(lucid.tensor(x)).numpy(), got)


def test_training_resumes_exactly_from_a_checkpoint(tmp_path):
    def setup():
        lucid.manual_seed(0)
        model = mlp(lucid.nn)
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
    p = tmp_path / "ckpt.lucid"
    lucid.save({"model": model.state_dict(), "opt": opt.state_dict(),
                "sched": sched.state_dict(), "step": 3}, p)
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


def test_load_signature_matches_torch():
    import inspect
    ours, theirs = inspect.signature(lucid.load), inspect.signature(torch.load)
    assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
        [(p.name, p.kind, p.default) for p in theirs.parameters.values()]
