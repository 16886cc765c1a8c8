"""Device for the CUDA-vs-CPU suites: "cuda", or the device named by LUCID_CUDA_TEST_DEVICE
(``LUCID_CUDA_TEST_DEVICE=cpu`` dry-runs these suites' logic CPU-against-CPU where no GPU
is present; tests/conftest.py then does not skip them)."""

import os

import pytest

import lucid

DEVICE = os.environ.get("LUCID_CUDA_TEST_DEVICE", "cuda")


@pytest.fixture
def dev():
    """The device under test."""
    return lucid.device(DEVICE)


@pytest.fixture
def on_device():
    """Make the device under test the default device for the test's factories."""
    prev = lucid.get_default_device()
    lucid.set_default_device(DEVICE)
    yield lucid.device(DEVICE)
    lucid.set_default_device(prev)


@pytest.fixture(autouse=True)
def _no_tf32_convolutions():
    """float32 convolutions in full float32 precision, as the suites' tolerances assume:
    cuDNN's TF32 engines (``lucid.backends.cudnn.allow_tf32``, on by default as in PyTorch)
    round their inputs to 10 mantissa bits. test_cuda_cudnn_conv.py tests TF32 itself."""
    prev = lucid.backends.cudnn.allow_tf32
    lucid.backends.cudnn.allow_tf32 = False
    yield
    lucid.backends.cudnn.allow_tf32 = prev
