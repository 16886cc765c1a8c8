"""The plan of a ``rearrange`` / ``reduce`` / ``repeat`` call: which reshapes, reduction,
permutation and expansion turn the input shape into the output shape.

Every such call is the same pipeline over the *elementary* axes (the single axes after
splitting the left groups):

1. ``reshape`` the input to the elementary shape (decomposing ``(h w)`` into ``h, w``);
2. reduce the elementary axes absent from the right side (``reduce``);
3. ``permute`` the kept axes into the right side's order;
4. insert the right side's new axes as length-1 dims and ``expand`` them (``repeat``);
5. ``reshape`` into the right side's groups (composing ``(h w)``).

A step that would change nothing is left out. The plan depends only on the operation kind,
the pattern, the input shape and the given axis lengths, so it is cached on them.
"""

import functools
import math
import numbers

from ..errors import ArgumentError, ShapeError
from .parsing import ELLIPSIS, Anonymous, check_name, check_pattern, parse


class Plan:
    """What to run, in order; a field is None (or empty) where its step is skipped."""

    __slots__ = ("elementary", "reduced", "perm", "unexpanded", "expanded", "final")

    def __init__(self, elementary, reduced, perm, unexpanded, expanded, final):
        self.elementary, self.reduced, self.perm = elementary, reduced, perm
        self.unexpanded, self.expanded, self.final = unexpanded, expanded, final


def _split(pattern):
    """The two sides of ``"left -> right"``."""
    sides = check_pattern(pattern).split("->")
    if len(sides) != 2:
        raise ArgumentError("a pattern needs exactly one '->'")
    return sides


@functools.lru_cache(maxsize=1024)
def sides(kind, pattern, names):
    """The parsed left and right sides of ``pattern``, checked against the rules of ``kind``
    ("rearrange", "reduce" or "repeat") and the axis ``names`` given lengths; raises
    :class:`~lucid.errors.ArgumentError` for a pattern that ``kind`` does not accept."""
    left_text, right_text = _split(pattern)
    left, right = parse(left_text), parse(right_text)
    _check_sides(kind, left, right)
    for name in names:
        reason = check_name(name)
        if reason is not None:
            raise ArgumentError(f"invalid axis name '{name}' ({reason})")
        if name not in left.axes and name not in right.axes:
            raise ArgumentError(f"axis '{name}' is given a length but not used in the pattern")
    return left, right


@functools.lru_cache(maxsize=1024)
def plan(kind, pattern, shape, lengths):
    """The :class:`Plan` of ``kind`` applying ``pattern`` to a tensor of ``shape``, with
    ``lengths`` the ``(axis, length)`` pairs given as keywords. Raises
    :class:`~lucid.errors.ArgumentError` for a bad pattern or length and
    :class:`~lucid.errors.ShapeError` for a shape that does not fit the pattern."""
    left, right = sides(kind, pattern, tuple(name for name, _ in lengths))
    left_groups, right_groups = _expand_ellipsis(left, right, len(shape))
    known = {}
    for name, n in lengths:
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
            raise ArgumentError(
                f"the length of axis '{name}' must be a non-negative int, got {n!r}"
            )
        known[name] = int(n)
    known.update((a, a.length) for a in left.axes | right.axes if isinstance(a, Anonymous))
    for group, dim in zip(left_groups, shape):
        _infer(group, dim, known)

    elementary = [a for g in left_groups for a in g]
    on_right = [a for g in right_groups for a in g]
    kept_set, from_left = set(on_right), set(elementary)
    reduced = tuple(i for i, a in enumerate(elementary) if a not in kept_set)
    kept = [a for a in elementary if a in kept_set]
    perm = tuple(kept.index(a) for a in on_right if a in from_left)

    missing = [a for a in on_right if a not in known]
    if missing:
        raise ArgumentError(f"give the length of new axis {_names(missing)} as a keyword")
    expanded = tuple(known[a] for a in on_right)
    unexpanded = tuple(known[a] if a in from_left else 1 for a in on_right)
    final = tuple(math.prod(known[a] for a in g) for g in right_groups)

    elementary = tuple(known[a] for a in elementary)
    return Plan(
        None if elementary == shape else elementary,
        reduced,
        None if perm == tuple(range(len(perm))) else perm,
        unexpanded if len(on_right) > len(perm) else None,
        expanded,
        None if final == expanded else final,
    )


def _check_sides(kind, left, right):
    """The pattern-level rules: which axes may appear on one side only, per ``kind``."""
    if right.has_ellipsis and not left.has_ellipsis:
        raise ArgumentError("'...' appears on the right but not on the left")
    if left.ellipsis_in_group:
        raise ArgumentError("'...' cannot be inside parentheses on the left")
    if kind == "rearrange":
        if any(isinstance(a, Anonymous) for a in left.axes | right.axes):
            raise ArgumentError(
                "rearrange takes no anonymous axes other than 1 (use repeat "
                "to add axes, reduce to remove them)"
            )
        only = left.axes ^ right.axes
        if only:
            raise ArgumentError(f"axes {_names(only)} appear on one side only")
    elif kind == "repeat":
        only = left.axes - right.axes
        if only:
            raise ArgumentError(
                f"axes {_names(only)} on the left are missing on the right "
                "(repeat cannot remove axes)"
            )
    else:
        only = right.axes - left.axes
        if only:
            raise ArgumentError(
                f"axes {_names(only)} on the right are not on the left (reduce cannot add axes)"
            )


def _expand_ellipsis(left, right, ndim):
    """Both sides' groups with the ellipsis replaced by the dims it stands for."""
    n_named = len(left.groups) - left.has_ellipsis
    if left.has_ellipsis:
        if ndim < n_named:
            raise ShapeError(f"expected at least {n_named} dims, got a {ndim}-dim tensor")
    elif ndim != n_named:
        raise ShapeError(f"expected {n_named} dims, got a {ndim}-dim tensor")
    axes = tuple(f"{ELLIPSIS}{i}" for i in range(ndim - n_named))
    return left.expand(axes), right.expand(axes)


def _infer(group, dim, known):
    """Check that the left ``group`` fits a dim of length ``dim``, inferring its one axis of
    unknown length into ``known``."""
    unknown = [a for a in group if a not in known]
    part = math.prod(known[a] for a in group if a in known)
    if len(unknown) > 1:
        raise ArgumentError(
            f"cannot infer the lengths of {_names(unknown)} in one group; "
            "give all but one as keywords"
        )
    if not unknown:
        if part != dim:
            raise ShapeError(
                f"group {_group(group)} has length {part}, but the dim it matches has length {dim}"
            )
    elif part == 0 or dim % part:
        raise ShapeError(
            f"a dim of length {dim} does not divide into {_group(group)} with known part {part}"
        )
    else:
        known[unknown[0]] = dim // part


def _names(axes):
    return ", ".join(sorted(f"'{a}'" for a in axes))


def _group(group):
    return "(" + " ".join(map(str, group)) + ")" if len(group) != 1 else str(group[0])
