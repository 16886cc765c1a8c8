"""Hugging Face checkpoint directories: ``config.json`` beside ``model.safetensors`` (read
through Lucid's safetensors reader) or ``pytorch_model.bin`` (PyTorch's file format,
through :func:`lucid.load`)."""

from __future__ import annotations

import json
import os

from ..errors import ArgumentError
from ..serialization import load, load_safetensors

__all__ = ["read_hf_checkpoint"]


def read_hf_checkpoint(path, who):
    """``(config dict, {name: Tensor})`` of the checkpoint directory ``path``; ``who``
    names the caller in the error for a directory without weights."""
    with open(os.path.join(path, "config.json")) as f:
        config = json.load(f)
    st, pt = (os.path.join(path, n) for n in ("model.safetensors", "pytorch_model.bin"))
    if os.path.exists(st):
        return config, load_safetensors(st)
    if os.path.exists(pt):
        return config, load(pt, map_location="cpu", weights_only=True)
    raise ArgumentError(f"{who}: {path!r} holds neither model.safetensors nor pytorch_model.bin")
