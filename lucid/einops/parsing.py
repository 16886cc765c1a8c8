"""Parsing one side of an einops pattern (``"b (h w) ... c"``) into its groups.

A side is a sequence of *groups* separated by spaces; each group is one dimension of the
tensor. A group is a single axis (``h``), a parenthesised composition of axes (``(h w)``,
``()``), the ellipsis ``...`` (any number of dimensions), or an anonymous axis (a number).
``1`` alone is a group of no axes (a dimension of length 1); inside parentheses it is
dropped. Parsing depends only on the text, so it is cached per string.
"""

import functools

from ..errors import ArgumentError, ArgumentTypeError

ELLIPSIS = "..."


class Anonymous:
    """An axis written as a number (``3``): its length is the number. Every occurrence is a
    distinct axis, so two ``3`` s are never the same axis (``Anonymous`` compares by
    identity)."""

    __slots__ = ("length",)

    def __init__(self, length):
        self.length = length

    def __repr__(self):
        return str(self.length)


class Expression:
    """One parsed side: ``groups`` (a tuple whose items are tuples of axes, or
    :data:`ELLIPSIS` for a bare ``...``), ``axes`` (the set of axes it names, the ellipsis
    included), and where its ellipsis sits."""

    __slots__ = ("groups", "axes", "has_ellipsis", "ellipsis_in_group")

    def __init__(self, groups, axes, ellipsis_in_group):
        self.groups = groups
        self.axes = axes
        self.has_ellipsis = ELLIPSIS in axes
        self.ellipsis_in_group = ellipsis_in_group

    def expand(self, ellipsis_axes):
        """The groups with the ellipsis replaced by ``ellipsis_axes``: a bare ``...`` by one
        group per axis, a ``(... x)`` by the axes spliced into its group."""
        out: list = []
        for g in self.groups:
            if g is ELLIPSIS:
                out.extend((a,) for a in ellipsis_axes)
            else:
                out.append(tuple(a for b in g for a in (ellipsis_axes if b is ELLIPSIS else (b,))))
        return out


def check_pattern(pattern):
    """``pattern``, which must be a string."""
    if not isinstance(pattern, str):
        raise ArgumentTypeError(f"the pattern must be a string, got {type(pattern).__name__}")
    return pattern


def check_name(name, *, allow_underscore=False):
    """Why ``name`` is not a valid axis name (None if it is): a Python identifier that does not
    start or end with ``_`` (``_`` alone where ``allow_underscore``)."""
    if not name.isidentifier():
        return "not a valid Python identifier"
    if (name[0] == "_" or name[-1] == "_") and not (allow_underscore and name == "_"):
        return "an axis name must not start or end with an underscore"
    return None


@functools.lru_cache(maxsize=1024)
def parse(text, *, allow_underscore=False, allow_duplicates=False):
    """Parse one side of a pattern into an :class:`Expression`; raises
    :class:`~lucid.errors.ArgumentError` on bad syntax or a repeated axis."""
    if "." in text and (text.count("...") != 1 or text.count(".") != 3):
        raise ArgumentError(f"'{text.strip()}': dots may appear only as one ellipsis '...'")
    groups, axes, group, in_group = [], set(), None, False
    for token in text.replace("(", " ( ").replace(")", " ) ").split():
        if token == "(":
            if group is not None:
                raise ArgumentError(f"'{text.strip()}': parentheses cannot be nested")
            group = []
        elif token == ")":
            if group is None:
                raise ArgumentError(f"'{text.strip()}': unbalanced parentheses")
            groups.append(tuple(group))
            group = None
        else:
            axis = _axis(token, text, allow_underscore)
            if axis is None:  # the number 1
                if group is None:
                    groups.append(())
                continue
            if axis in axes and not allow_duplicates and not (allow_underscore and axis == "_"):
                raise ArgumentError(f"'{text.strip()}': axis '{axis}' appears twice")
            axes.add(axis)
            if group is not None:
                group.append(axis)
                in_group = in_group or axis is ELLIPSIS
            else:
                groups.append(ELLIPSIS if axis is ELLIPSIS else (axis,))
    if group is not None:
        raise ArgumentError(f"'{text.strip()}': unbalanced parentheses")
    return Expression(tuple(groups), frozenset(axes), in_group)


def _axis(token, text, allow_underscore):
    """The axis that ``token`` names: a name, :data:`ELLIPSIS`, an :class:`Anonymous`, or None
    for ``1``."""
    if token == ELLIPSIS:
        return ELLIPSIS
    if token.isdecimal():
        n = int(token)
        if n == 0:
            raise ArgumentError(
                f"'{text.strip()}': an anonymous axis must have a positive length, got {token}"
            )
        return None if n == 1 else Anonymous(n)
    reason = check_name(token, allow_underscore=allow_underscore)
    if reason is not None:
        raise ArgumentError(f"'{text.strip()}': invalid axis '{token}' ({reason})")
    return token
