"""``torch.nn.utils.stateless``: the pre-2.0 home of ``functional_call``, deprecated in
favour of :func:`lucid.func.functional_call`; both call ``_functional_call`` here."""

from __future__ import annotations

import warnings

from ..._tensor import Tensor
from ...errors import ArgumentError

__all__ = ["functional_call"]


def functional_call(
    module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    """Deprecated: :func:`lucid.func.functional_call` (same arguments; warns, as
    PyTorch's)."""
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch "
        "2.0 and will be removed in a future version of PyTorch. Please use "
        "`torch.func.functional_call` instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return _functional_call(
        module,
        parameters_and_buffers,
        () if args is None else args,
        kwargs,
        tie_weights=tie_weights,
        strict=strict,
    )


def _functional_call(
    module, parameter_and_buffer_dicts, args=(), kwargs=None, *, tie_weights=True, strict=False
):
    """:func:`lucid.func.functional_call` (documented there), kept here as PyTorch keeps it,
    below both its public homes."""
    dicts = (
        (parameter_and_buffer_dicts,)
        if isinstance(parameter_and_buffer_dicts, dict)
        else tuple(parameter_and_buffer_dicts)
    )
    given = {}
    for d in dicts:
        if not isinstance(d, dict):
            raise ArgumentError(
                f"functional_call: expected a dict or a sequence of dicts of "
                f"tensors, got {type(d).__name__}"
            )
        for k, v in d.items():
            if k in given:
                raise ArgumentError(f"functional_call: {k!r} appears in more than one dict")
            if not isinstance(v, Tensor):
                raise ArgumentError(
                    f"functional_call: {k!r} must be a Tensor, got {type(v).__name__}"
                )
            given[k] = v
    slots = _slots(module)
    unknown = sorted(set(given) - set(slots))
    if unknown:
        raise ArgumentError(
            f"functional_call: {type(module).__name__} has no parameters or buffers named {unknown}"
        )
    if tie_weights:
        by_tensor = {}
        for name, (_, _, t) in slots.items():
            by_tensor.setdefault(id(t), []).append(name)
        for name in list(given):
            for other in by_tensor[id(slots[name][2])]:
                if other in given and given[other] is not given[name]:
                    raise ArgumentError(
                        f"functional_call: {name!r} and {other!r} are tied "
                        "but were given different tensors"
                    )
                given.setdefault(other, given[name])
    if strict:
        missing = sorted(set(slots) - set(given))
        if missing:
            raise ArgumentError(
                f"functional_call: strict=True but no tensors were given for {missing}"
            )
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
