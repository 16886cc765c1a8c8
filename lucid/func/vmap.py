"""``vmap``: vectorize a function over a batch dim by the ops' batching rules.

``vmap(f, in_dims, out_dims)(*args)`` computes ``stack([f(*args_b) for b in batch],
out_dims)`` without the loop: each batched input becomes a
:class:`~lucid.func._batched.BatchedTensor` of one entry's shape, ``f`` runs once, and each
op it calls runs once on the whole batch through its batching rule
(:mod:`lucid.func.batching`). Nested vmaps open nested levels, each with its own batch dim.
"""

from __future__ import annotations

import functools
import numbers

from .._state import STATE
from .._tensor import Tensor
from ..errors import ArgumentError, DimError
from . import _batched as _b
from . import batching  # noqa: F401  (installs the batching hook)
from ._batched import VmapError
from ._pytree import flatten, prefix_leaves, unflatten
from ..ops import cat

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` vectorized over a batch dim of its inputs.

    Parameters
    ----------
    func : callable
        Takes Tensors (or nested tuples, lists, dicts of them) and returns Tensors (or such
        containers). Keyword arguments are passed through unbatched.
    in_dims : int, None or a tree
        The batch dim of each positional argument (negative counts from the end, None: not
        batched, the same value for every entry); one value for all arguments, or a tuple
        with one entry per argument, each a value or a tree matching that argument.
    out_dims : int, None or a tree
        Where each output gets the batch dim; an output that does not depend on the batch
        is broadcast along it (``None``: returned as is, for unbatched outputs only).
    randomness : {'error', 'different', 'same'}
        What a random op (dropout) does on batched input: raise, draw per batch entry, or
        draw once for the whole batch. Tensors drawn by factories (``lucid.randn``) inside
        ``func`` have no batch dim, so they are the same for every entry.
    chunk_size : int, optional
        Run the batch in chunks of this many entries (one vectorized call each, the
        results concatenated) to bound memory; None: all at once.

    Math
    ----
    :math:`\\mathrm{vmap}(f)(x)_b = f(x_b)` for every :math:`b` along the batch dim.

    Notes
    -----
    Each op runs once on the physical batch through its batching rule; an op without a
    rule raises :class:`~lucid.func.VmapError` naming it (``lucid.func.batched_ops()``
    lists the ops with rules). Reading values (``item()``, ``bool()``, ``numpy()``) of a
    batched tensor raises, as does writing in place into one.
    """
    if randomness not in _RANDOMNESS:
        raise ArgumentError(f"vmap: randomness must be one of {_RANDOMNESS}, got {randomness!r}")
    if not callable(func):
        raise ArgumentError(f"vmap: func must be callable, got {type(func).__name__}")
    if chunk_size is not None and not (isinstance(chunk_size, numbers.Integral) and chunk_size > 0):
        raise ArgumentError(f"vmap: chunk_size must be a positive int or None, got {chunk_size!r}")

    @functools.wraps(func)
    def batched(*args, **kwargs):
        if chunk_size is None:
            return _call(func, in_dims, out_dims, randomness, args, kwargs)
        return _chunked(func, in_dims, out_dims, randomness, args, kwargs, chunk_size)

    return batched


def _check_dim(d, what):
    if d is not None and not (isinstance(d, numbers.Integral) and not isinstance(d, bool)):
        raise ArgumentError(
            f"vmap: {what} must be an int or None for each leaf, got {type(d).__name__}"
        )


def _in_dims(in_dims, args):
    if isinstance(in_dims, (tuple, list)):
        if len(in_dims) != len(args):
            raise ArgumentError(
                f"vmap: in_dims has {len(in_dims)} entries but the function "
                f"got {len(args)} positional arguments"
            )
        return prefix_leaves(tuple(in_dims), args, "in_dims", "vmap")
    return prefix_leaves(in_dims, args, "in_dims", "vmap")


def _chunked(func, in_dims, out_dims, randomness, args, kwargs, chunk):
    """vmap over slices of ``chunk`` entries, the outputs concatenated along out_dims."""
    dims = _in_dims(in_dims, args)
    leaves, spec = flatten(args)
    sizes = {
        x.shape[d]
        for x, d in zip(leaves, dims)
        if d is not None and isinstance(x, Tensor) and -x.ndim <= d < x.ndim
    }
    if len(sizes) != 1:
        return _call(func, in_dims, out_dims, randomness, args, kwargs)  # its errors
    n = sizes.pop()
    outs = []
    for s in range(0, n, chunk):
        part = [
            x.narrow(d, s, min(chunk, n - s)) if d is not None else x for x, d in zip(leaves, dims)
        ]
        outs.append(_call(func, in_dims, out_dims, randomness, unflatten(spec, part), kwargs))
    flat = [flatten(o)[0] for o in outs]
    ospec = flatten(outs[0])[1]
    odims = prefix_leaves(
        tuple(out_dims) if isinstance(out_dims, list) else out_dims, outs[0], "out_dims", "vmap"
    )
    return unflatten(
        ospec, [parts[0] if d is None else cat(parts, d) for d, parts in zip(odims, zip(*flat))]
    )


def _call(func, in_dims, out_dims, randomness, args, kwargs):
    dims = _in_dims(in_dims, args)
    leaves, spec = flatten(args)
    level = STATE.vmap + 1
    size = None
    for i, (x, d) in enumerate(zip(leaves, dims)):
        _check_dim(d, "in_dims")
        if d is None:
            continue
        if not isinstance(x, Tensor):
            raise ArgumentError(
                f"vmap: in_dim {d} given for input {i}, which is a "
                f"{type(x).__name__}, not a Tensor (use None for it)"
            )
        nd = x.ndim
        if not -nd <= d < nd:
            raise DimError(
                f"vmap: in_dim {d} is out of range for input {i} of shape "
                f"{tuple(x.shape)} (expected in [{-nd}, {nd - 1}])"
            )
        n = x.shape[d]
        if size is None:
            size = n
        elif n != size:
            raise VmapError(
                f"vmap: expected all batched inputs to have the same batch size, "
                f"got {size} and {n} (input {i}, in_dim {d})"
            )
        leaves[i] = _b.wrap(x.movedim(d, 0), level)
    if size is None:
        raise VmapError(
            "vmap: at least one input must be batched (every in_dim is None or "
            "no input is a Tensor)"
        )
    _b.LEVELS.append((size, randomness))
    STATE.vmap = level
    try:
        out = func(*unflatten(spec, leaves), **kwargs)
    finally:
        STATE.vmap = level - 1
        _b.LEVELS.pop()
    return _unbatch(out, out_dims, level, size)


def _unbatch(out, out_dims, level, size):
    if isinstance(out_dims, (tuple, list)) and not isinstance(out, (tuple, list)):
        raise ArgumentError(
            f"vmap: out_dims is a {type(out_dims).__name__} but the function "
            f"returned a {type(out).__name__}"
        )
    dims = prefix_leaves(
        tuple(out_dims) if isinstance(out_dims, list) else out_dims, out, "out_dims", "vmap"
    )
    leaves, spec = flatten(out)
    for i, (o, d) in enumerate(zip(leaves, dims)):
        _check_dim(d, "out_dims")
        batched = o.__class__ is _b.BatchedTensor and o._level == level
        if d is None:
            if batched:
                raise VmapError(
                    f"vmap: out_dims is None for output {i}, but it depends on "
                    "the batch; give it an out_dim"
                )
            continue
        if not isinstance(o, Tensor):
            raise VmapError(
                f"vmap: output {i} of the function is a {type(o).__name__}; "
                "outputs must be Tensors (or have out_dims None)"
            )
        nd = o.ndim + 1
        if not -nd <= d < nd:
            raise DimError(
                f"vmap: out_dim {d} is out of range for output {i} of shape "
                f"{tuple(o.shape)} (expected in [{-nd}, {nd - 1}])"
            )
        if batched:
            leaves[i] = o._bval.movedim(0, d)
        else:
            d = d % nd
            shape = list(o.shape)
            shape.insert(d, size)
            leaves[i] = o.unsqueeze(d).expand(shape)
    return unflatten(spec, leaves)
