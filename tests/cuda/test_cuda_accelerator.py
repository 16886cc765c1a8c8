"""``lucid.accelerator`` on a GPU: CUDA is the accelerator, and its device-index calls act
on ``lucid.cuda``'s current device."""

import pytest

import lucid

from .conftest import DEVICE

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(DEVICE != "cuda", reason="lucid.accelerator needs a GPU"),
]


def test_cuda_is_the_accelerator():
    A = lucid.accelerator
    assert A.is_available() is True
    assert A.current_accelerator() == lucid.device("cuda")
    assert A.current_accelerator(check_available=True).type == "cuda"
    assert A.device_count() == lucid.cuda.device_count() >= 1
    assert A.current_device_index() == lucid.cuda.current_device()
    A.synchronize()
    A.synchronize(0)


def test_device_index_switches_and_restores():
    A = lucid.accelerator
    last = A.device_count() - 1
    before = A.current_device_index()
    with A.device_index(last):
        assert A.current_device_index() == last
        assert lucid.cuda.current_device() == last
    assert A.current_device_index() == before
    A.set_device_index(f"cuda:{last}")
    assert lucid.cuda.current_device() == last
    A.set_device_index(before)
    with A.device_index(None):
        assert A.current_device_index() == before


def test_type_names_on_cuda(dev):
    t = lucid.zeros(2, device="cuda")
    assert t.type() == "lucid.cuda.FloatTensor"
    assert t.type("lucid.cuda.LongTensor").dtype == lucid.int64
    back = t.type("torch.DoubleTensor")
    assert back.device.type == "cpu" and back.dtype == lucid.float64
    moved = lucid.zeros(2).type("torch.cuda.IntTensor")
    assert moved.device.type == "cuda" and moved.type() == "lucid.cuda.IntTensor"
