"""Without CuPy or a GPU: ``import lucid`` works, ``lucid.cuda`` reports nothing available,
and asking for "cuda" raises a DeviceError that says how to install the CUDA backend."""

import pytest

import lucid
from lucid.errors import DeviceError

pytestmark = pytest.mark.skipif(lucid.cuda.is_available(), reason="a GPU is present")


def test_nothing_is_available():
    assert lucid.cuda.is_available() is False
    assert lucid.cuda.device_count() == 0
    lucid.cuda.manual_seed(0)  # ignored without CUDA, as in PyTorch
    lucid.cuda.manual_seed_all(0)
    lucid.cuda.empty_cache()
    assert lucid.cuda.get_rng_state_all() == []
    assert lucid.cuda.is_current_stream_capturing() is False


@pytest.mark.parametrize(
    "call",
    [
        lambda: lucid.ones(2, device="cuda"),
        lambda: lucid.ones(2).cuda(),
        lambda: lucid.ones(2).to("cuda:0"),
        lambda: lucid.cuda.synchronize(),
        lambda: lucid.cuda.current_device(),
        lambda: lucid.cuda.memory_allocated(),
        lambda: lucid.cuda.Stream(),
        lambda: lucid.cuda.Event(),
        lambda: lucid.cuda.CUDAGraph().capture_begin(),
        lambda: lucid.cuda.graph_pool_handle(),
        lambda: lucid.cuda.graph(lucid.cuda.CUDAGraph()).__enter__(),
    ],
)
def test_asking_for_cuda_says_how_to_install(call):
    with pytest.raises(DeviceError, match=r"lucid\[cuda12\]"):
        call()


def test_pinning_is_a_no_op_without_a_gpu():
    x = lucid.ones(3)
    assert x.pin_memory() is x and not x.is_pinned()
