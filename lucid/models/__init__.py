"""``lucid.models``: model families written from their papers, under the configuration
names users know, built by name (:func:`create_model`) and loading the PyTorch
ecosystem's checkpoints (Hugging Face's, by module name).

- :mod:`.gpt2`: GPT-2 small and medium, with a key/value cache for generation.
"""

from . import gpt2
from .registry import ModelEntry, create_model, list_models, model_entry, register_model

__all__ = ["gpt2", "create_model", "list_models", "model_entry", "register_model", "ModelEntry"]
