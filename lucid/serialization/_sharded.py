"""Checkpoints in several files: ``save_sharded`` / ``load_sharded``.

The layout is Hugging Face's sharded checkpoint, so its tools read Lucid's and Lucid reads
theirs. For ``filename="model.pt"`` the folder holds the shards
``model-00001-of-00003.pt``, ... (each written by :func:`lucid.save`: an OrderedDict of some
of the entries) and the index ``model.pt.index.json``::

    {"metadata": {"total_size": <bytes of tensor data>, "format": "pt"},
     "weight_map": {"<entry name>": "model-00001-of-00003.pt", ...},
     "state_dict_metadata": {<the state dict's _metadata, when it has one>}}

``filename="model.safetensors"`` makes the shards safetensors files
(``model.safetensors.index.json``, Hugging Face's default), which hold tensors only. Entries
go to shards in the state dict's order, a new shard started when the next entry would take
the current one past ``max_shard_size`` bytes; tensors that share a storage (tied weights)
stay in one shard, and an entry bigger than the limit gets a shard of its own. The index is
written last (each file atomically), so a crash mid-save leaves the previous index
consistent; shards of an earlier save that the new index does not name are then removed.
"""

from __future__ import annotations

import collections
import collections.abc
import json
import os
import re

from .._tensor import Tensor
from ..errors import ArgumentTypeError, SerializationError
from ._files import atomic_write
from ._safetensors import save_safetensors
from ._save_load import load, save

__all__ = ["save_sharded", "load_sharded"]

_UNITS = {
    "": 1,
    "B": 1,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "KIB": 2**10,
    "MIB": 2**20,
    "GIB": 2**30,
    "TIB": 2**40,
}


def _size_limit(max_shard_size):
    if isinstance(max_shard_size, int) and not isinstance(max_shard_size, bool):
        n = max_shard_size
    elif isinstance(max_shard_size, str):
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?I?B?)\s*", max_shard_size.upper())
        if not m or m.group(2) not in _UNITS:
            raise ArgumentTypeError(
                f"save_sharded: max_shard_size {max_shard_size!r} is not "
                "a size such as 500MB, 5GB or 2GiB"
            )
        n = int(float(m.group(1)) * _UNITS[m.group(2)])
    else:
        raise ArgumentTypeError(
            f"save_sharded: max_shard_size must be an int (bytes) or a "
            f"str such as '5GB', got {type(max_shard_size).__name__}"
        )
    if n <= 0:
        raise ArgumentTypeError(f"save_sharded: max_shard_size must be positive, got {n}")
    return n


def _split_name(filename):
    if (
        not isinstance(filename, str)
        or os.path.basename(filename) != filename
        or filename.startswith(".")
        or "." not in filename
    ):
        raise ArgumentTypeError(
            f"save_sharded: filename must be a plain file name with an "
            f"extension (model.pt, model.safetensors), got {filename!r}"
        )
    stem, ext = filename.split(".", 1)
    return stem, "." + ext


def _groups(state_dict):
    """``[(keys, nbytes)]``: the entries in order, those sharing a storage together."""
    groups, where = [], {}
    for k, v in state_dict.items():
        if isinstance(v, Tensor):
            st = v.untyped_storage()
            ident = (str(v.device), st.data_ptr())
            if ident in where and st.nbytes():
                groups[where[ident]][0].append(k)
                continue
            where[ident] = len(groups)
            groups.append(([k], st.nbytes()))
        else:
            groups.append(([k], 0))
    return groups


