"""lucid.backends: the CUDA matmul and cuDNN switches (PyTorch's defaults, settable, tied
to set_float32_matmul_precision as PyTorch's legacy API)."""

import pytest

import lucid
from lucid.backends import cuda, cudnn


@pytest.fixture(autouse=True)
def _restore():
    m = cuda.matmul
    saved = (
        lucid.get_float32_matmul_precision(),
        m.allow_fp16_reduced_precision_reduction,
        m.allow_bf16_reduced_precision_reduction,
        {k: getattr(cudnn, k) for k in cudnn._NAMES},
    )
    yield
    lucid.set_float32_matmul_precision(saved[0])
    m.allow_fp16_reduced_precision_reduction, m.allow_bf16_reduced_precision_reduction = saved[1:3]
    for k, v in saved[3].items():
        setattr(cudnn, k, v)


def test_defaults_are_pytorchs():
    assert lucid.backends.cuda.matmul.allow_tf32 is False
    assert cuda.matmul.allow_fp16_reduced_precision_reduction is True
    assert cuda.matmul.allow_bf16_reduced_precision_reduction is True
    assert lucid.get_float32_matmul_precision() == "highest"
    assert (
        cudnn.enabled,
        cudnn.benchmark,
        cudnn.deterministic,
        cudnn.allow_tf32,
        cudnn.benchmark_limit,
    ) == (True, False, False, True, 10)
    assert cudnn.is_available() is False


def test_allow_tf32_and_the_float32_matmul_precision():
    lucid.backends.cuda.matmul.allow_tf32 = True
    assert lucid.get_float32_matmul_precision() == "high"
    lucid.backends.cuda.matmul.allow_tf32 = False
    assert lucid.get_float32_matmul_precision() == "highest"
    for p, tf32 in (("medium", True), ("high", True), ("highest", False)):
        lucid.set_float32_matmul_precision(p)
        assert lucid.get_float32_matmul_precision() == p
        assert cuda.matmul.allow_tf32 is tf32
    with pytest.raises(lucid.errors.ArgumentError, match="highest"):
        lucid.set_float32_matmul_precision("low")


def test_flags_are_settable_and_typos_raise():
    cuda.matmul.allow_bf16_reduced_precision_reduction = False
    cuda.matmul.allow_fp16_reduced_precision_reduction = False
    assert not cuda.matmul.allow_bf16_reduced_precision_reduction
    assert "allow_fp16_reduced_precision_reduction=False" in repr(cuda.matmul)
    with pytest.raises(AttributeError):
        cuda.matmul.allow_tf23 = True
    lucid.backends.cudnn.benchmark = True
    lucid.backends.cudnn.deterministic = True
    assert lucid.backends.cudnn.benchmark and cudnn.deterministic


def test_cudnn_flags_context_sets_and_restores():
    cudnn.benchmark = True
    with cudnn.flags(enabled=True, deterministic=True, allow_tf32=False):
        assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == (
            True,
            False,
            True,
            False,
        )
    assert cudnn.benchmark is True and cudnn.deterministic is False and cudnn.allow_tf32
