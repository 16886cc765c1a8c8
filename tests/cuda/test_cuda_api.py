"""``lucid.cuda`` on a GPU: devices, streams and events, memory statistics, generators,
pinned memory and asynchronous copies, DLPack with CuPy and PyTorch."""

import numpy as np
import pytest

import lucid
from lucid.errors import DeviceError

from .conftest import DEVICE

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(DEVICE != "cuda", reason="lucid.cuda needs a real GPU"),
]


def test_devices():
    n = lucid.cuda.device_count()
    assert lucid.cuda.is_available() and n >= 1
    assert lucid.cuda.current_device() == 0
    assert lucid.cuda.get_device_capability() >= (7, 0)
    assert isinstance(lucid.cuda.get_device_name(0), str)
    free, total = lucid.cuda.mem_get_info()
    assert 0 < free <= total
    with pytest.raises(DeviceError, match="does not exist"):
        lucid.cuda.set_device(n)
    with lucid.cuda.device(0):
        assert lucid.cuda.current_device() == 0
    x = lucid.ones(2, device="cuda:0")
    assert x.is_cuda and x.device == lucid.device("cuda", 0) and x.get_device() == 0


def test_streams_order_work_and_events_time_it():
    s = lucid.cuda.Stream()
    start, end = lucid.cuda.Event(enable_timing=True), lucid.cuda.Event(enable_timing=True)
    a = lucid.randn(1024, 1024, device="cuda")
    with lucid.cuda.stream(s):
        assert lucid.cuda.current_stream() == s
        start.record()
        b = a
        for _ in range(20):
            b = b @ a * 1e-3
        end.record()
    assert lucid.cuda.current_stream() != s
    end.synchronize()
    assert end.query() and s.query()
    assert end.elapsed_time(start) < 0 < start.elapsed_time(end)
    other = lucid.cuda.Stream()
    other.wait_stream(s)
    with lucid.cuda.stream(other):
        c = b + 1
    other.synchronize()
    np.testing.assert_allclose(c.cpu().numpy(), b.cpu().numpy() + 1, rtol=1e-6)
    with pytest.raises(DeviceError, match="enable_timing"):
        lucid.cuda.Event().elapsed_time(lucid.cuda.Event())


def test_memory_statistics():
    lucid.cuda.synchronize()
    base = lucid.cuda.memory_allocated()
    lucid.cuda.reset_peak_memory_stats()
    x = lucid.empty(256, 1024, 1024, device="cuda")  # 1 GiB of float32
    assert lucid.cuda.memory_allocated() >= base + (1 << 30)
    del x
    assert lucid.cuda.memory_allocated() < base + (1 << 30)
    assert lucid.cuda.max_memory_allocated() >= base + (1 << 30)
    assert lucid.cuda.memory_reserved() >= lucid.cuda.memory_allocated()
    lucid.cuda.empty_cache()
    lucid.cuda.reset_peak_memory_stats()
    assert lucid.cuda.max_memory_allocated() < base + (1 << 30)


def test_generators_seed_and_restore():
    lucid.cuda.manual_seed(123)
    a = lucid.rand(1000, device="cuda")
    lucid.cuda.manual_seed(123)
    assert np.array_equal(lucid.rand(1000, device="cuda").cpu().numpy(), a.cpu().numpy())
    state = lucid.cuda.get_rng_state()
    b = lucid.randn(77, device="cuda")
    lucid.cuda.set_rng_state(state)
    assert np.array_equal(lucid.randn(77, device="cuda").cpu().numpy(), b.cpu().numpy())
    lucid.cuda.manual_seed_all(5)
    assert len(lucid.cuda.get_rng_state_all()) == lucid.cuda.device_count()
    lucid.manual_seed(9)  # seeds the CUDA default too
    c = lucid.rand(10, device="cuda")
    lucid.manual_seed(9)
    assert np.array_equal(lucid.rand(10, device="cuda").cpu().numpy(), c.cpu().numpy())


