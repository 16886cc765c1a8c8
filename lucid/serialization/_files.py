"""Where the bytes go and come from: paths (written atomically) and binary file objects."""

from __future__ import annotations

import io
import os
import tempfile

from ..errors import ArgumentTypeError

__all__ = ["is_path", "describe", "atomic_write", "write_to", "open_for_reading"]


def is_path(f):
    return isinstance(f, (str, os.PathLike))


def describe(f):
    """How an error names ``f``."""
    return repr(os.fspath(f)) if is_path(f) else "the file object"


def _file_mode(path):
    """The permission bits the saved file gets: the old file's, or the umask's default."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def atomic_write(path, write):
    """Call ``write(fileobj)`` on a temporary file next to ``path``, then rename it over
    ``path``: a failure mid-write leaves what was there intact."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _file_mode(path))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_to(f, write, op):
    """``write(fileobj)`` into path ``f`` (atomically) or binary file object ``f``."""
    if is_path(f):
        atomic_write(f, write)
    elif hasattr(f, "write"):
        if isinstance(f, io.TextIOBase):
            raise ArgumentTypeError(
                f"{op}: the file object must be opened in binary mode (it is a text stream)"
            )
        write(f)
    else:
        raise ArgumentTypeError(
            f"{op}: f must be a path (str or os.PathLike) or a binary "
            f"file object, got {type(f).__name__}"
        )


def open_for_reading(f, op):
    """``(fileobj, close)`` for path or binary file object ``f``: a seekable binary file
    object positioned where reading starts (a non-seekable stream is read into memory)."""
    if is_path(f):
        fh = open(os.fspath(f), "rb")
        return fh, True
    if not hasattr(f, "read"):
        raise ArgumentTypeError(
            f"{op}: f must be a path (str or os.PathLike) or a binary "
            f"file object, got {type(f).__name__}"
        )
    if isinstance(f, io.TextIOBase):
        raise ArgumentTypeError(
            f"{op}: the file object must be opened in binary mode (it is a text stream)"
        )
    seekable = getattr(f, "seekable", None)
    if seekable is not None and seekable():
        return f, False
    data = f.read()
    if not isinstance(data, (bytes, bytearray)):
        raise ArgumentTypeError(
            f"{op}: the file object must be opened in binary mode "
            f"(read() gave {type(data).__name__})"
        )
    return io.BytesIO(data), True
