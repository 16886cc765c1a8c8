"""Safetensors files: save_safetensors / load_safetensors, lucid.load of a plain safetensors
file, and the files Lucid's save wrote before it wrote PyTorch's format (lucid/1: the
structure as tagged JSON in the metadata), which lucid.load still reads and checks."""

import io
import json

import numpy as np
import pytest
import safetensors.numpy

import lucid
from lucid.errors import ArgumentTypeError, SerializationError


def values(t):
    a = t.detach().numpy()
    return a.astype(np.float32) if t.dtype is lucid.bfloat16 else a


def assert_same_tensor(a, b):
    assert isinstance(b, lucid.Tensor)
    assert b.dtype is a.dtype and tuple(b.shape) == tuple(a.shape)
    np.testing.assert_array_equal(values(b), values(a))


def hostile(tmp_path, structure, fmt="lucid/1", arrays=None):
    p = tmp_path / "hostile.lucid"
    meta = {
        "format": fmt,
        "lucid": structure if isinstance(structure, str) else json.dumps(structure),
    }
    safetensors.numpy.save_file(arrays or {"0": np.zeros(2, np.float32)}, str(p), meta)
    return p


def tensor_node(key, **kw):
    node = {"$t": "tensor", "key": key, "device": "cpu", "requires_grad": False, "param": False}
    node.update(kw)
    return node


def test_a_lucid1_checkpoint_still_loads(tmp_path):
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    c = np.array([[1.0, 2.0], [3.0, -4.0]])  # complex128 as (real, imaginary)
    tree = {
        "$t": "dict",
        "items": [
            [
                "model",
                {"$t": "odict", "items": [["w", tensor_node("0", requires_grad=True, param=True)]]},
            ],
            ["c", tensor_node("1", complex=True)],
            ["again", tensor_node("0")],
            ["step", 3],
            [{"$t": "tuple", "items": [1, 2]}, {"$t": "size", "items": [2, 3]}],
            ["inf", {"$t": "float", "v": "-inf"}],
            ["b", {"$t": "bytes", "v": "AP8="}],
            ["dt", {"$t": "dtype", "v": "bfloat16"}],
            ["dev", {"$t": "device", "v": "cpu"}],
        ],
    }
    for via in ("path", "file"):
        p = hostile(tmp_path, tree, arrays={"0": w, "1": c})
        out = lucid.load(p if via == "path" else io.BytesIO(p.read_bytes()))
        assert isinstance(out["model"]["w"], lucid.nn.Parameter)
        assert out["model"]["w"].requires_grad
        np.testing.assert_array_equal(out["model"]["w"].detach().numpy(), w)
        assert out["again"] is out["model"]["w"]
        assert out["c"].dtype is lucid.complex128 and out["c"].tolist() == [1 + 2j, 3 - 4j]
        assert out["step"] == 3 and out[(1, 2)] == lucid.Size([2, 3])
        assert out["inf"] == -float("inf") and out["b"] == b"\x00\xff"
        assert out["dt"] is lucid.bfloat16 and out["dev"] == lucid.device("cpu")


@pytest.mark.parametrize("cut", [0, 4, 8, 30, -1, -9])
def test_truncated_safetensors_files_raise_serialization_error(tmp_path, cut):
    p = tmp_path / "ckpt.safetensors"
    lucid.save_safetensors({"w": lucid.randn(4, 4)}, p)
    data = p.read_bytes()
    p.write_bytes(data[:cut])
    with pytest.raises(SerializationError):
        lucid.load(p)
    with pytest.raises(SerializationError):
        lucid.load_safetensors(p)


@pytest.mark.parametrize(
    "structure, match",
    [
        ({"$t": "pickle", "v": "cos\nsystem\n(S'echo pwned'\ntR."}, "unknown type 'pickle'"),
        ({"$t": "dtype", "v": "os.system"}, "the dtype 'os.system'"),
        (
            {"$t": "tensor", "key": "7", "device": "cpu", "requires_grad": False, "param": False},
            "tensor '7', which the file does not hold",
        ),
        ({"$t": "tensor"}, "malformed 'tensor' entry"),
        ({"$t": "dict", "items": [[[1, 2], 3]]}, "unhashable dict key"),
        ({"__class__": "subprocess.Popen", "args": ["ls"]}, "unknown type None"),
        ({"$t": "float", "v": "__import__('os')"}, "the float"),
        ({"$t": "size", "items": ["x"]}, "size that is not a list of ints"),
        ("[1, NaN]", "invalid JSON"),
        ("{not json", "invalid JSON"),
    ],
)
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
    node = {"$t": "tensor", "key": "0", "device": "cuda:0", "requires_grad": False, "param": False}
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


def test_save_safetensors_roundtrip_with_metadata(tmp_path):
    p = tmp_path / "m.safetensors"
    tensors = {
        "b": lucid.randn(2, 3).t(),
        "a": lucid.arange(4),
        "h": lucid.ones(2, dtype=lucid.bfloat16),
    }
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
    buf = io.BytesIO()
    lucid.save_safetensors(tensors, buf)
    buf.seek(0)
    for k, t in lucid.load_safetensors(buf).items():
        assert_same_tensor(tensors[k], t)


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
