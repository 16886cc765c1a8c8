"""``pack`` and ``unpack``: join tensors of different ranks along one flattened ``*`` axis,
and split them back.

A packing pattern is axis names and one ``*``, separated by spaces (``"b * c"``): the named
axes match each tensor's leading and trailing dims, and ``*`` stands for all the dims
between, flattened into one. ``pack`` concatenates the flattened tensors along that dim and
returns the shapes that ``*`` stood for; ``unpack`` splits along it and restores them.
"""

import functools
import math

from .. import ops
from ..errors import ArgumentError, LucidError, ShapeError
from .parsing import check_name, check_pattern
from .report import annotate


@functools.lru_cache(maxsize=256)
def _split(pattern):
    """``(number of axes before *, number after)`` of a packing pattern."""
    axes = pattern.split()
    if axes.count("*") != 1:
        raise ArgumentError("a packing pattern needs exactly one '*'")
    if len(set(axes)) != len(axes):
        raise ArgumentError("an axis appears twice")
    for a in axes:
        reason = a != "*" and check_name(a)
        if reason:
            raise ArgumentError(f"invalid axis '{a}' ({reason})")
    before = axes.index("*")
    return before, len(axes) - before - 1


def pack(tensors, pattern):
    """Pack ``tensors`` into one tensor by flattening the dims that ``*`` stands for in each
    and concatenating along that dim.

    Returns ``(packed, packed_shapes)``, the latter the tuple of dims ``*`` stood for in each
    input. ``pack([a, b], "b * c")`` with shapes ``(2, 5)`` and ``(2, 3, 4, 5)`` gives a
    ``(2, 13, 5)`` tensor and ``[(), (3, 4)]``.
    """
    tensors = list(tensors)
    shapes = tuple(t.shape for t in tensors)
    try:
        if not tensors:
            raise ArgumentError("got no tensors")
        before, after = _split(check_pattern(pattern))
        flat, packed_shapes = [], []
        for i, t in enumerate(tensors):
            s = t._data.shape
            if len(s) < before + after:
                raise ShapeError(
                    f"tensor {i} has {len(s)} dims, the pattern needs at least {before + after}"
                )
            star = s[before : len(s) - after]
            packed_shapes.append(star)
            flat.append(ops.reshape(t, s[:before] + (math.prod(star),) + s[len(s) - after :]))
        return ops.cat(flat, before), packed_shapes
    except LucidError as e:
        annotate(e, "pack", pattern, shapes, {})
        raise


def unpack(tensor, packed_shapes, pattern):
    """Split ``tensor`` along the ``*`` dim of ``pattern`` into one tensor per shape in
    ``packed_shapes``, that dim restored to the shape (the inverse of :func:`pack`; one
    shape may hold a -1, inferred). The results are views of ``tensor``."""
    shape = tensor._data.shape
    try:
        before, after = _split(check_pattern(pattern))
        if len(shape) != before + 1 + after:
            raise ShapeError(f"expected a {before + 1 + after}-dim tensor, got {len(shape)} dims")
        sizes = [-1 if -1 in s else math.prod(s) for s in packed_shapes]
        total = shape[before]
        if sizes.count(-1) > 1:
            raise ArgumentError(f"packed shapes {list(packed_shapes)} hold more than one -1")
        rest = total - sum(n for n in sizes if n != -1)
        if -1 in sizes and rest >= 0:
            sizes[sizes.index(-1)] = rest
        elif rest != 0 or -1 in sizes:
            raise ShapeError(
                f"a dim of length {total} cannot be split into packed shapes {list(packed_shapes)}"
            )
        parts = ops.split(tensor, sizes, before) if len(sizes) > 1 else [tensor]
        return [
            ops.reshape(p, shape[:before] + tuple(s) + shape[before + 1 :])
            for p, s in zip(parts, packed_shapes)
        ]
    except LucidError as e:
        annotate(e, "unpack", pattern, (shape,), {})
        raise
