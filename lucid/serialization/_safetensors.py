"""Safetensors files: ``save_safetensors`` / ``load_safetensors`` for flat dicts of tensors
(files that PyTorch's ``safetensors.torch.save_file`` writes load by name), and the files
that Lucid's ``save`` wrote before it wrote PyTorch's format (``"format": "lucid/1"``).

A lucid/1 file is a plain safetensors file: every tensor of the saved object under a
generated key (``"0"``, ``"1"``, ...), the structure around the tensors as JSON in the
file's metadata under ``"lucid"``: a tree whose lists are lists and whose every other
non-scalar is a tagged object ``{"$t": tag, ...}``: ``dict`` / ``odict`` (items as
``[key, value]`` pairs), ``tuple``, ``size``, ``float`` (NaN and the infinities), ``bytes``
(base64), ``dtype``, ``device`` and ``tensor`` (its key, device, ``requires_grad``, whether
it was an ``nn.Parameter``, ``"complex": true`` for complex128 stored as ``view_as_real``
pairs). Reading builds only these types; anything else is refused with a
:class:`~lucid.errors.SerializationError`. No pickle is involved.
"""

from __future__ import annotations

import base64
import collections
import json
import os

import safetensors
from safetensors import numpy as _stnp

from .. import dtypes as _dt
from .._device import device as _device_cls
from .._tensor import Tensor, Size, from_numpy
from ..backend import host
from ..errors import ArgumentTypeError, LucidError, SerializationError
from ._files import describe as _name, is_path, open_for_reading, write_to
from ..nn import parameter

__all__ = ["save_safetensors", "load_safetensors", "read_safetensors", "is_lucid1", "load_lucid1"]

_FORMAT = "lucid/1"

# safetensors dtype codes and the Lucid dtype each one loads as
_CODES = {
    "F64": _dt.float64,
    "F32": _dt.float32,
    "F16": _dt.float16,
    "BF16": _dt.bfloat16,
    "I64": _dt.int64,
    "I32": _dt.int32,
    "I16": _dt.int16,
    "I8": _dt.int8,
    "U8": _dt.uint8,
    "BOOL": _dt.bool,
    "C64": _dt.complex64,
}


def _parameter_class():
    return parameter.Parameter


def _host_array(t):
    """Tensor ``t``'s values as a C-contiguous host array (no copy when it is one)."""
    return host.contiguous(t._device.backend.to_numpy(t._data))


def save_safetensors(tensors, path, metadata=None) -> None:
    """Save a flat ``{name: Tensor}`` dict as a plain safetensors file (the layout of
    ``safetensors.torch.save_file``), with optional ``{str: str}`` ``metadata``; written
    to a temporary file renamed over ``path``."""
    if not isinstance(tensors, dict):
        raise ArgumentTypeError(
            f"save_safetensors: expected a dict of tensors, got {type(tensors).__name__}"
        )
    arrays = {}
    for k, t in tensors.items():
        if not isinstance(k, str) or not isinstance(t, Tensor):
            raise ArgumentTypeError(
                f"save_safetensors: expected str keys and Tensor values, got "
                f"{type(k).__name__} -> {type(t).__name__} (for nested or non-tensor "
                "entries use lucid.save)"
            )
        if t._dtype is _dt.complex128:
            raise SerializationError(
                f"save_safetensors: tensor {k!r} is complex128, which "
                "the safetensors format has no dtype for (complex64 "
                "it has); save view_as_real(t), or use lucid.save"
            )
        arrays[k] = _host_array(t)
    if metadata is not None and not (
        isinstance(metadata, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())
    ):
        raise ArgumentTypeError("save_safetensors: metadata must be a dict of str to str")
    data = _stnp.save(arrays, metadata=metadata)
    write_to(path, lambda fh: fh.write(data), "save_safetensors")


# -- reading ---------------------------------------------------------------------


def read_safetensors(f, op="load"):
    """``(metadata, {key: (code, array)})`` of the safetensors file at path or in binary
    file object ``f``; a file that safetensors cannot parse raises SerializationError."""
    try:
        if is_path(f):
            with safetensors.safe_open(os.fspath(f), framework="numpy") as fh:
                metadata = fh.metadata()
                specs = {k: fh.get_slice(k) for k in fh.keys()}
                codes = {k: s.get_dtype() for k, s in specs.items()}
                _check_codes(codes, f, op)
                # (get_tensor gives a 0-d tensor shape (1,): its slice has the true shape)
                return metadata, {
                    k: (c, fh.get_tensor(k).reshape(specs[k].get_shape())) for k, c in codes.items()
                }
        data = f.read()
        if not isinstance(data, (bytes, bytearray)):
            raise ArgumentTypeError(
                f"{op}: the file object must be opened in binary mode "
                f"(read() gave {type(data).__name__})"
            )
        entries = safetensors.deserialize(data if isinstance(data, bytes) else bytes(data))
        # deserialize has validated the header: its length prefix and JSON
        header = json.loads(data[8 : 8 + int.from_bytes(data[:8], "little")])
        metadata = header.get("__metadata__")
        codes = {k: v["dtype"] for k, v in entries}
        _check_codes(codes, f, op)
        return metadata, {
            k: (v["dtype"], host.from_buffer(v["data"], _CODES[v["dtype"]], v["shape"]))
            for k, v in entries
        }
    except safetensors.SafetensorError as e:
        raise SerializationError(
            f"{op}: {_name(f)} is not a readable safetensors file (truncated or corrupt?): {e}"
        ) from None
    except FileNotFoundError:
        raise
    except OSError as e:
        raise SerializationError(f"{op}: can't read {_name(f)}: {e}") from None


