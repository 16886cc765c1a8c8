"""Nested containers (tuples, lists, dicts) of leaves, for the transforms' arguments,
outputs, ``in_dims`` and ``out_dims``."""

from __future__ import annotations

from ..errors import ArgumentError

__all__ = ["flatten", "unflatten", "prefix_leaves"]


def _children(x):
    if isinstance(x, (tuple, list)):
        return list(x)
    if isinstance(x, dict):
        return list(x.values())
    return None


def flatten(tree):
    """``(leaves, spec)``: the leaves in depth-first order and what rebuilds the tree."""
    leaves = []

    def go(x):
        ch = _children(x)
        if ch is None:
            leaves.append(x)
            return None
        return (x, [go(c) for c in ch])

    return leaves, go(tree)


def unflatten(spec, leaves):
    """The tree of ``spec`` (from :func:`flatten`) with ``leaves`` in order."""
    it = iter(leaves)

    def go(s):
        if s is None:
            return next(it)
        node, kids = s
        vals = [go(k) for k in kids]
        if isinstance(node, dict):
            return type(node)(zip(node.keys(), vals))
        if isinstance(node, tuple) and hasattr(node, "_fields"):  # a namedtuple
            return type(node)(*vals)
        return type(node)(vals)

    return go(spec)


def prefix_leaves(prefix, tree, what, fn):
    """One entry of ``prefix`` per leaf of ``tree``: ``prefix`` is a leaf (applies to the
    whole subtree) or a container of the same kind and length as ``tree``'s."""
    out = []

    def go(p, x, path):
        pc, xc = _children(p), _children(x)
        if pc is None:
            out.extend([p] * len(flatten(x)[0]))
            return
        if (
            xc is None
            or type(p) is not type(x)
            and not (isinstance(p, (tuple, list)) and isinstance(x, (tuple, list)))
            or len(pc) != len(xc)
            or isinstance(p, dict)
            and p.keys() != x.keys()
        ):
            raise ArgumentError(
                f"{fn}: {what}{path} has structure {_desc(p)} but the "
                f"matching input has structure {_desc(x)}; expected a "
                "single value or the same structure"
            )
        keys = list(p.keys()) if isinstance(p, dict) else range(len(pc))
        for k, a, b in zip(keys, pc, xc):
            go(a, b, f"{path}[{k!r}]")

    go(prefix, tree, "")
    return out


def _desc(x):
    ch = _children(x)
    if ch is None:
        return type(x).__name__
    return f"{type(x).__name__} of {len(ch)}"
