"""lucid.save / lucid.load of tensors on the device under test: the file says where each
storage was (``cuda:N``), views of a device tensor still share one device buffer when
loaded, and ``map_location`` moves them; PyTorch reads the same files (and Lucid reads
PyTorch's) with the tensors on the GPU where it has one."""

import numpy as np
import pytest

import lucid

from .conftest import DEVICE

pytestmark = pytest.mark.cuda


def _ptr(t):
    return t.untyped_storage().data_ptr()


def test_device_tensors_round_trip_sharing_their_buffer(tmp_path):
    base = lucid.arange(24.0).reshape(4, 6).to(DEVICE)
    obj = {
        "base": base,
        "t": base.t(),
        "row": base[2],
        "h": lucid.ones(3, dtype=lucid.bfloat16, device=DEVICE),
    }
    p = tmp_path / "d.pt"
    lucid.save(obj, p)
    for kw in ({}, {"mmap": True}):
        got = lucid.load(p, **kw)
        for k, v in obj.items():
            assert got[k].device == v.device and got[k].stride() == v.stride()
            np.testing.assert_array_equal(got[k].cpu().float().numpy(), v.cpu().float().numpy())
        got["base"][2, 1] = -7.0  # one device buffer: the views see the write
        assert got["row"][1].item() == -7.0 and got["t"][1, 2].item() == -7.0
    cpu = lucid.load(p, map_location="cpu")
    assert all(v.device == lucid.device("cpu") for v in cpu.values())
    assert _ptr(cpu["t"]) == _ptr(cpu["base"]) == _ptr(cpu["row"])
    back = lucid.load(p, map_location=lambda s, loc: s.to(DEVICE))
    assert back["row"].device == base.device


def test_torch_reads_lucid_device_files_and_back(tmp_path):
    torch = pytest.importorskip("torch")
    if DEVICE == "cpu" or not torch.cuda.is_available():
        pytest.skip("needs torch with CUDA")
    w = lucid.randn(3, 4, device=DEVICE)
    p = tmp_path / "w.pt"
    lucid.save({"w": w, "v": w[1:]}, p)
    got = torch.load(p)
    assert got["w"].is_cuda and _ptr(got["v"]) == _ptr(got["w"])
    np.testing.assert_array_equal(got["w"].cpu().numpy(), w.cpu().numpy())
    torch.save({"x": torch.arange(5.0, device="cuda")[1:]}, p)
    x = lucid.load(p)["x"]
    assert x.device == lucid.device("cuda:0") and x.tolist() == [1.0, 2.0, 3.0, 4.0]
