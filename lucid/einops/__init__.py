"""Tensor reshaping with readable patterns, as in the ``einops`` package.

``rearrange(x, "b c h w -> b (h w) c")`` says what a chain of reshape and permute would
hide. Each function here runs Lucid ops (reshape, permute, expand, sum/mean/amax/amin/prod,
cat/split, einsum), so all are differentiable, eagerly and under ``create_graph``. The plan
of a call is cached per (pattern, input shape, axis lengths): a repeated call only runs the
ops.

Grammar
-------
A pattern is ``left -> right``; each side describes the dims of one tensor::

    side     := item*                          (separated by spaces)
    item     := axis | "(" axis* ")" | "..." | "1"
    axis     := name | number | "..."          ("..." inside parentheses: right side only)
    name     := a Python identifier not starting or ending with "_"

- a **name** is one axis; the same name on both sides is the same axis;
- ``(h w)`` is one dim composed of axes ``h`` and ``w`` (``h`` varies slowest). On the
  left it *decomposes* a dim (at most one axis of a group may have an unknown length; give
  the others as keywords: ``rearrange(x, "(h w) c -> h w c", h=4)``); on the right it
  *composes* the axes into one dim;
- ``...`` stands for any number of dims, the same on both sides (``(...)`` on the right
  merges them into one);
- ``1`` and ``()`` are a unit dim (length 1); a number ``n > 1`` is an anonymous axis of
  length ``n``: a new axis on the right of ``repeat``, a reduced axis on the left of
  ``reduce``.

Which axes may appear on one side only: none for :func:`rearrange`; the reduced ones on the
left of :func:`reduce`; the new ones on the right of :func:`repeat`. :func:`einsum` takes one
term per tensor (``"b i d, b j d -> b i j"``), :func:`pack` / :func:`unpack` a list of names
with one ``*`` (``"b * c"``). :mod:`lucid.einops.layers` has ``Rearrange`` and ``Reduce``
as modules.

Errors are :class:`~lucid.errors.ArgumentError` (a pattern the function does not accept) or
:class:`~lucid.errors.ShapeError` (a tensor that does not fit it), naming the function, the
pattern, the input shapes and the given lengths.
"""

from . import layers
from .contraction import einsum
from .packing import pack, unpack
from .transforms import parse_shape, rearrange, reduce, repeat

__all__ = ["rearrange", "reduce", "repeat", "pack", "unpack", "einsum", "parse_shape", "layers"]