def save_sharded(state_dict, directory, *, max_shard_size="5GB", filename="model.pt"):
    """Save the flat mapping ``state_dict`` (name -> tensor, as ``Module.state_dict()``) as
    shards of at most ``max_shard_size`` bytes (an int, or a str such as ``"500MB"``,
    ``"2GiB"``) plus an index, in ``directory`` (made if missing). Returns the index path."""
    if not isinstance(state_dict, collections.abc.Mapping) or not all(
        isinstance(k, str) for k in state_dict
    ):
        raise ArgumentTypeError(
            "save_sharded: expected a mapping of str names to tensors (a state_dict)"
        )
    limit = _size_limit(max_shard_size)
    stem, ext = _split_name(filename)
    safetensors = ext == ".safetensors"
    if safetensors:
        bad = [k for k, v in state_dict.items() if not isinstance(v, Tensor)]
        if bad:
            raise ArgumentTypeError(
                f"save_sharded: safetensors shards hold tensors only; "
                f"{bad[0]!r} is a {type(state_dict[bad[0]]).__name__} "
                "(use filename='model.pt')"
            )
    meta = getattr(state_dict, "_metadata", None)
    try:
        meta_json = json.loads(json.dumps(meta)) if meta is not None else None
    except (TypeError, ValueError):
        raise SerializationError(
            "save_sharded: the state dict's _metadata holds values JSON can't store"
        ) from None
    shards, size, total = [[]], 0, 0
    for keys, nbytes in _groups(state_dict):
        if shards[-1] and size + nbytes > limit:
            shards.append([])
            size = 0
        shards[-1].extend(keys)
        size += nbytes
        total += nbytes
    os.makedirs(directory, exist_ok=True)
    names = [f"{stem}-{i + 1:05d}-of-{len(shards):05d}{ext}" for i in range(len(shards))]
    shard_of = {}
    for name, keys in zip(names, shards):
        part = collections.OrderedDict((k, state_dict[k]) for k in keys)
        (save_safetensors if safetensors else save)(part, os.path.join(directory, name))
        shard_of.update((k, name) for k in keys)
    weight_map = {k: shard_of[k] for k in state_dict}
    index = {
        "metadata": {"total_size": total, "format": "safetensors" if safetensors else "pt"},
        "weight_map": weight_map,
    }
    if meta_json is not None:
        index["state_dict_metadata"] = meta_json
    index_path = os.path.join(directory, filename + ".index.json")
    data = json.dumps(index, indent=2).encode("utf-8")
    atomic_write(index_path, lambda fh: fh.write(data))
    stale = re.compile(rf"{re.escape(stem)}-\d{{5}}-of-\d{{5}}{re.escape(ext)}")
    for old in os.listdir(directory):
        if stale.fullmatch(old) and old not in names:
            os.unlink(os.path.join(directory, old))
    return index_path


def _index_path(path):
    if os.path.isdir(path):
        found = sorted(n for n in os.listdir(path) if n.endswith(".index.json"))
        if len(found) != 1:
            raise SerializationError(
                f"load_sharded: {path!r} holds {len(found)} index files "
                f"({', '.join(found) or 'none'}); pass the index file"
            )
        return os.path.join(path, found[0])
    return os.fspath(path)


def load_sharded(path, map_location=None, *, weights_only=True, mmap=None):
    """The state dict that :func:`save_sharded` (or Hugging Face) wrote: ``path`` is the
    folder (holding one ``*.index.json``) or the index file. An OrderedDict in the index's
    order, with ``_metadata`` when the index has it; shards are read with
    :func:`lucid.load` (``map_location``, ``weights_only``, ``mmap``) or, for safetensors
    shards, as their tensors."""
    index_path = _index_path(path)
    try:
        with open(index_path, "rb") as fh:
            index = json.loads(fh.read())
        weight_map = index["weight_map"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        if isinstance(e, FileNotFoundError):
            raise
        raise SerializationError(
            f"load_sharded: {index_path!r} is not a readable shard index ({type(e).__name__}: {e})"
        ) from None
    if not isinstance(weight_map, dict) or not all(
        isinstance(v, str) and os.path.basename(v) == v and v not in ("", ".", "..")
        for v in weight_map.values()
    ):
        raise SerializationError(
            f"load_sharded: {index_path!r} has a weight_map that is not "
            "a map of names to shard file names in its folder"
        )
    folder = os.path.dirname(index_path)
    parts = {}
    for shard in dict.fromkeys(weight_map.values()):
        parts[shard] = load(
            os.path.join(folder, shard),
            map_location=map_location,
            weights_only=weights_only,
            mmap=mmap,
        )
    out = collections.OrderedDict()
    for k, shard in weight_map.items():
        if not isinstance(parts[shard], dict) or k not in parts[shard]:
            raise SerializationError(
                f"load_sharded: the index puts {k!r} in {shard}, which does not hold it"
            )
        out[k] = parts[shard][k]
    meta = index.get("state_dict_metadata")
    if meta is not None:
        out._metadata = collections.OrderedDict(meta)
    return out
