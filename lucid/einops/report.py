"""Error messages of :mod:`lucid.einops`: each names the function, the pattern, the input
shapes and the given axis lengths."""

from ..errors import set_op_name


def annotate(err, op, pattern, shapes, axes_lengths):
    """Make Lucid error ``err`` (in place) start with ``op`` and end with the call's context:
    ``rearrange: axes 'c' appear on one side only; pattern 'a b -> a c', input shape (2, 3)``."""
    set_op_name(err, op)
    where = f"; pattern {pattern!r}"
    if shapes:
        where += f", input shape{'s' * (len(shapes) > 1)} " + ", ".join(
            str(tuple(s)) for s in shapes
        )
    if axes_lengths:
        where += ", axes lengths " + ", ".join(f"{k}={v}" for k, v in axes_lengths.items())
    err.args = (str(err.args[0]) + where,) + tuple(err.args[1:])
