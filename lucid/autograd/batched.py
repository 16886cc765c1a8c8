"""``lucid.autograd.grad(..., is_grads_batched=True)``: many vector-Jacobian products.

Each grad_output carries a leading batch dim of size ``B``; the result for each input gets
the same leading dim, entry ``b`` being the gradient for grad_outputs ``[g[b] for g in
grad_outputs]``. PyTorch evaluates the batch with vmap; Lucid, which has no vmap, runs one
backward per batch entry over the retained graph and stacks the results, so the values
(and, with ``create_graph``, their graphs) are the same.
"""

from __future__ import annotations

from .._tensor import Tensor
from ..errors import AutogradError, ShapeError
from .graph import OPS


def batched_grad(
    grad_fn,
    outputs,
    inputs,
    grad_outputs,
    retain_graph,
    create_graph,
    allow_unused,
    materialize_grads,
):
    """``grad_fn`` (the engine's :func:`~lucid.autograd.grad`) once per batch entry, the
    results stacked along a new dim 0."""
    stack = OPS["stack"]

    if grad_outputs is None:
        raise AutogradError(
            "grad: is_grads_batched=True requires grad_outputs (one batch of gradients per output)"
        )
    gos = tuple(grad_outputs) if isinstance(grad_outputs, (tuple, list)) else (grad_outputs,)
    outs = tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)
    if len(gos) != len(outs):
        raise AutogradError(f"grad: got {len(gos)} grad_outputs for {len(outs)} outputs")
    batch = None
    for o, g in zip(outs, gos):
        if not isinstance(g, Tensor):
            raise AutogradError(
                "grad: with is_grads_batched=True every grad_output must be a "
                f"Tensor, got {type(g).__name__}"
            )
        if g.ndim == 0 or tuple(g.shape[1:]) != tuple(o.shape):
            raise ShapeError(
                f"grad: with is_grads_batched=True a grad_output must have shape "
                f"(B, *output.shape) = (B, {', '.join(map(str, o.shape))}), got "
                f"{tuple(g.shape)}"
            )
        if batch is None:
            batch = g.shape[0]
        elif g.shape[0] != batch:
            raise ShapeError(
                f"grad: grad_outputs have different batch sizes ({batch} and {g.shape[0]})"
            )
    single = isinstance(inputs, Tensor)
    ins = (inputs,) if single else tuple(inputs)
    if batch == 0:
        return tuple(
            None if not materialize_grads and allow_unused else _empty_batch(t) for t in ins
        )
    per = []
    for b in range(batch):
        keep = True if b < batch - 1 else retain_graph
        per.append(
            grad_fn(
                outs,
                ins,
                [g[b] for g in gos],
                retain_graph=keep,
                create_graph=create_graph,
                allow_unused=allow_unused,
                materialize_grads=materialize_grads,
            )
        )
    res = []
    for i in range(len(ins)):
        col = [p[i] for p in per]
        res.append(None if col[0] is None else stack(col, 0))
    return tuple(res)


def _empty_batch(t):
    be = t._device.backend
    return Tensor._wrap(be.full((0,) + tuple(t._data.shape), 0, t._dtype.np), t._dtype, t._device)
