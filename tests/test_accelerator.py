"""lucid.accelerator (PyTorch 2.x's device-agnostic API), the storage flags a Tensor
reports False for, and the torch.backends probes programs make first. Without a GPU every
answer is compared with the installed (CPU) torch's; tests/cuda/test_cuda_api.py has the
GPU side."""

import pytest

import lucid
from lucid.errors import ArgumentTypeError, DeviceError

torch = pytest.importorskip("torch")

no_gpu = pytest.mark.skipif(lucid.cuda.is_available(), reason="a GPU is present")


def test_accelerator_names_match_pytorch():
    for name in (
        "is_available",
        "current_accelerator",
        "device_count",
        "current_device_index",
        "current_device_idx",
        "set_device_index",
        "set_device_idx",
        "synchronize",
        "device_index",
    ):
        assert hasattr(torch.accelerator, name)
        assert hasattr(lucid.accelerator, name)


@no_gpu
@pytest.mark.parametrize("name", ["current_device_idx", "set_device_idx"])
def test_deprecated_names_warn_as_pytorch(name):
    args = (0,) if name.startswith("set") else ()
    for A in (torch.accelerator, lucid.accelerator):
        with pytest.warns(FutureWarning, match="_index` instead"), pytest.raises(RuntimeError):
            getattr(A, name)(*args)


@no_gpu
def test_without_an_accelerator_answers_as_pytorch_cpu():
    assert lucid.accelerator.is_available() is torch.accelerator.is_available() is False
    assert lucid.accelerator.current_accelerator() is None
    assert lucid.accelerator.current_accelerator(check_available=True) is None
    assert lucid.accelerator.device_count() == torch.accelerator.device_count() == 0
    with lucid.accelerator.device_index(None):  # a no-op, needs no device
        pass


@no_gpu
@pytest.mark.parametrize(
    "call",
    [
        lambda A: A.current_device_index(),
        lambda A: A.set_device_index(0),
        lambda A: A.synchronize(),
        lambda A: A.device_index(0).__enter__(),
    ],
)
def test_asking_for_a_device_raises_runtime_error_as_pytorch(call):
    with pytest.raises(RuntimeError):
        call(torch.accelerator)
    with pytest.raises(DeviceError, match=r"lucid\.accelerator\.\w+: cannot access"):
        call(lucid.accelerator)


def test_device_index_rejects_what_is_not_a_device():
    with pytest.raises(ArgumentTypeError, match="device_index: expected a device index"):
        lucid.accelerator.device_index(1.5)
    with pytest.raises(DeviceError, match="expected the accelerator's device type 'cuda'"):
        lucid.accelerator.device_index("cpu")


def test_the_mnist_example_device_selection_runs():
    # the first lines of PyTorch's examples/mnist/main.py, with the import changed
    use_accel = lucid.accelerator.is_available()
    device = lucid.accelerator.current_accelerator() if use_accel else lucid.device("cpu")
    assert lucid.ones(2, device=device).device == device


FLAGS = (
    "is_xpu",
    "is_mps",
    "is_meta",
    "is_mkldnn",
    "is_quantized",
    "is_sparse",
    "is_sparse_csr",
    "is_nested",
)


@pytest.mark.parametrize("flag", FLAGS)
def test_flags_of_a_dense_tensor_are_false_as_pytorch(flag):
    t, r = lucid.ones(2, 3), torch.ones(2, 3)
    assert getattr(t, flag) is getattr(r, flag) is False
    assert getattr(t[:, 1], flag) is False
    with pytest.raises(AttributeError):  # a property: programs read, never set, it
        setattr(t, flag, True)


def test_backend_probes_answer_as_pytorch_cpu_build():
    B = lucid.backends
    assert B.mps.is_available() is torch.backends.mps.is_available() is False
    assert B.mps.is_built() is torch.backends.mps.is_built() is False
    assert B.mkldnn.is_available() is False  # Lucid links no oneDNN
    assert B.openmp.is_available() is False  # nor OpenMP
    assert B.cudnn.version() is None
    assert B.cudnn.is_available() is False


def test_mkldnn_flags_restore_the_switch():
    m = lucid.backends.mkldnn
    assert m.enabled is True
    with m.flags(enabled=False):
        assert m.enabled is False
    assert m.enabled is True


def test_cpu_capability_is_pytorchs_reading_of_this_cpu():
    cap = lucid.backends.cpu.get_cpu_capability()
    assert cap in ("AVX512", "AVX2", "DEFAULT")
    if torch.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT"):
        assert cap == torch.backends.cpu.get_cpu_capability()


def test_cudnn_switches_are_plain_attributes_programs_set():
    c = lucid.backends.cudnn
    saved = (c.benchmark, c.deterministic, c.allow_tf32)
    try:
        c.benchmark, c.deterministic, c.allow_tf32 = True, True, False
        assert (c.benchmark, c.deterministic, c.allow_tf32) == (True, True, False)
    finally:
        c.benchmark, c.deterministic, c.allow_tf32 = saved


def test_cuda_is_built_tells_whether_cupy_is_installed():
    import importlib.util

    assert lucid.backends.cuda.is_built() is (importlib.util.find_spec("cupy") is not None)
    if lucid.cuda.is_available():
        assert lucid.backends.cuda.is_built()
