"""``lucid.save`` / ``lucid.load`` on the safetensors format; ``save_safetensors`` /
``load_safetensors`` for flat dicts of tensors (files that PyTorch's
``safetensors.torch.save_file`` writes load by name).

A file written by :func:`save` is a plain safetensors file: every tensor of ``obj`` is stored
under a generated key (``"0"``, ``"1"``, ...) and the rest of ``obj``, the structure around
the tensors, is JSON in the file's metadata under ``"lucid"``. The JSON is a tree whose
lists are lists and whose every other non-scalar is a tagged object ``{"$t": tag, ...}``:
``dict`` / ``odict`` (items as ``[key, value]`` pairs, so keys keep their type: an
optimizer's state is keyed by ints), ``tuple``, ``size``, ``float`` (only NaN and the
infinities, which JSON lacks), ``bytes`` (base64), ``dtype``, ``device`` and ``tensor``
(its key, device, ``requires_grad`` and whether it was an ``nn.Parameter``; complex64 is
stored as safetensors' ``C64``, complex128, which the format has no dtype for, as its
``view_as_real`` pairs marked ``"complex": true``, and ``save_safetensors`` refuses it).
Loading builds
only these types: nothing in a file can name a class or run code, and a structure with
anything else is refused with a :class:`~lucid.errors.SerializationError`. No pickle is
involved anywhere.

A tensor is saved as its values (a view or a non-contiguous tensor as a compact copy of what
it shows); one tensor object that occurs several times in ``obj`` is stored once and loads
as one object. Writing to a path goes to a temporary file in the same directory, renamed
over the target only once complete, so a failure mid-write leaves what was there intact.
"""

from __future__ import annotations

import base64
import collections
import json
import math
import numbers
import os
import tempfile

import safetensors
from safetensors import numpy as _stnp

from . import dtypes as _dt
from ._device import device as _device_cls
from ._tensor import Tensor, Size, from_numpy
from .backend import host
from .errors import ArgumentTypeError, DeviceError, LucidError, SerializationError

__all__ = ["save", "load", "save_safetensors", "load_safetensors"]

_FORMAT = "lucid/1"

# safetensors dtype codes and the Lucid dtype each one loads as
_CODES = {"F64": _dt.float64, "F32": _dt.float32, "F16": _dt.float16, "BF16": _dt.bfloat16,
          "I64": _dt.int64, "I32": _dt.int32, "I16": _dt.int16, "I8": _dt.int8,
          "U8": _dt.uint8, "BOOL": _dt.bool, "C64": _dt.complex64}


def _parameter_class():
    """``lucid.nn.Parameter`` when the nn layer defines it, else None."""
    from .nn import parameter
    return getattr(parameter, "Parameter", None)


# -- writing -----------------------------------------------------------------------------

def _host_array(t):
    """Tensor ``t``'s values as a C-contiguous host array (no copy when it is one)."""
    return host.contiguous(t._device.backend.to_numpy(t._data))


class _Encoder:
    """Turns an object into its JSON tree, collecting its tensors' arrays by key."""

    def __init__(self):
        self.arrays = {}
        self._keys = {}         # id(tensor) -> key, so a repeated tensor is stored once
        self._alive = []        # the tensors keyed by id, kept alive while encoding
        self._param = _parameter_class()

    def encode(self, obj):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, Tensor):
            return self._tensor(obj)
        if isinstance(obj, numbers.Integral):
            return int(obj)
        if isinstance(obj, numbers.Real):
            v = float(obj)
            return v if math.isfinite(v) else {"$t": "float", "v": repr(v)}
        if isinstance(obj, dict):
            tag = "odict" if isinstance(obj, collections.OrderedDict) else "dict"
            return {"$t": tag, "items": [[self.encode(k), self.encode(v)]
                                         for k, v in obj.items()]}
        if isinstance(obj, Size):
            return {"$t": "size", "items": list(obj)}
        if isinstance(obj, tuple):
            return {"$t": "tuple", "items": [self.encode(v) for v in obj]}
        if isinstance(obj, list):
            return [self.encode(v) for v in obj]
        if isinstance(obj, (bytes, bytearray)):
            return {"$t": "bytes", "v": base64.b64encode(bytes(obj)).decode("ascii")}
        if isinstance(obj, _dt.dtype):
            return {"$t": "dtype", "v": obj.name}
        if isinstance(obj, _device_cls):
            return {"$t": "device", "v": str(obj)}
        raise ArgumentTypeError(
            f"save: can't save an object of type {type(obj).__name__}; lucid.save stores "
            "tensors, numbers, strings, bytes, None, dtypes, devices and dicts, lists and "
            "tuples of them (save a module's or optimizer's state_dict(), not the object)")

    def _tensor(self, t):
        key = self._keys.get(id(t))
        if key is None:
            key = self._keys[id(t)] = str(len(self.arrays))
            self._alive.append(t)
            a = _host_array(t)
            self.arrays[key] = host.complex_as_pairs(a) if t._dtype is _dt.complex128 else a
        node = {"$t": "tensor", "key": key, "device": str(t._device),
                "requires_grad": t._requires_grad,
                "param": self._param is not None and isinstance(t, self._param)}
        if t._dtype is _dt.complex128:
            node["complex"] = True       # stored as (real, imaginary) pairs
        return node


