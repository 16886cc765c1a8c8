"""``functional_call``: run a module with other parameters and buffers, leaving it as it
was; ``stack_module_state``: the parameters and buffers of several like modules stacked
(for ``vmap`` over an ensemble)."""

from __future__ import annotations

from ..errors import ArgumentError
from ..nn.utils.stateless import _functional_call
from ..ops import stack

__all__ = ["functional_call", "stack_module_state"]


def functional_call(
    module, parameter_and_buffer_dicts, args=(), kwargs=None, *, tie_weights=True, strict=False
):
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
    return _functional_call(
        module, parameter_and_buffer_dicts, args, kwargs, tie_weights=tie_weights, strict=strict
    )


def stack_module_state(models):
    """``(params, buffers)``: dicts of each name's tensors of ``models`` (modules of one
    structure) stacked along a new dim 0. The stacked parameters are new leaves (requiring
    grad where the originals do); ``vmap(lambda p, b, x: functional_call(model, (p, b),
    (x,)), in_dims=(0, 0, None))`` then runs the whole ensemble at once."""
    models = list(models)
    if not models:
        raise ArgumentError("stack_module_state: expected at least one module")
    out = []
    for kind in ("named_parameters", "named_buffers"):
        named = [dict(getattr(m, kind)()) for m in models]
        for i, d in enumerate(named[1:], 1):
            if d.keys() != named[0].keys():
                raise ArgumentError(
                    f"stack_module_state: module {i} has "
                    f"{kind[6:]} {sorted(d)}, module 0 has "
                    f"{sorted(named[0])}"
                )
        stacked = {}
        for k, t in named[0].items():
            s = stack([d[k].detach() for d in named])
            stacked[k] = s.requires_grad_(t.requires_grad) if kind == "named_parameters" else s
        out.append(stacked)
    return tuple(out)
