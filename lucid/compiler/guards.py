"""Guards: the signature a recording is valid for, and the objects it depends on.

A recording replays only a call with the same signature: the arguments' structure, each
tensor's shape, dtype, device and ``requires_grad``, the Python values among them, the
global modes (grad, inference, autocast, determinism) and the guard of each *stateful
object* the function reaches — an object with a ``_compile_guard()`` method
(:class:`~lucid.nn.Module`: every submodule's training flag, the parameters and whether
each has a ``.grad``; :class:`~lucid.optim.Optimizer`: the hyperparameters and the size of
its state). Those objects are found afresh on each call, as the function would find them:
its ``self``, closure cells, default arguments and the globals its code names, and one
level of the attributes and items of each.
"""

from __future__ import annotations

import types

from .._state import STATE
from .._tensor import Tensor

__all__ = ["signature", "stateful_objects"]

_SCALARS = (int, float, bool, str, bytes, type(None), complex)


def signature(args, kwargs, objects):
    """``(key, tensors)``: the hashable signature of a call, and its tensor arguments in
    order (their arrays are the replay's argument sources)."""
    tensors: list = []
    key = [
        STATE.grad_enabled,
        STATE.inference,
        None if STATE.autocast is None else tuple(sorted(STATE.autocast.items())),
        STATE.deterministic,
        _value(args, tensors),
        _value(kwargs, tensors),
    ]
    for o in objects:
        key.append(o._compile_guard())
    return tuple(key), tensors


def _value(x, tensors):
    if isinstance(x, Tensor):
        tensors.append(x)
        return (x._data.shape, x._dtype, x._device, x._requires_grad, x._grad_fn is None)
    c = x.__class__
    if c in _SCALARS:
        return (c, x)
    if c is tuple or c is list:
        return (c, tuple(_value(v, tensors) for v in x))
    if c is dict:
        return (c, tuple((k, _value(v, tensors)) for k, v in x.items()))
    guard = getattr(x, "_compile_guard", None)
    if guard is not None:
        return guard()
    return (c, id(x))


def stateful_objects(fn, args, kwargs):
    """The objects with a ``_compile_guard`` that ``fn`` can reach (see the module doc)."""
    found: dict = {}
    roots: list = []
    f = fn
    if isinstance(f, types.MethodType):
        roots.append(f.__self__)
        f = f.__func__
    roots.extend(args)
    roots.extend(kwargs.values())
    code = getattr(f, "__code__", None)
    if code is not None:
        g = f.__globals__
        for name in _names(code):
            if name in g:
                roots.append(g[name])
        for cell in f.__closure__ or ():
            try:
                roots.append(cell.cell_contents)
            except ValueError:  # an empty cell
                pass
        roots.extend(f.__defaults__ or ())
    elif hasattr(fn, "_compile_guard"):
        roots.append(fn)
    for r in roots:
        _collect(r, found, 2)
    return list(found.values())


def _names(code):
    """The global names a code object (and the functions and comprehensions nested in
    it) reads."""
    out = list(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out.extend(_names(c))
    return out


def _collect(x, found, depth):
    if isinstance(x, (Tensor, types.ModuleType, type)) or x.__class__ in _SCALARS:
        return
    if hasattr(x, "_compile_guard") and not isinstance(x, type):
        found.setdefault(id(x), x)
        return
    if depth == 0:
        return
    if isinstance(x, (list, tuple)):
        items = x
    elif isinstance(x, dict):
        items = x.values()
    else:
        d = getattr(x, "__dict__", None)
        if d is None or callable(x):
            return
        items = d.values()
    for v in items:
        _collect(v, found, depth - 1)
