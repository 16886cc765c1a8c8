"""``functional_call``: run a module with other parameters and buffers, leaving it as it
was; ``stack_module_state``: the parameters and buffers of several like modules stacked
(for ``vmap`` over an ensemble)."""

from __future__ import annotations

from .._tensor import Tensor
from ..errors import ArgumentError

__all__ = ["functional_call", "stack_module_state"]


def functional_call(module, parameter_and_buffer_dicts, args=(), kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (a
    dict, or a sequence of dicts with distinct keys, of dotted names such as
    ``"layer.weight"``) in place of the module's parameters and buffers of those names.

    The module's own tensors are put back afterwards, even when the call raises; names not
    given keep the module's tensors. With ``tie_weights`` a tensor shared by several names
    (tied weights) is replaced under all of them when one is given; with ``strict`` every
    parameter and buffer must be given. Gradients flow to the given tensors, not to the
    module's, which makes it the building block of ``grad`` / ``vmap`` over parameters
    (per-sample gradients, model ensembles).
    """
    dicts = (parameter_and_buffer_dicts,) if isinstance(parameter_and_buffer_dicts, dict) \
        else tuple(parameter_and_buffer_dicts)
    given = {}
    for d in dicts:
        if not isinstance(d, dict):
            raise ArgumentError(f"functional_call: expected a dict or a sequence of dicts of "
                                f"tensors, got {type(d).__name__}")
        for k, v in d.items():
            if k in given:
                raise ArgumentError(f"functional_call: {k!r} appears in more than one dict")
            if not isinstance(v, Tensor):
                raise ArgumentError(f"functional_call: {k!r} must be a Tensor, got "
                                    f"{type(v).__name__}")
            given[k] = v
    slots = _slots(module)
    unknown = sorted(set(given) - set(slots))
    if unknown:
        raise ArgumentError(f"functional_call: {type(module).__name__} has no parameters or "
                            f"buffers named {unknown}")
    if tie_weights:
        by_tensor = {}
        for name, (_, _, t) in slots.items():
            by_tensor.setdefault(id(t), []).append(name)
        for name in list(given):
            for other in by_tensor[id(slots[name][2])]:
                if other in given and given[other] is not given[name]:
                    raise ArgumentError(f"functional_call: {name!r} and {other!r} are tied "
                                        "but were given different tensors")
                given.setdefault(other, given[name])
    if strict:
        missing = sorted(set(slots) - set(given))
        if missing:
            raise ArgumentError(f"functional_call: strict=True but no tensors were given for "
                                f"{missing}")
    saved = []
    try:
        for name, t in given.items():
            store, key, old = slots[name]
            saved.append((store, key, old))
            store[key] = t
        if not isinstance(args, tuple):
            args = (args,)
        return module(*args, **(kwargs or {}))
    finally:
        for store, key, old in reversed(saved):
            store[key] = old


def _slots(module):
    """Every parameter and buffer name (with duplicates of tied tensors) ->
    ``(the dict holding it, its key there, the tensor)``."""
    out = {}
    for prefix, m in module.named_modules(remove_duplicate=False):
        for store in (m._parameters, m._buffers):
            for k, t in store.items():
                if t is not None:
                    out[f"{prefix}.{k}" if prefix else k] = (store, k, t)
    return out


def stack_module_state(models):
    """``(params, buffers)``: dicts of each name's tensors of ``models`` (modules of one
    structure) stacked along a new dim 0. The stacked parameters are new leaves (requiring
    grad where the originals do); ``vmap(lambda p, b, x: functional_call(model, (p, b),
    (x,)), in_dims=(0, 0, None))`` then runs the whole ensemble at once."""
    from ..ops import stack
    models = list(models)
    if not models:
        raise ArgumentError("stack_module_state: expected at least one module")
    out = []
    for kind in ("named_parameters", "named_buffers"):
        named = [dict(getattr(m, kind)()) for m in models]
        for i, d in enumerate(named[1:], 1):
            if d.keys() != named[0].keys():
                raise ArgumentError(f"stack_module_state: module {i} has "
                                    f"{kind[6:]} {sorted(d)}, module 0 has "
                                    f"{sorted(named[0])}")
        stacked = {}
        for k, t in named[0].items():
            s = stack([d[k].detach() for d in named])
            stacked[k] = s.requires_grad_(t.requires_grad) if kind == "named_parameters" \
                else s
        out.append(stacked)
    return tuple(out)