def _check_codes(codes, f, op):
    for k, c in codes.items():
        if c not in _CODES:
            raise SerializationError(
                f"{op}: tensor {k!r} of {_name(f)} has dtype {c}, which "
                f"Lucid has no dtype for; expected one of "
                f"{', '.join(_CODES)}"
            )


class _Decoder:
    """Rebuilds an object from its JSON tree; refuses every node ``_Encoder`` never makes."""

    def __init__(self, arrays, locate, f):
        self._arrays, self._locate, self._f = arrays, locate, f
        self._tensors = {}
        self._param = _parameter_class()

    def _bad(self, what):
        return SerializationError(
            f"load: {_name(self._f)} has {what} in its structure; "
            "lucid.save never writes that (the file is corrupt or was "
            "not written by lucid.save), so it is refused"
        )

    def decode(self, node):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        if not isinstance(node, dict):
            raise self._bad(f"a {type(node).__name__}")
        tag = node.get("$t")
        try:
            if tag in ("dict", "odict"):
                out = collections.OrderedDict() if tag == "odict" else {}
                for k, v in node["items"]:
                    k = self.decode(k)
                    if isinstance(k, (list, dict)):
                        raise self._bad(f"an unhashable dict key ({type(k).__name__})")
                    out[k] = self.decode(v)
                return out
            if tag == "tuple":
                return tuple(self.decode(v) for v in node["items"])
            if tag == "size":
                if not all(type(v) is int for v in node["items"]):
                    raise self._bad("a size that is not a list of ints")
                return Size(node["items"])
            if tag == "float":
                if node["v"] not in ("nan", "inf", "-inf"):
                    raise self._bad(f"the float {node['v']!r}")
                return float(node["v"])
            if tag == "bytes":
                return base64.b64decode(node["v"], validate=True)
            if tag in ("dtype", "device"):
                try:
                    return (_dt.as_dtype if tag == "dtype" else _device_cls)(str(node["v"]))
                except LucidError as e:
                    raise self._bad(f"the {tag} {node['v']!r} ({e})") from None
            if tag == "tensor":
                return self._tensor(node)
        except (KeyError, TypeError, ValueError) as e:
            if isinstance(e, LucidError):
                raise
            raise self._bad(f"a malformed {tag!r} entry ({type(e).__name__}: {e})") from None
        raise self._bad(f"an entry of unknown type {tag!r}")

    def _tensor(self, node):
        key = node["key"]
        t = self._tensors.get(key)
        if t is not None:
            return t
        if key not in self._arrays:
            raise self._bad(f"a reference to tensor {key!r}, which the file does not hold")
        loc = str(node["device"])
        arr = self._arrays[key][1]
        if node.get("complex", False) is not False:
            arr = host.pairs_as_complex(arr) if node["complex"] is True else None
            if arr is None:
                raise self._bad(f"complex tensor {key!r} not stored as float32/float64 pairs")
        t = self._locate(from_numpy(arr), loc)
        rg = node["requires_grad"] is True and t.dtype._grad
        if node["param"] is True:
            t = self._param(t, requires_grad=rg)
        elif rg:
            t.requires_grad_(True)
        self._tensors[key] = t
        return t


def _no_constant(name):
    raise ValueError(f"the JSON constant {name} (non-finite floats are tagged)")


def is_lucid1(metadata):
    """Whether a safetensors file's ``metadata`` is that of a file Lucid's ``save`` wrote."""
    return bool(metadata) and "lucid" in metadata


def load_lucid1(metadata, arrays, locate, f):
    """The object a lucid/1 file holds, its tensors placed by ``locate``."""
    if metadata.get("format") != _FORMAT:
        raise SerializationError(
            f"load: {_name(f)} has format {metadata.get('format')!r}; "
            f"this version of Lucid reads {_FORMAT!r}"
        )
    try:
        tree = json.loads(metadata["lucid"], parse_constant=_no_constant)
        return _Decoder(arrays, locate, f).decode(tree)
    except ValueError as e:
        if isinstance(e, LucidError):
            raise
        raise SerializationError(
            f"load: {_name(f)} has a corrupt structure (invalid JSON in its metadata: {e})"
        ) from None
    except RecursionError:
        raise SerializationError(
            f"load: {_name(f)} has a structure nested too deeply to read"
        ) from None


def load_safetensors(path, device="cpu"):
    """The tensors of the safetensors file at ``path`` (any writer: PyTorch's
    ``safetensors.torch.save_file``, :func:`save_safetensors`) as ``{name: Tensor}`` on
    ``device``, in the file's order."""
    dev = _device_cls(device)
    if is_path(path):
        _, arrays = read_safetensors(path, "load_safetensors")
    else:
        fh, _ = open_for_reading(path, "load_safetensors")
        _, arrays = read_safetensors(fh, "load_safetensors")
    return {
        k: from_numpy(a) if dev.type == "cpu" else from_numpy(a).to(dev)
        for k, (_, a) in arrays.items()
    }
