"""``lucid.save`` / ``lucid.load`` in PyTorch's file format, both ways; safetensors files;
sharded checkpoints. Reachable as ``lucid.serialization``, as PyTorch's is as
``torch.serialization`` (``load``, ``save``, ``add_safe_globals``, ``safe_globals``,
``get_safe_globals``, ``clear_safe_globals``, ``get_unsafe_globals_in_checkpoint``,
``DEFAULT_PROTOCOL``).

:func:`save` writes what ``torch.save`` writes: a zip archive whose ``data.pkl`` is the
object pickled with protocol 2, each tensor as ``torch._utils._rebuild_tensor_v2`` of a
storage, each storage's bytes a record of its own (see :mod:`._container` for the layout,
:mod:`._pickler` for the pickle). So ``torch.load`` reads a file Lucid wrote (tensors of
every dtype, views that share a storage still sharing it, state dicts with their
``_metadata``, optimizer states, nested containers), and :func:`load` reads a file PyTorch
wrote, zip or legacy (``_use_new_zipfile_serialization=False``), as well as the
safetensors files of :func:`save_safetensors` and of Lucid's earlier ``save``. The format is
told by the file's first bytes.

Safety. ``load(weights_only=True)``, the default (as in PyTorch 2.6 and later), rebuilds
only tensors, storages, parameters, plain containers and scalars, ``Size``, dtypes, devices
and the globals allowed by :func:`add_safe_globals` / :func:`safe_globals`; anything else a
file names is refused with a :class:`~lucid.errors.WeightsOnlyError`, and nothing the file
holds is executed (:mod:`._unpickler`). ``weights_only=False`` is PyTorch's explicit opt-in
to full pickle: it rebuilds whole modules and any other object, running whatever code the
file's pickle calls, so use it only on files from a source you trust. Lucid's DESIGN rule
that loading never executes code from the file holds for the default.

A whole module (``save(model, f)``) pickles by its Lucid class path; loading it needs
``weights_only=False`` or the classes allowed (``with safe_globals([MyModel, nn.Linear])``).
A file PyTorch wrote of ``torch.nn`` modules loads into Lucid's classes of the same names
(``torch.nn.modules.linear.Linear`` -> ``lucid.nn.modules.linear.Linear``); a class Lucid
lacks is refused, naming it. Writing to a path goes to a temporary file renamed over the
target once complete; file objects (``io.BytesIO``) work both ways.
"""

from __future__ import annotations

from ._pickler import DEFAULT_PROTOCOL  # noqa: F401  (a module attribute, as torch's)
from ._safe_globals import (
    add_safe_globals,
    clear_safe_globals,  # noqa: F401  (module
    get_safe_globals,
    safe_globals,
)  # attributes, as torch's)
from ._safetensors import load_safetensors, save_safetensors
from ._save_load import get_unsafe_globals_in_checkpoint, load, save  # noqa: F401
from ._sharded import load_sharded, save_sharded

__all__ = ["save", "load", "save_safetensors", "load_safetensors", "save_sharded", "load_sharded"]
