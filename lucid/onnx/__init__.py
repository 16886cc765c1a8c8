"""``lucid.onnx``: the names of ``torch.onnx`` that programs reach for. Lucid has no ONNX
exporter yet, so :func:`export` raises :class:`OnnxExporterError` (a
:class:`~lucid.errors.NotSupportedError`, hence a ``NotImplementedError``) before touching
the model or the file; :func:`is_in_onnx_export` is always False, so modules that branch
on it take their ordinary path."""

from __future__ import annotations

import enum

from ..errors import NotSupportedError

__all__ = ["export", "is_in_onnx_export", "OnnxExporterError", "TrainingMode"]


class OnnxExporterError(NotSupportedError):
    """ONNX export was asked for: Lucid cannot export to ONNX yet."""


class TrainingMode(enum.IntEnum):
    """The ``training=`` argument of :func:`export`, as PyTorch's."""

    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


def export(model, args=(), f=None, **kwargs):
    """PyTorch's ``torch.onnx.export``: not built in Lucid; always raises
    :class:`OnnxExporterError`."""
    raise OnnxExporterError(
        f"lucid.onnx.export: Lucid has no ONNX exporter yet (asked to export "
        f"{type(model).__name__}); save the weights with lucid.save or "
        f"lucid.save_safetensors, load them into the PyTorch model and export from there"
    )


def is_in_onnx_export() -> bool:
    """Whether an ONNX export is tracing the current call: never in Lucid."""
    return False
