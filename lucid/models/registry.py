"""The model registry: each configuration users know by name (``"gpt2"``,
``"gpt2-medium"``), the function that builds it, its task and its declared parameter count.

:func:`create_model` builds one by name; :func:`list_models` lists them, filtered by task
and by an ``fnmatch`` pattern. A family module registers its configurations with
:func:`register_model` when :mod:`lucid.models` is imported.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Callable

from ..errors import ArgumentError
from .weights import weights_for

__all__ = ["ModelEntry", "register_model", "create_model", "list_models", "model_entry"]


@dataclass(frozen=True)
class ModelEntry:
    """One named configuration: ``build(**overrides)`` makes the model; ``params`` is the
    parameter count of the default configuration (checked by the tests against the
    built model and against the reference library's model of the same configuration)."""

    name: str
    task: str
    params: int
    build: Callable
    paper: str


_REGISTRY: dict = {}


def register_model(name, task, params, paper):
    """Decorator: register ``build`` as the model ``name`` of ``task`` with ``params``
    parameters, from ``paper`` (its citation)."""

    def deco(build):
        if name in _REGISTRY:
            raise ArgumentError(f"register_model: {name!r} is registered already")
        _REGISTRY[name] = ModelEntry(name, task, params, build, paper)
        return build

    return deco


def model_entry(name) -> ModelEntry:
    """The :class:`ModelEntry` of ``name``; an :class:`~lucid.errors.ArgumentError` naming
    the close matches for an unknown one."""
    entry = _REGISTRY.get(name)
    if entry is None:
        close = [n for n in sorted(_REGISTRY) if n.split("-")[0] == name.split("-")[0]]
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ArgumentError(
            f"create_model: unknown model {name!r}{hint} (lucid.models.list_models() has "
            f"{len(_REGISTRY)} names)"
        )
    return entry


def create_model(name, pretrained=False, weights=None, progress=True, **cfg):
    """The model ``name`` with its configuration's defaults overridden by ``cfg`` (e.g.
    ``n_layer=2`` for a small test model), with ``weights`` (a member of its
    :class:`~lucid.models.weights.WeightsEnum` or its name) loaded, or its ``DEFAULT``
    weights with ``pretrained=True`` (fetched once into the hub cache). The language
    models register no weights: they load Hugging Face checkpoints with their family's
    ``from_pretrained(path)``."""
    entry = model_entry(name)
    if pretrained or weights is not None:
        enum = weights_for(name)
        if enum is None:
            raise ArgumentError(
                f"create_model({name!r}): no weights are registered for it; load a "
                "checkpoint with its family's from_pretrained(path) or model.load_state_dict"
            )
        chosen = enum.verify(weights) or enum.DEFAULT
        cfg = {**chosen.config, **cfg}
    model = entry.build(**cfg)
    if pretrained or weights is not None:
        model.load_state_dict(chosen.lucid_state_dict(progress=progress))
    return model


def list_models(task=None, pattern=None):
    """The registered names, sorted, of ``task`` (e.g. ``"text-generation"``) and matching
    the ``fnmatch`` ``pattern`` (e.g. ``"gpt2*"``) where given."""
    return [
        n
        for n, e in sorted(_REGISTRY.items())
        if (task is None or e.task == task) and (pattern is None or fnmatch.fnmatch(n, pattern))
    ]
