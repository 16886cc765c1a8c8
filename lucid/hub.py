"""``lucid.hub``: checkpoints fetched by URL into a cache folder, as ``torch.hub``'s
download half.

The cache is ``$LUCID_HOME/hub`` (``LUCID_HOME`` defaults to ``~/.cache/lucid``; or
:func:`set_dir`), checkpoints under ``checkpoints/``. A file name of the form
``name-<hex>.ext`` carries the first hex digits of the file's SHA-256 (torchvision's
convention): with ``check_hash`` a download whose digest does not start with them is
refused and removed. A download is written to a temporary file beside its target and
renamed over it once complete, so an interrupted one never leaves a partial checkpoint in
the cache. The progress bar is tqdm's where tqdm is installed.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import urllib.parse
import urllib.request

from .errors import LucidError
from .serialization import load

__all__ = [
    "HashMismatchError",
    "get_dir",
    "set_dir",
    "download_url_to_file",
    "load_state_dict_from_url",
]

_DIR: list = []  # a folder set by set_dir
_HASH = re.compile(r"-([a-f0-9]{6,})\.")


class HashMismatchError(LucidError, RuntimeError):
    """A downloaded file's SHA-256 does not start with the prefix its name promises."""


def get_dir() -> str:
    """The hub's cache folder: :func:`set_dir`'s, else ``$LUCID_HOME/hub``."""
    if _DIR:
        return _DIR[0]
    home = os.environ.get("LUCID_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "lucid",
    )
    return os.path.join(os.path.expanduser(home), "hub")


def set_dir(d) -> None:
    """Use folder ``d`` as the hub's cache from now on."""
    _DIR[:] = [os.path.expanduser(os.fspath(d))]


def _progress(total, name, enabled):
    if enabled:
        try:
            from tqdm import tqdm
        except ImportError:
            tqdm = None
        if tqdm is not None:
            return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=name)
    return None


def download_url_to_file(url, dst, hash_prefix=None, progress=True) -> None:
    """Fetch ``url`` into file ``dst`` (through a temporary file renamed over it), checking
    that its SHA-256 starts with ``hash_prefix`` where given."""
    dst = os.path.expanduser(os.fspath(dst))
    folder = os.path.dirname(os.path.abspath(dst))
    os.makedirs(folder, exist_ok=True)
    sha = hashlib.sha256()
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".download-")
    try:
        with urllib.request.urlopen(url) as src, os.fdopen(fd, "wb") as out:
            size = src.headers.get("Content-Length") if hasattr(src, "headers") else None
            bar = _progress(int(size) if size else None, os.path.basename(dst), progress)
            try:
                while chunk := src.read(1 << 20):
                    out.write(chunk)
                    sha.update(chunk)
                    if bar is not None:
                        bar.update(len(chunk))
            finally:
                if bar is not None:
                    bar.close()
        digest = sha.hexdigest()
        if hash_prefix is not None and not digest.startswith(hash_prefix):
            raise HashMismatchError(
                f"download_url_to_file: {url} has SHA-256 {digest}, which does not start "
                f"with {hash_prefix!r} as its name promises; the file was not kept"
            )
        shutil.move(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load_state_dict_from_url(
    url,
    model_dir=None,
    map_location=None,
    progress=True,
    check_hash=False,
    file_name=None,
    weights_only=True,
):
    """The object saved at ``url`` (a ``state_dict``), fetched once into ``model_dir``
    (default ``get_dir()/checkpoints``) as ``file_name`` (default: the URL's last part) and
    read from there on later calls; ``check_hash`` verifies the name's SHA-256 prefix on
    the download. Read with :func:`lucid.load` (PyTorch's file format included)."""
    folder = (
        os.fspath(model_dir) if model_dir is not None else os.path.join(get_dir(), "checkpoints")
    )
    name = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        prefix = None
        if check_hash:
            m = _HASH.search(name)
            prefix = m.group(1) if m else None
        download_url_to_file(url, path, prefix, progress)
    return load(path, map_location=map_location, weights_only=weights_only)
