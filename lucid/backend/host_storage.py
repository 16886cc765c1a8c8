"""Storages as bytes, for ``lucid.save`` / ``lucid.load`` in PyTorch's file format.

A tensor's array is a view of its *storage*: the array owning its memory (``Backend._root``).
PyTorch's files store each storage once, as its raw little-endian bytes, and every tensor as
an (offset, size, stride) view of one; this module does the array side of that: a tensor's
layout over its storage, a storage's bytes on the host, a storage array over bytes read from
a file (or memory-mapped from it).
"""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["layout", "storage_bytes", "storage_array", "as_bytes", "bytes_as", "LITTLE"]

LITTLE = sys.byteorder == "little"


def layout(be, a):
    """``(root, offset, strides)`` of backend array ``a`` over its storage ``root``, the
    offset and strides in elements of ``a``'s dtype; None where ``a``'s memory is not such
    a view (negative or misaligned strides, a storage that is not one contiguous block or
    not a whole number of ``a``'s elements)."""
    root = be._root(a)
    item = a.itemsize
    if root.nbytes % item or not (root.flags.c_contiguous or root.flags.f_contiguous):
        return None
    if any(s < 0 or s % item for s in a.strides):
        return None
    off = be.data_ptr(a) - be.data_ptr(root) if a.size else 0
    if off < 0 or off % item:
        return None
    return root, off // item, tuple(s // item for s in a.strides)


def storage_bytes(be, root):
    """The bytes of storage ``root`` on the host, in memory order and little-endian, as a
    ``memoryview`` (no copy for a little-endian CPU array)."""
    h = be.to_numpy(root).ravel(order="K")
    if h.dtype.byteorder == ">" or (h.dtype.byteorder == "=" and not LITTLE):
        h = h.astype(h.dtype.newbyteorder("<"))
    return memoryview(h.view(np.uint8))


def storage_array(buf, dt, count, offset=0, swap=False):
    """A 1-D host array of ``count`` elements of Lucid dtype ``dt`` over the bytes of
    ``buf`` from byte ``offset`` (shared, not copied); ``swap``: the bytes are of the
    other byte order than this machine's (the array is then a converted copy)."""
    a = np.frombuffer(buf, dt.np, count, offset)
    return a.byteswap() if swap else a


def as_bytes(a):
    """Host array ``a`` (1-D, contiguous) viewed as its bytes (uint8)."""
    return a.view(np.uint8)


def bytes_as(a, dt):
    """A host uint8 array ``a`` viewed as Lucid dtype ``dt`` (its length a multiple of the
    itemsize), or None when it is not."""
    if a.size % dt.itemsize:
        return None
    return a.view(dt.np)
