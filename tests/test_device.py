"""Devices: parsing, canonical (interned) objects, equality with strings, default device."""

import pickle

import pytest

import lucid
from lucid.errors import DeviceError


@pytest.mark.parametrize(
    "spec, type_, index, text",
    [
        ("cpu", "cpu", None, "cpu"),
        ("CPU", "cpu", None, "cpu"),
        ("cpu:0", "cpu", None, "cpu"),
        ("cuda", "cuda", 0, "cuda:0"),
        ("cuda:0", "cuda", 0, "cuda:0"),
        ("cuda:1", "cuda", 1, "cuda:1"),
        ("gpu", "cuda", 0, "cuda:0"),
        ("gpu:3", "cuda", 3, "cuda:3"),
        (2, "cuda", 2, "cuda:2"),
    ],
)
def test_parsing(spec, type_, index, text):
    d = lucid.device(spec)
    assert (d.type, d.index, str(d)) == (type_, index, text)


def test_type_and_index_arguments():
    assert lucid.device("cuda", 2) is lucid.device("cuda:2")
    assert lucid.device(lucid.device("cuda:1")) is lucid.device("cuda:1")
    assert lucid.device(lucid.device("cuda:1"), 3) is lucid.device("cuda:3")


def test_repr_like_torch():
    assert repr(lucid.device("cpu")) == "device(type='cpu')"
    assert repr(lucid.device("cuda:1")) == "device(type='cuda', index=1)"


def test_devices_are_interned():
    assert lucid.device("cuda") is lucid.device("cuda:0") is lucid.device("gpu")
    assert lucid.device("cpu") is lucid.device(" cpu ")
    assert pickle.loads(pickle.dumps(lucid.device("cuda:1"))) is lucid.device("cuda:1")
    assert hash(lucid.device("cuda")) == hash(lucid.device("cuda:0"))


@pytest.mark.parametrize(
    "spec",
    [
        "tpu",
        "cuda:x",
        "cuda:-1",
        "cuda:1:2",
        "",
        "cpu:1",
        3.5,
        None,
        "cuda:",
        [0],
    ],
)
def test_bad_specs_raise(spec):
    with pytest.raises(DeviceError, match="device: "):
        lucid.device(spec)


def test_index_given_twice_raises():
    with pytest.raises(DeviceError, match="index given twice"):
        lucid.device("cuda:1", 2)


def test_device_error_is_runtime_error():
    with pytest.raises(RuntimeError):
        lucid.device("tpu")


def test_equality_with_strings_and_ints():
    assert lucid.device("cpu") == "cpu"
    assert lucid.device("cuda:0") == "cuda"
    assert lucid.device("cuda") == "gpu"
    assert lucid.device("cuda:1") == 1
    assert lucid.device("cuda:1") != "cuda:0"
    assert lucid.device("cpu") != "cuda"
    assert lucid.device("cpu") != "not a device"
    assert lucid.device("cpu") != 3.5


def test_default_device():
    assert lucid.get_default_device() is lucid.device("cpu")
    lucid.set_default_device("cpu")
    try:
        assert lucid.get_default_device() == "cpu"
    finally:
        lucid.set_default_device(None)
    assert lucid.get_default_device() is lucid.device("cpu")
    with pytest.raises(DeviceError):
        lucid.set_default_device("tpu")


def test_tensor_device_properties():
    t = lucid.tensor([1.0])
    assert t.device is lucid.device("cpu") and t.is_cpu and not t.is_cuda
    assert lucid.tensor([1.0], device="cpu").device == "cpu"


def test_cpu_backend_is_cached():
    d = lucid.device("cpu")
    assert d.backend is d.backend and d.backend.name == "cpu"
