"""lucid.profiler on the GPU: device times from CUDA events around each op and backward
node, on the GPU's track of the trace; a CUDA-graph capture inside a profile is not
timed (events cannot be recorded into a capture) and still runs."""

import json

import pytest

import lucid
from lucid.profiler import ProfilerActivity, profile

from .conftest import DEVICE

pytestmark = pytest.mark.cuda

_GPU = DEVICE == "cuda"


def test_device_times_of_ops_and_nodes(dev, tmp_path):
    a = lucid.randn(512, 512, device=dev, requires_grad=True)
    b = lucid.randn(512, 512, device=dev)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            lucid.matmul(a, b).relu().sum().backward()
    rows = {r.key: r for r in prof.key_averages()}
    assert rows["matmul"].count == 3 and rows["MatmulBackward"].count == 3
    if _GPU:
        for key in ("matmul", "relu", "MatmulBackward"):
            r = rows[key]
            assert r.device_time_total > 0 and r.self_device_time_total > 0
            assert r.cuda_time_total == r.device_time_total
        assert "Self CUDA" in prof.key_averages().table(sort_by="cuda_time_total")
        mm = next(e for e in prof.events() if e.name == "matmul")
        assert mm.kernels and mm.kernels[0].device == "cuda:0"
    prof.export_chrome_trace(str(tmp_path / "t.json"))
    doc = json.loads((tmp_path / "t.json").read_text())
    kernels = [e for e in doc["traceEvents"] if e.get("cat") == "kernel"]
    if _GPU:
        assert {e["name"] for e in kernels} >= {"matmul", "relu", "MatmulBackward"}
        assert all(e["dur"] >= 0 for e in kernels)
    else:
        assert kernels == []


def test_memory_on_the_device(dev):
    x = lucid.randn(256, 256, device=dev)
    with profile(profile_memory=True) as prof:
        lucid.exp(x)
    (e,) = [e for e in prof.events() if e.name == "exp"]
    if _GPU:
        assert e.self_cuda_memory_usage == 256 * 256 * 4 and e.self_cpu_memory_usage == 0
    else:
        assert e.self_cpu_memory_usage == 256 * 256 * 4


@pytest.mark.skipif(not _GPU, reason="a CUDA-graph capture needs a GPU")
def test_capture_inside_a_profile(dev):
    x = lucid.randn(64, device=dev)
    g = lucid.cuda.CUDAGraph()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        lucid.exp(x)  # warm
        with lucid.cuda.graph(g):
            y = lucid.exp(x)
        g.replay()
    lucid.cuda.synchronize()
    assert lucid.allclose(y, lucid.exp(x))
    exps = [e for e in prof.events() if e.name == "exp"]
    assert len(exps) == 2 and exps[0].device_range is not None and exps[1].device_range is None


@pytest.mark.skipif(not _GPU, reason="NVTX needs a GPU")
def test_emit_nvtx_and_nvtx_ranges(dev):
    x = lucid.randn(8, device=dev, requires_grad=True)
    with lucid.autograd.profiler.emit_nvtx():
        with lucid.profiler.record_function("block"):
            x.exp().sum().backward()
    assert x.grad is not None and lucid.allclose(x.grad, x.exp())
    assert lucid.cuda.nvtx.range_push("outer") == 0
    assert lucid.cuda.nvtx.range_push("inner") == 1
    lucid.cuda.nvtx.mark("here")
    assert lucid.cuda.nvtx.range_pop() == 1 and lucid.cuda.nvtx.range_pop() == 0
    with lucid.cuda.nvtx.range("step {}", 3):
        pass
