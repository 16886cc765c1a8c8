"""``einsum`` with einops' spelling: axes are words separated by spaces, the pattern comes
after the tensors, and ``->`` is required (``einsum(q, k, "b h i d, b h j d -> b h i j")``).

The pattern is translated to a one-letter equation for :func:`lucid.einsum` (cached per
pattern), which does the contraction and its backward."""

import functools
import string

from .. import ops
from .._tensor import Tensor
from ..errors import ArgumentError, ArgumentTypeError, LucidError
from .parsing import ELLIPSIS, Anonymous, parse
from .report import annotate


@functools.lru_cache(maxsize=256)
def equation(pattern):
    """The :func:`lucid.einsum` equation of an einops einsum ``pattern``: each axis name
    becomes a letter, in order of first appearance."""
    if "->" not in pattern:
        raise ArgumentError("an einsum pattern needs '->'")
    lefts, right = pattern.split("->", 1)
    letters: dict[str, str] = {}

    def term(text, allow_duplicates):
        out = []
        for g in parse(text, allow_underscore=True, allow_duplicates=allow_duplicates).groups:
            if g is ELLIPSIS:
                out.append("...")
            elif len(g) != 1 or g[0] is ELLIPSIS or isinstance(g[0], Anonymous):
                raise ArgumentError(
                    f"einsum takes single named axes and '...', not "
                    f"compositions, unit dims or numbers: '{text.strip()}'"
                )
            else:
                out.append(g[0])
        return out

    terms = [term(t, True) for t in lefts.split(",")]
    for name in (a for t in terms for a in t if a != "..."):
        if name not in letters:
            if len(letters) == len(string.ascii_letters):
                raise ArgumentError(f"more than {len(letters)} distinct axes")
            letters[name] = string.ascii_letters[len(letters)]
    out = term(right, False)
    unknown = [a for a in out if a != "..." and a not in letters]
    if unknown:
        raise ArgumentError(f"axis '{unknown[0]}' on the right is not on the left")
    spell = lambda t: "".join(a if a == "..." else letters[a] for a in t)  # noqa: E731
    return ",".join(map(spell, terms)) + "->" + spell(out)


def einsum(*tensors_and_pattern):
    """Einstein summation over named axes: ``einsum(a, b, "i j, j k -> i k")`` is ``a @ b``.

    The last argument is the pattern: one comma-separated term per tensor, ``->``, the
    output term. Axes are words; ``...`` stands for broadcast dims; an axis repeated in one
    term takes its diagonal; axes absent from the output are summed.
    """
    if not tensors_and_pattern or not isinstance(tensors_and_pattern[-1], str):
        raise ArgumentTypeError(
            "einsum: the last argument must be the pattern string, as "
            "in einsum(a, b, 'i j, j k -> i k')"
        )
    *tensors, pattern = tensors_and_pattern
    shapes = [t.shape if isinstance(t, Tensor) else () for t in tensors]
    try:
        if not tensors:
            raise ArgumentError("expected at least one tensor before the pattern")
        eq = equation(pattern)
        if eq.count(",") + 1 != len(tensors):
            raise ArgumentError(
                f"the pattern has {eq.count(',') + 1} terms but {len(tensors)} tensors were given"
            )
        return ops.einsum(eq, *tensors)
    except LucidError as e:
        annotate(e, "einsum", pattern, shapes, {})
        raise
