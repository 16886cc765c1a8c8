"""``lucid.backends.mkldnn``: oneDNN (MKL-DNN), as ``torch.backends.mkldnn``. Lucid links
no oneDNN (CPU kernels run on NumPy), so :func:`is_available` is False; ``enabled`` is the
plain settable switch programs set, read by nothing."""

from __future__ import annotations

import contextlib
import sys

__all__ = ["enabled", "is_available", "flags"]

enabled = True


def is_available() -> bool:
    """Whether oneDNN is linked: never in Lucid."""
    return False


@contextlib.contextmanager
def flags(enabled=False):
    """Set ``enabled`` inside the block and restore it after."""
    mod = sys.modules[__name__]
    old, mod.enabled = mod.enabled, enabled
    try:
        yield
    finally:
        mod.enabled = old
