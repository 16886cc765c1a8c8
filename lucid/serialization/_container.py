"""PyTorch's containers: the zip archive ``torch.save`` writes, and its legacy format.

The zip archive (uncompressed, every record's data 64-byte aligned, so that storages can be
memory-mapped in place) holds, under one folder named after the file (``archive`` for a
file object):

==============================  ================================================
``data.pkl``                    the object, pickled with protocol 2; each storage a
                                persistent id ``('storage', torch.<Type>Storage, key,
                                location, numel)``
``.format_version``             ``1``
``.storage_alignment``          ``64``
``byteorder``                   ``little`` (or ``big``: the storages' byte order)
``data/<key>``                  each storage's raw bytes
``version``                     ``3``
``.data/serialization_id``      an identifier of this save (40 decimal digits)
==============================  ================================================

The legacy format (``torch.save(..., _use_new_zipfile_serialization=False)``) is a sequence
of pickles (a magic number, the protocol version 1001, a dict of system information, the
object, the list of storage keys) followed by each storage as an int64 element count and
its bytes.
"""

from __future__ import annotations

import io
import mmap as _mmap
import os
import pickle
import pickletools
import secrets
import struct
import zipfile

from .. import dtypes as _dt
from ..backend import host_storage as hs
from ..errors import SerializationError
from ._files import describe
from ._rebuild import LoadedStorage
from ._unpickler import InertUnpickler, WeightsOnlyUnpickler
from ._names import StorageType

__all__ = ["write_zip", "ZipReader", "LegacyReader", "sniff", "archive_name"]

_ALIGN = 64
_PAD_ID = 0x6C75  # the extra field that pads a record's header
_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL = 1001
_LEGACY_HEAD = pickle.dumps(_LEGACY_MAGIC, protocol=2)
_CHUNK = 64 << 20


def archive_name(f):
    """The folder of the archive: the file's name up to its first dot, as PyTorch names it
    (``archive`` for a file object)."""
    if isinstance(f, (str, os.PathLike)):
        stem = os.path.basename(os.fspath(f)).split(".")[0]
        if stem and stem.isprintable() and "/" not in stem:
            return stem
    return "archive"


def _record(zf, name, data):
    """Write one stored record whose data starts at a multiple of 64 bytes."""
    data = memoryview(data).cast("B") if not isinstance(data, bytes) else data
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.file_size = n = len(data)
    zip64 = n * 1.05 > zipfile.ZIP64_LIMIT
    start = zf.start_dir  # where this record's header goes
    head = 30 + len(name.encode("utf-8")) + (20 if zip64 else 0) + 4
    pad = -(start + head) % _ALIGN
    info.extra = struct.pack("<HH", _PAD_ID, pad) + b"Z" * pad
    with zf.open(info, "w", force_zip64=zip64) as w:
        for i in range(0, n, _CHUNK):
            w.write(data[i : i + _CHUNK])


def write_zip(fh, archive, pickled, storages):
    """Write the archive of pickle bytes ``pickled`` and ``storages`` (``[(key, backend,
    root array)]``, as :class:`~._pickler.Pickler` collected them) to file object ``fh``."""
    with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        _record(zf, f"{archive}/data.pkl", pickled)
        _record(zf, f"{archive}/.format_version", b"1")
        _record(zf, f"{archive}/.storage_alignment", b"64")
        _record(zf, f"{archive}/byteorder", b"little")
        for key, be, root in storages:
            _record(zf, f"{archive}/data/{key}", hs.storage_bytes(be, root))
        _record(zf, f"{archive}/version", b"3\n")
        _record(
            zf, f"{archive}/.data/serialization_id", f"{secrets.randbits(128):040d}".encode("ascii")
        )


def sniff(fh):
    """``"zip"``, ``"legacy"``, ``"safetensors"`` or None: the format of the file at
    ``fh``'s position, from its first bytes (the position is kept)."""
    pos = fh.tell()
    head = fh.read(len(_LEGACY_HEAD))
    fh.seek(pos)
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if head == _LEGACY_HEAD:
        return "legacy"
    if len(head) >= 9 and head[8:9] == b"{":
        return "safetensors"
    return None


