"""``save`` and ``load`` themselves: the format told by a file's first bytes (PyTorch's zip
or legacy layout, safetensors, Lucid's earlier files), the pickle written or read over
the storages, ``map_location``, and the weights-only check of a checkpoint's globals.
The package docstring (:mod:`lucid.serialization`) describes the formats and the safety
rule."""

from __future__ import annotations

import io
import pickle

from .._tensor import from_numpy
from ..errors import ArgumentTypeError, LucidError, SerializationError
from ._container import LegacyReader, ZipReader, archive_name, sniff, write_zip
from ._files import describe, is_path, open_for_reading, write_to
from ._location import Locator
from ._pickler import DEFAULT_PROTOCOL, Pickler
from ._safetensors import is_lucid1, load_lucid1, read_safetensors
from ._unpickler import FullUnpickler, WeightsOnlyUnpickler, unsafe_globals

__all__ = ["save", "load", "get_unsafe_globals_in_checkpoint"]

_PICKLE_ARGS = ("encoding", "errors", "fix_imports")


def save(
    obj,
    f,
    pickle_module=pickle,
    pickle_protocol=DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization=True,
    _disable_byteorder_record=False,
) -> None:
    """Save ``obj`` (tensors, state dicts, optimizer states, nested containers, whole
    modules, any picklable object) to ``f``, a path or a binary file object, in PyTorch's
    zip format (``torch.load`` reads it)."""
    if pickle_module is not pickle:
        raise ArgumentTypeError(
            "save: pickle_module must be the pickle module (Lucid "
            "writes its pickle with Python's own)"
        )
    if not isinstance(pickle_protocol, int) or not 2 <= pickle_protocol <= pickle.HIGHEST_PROTOCOL:
        raise ArgumentTypeError(
            f"save: pickle_protocol must be an int from 2 to "
            f"{pickle.HIGHEST_PROTOCOL}, got {pickle_protocol!r}"
        )
    if not _use_new_zipfile_serialization:
        raise ArgumentTypeError(
            "save: Lucid writes only PyTorch's zip format "
            "(_use_new_zipfile_serialization=True); it reads both"
        )
    if not (is_path(f) or hasattr(f, "write")):
        raise ArgumentTypeError(
            f"save: f must be a path (str or os.PathLike) or a binary "
            f"file object, got {type(f).__name__}"
        )
    buf = io.BytesIO()
    pickler = Pickler(buf, pickle_protocol)
    pickler.dump(obj)
    pickled = buf.getvalue()
    archive = archive_name(f)
    write_to(f, lambda fh: write_zip(fh, archive, pickled, pickler.storages), "save")


def load(
    f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args
):
    """Load what :func:`save` or ``torch.save`` wrote to ``f`` (a path or a binary file
    object), or a safetensors file.

    ``map_location``: None (each storage on the device it was saved from), a device or
    device string (all there), a dict of saved location strings to others, or a callable
    ``(storage, location) -> storage`` (the storage a 1-D CPU tensor; None: the default).
    ``weights_only`` (default True, unless a ``pickle_module`` is given): rebuild only
    tensors, containers and allowed globals, executing nothing from the file; False runs
    the file's pickle in full (trusted files only). ``mmap=True`` maps the storages of a
    zip-format file from disk instead of reading them (copy on write: the file is never
    changed). ``pickle_load_args``: ``encoding`` (default ``"utf-8"``; ``"latin1"`` for
    files of Python 2), ``errors``, ``fix_imports``."""
    if pickle_module is not None and pickle_module is not pickle:
        raise ArgumentTypeError("load: pickle_module must be None or the pickle module")
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise ArgumentTypeError(
            "load: can't load safely (weights_only=True) with an "
            "explicit pickle_module; pass weights_only=False"
        )
    bad = set(pickle_load_args) - set(_PICKLE_ARGS)
    if bad:
        raise ArgumentTypeError(
            f"load: unexpected keyword arguments {sorted(bad)}; the "
            f"pickle arguments are {', '.join(_PICKLE_ARGS)}"
        )
    kwargs = dict(pickle_load_args)
    kwargs.setdefault("encoding", "utf-8")
    locate = Locator(map_location)
    fh, close = open_for_reading(f, "load")
    try:
        kind = sniff(fh)
        if kind == "safetensors":
            return _load_safetensors(f if is_path(f) else fh, locate)
        if kind == "zip":
            reader = ZipReader(fh, f, locate, mmap=bool(mmap))
        elif kind == "legacy":
            if mmap:
                raise SerializationError(
                    "load: mmap=True needs a file in the zip format; "
                    f"{describe(f)} is in PyTorch's legacy format"
                )
            reader = LegacyReader(fh, f, locate, kwargs["encoding"])
        else:
            raise SerializationError(
                f"load: {describe(f)} is not a file that lucid.save, "
                "torch.save or safetensors writes (empty, truncated "
                "or of another format)"
            )
        return _unpickle(reader, weights_only, kwargs, f)
    finally:
        if close:
            fh.close()


def get_unsafe_globals_in_checkpoint(f):
    """The globals (``"module.name"``) of the checkpoint ``f`` that ``load(weights_only=True)``
    would refuse now, found by reading its pickle without running it (PyTorch's function of
    the same name): what to pass to :func:`add_safe_globals` if you trust them. A
    safetensors file holds none."""
    fh, close = open_for_reading(f, "get_unsafe_globals_in_checkpoint")
    try:
        kind = sniff(fh)
        if kind == "safetensors":
            return []
        if kind == "zip":
            reader = ZipReader(fh, f, None)
        elif kind == "legacy":
            reader = LegacyReader(fh, f, None)
        else:
            raise SerializationError(
                f"get_unsafe_globals_in_checkpoint: {describe(f)} is "
                "not a file that lucid.save or torch.save writes"
            )
        try:
            return unsafe_globals(reader.pickle_bytes() or b"")
        except Exception as e:  # noqa: BLE001  (pickletools on corrupt bytes)
            raise SerializationError(
                f"get_unsafe_globals_in_checkpoint: {describe(f)} has a "
                f"corrupt pickle ({type(e).__name__}: {e})"
            ) from None
    finally:
        if close:
            fh.close()


def _load_safetensors(f, locate):
    metadata, arrays = read_safetensors(f, "load")
    if is_lucid1(metadata):
        return load_lucid1(metadata, arrays, locate, f)
    return {k: locate(from_numpy(a), "cpu") for k, (_, a) in arrays.items()}


def _unpickle(reader, weights_only, kwargs, f):
    data = reader.pickle_bytes()
    if data is None:
        raise SerializationError(f"load: {describe(f)} has no data.pkl record")
    cls = WeightsOnlyUnpickler if weights_only else FullUnpickler
    if weights_only:
        kwargs = {k: v for k, v in kwargs.items() if k != "fix_imports"}
    unpickler = cls(io.BytesIO(data), reader.persistent_load, **kwargs)
    try:
        return unpickler.load()
    except LucidError:
        raise
    except Exception as e:  # noqa: BLE001
        if not weights_only and not isinstance(e, (pickle.UnpicklingError, EOFError)):
            raise  # the file's own code failed (weights_only=False)
        raise SerializationError(
            f"load: {describe(f)} has a corrupt pickle ({type(e).__name__}: {e})"
        ) from None