def _file_mode(path):
    """The permission bits the saved file gets: the old file's, or the umask's default."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _write(arrays, metadata, f, op):
    """Write a safetensors file of ``arrays`` to path or binary file object ``f``."""
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        folder = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.",
                                   suffix=".tmp")
        os.close(fd)
        try:
            _stnp.save_file(arrays, tmp, metadata=metadata)
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
            os.chmod(tmp, _file_mode(path))
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise
    elif hasattr(f, "write"):
        data = _stnp.save(arrays, metadata=metadata)
        try:
            f.write(data)
        except TypeError:
            raise ArgumentTypeError(f"{op}: the file object must be opened in binary mode "
                                    "(its write() refused bytes)") from None
    else:
        raise ArgumentTypeError(f"{op}: f must be a path (str or os.PathLike) or a binary "
                                f"file object, got {type(f).__name__}")


def save(obj, f) -> None:
    """Save ``obj`` (tensors, numbers, strings, None and dicts, lists and tuples of them:
    state dicts, optimizer states, checkpoints) to ``f``, a path or a binary file object,
    as a safetensors file whose metadata holds the structure as JSON."""
    enc = _Encoder()
    tree = enc.encode(obj)
    metadata = {"format": _FORMAT,
                "lucid": json.dumps(tree, separators=(",", ":"), allow_nan=False)}
    _write(enc.arrays, metadata, f, "save")


def save_safetensors(tensors, path, metadata=None) -> None:
    """Save a flat ``{name: Tensor}`` dict as a plain safetensors file (the layout of
    ``safetensors.torch.save_file``), with optional ``{str: str}`` ``metadata``; written
    to a temporary file renamed over ``path``."""
    if not isinstance(tensors, dict):
        raise ArgumentTypeError(f"save_safetensors: expected a dict of tensors, got "
                                f"{type(tensors).__name__}")
    arrays = {}
    for k, t in tensors.items():
        if not isinstance(k, str) or not isinstance(t, Tensor):
            raise ArgumentTypeError(
                f"save_safetensors: expected str keys and Tensor values, got "
                f"{type(k).__name__} -> {type(t).__name__} (for nested or non-tensor "
                "entries use lucid.save)")
        if t._dtype is _dt.complex128:
            raise SerializationError(f"save_safetensors: tensor {k!r} is complex128, which "
                                     "the safetensors format has no dtype for (complex64 "
                                     "it has); save view_as_real(t), or use lucid.save")
        arrays[k] = _host_array(t)
    if metadata is not None and not (isinstance(metadata, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())):
        raise ArgumentTypeError("save_safetensors: metadata must be a dict of str to str")
    _write(arrays, metadata, path, "save_safetensors")


# -- reading -----------------------------------------------------------------------------

def _name(f):
    return repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else "the file object"


def _read(f, op):
    """``(metadata, {key: (code, array)})`` of the safetensors file at path or in binary
    file object ``f``; a file that safetensors cannot parse raises SerializationError."""
    try:
        if isinstance(f, (str, os.PathLike)):
            with safetensors.safe_open(os.fspath(f), framework="numpy") as fh:
                metadata = fh.metadata()
                specs = {k: fh.get_slice(k) for k in fh.keys()}
                codes = {k: s.get_dtype() for k, s in specs.items()}
                _check_codes(codes, f, op)
                # (get_tensor gives a 0-d tensor shape (1,): its slice has the true shape)
                return metadata, {k: (c, fh.get_tensor(k).reshape(specs[k].get_shape()))
                                  for k, c in codes.items()}
        if not hasattr(f, "read"):
            raise ArgumentTypeError(f"{op}: f must be a path (str or os.PathLike) or a "
                                    f"binary file object, got {type(f).__name__}")
        data = f.read()
        if not isinstance(data, (bytes, bytearray)):
            raise ArgumentTypeError(f"{op}: the file object must be opened in binary mode "
                                    f"(read() gave {type(data).__name__})")
        entries = safetensors.deserialize(data if isinstance(data, bytes) else bytes(data))
        # deserialize has validated the header: its length prefix and JSON
        header = json.loads(data[8:8 + int.from_bytes(data[:8], "little")])
        metadata = header.get("__metadata__")
        codes = {k: v["dtype"] for k, v in entries}
        _check_codes(codes, f, op)
        return metadata, {k: (v["dtype"], host.from_buffer(v["data"], _CODES[v["dtype"]],
                                                           v["shape"])) for k, v in entries}
    except safetensors.SafetensorError as e:
        raise SerializationError(f"{op}: {_name(f)} is not a readable safetensors file "
                                 f"(truncated or corrupt?): {e}") from None
    except FileNotFoundError:
        raise
    except OSError as e:
        raise SerializationError(f"{op}: can't read {_name(f)}: {e}") from None


def _check_codes(codes, f, op):
    for k, c in codes.items():
        if c not in _CODES:
            raise SerializationError(f"{op}: tensor {k!r} of {_name(f)} has dtype {c}, which "
                                     f"Lucid has no dtype for; expected one of "
                                     f"{', '.join(_CODES)}")


def _locate(map_location, op):
    """A function (tensor, saved device string) -> tensor implementing ``map_location``."""
    if map_location is None:
        return lambda t, loc: t if loc == "cpu" else t.to(loc)
    if callable(map_location):
        return map_location
    if isinstance(map_location, dict):
        def remap(t, loc):
            loc = map_location.get(loc, loc)
            return t if loc == "cpu" else t.to(loc)
        return remap
    if isinstance(map_location, (str, _device_cls)):
        dev = _device_cls(map_location)
        return lambda t, loc: t.to(dev)
    raise ArgumentTypeError(f"{op}: map_location must be None, a device, a str, a dict or "
                            f"a callable, got {type(map_location).__name__}")


class _Decoder:
    """Rebuilds an object from its JSON tree; refuses every node ``_Encoder`` never makes."""

    def __init__(self, arrays, locate, f):
        self._arrays, self._locate, self._f = arrays, locate, f
        self._tensors = {}
        self._param = _parameter_class()

    def _bad(self, what):
        return SerializationError(f"load: {_name(self._f)} has {what} in its structure; "
                                  "lucid.save never writes that (the file is corrupt or was "
                                  "not written by lucid.save), so it is refused")

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
        try:
            t = self._locate(from_numpy(arr), loc)
        except DeviceError as e:
            raise DeviceError(f"load: can't restore a tensor saved on {loc} ({e}); pass "
                              "map_location='cpu' (or another device) to load it there") \
                from None
        if not isinstance(t, Tensor):
            raise ArgumentTypeError(f"load: map_location returned a "
                                    f"{type(t).__name__}, expected a Tensor")
        rg = node["requires_grad"] is True and t.dtype._grad
        if node["param"] is True and self._param is not None:
            t = self._param(t, requires_grad=rg)
        elif rg:
            t.requires_grad_(True)
        self._tensors[key] = t
        return t


def _no_constant(name):
    raise ValueError(f"the JSON constant {name} (non-finite floats are tagged)")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load what :func:`save` wrote to ``f`` (a path or a binary file object).

    ``map_location``: None (each tensor on the device it was saved from), a device or
    device string (all tensors there), a dict mapping saved device strings to others, or a
    callable ``(tensor, saved_device_str) -> tensor``. A plain safetensors file (written by
    :func:`save_safetensors` or ``safetensors.torch.save_file``) loads as a dict of its
    tensors by name. Nothing in the file is executed whatever ``weights_only`` says;
    ``pickle_module`` must be None (no pickle is used), and ``mmap`` and extra pickle
    arguments are accepted for PyTorch compatibility and have no effect."""
    if pickle_module is not None:
        raise ArgumentTypeError("load: pickle_module must be None; Lucid's files hold no "
                                "pickle and loading never runs code from the file")
    locate = _locate(map_location, "load")
    metadata, arrays = _read(f, "load")
    if not metadata or "lucid" not in metadata:
        return {k: locate(from_numpy(a), "cpu") for k, (_, a) in arrays.items()}
    if metadata.get("format") != _FORMAT:
        raise SerializationError(f"load: {_name(f)} has format {metadata.get('format')!r}; "
                                 f"this version of Lucid reads {_FORMAT!r}")
    try:
        tree = json.loads(metadata["lucid"], parse_constant=_no_constant)
    except ValueError as e:
        raise SerializationError(f"load: {_name(f)} has a corrupt structure (invalid JSON "
                                 f"in its metadata: {e})") from None
    except RecursionError:
        raise SerializationError(f"load: {_name(f)} has a structure nested too deeply to "
                                 "read") from None
    try:
        return _Decoder(arrays, locate, f).decode(tree)
    except RecursionError:
        raise SerializationError(f"load: {_name(f)} has a structure nested too deeply to "
                                 "read") from None


def load_safetensors(path, device="cpu"):
    """The tensors of the safetensors file at ``path`` (any writer: PyTorch's
    ``safetensors.torch.save_file``, :func:`save_safetensors`) as ``{name: Tensor}`` on
    ``device``, in the file's order."""
    dev = _device_cls(device)
    _, arrays = _read(path, "load_safetensors")
    return {k: from_numpy(a) if dev.type == "cpu" else from_numpy(a).to(dev)
            for k, (_, a) in arrays.items()}