def _pid_parts(pid):
    if not (isinstance(pid, tuple) and len(pid) in (5, 6) and pid[0] == "storage"):
        raise SerializationError(
            f"load: the file refers to the persistent id "
            f"{repr(pid)[:80]}, expected ('storage', type, key, "
            "location, numel)"
        )
    stype, key, loc, numel = pid[1:5]
    if not (
        isinstance(stype, StorageType)
        and isinstance(key, str)
        and isinstance(loc, str)
        and isinstance(numel, int)
        and numel >= 0
    ):
        raise SerializationError(
            f"load: the file has a malformed storage reference {repr(pid)[:120]}"
        )
    return stype, key, loc, numel, (pid[5] if len(pid) == 6 else None)


class _Reader:
    """What both containers share: the storage look-up that a pickle's persistent ids go
    through, each storage read once."""

    def __init__(self, f, locate):
        self.f, self.locate = f, locate
        self._storages = {}

    def persistent_load(self, pid):
        stype, key, loc, numel, view = _pid_parts(pid)
        st = self._storages.get(key)
        if st is None:
            dt = stype.dtype
            host = self.read_storage(key, dt or _dt.uint8, numel)
            st = self._storages[key] = LoadedStorage(key, host, dt, loc, self.locate)
        if view is not None:
            st = self._view(st, view)
        return st

    def _view(self, st, view):
        """A legacy storage view ``(view_key, offset, size)`` of storage ``st``."""
        if not (
            isinstance(view, tuple)
            and len(view) == 3
            and isinstance(view[0], str)
            and all(isinstance(v, int) and v >= 0 for v in view[1:])
        ):
            raise SerializationError(f"load: malformed storage view {view!r} in the file")
        got = self._storages.get(view[0])
        if got is None:
            key, offset, size = view
            if offset + size > st.host.size:
                raise SerializationError(
                    f"load: storage view {view!r} reaches past its "
                    f"storage of {st.host.size} elements"
                )
            got = self._storages[key] = LoadedStorage(
                key, st.host[offset : offset + size], st.dtype, st.location, self.locate
            )
        return got


class ZipReader(_Reader):
    """The archive in ``fh``; storages read (CRC-checked) or memory-mapped from the file."""

    def __init__(self, fh, f, locate, mmap=False):
        super().__init__(f, locate)
        try:
            self.zf = zipfile.ZipFile(fh)
            names = self.zf.namelist()
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, struct.error) as e:
            raise SerializationError(
                f"load: {describe(f)} is not a readable zip archive (truncated or corrupt?): {e}"
            ) from None
        self.prefix = names[0].split("/")[0] if names else ""
        if f"{self.prefix}/data.pkl" not in names:
            raise SerializationError(
                f"load: {describe(f)} is a zip archive without "
                "<archive>/data.pkl, not a file torch.save or "
                "lucid.save wrote"
            )
        order = self._read_small("byteorder", b"little")
        if order not in (b"little", b"big"):
            raise SerializationError(f"load: {describe(f)} has byteorder {order!r}")
        self.swap = (order == b"little") != hs.LITTLE
        self.map = None
        if mmap:
            self.map = self._map(fh, f)

    def _read_small(self, name, default):
        try:
            return self.zf.read(f"{self.prefix}/{name}")
        except KeyError:
            return default
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, struct.error) as e:
            raise SerializationError(
                f"load: {describe(self.f)}: record {name} is "
                f"unreadable (truncated or corrupt?): {e}"
            ) from None

    def pickle_bytes(self):
        return self._read_small("data.pkl", None)

    @staticmethod
    def _map(fh, f):
        try:
            fileno = fh.fileno()
        except (AttributeError, OSError, io.UnsupportedOperation):
            raise SerializationError(
                "load: mmap=True needs a file on disk (a path, or a file object with a fileno())"
            ) from None
        return _mmap.mmap(fileno, 0, access=_mmap.ACCESS_COPY)

    def read_storage(self, key, dt, numel):
        name = f"{self.prefix}/data/{key}"
        nbytes = numel * dt.itemsize
        try:
            info = self.zf.getinfo(name)
        except KeyError:
            raise SerializationError(
                f"load: {describe(self.f)} lacks the record {name} of "
                "a storage it refers to (truncated or corrupt?)"
            ) from None
        if info.file_size < nbytes:
            raise SerializationError(
                f"load: record {name} of {describe(self.f)} has "
                f"{info.file_size} bytes, the storage needs {nbytes}"
            )
        if self.map is not None:
            return hs.storage_array(self.map, dt, numel, self._data_offset(info), self.swap)
        buf = bytearray(nbytes)
        try:
            with self.zf.open(info) as r:
                view, got = memoryview(buf), 0
                while got < nbytes:
                    n = r.readinto(view[got:])
                    if not n:
                        break
                    got += n
                if got < nbytes:
                    raise EOFError(f"{got} of {nbytes} bytes")
                r.read()  # to its end: checks the record's CRC
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, struct.error) as e:
            raise SerializationError(
                f"load: record {name} of {describe(self.f)} is "
                f"unreadable (truncated or corrupt?): {e}"
            ) from None
        return hs.storage_array(buf, dt, numel, 0, self.swap)

    def _data_offset(self, info):
        if info.compress_type != zipfile.ZIP_STORED:
            raise SerializationError(
                f"load: mmap=True needs stored records; {info.filename} is compressed"
            )
        off = info.header_offset
        head = self.map[off : off + 30]
        if len(head) < 30 or head[:4] != b"PK\x03\x04":
            raise SerializationError(
                f"load: {describe(self.f)}: no local header for {info.filename} (corrupt?)"
            )
        n, m = struct.unpack("<HH", head[26:30])
        start = off + 30 + n + m
        if start + info.file_size > len(self.map):
            raise SerializationError(
                f"load: {describe(self.f)} is truncated: {info.filename} reaches past its end"
            )
        return start


