"""``rearrange``, ``reduce`` and ``repeat``: a cached :class:`~lucid.einops.recipe.Plan` run
as Lucid ops (reshape, a reduction, permute, expand), so each is differentiable and its
backward is the backward of those ops."""

from .. import ops
from .._tensor import Tensor
from ..errors import ArgumentError, ArgumentTypeError, LucidError, ShapeError
from .parsing import Anonymous, check_pattern, parse
from .recipe import plan
from .report import annotate


def _prod(x, dims):
    for d in sorted(dims, reverse=True):  # prod reduces one dim at a time
        x = ops.prod(x, d)
    return x


REDUCTIONS = {
    "sum": ops.sum,
    "mean": ops.mean,
    "max": ops.amax,
    "min": ops.amin,
    "prod": _prod,
    "any": ops.any,
    "all": ops.all,
}


def reducer(reduction):
    """The function ``f(tensor, dims)`` that ``reduction`` (a name or a callable) stands for."""
    if isinstance(reduction, str):
        if reduction not in REDUCTIONS:
            raise ArgumentError(
                f"unknown reduction '{reduction}'; expected one of "
                f"{', '.join(REDUCTIONS)} or a callable"
            )
        return REDUCTIONS[reduction]
    if not callable(reduction):
        raise ArgumentTypeError(
            f"reduction must be a string or a callable, got {type(reduction).__name__}"
        )
    return reduction


def _apply(kind, tensor, pattern, reduction, axes_lengths):
    """Run the plan of ``kind`` on ``tensor`` (a list or tuple of tensors is stacked along a
    new dim 0 first)."""
    if not isinstance(tensor, (Tensor, list, tuple)):
        raise ArgumentTypeError(
            f"{kind}: expected a Tensor or a list of Tensors, got {type(tensor).__name__}"
        )
    x = tensor
    try:
        if not isinstance(x, Tensor):
            if not x:
                raise ArgumentError("got an empty list of tensors")
            x = ops.stack(x)
        p = plan(kind, check_pattern(pattern), x._data.shape, tuple(axes_lengths.items()))
        if kind == "reduce":
            reduction = reducer(reduction)
        y = x
        if p.elementary is not None:
            y = ops.reshape(y, p.elementary)
        if p.reduced:
            y = reduction(y, p.reduced)
        if p.perm is not None:
            y = ops.permute(y, p.perm)
        if p.unexpanded is not None:
            y = ops.expand(ops.reshape(y, p.unexpanded), p.expanded)
        if p.final is not None:
            y = ops.reshape(y, p.final)
        return y
    except LucidError as e:
        shapes = [getattr(t, "shape", ()) for t in ([x] if isinstance(x, Tensor) else x)]
        annotate(e, kind, pattern, shapes, axes_lengths)
        raise


def rearrange(tensor, pattern, **axes_lengths):
    """Reorder, split and merge the dims of ``tensor`` as ``pattern`` says.

    ``rearrange(x, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=4, p2=4)`` cuts images into
    4x4 patches. Both sides name the same axes (plus any ``1`` / ``()`` unit dims); a list of
    tensors is stacked along a new first dim first. The result is a view where reshape and
    permute allow one. See :mod:`lucid.einops` for the grammar.
    """
    return _apply("rearrange", tensor, pattern, None, axes_lengths)


def reduce(tensor, pattern, reduction, **axes_lengths):
    """Reduce the axes of ``tensor`` that are absent from the right side of ``pattern``.

    ``reduction`` is ``"sum"``, ``"mean"``, ``"max"``, ``"min"``, ``"prod"``, ``"any"``,
    ``"all"``, or a callable ``f(tensor, dims)`` reducing the tuple of dims ``dims``
    (``lucid.logsumexp``). ``reduce(x, "b c (h 2) (w 2) -> b c h w", "max")`` is a 2x2 max
    pool; ``reduce(x, "b c h w -> b c 1 1", "mean")`` keeps the reduced dims as length 1.
    """
    return _apply("reduce", tensor, pattern, reduction, axes_lengths)


def repeat(tensor, pattern, **axes_lengths):
    """Repeat ``tensor`` along the right side's new axes (each given a length as a keyword or
    written as a number), possibly merged with existing ones.

    ``repeat(x, "h w -> h w c", c=3)`` adds a dim; ``repeat(x, "h w -> (h 2) (w 2)")``
    upsamples by 2 (each element repeated, as ``repeat_interleave``); ``repeat(x, "h w ->
    (2 h) w")`` tiles. The gradient sums over the copies.
    """
    return _apply("repeat", tensor, pattern, None, axes_lengths)


def parse_shape(tensor, pattern):
    """The lengths of the named dims of ``tensor``, as a dict: ``parse_shape(x, "b _ h w")``
    is ``{"b": 2, "h": 5, "w": 7}`` (``_`` skips a dim, ``...`` any number of dims, ``1``
    and numbers check a dim's length; no compositions)."""
    shape = tuple(tensor.shape)
    try:
        e = parse(check_pattern(pattern), allow_underscore=True)
        groups = (
            e.expand(("_",) * max(len(shape) - len(e.groups) + 1, 0))
            if e.has_ellipsis
            else e.groups
        )
        if len(groups) != len(shape):
            raise ShapeError(
                f"expected {'at least ' * e.has_ellipsis}{len(groups)} dims, "
                f"got a {len(shape)}-dim tensor"
            )
        out = {}
        for g, d in zip(groups, shape):
            if len(g) > 1:
                raise ArgumentError("parse_shape takes single axes, not compositions")
            a = g[0] if g else None
            if a is None or isinstance(a, Anonymous):
                if d != (a.length if a else 1):
                    raise ShapeError(f"a dim of length {d} does not match axis {a or 1}")
            elif a != "_":
                out[a] = d
    except LucidError as err:
        annotate(err, "parse_shape", pattern, (shape,), {})
        raise
    return out
