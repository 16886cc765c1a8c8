"""``lucid.backends.cuda.matmul``: the cuBLAS switches the CUDA backend reads per matmul."""

from __future__ import annotations

import importlib.util

from ..errors import ArgumentError

__all__ = ["matmul", "get_float32_matmul_precision", "set_float32_matmul_precision", "is_built"]

_PRECISIONS = ("highest", "high", "medium")


class _MatmulFlags:
    """``allow_tf32``: float32 GEMMs may use TF32 tensor cores (10-bit mantissa inputs,
    float32 accumulation); tied to :func:`get_float32_matmul_precision` (it is
    ``precision != "highest"``). ``allow_fp16_reduced_precision_reduction`` /
    ``allow_bf16_reduced_precision_reduction``: half GEMMs may round partial sums to half
    between split-K tiles. Unknown attributes raise ``AttributeError``."""

    __slots__ = (
        "_precision",
        "allow_fp16_reduced_precision_reduction",
        "allow_bf16_reduced_precision_reduction",
    )

    def __init__(self):
        self._precision = "highest"
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self) -> bool:
        return self._precision != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value):
        self._precision = "high" if value else "highest"

    def __repr__(self):
        return (
            f"lucid.backends.cuda.matmul(allow_tf32={self.allow_tf32}, "
            f"allow_fp16_reduced_precision_reduction="
            f"{self.allow_fp16_reduced_precision_reduction}, "
            f"allow_bf16_reduced_precision_reduction="
            f"{self.allow_bf16_reduced_precision_reduction})"
        )


matmul = _MatmulFlags()


def set_float32_matmul_precision(precision) -> None:
    """``"highest"`` (IEEE float32 GEMMs), ``"high"`` (TF32 allowed) or ``"medium"``
    (bfloat16-based algorithms allowed too)."""
    if precision not in _PRECISIONS:
        raise ArgumentError(
            f"set_float32_matmul_precision: precision must be one of "
            f"'highest', 'high', 'medium', got {precision!r}"
        )
    matmul._precision = precision


def get_float32_matmul_precision() -> str:
    return matmul._precision


def is_built() -> bool:
    """Whether Lucid's CUDA backend can be loaded: CuPy is installed (a GPU is another
    question, :func:`lucid.cuda.is_available`)."""
    return importlib.util.find_spec("cupy") is not None