def _end_of_pickle(data, start):
    """The offset just past the pickle that starts at ``data[start:]`` (read, not run)."""
    end = None
    for op, _, pos in pickletools.genops(io.BytesIO(data[start:])):
        if op.name == "STOP":
            end = start + pos + 1
            break
    if end is None:
        raise SerializationError("load: the legacy file's object pickle has no end")
    return end


class LegacyReader(_Reader):
    """A legacy-format file, read whole: ``pickle_bytes()`` is the object's pickle."""

    def __init__(self, fh, f, locate, encoding="utf-8"):
        super().__init__(f, locate)
        data = fh.read()
        buf = io.BytesIO(data)

        def plain():  # one of the header's plain pickles (no storages)
            return WeightsOnlyUnpickler(buf, self._no_pid, encoding=encoding).load()

        try:
            if plain() != _LEGACY_MAGIC or plain() != _LEGACY_PROTOCOL:
                raise SerializationError(
                    f"load: {describe(f)} has a legacy header of an unknown version"
                )
            info = plain()
            little = info.get("little_endian", True) if isinstance(info, dict) else True
            self.order = "little" if little else "big"
            self.swap = bool(little) != hs.LITTLE
            start = buf.tell()
            end = _end_of_pickle(data, start)
            walk = InertUnpickler(io.BytesIO(data[start:end]), encoding=encoding)
            walk.load()
            buf.seek(end)
            keys = plain()
            if not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
                raise SerializationError(f"load: {describe(f)} has a malformed storage list")
        except SerializationError:
            raise
        except Exception as e:  # noqa: BLE001  (any failure of a corrupt header)
            raise SerializationError(
                f"load: {describe(f)} is not a readable legacy PyTorch "
                f"file (truncated or corrupt?): {type(e).__name__}: "
                f"{e}"
            ) from None
        self._pickled = data[start:end]
        self._data = self._storage_bytes(data, buf.tell(), keys, walk.pids)

    @staticmethod
    def _no_pid(pid):
        raise SerializationError("load: a persistent id in a legacy file's header")

    def _storage_bytes(self, data, pos, keys, pids):
        """``{key: (offset, count)}`` of each storage's elements in ``data``."""
        dtypes = {}
        for pid in pids:
            stype, key, _, _, _ = _pid_parts(pid)
            dtypes[key] = stype.dtype or _dt.uint8
        where = {}
        for key in keys:
            if key not in dtypes or pos + 8 > len(data):
                raise SerializationError(
                    f"load: {describe(self.f)} is truncated or corrupt (storage {key!r})"
                )
            count = int.from_bytes(data[pos : pos + 8], self.order)
            pos += 8
            nbytes = count * dtypes[key].itemsize
            if pos + nbytes > len(data):
                raise SerializationError(
                    f"load: {describe(self.f)} is truncated: storage {key!r} needs {nbytes} bytes"
                )
            where[key] = (pos, count)
            pos += nbytes
        self._raw = data
        return where

    def pickle_bytes(self):
        return self._pickled

    def read_storage(self, key, dt, numel):
        got = self._data.get(key)
        if got is None or got[1] < numel:
            raise SerializationError(
                f"load: {describe(self.f)} lacks the data of storage "
                f"{key!r} (truncated or corrupt?)"
            )
        pos = got[0]
        return hs.storage_array(
            bytearray(self._raw[pos : pos + numel * dt.itemsize]), dt, numel, 0, self.swap
        )