def test_pinned_memory_and_non_blocking_copies():
    x = lucid.randn(512, 513)
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned() and p.pin_memory() is p
    np.testing.assert_array_equal(p.numpy(), x.numpy())
    s = lucid.cuda.Stream()
    with lucid.cuda.stream(s):
        y = p.cuda(non_blocking=True)
        back = (y * 2).to("cpu", non_blocking=True)
    s.synchronize()
    assert back.is_pinned()
    np.testing.assert_array_equal(back.numpy(), x.numpy() * 2)
    with pytest.raises(DeviceError, match="only CPU"):
        y.pin_memory()


def test_transfers_carry_gradients_both_ways():
    x = lucid.randn(3, 4, requires_grad=True)
    y = x.cuda()
    assert y.requires_grad and y.grad_fn is not None
    (y * y).sum().backward()
    assert x.grad.device == lucid.device("cpu")
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy(), rtol=1e-6)
    w = lucid.randn(4, device="cuda", requires_grad=True)
    (w.cpu() * 3).sum().backward()
    assert w.grad.is_cuda
    np.testing.assert_allclose(w.grad.cpu().numpy(), np.full(4, 3.0, np.float32))


def test_mixing_devices_is_an_error():
    with pytest.raises(DeviceError, match="cuda"):
        lucid.ones(3) + lucid.ones(3, device="cuda")


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "int64", "bool"])
def test_dlpack_with_torch_and_cupy_shares_memory(dtype):
    torch = pytest.importorskip("torch")
    cupy = pytest.importorskip("cupy")
    if not torch.cuda.is_available():
        pytest.skip("this torch build has no CUDA")
    x = (lucid.arange(12, device="cuda") % 5).to(dtype)
    t = torch.from_dlpack(x)
    assert t.is_cuda and str(t.dtype) == f"torch.{dtype}"
    assert t.data_ptr() == x.data_ptr()
    back = lucid.from_dlpack(t)
    assert back.is_cuda and back.dtype == x.dtype and back.data_ptr() == x.data_ptr()
    c = cupy.from_dlpack(x)
    assert c.data.ptr == x.data_ptr()
    lc = lucid.from_dlpack(c)
    assert lc.data_ptr() == x.data_ptr()
    np.testing.assert_array_equal(
        lc.cpu().numpy().astype(np.float64), x.cpu().numpy().astype(np.float64)
    )


def test_tf32_switch_changes_float32_matmul():
    a = lucid.randn(512, 512, device="cuda")
    exact = (a.double() @ a.double()).cpu().numpy()
    assert not lucid.backends.cuda.matmul.allow_tf32
    err_fp32 = np.abs((a @ a).cpu().numpy() - exact).max()
    lucid.backends.cuda.matmul.allow_tf32 = True
    try:
        err_tf32 = np.abs((a @ a).cpu().numpy() - exact).max()
    finally:
        lucid.backends.cuda.matmul.allow_tf32 = False
    assert err_tf32 > 10 * err_fp32  # TF32 keeps 10 mantissa bits, float32 23
    assert np.abs((a @ a).cpu().numpy() - exact).max() == err_fp32


def test_bounds_checks_run_on_the_device_and_report_at_the_next_read():
    from lucid.errors import ArgumentError, IndexingError

    w = lucid.randn(10, 4, device="cuda")
    bad = lucid.tensor([1, 12, 3], device="cuda")
    y = lucid.nn.functional.embedding(bad, w)  # queued: no host read, no error yet
    with pytest.raises(IndexingError, match=r"embedding: index out of range.*index 12"):
        y.sum().item()
    y.sum().item()  # reported once, then cleared
    logits = lucid.randn(3, 5, device="cuda")
    loss = lucid.nn.functional.cross_entropy(logits, lucid.tensor([0, 7, 1], device="cuda"))
    with pytest.raises(IndexingError, match="index 7 is out of bounds"):
        lucid.cuda.synchronize()
    assert np.isfinite(loss.item())  # the clamped kernel read no garbage
    p = lucid.tensor([0.5, 1.5], device="cuda")
    lucid.nn.functional.binary_cross_entropy(p, lucid.ones(2, device="cuda"))
    with pytest.raises(ArgumentError, match="binary_cross_entropy"):
        p.cpu()
    x = lucid.randn(4, device="cuda")
    with pytest.raises(IndexingError, match="gather: index 9 is out of bounds for dimension 0"):
        x.gather(0, lucid.tensor([9], device="cuda")).cpu()
