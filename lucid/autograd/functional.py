"""Higher-level derivatives of a function ``func(*inputs)``, built on :func:`grad`.

``vjp`` gives :math:`v^\\top J`; ``jvp`` gives :math:`J v` by the double-vjp trick
(:math:`J v = \\partial_u (u^\\top J)\\, v`); ``jacobian`` stacks one vjp per output element;
``hessian`` is the Jacobian of the gradient; ``hvp``/``vhp`` differentiate
:math:`\\nabla f \\cdot v` once more.
"""

from __future__ import annotations

from ..errors import AutogradError
from .engine import grad as _grad
from .grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _tuple(x):
    from .._tensor import Tensor
    return (x,) if isinstance(x, Tensor) else tuple(x), isinstance(x, Tensor)


def _prepare(inputs, create_graph):
    inputs, single = _tuple(inputs)
    prepared = []
    for t in inputs:
        t = t.detach() if not create_graph or not t.requires_grad else t.view(t.shape)
        if not t.requires_grad:
            t.requires_grad_()
        prepared.append(t)
    return tuple(prepared), single


def _grads(outputs, inputs, grad_outputs, create_graph, strict, what):
    outs = [o for o in outputs if o.requires_grad]
    gos = [g for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not outs:
        if strict:
            raise AutogradError(f"{what}: the output of the function does not require grad "
                                "(independent of the inputs) and strict=True")
        return tuple(None for _ in inputs)
    gs = _grad(outs, inputs, gos, create_graph=True, allow_unused=True)
    if strict and any(g is None for g in gs):
        i = next(i for i, g in enumerate(gs) if g is None)
        raise AutogradError(f"{what}: the output is independent of input {i} and strict=True")
    return gs


def _fill(gs, inputs, create_graph):
    from ..ops import zeros_like
    out = []
    for g, t in zip(gs, inputs):
        g = zeros_like(t) if g is None else g
        out.append(g if create_graph else g.detach())
    return tuple(out)


def _finish(x, single):
    return x[0] if single else x


def _ones_like_scalar(outputs, what):
    from ..ops import ones_like
    for o in outputs:
        if o.numel() != 1:
            raise AutogradError(f"{what}: v can only be None if the output of the function "
                                f"is a single element, got shape {tuple(o.shape)}")
    return tuple(ones_like(o) for o in outputs)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``."""
    with enable_grad():
        xs, single = _prepare(inputs, create_graph)
        outputs, out_single = _tuple(func(*xs))
        vs = _ones_like_scalar(outputs, "vjp") if v is None else _tuple(v)[0]
        gs = _grads(outputs, xs, vs, create_graph, strict, "vjp")
    res = _fill(gs, xs, create_graph)
    outs = tuple(o if create_graph else o.detach() for o in outputs)
    return _finish(outs, out_single), _finish(res, single)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)`` by differentiating a vjp with respect to its cotangent."""
    from ..ops import zeros_like
    with enable_grad():
        xs, single = _prepare(inputs, create_graph)
        outputs, out_single = _tuple(func(*xs))
        vs = _ones_like_scalar(xs, "jvp") if v is None else _tuple(v)[0]
        us = tuple(zeros_like(o).requires_grad_() for o in outputs)
        gs = _grads(outputs, xs, us, True, strict, "jvp")
        pairs = [(g, vv) for g, vv in zip(gs, vs) if g is not None]
        if not pairs:
            res = tuple(zeros_like(o) for o in outputs)
        else:
            jv = _grad([p[0] for p in pairs], us, [p[1] for p in pairs],
                       create_graph=create_graph, allow_unused=True)
            res = _fill(jv, outputs, create_graph)
    outs = tuple(o if create_graph else o.detach() for o in outputs)
    return _finish(outs, out_single), _finish(res, out_single)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian: for output ``i`` and input ``j``, a tensor of shape
    ``out_i.shape + in_j.shape`` (nested tuples like PyTorch's)."""
    from ..ops import stack, zeros_like
    with enable_grad():
        xs, single = _prepare(inputs, create_graph)
        outputs, out_single = _tuple(func(*xs))
        rows = []
        for o in outputs:
            per_input = [[] for _ in xs]
            flat = o.reshape(-1)
            for k in range(flat.numel()):
                if o.requires_grad:
                    gs = _grad((flat[k],), xs, None, retain_graph=True,
                               create_graph=create_graph, allow_unused=True)
                else:
                    gs = (None,) * len(xs)
                if strict and any(g is None for g in gs):
                    raise AutogradError("jacobian: an output is independent of an input and "
                                        "strict=True")
                for j, (g, x) in enumerate(zip(gs, xs)):
                    g = zeros_like(x) if g is None else g
                    per_input[j].append(g if create_graph else g.detach())
            blocks = []
            for j, x in enumerate(xs):
                if per_input[j]:
                    blk = stack(per_input[j]).reshape(tuple(o.shape) + tuple(x.shape))
                else:
                    from ..ops import zeros
                    blk = zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype)
                blocks.append(blk)
            rows.append(_finish(tuple(blocks), single))
    return _finish(tuple(rows), out_single)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of scalar ``func``: the Jacobian of its gradient."""
    xs, single = _tuple(inputs)

    def gradient(*args):
        out = func(*args)
        if out.numel() != 1:
            raise AutogradError(f"hessian: the function must return a single-element "
                                f"tensor, got shape {tuple(out.shape)}")
        gs = _grads((out,), args, (None,), True, strict, "hessian")
        return _fill(gs, args, True) if not single else _fill(gs, args, True)[0]

    return jacobian(gradient, inputs, create_graph=create_graph, strict=strict)


def _hvp(func, inputs, v, create_graph, strict, what):
    with enable_grad():
        xs, single = _prepare(inputs, create_graph)
        out = func(*xs)
        if out.numel() != 1:
            raise AutogradError(f"{what}: the function must return a single-element tensor, "
                                f"got shape {tuple(out.shape)}")
        vs = _tuple(v)[0]
        gs = _fill(_grads((out,), xs, (None,), True, strict, what), xs, True)
        pairs = [(g, vv) for g, vv in zip(gs, vs) if g.requires_grad]
        if not pairs:
            res = tuple(g.detach() * 0 for g in gs)
        else:
            hv = _grad([p[0] for p in pairs], xs, [p[1] for p in pairs],
                       create_graph=create_graph, allow_unused=True)
            res = _fill(hv, xs, create_graph)
    return (out if create_graph else out.detach()), _finish(res, single)


def hvp(func, inputs, v, create_graph=False, strict=False):
    """``(func(inputs), H v)`` for scalar ``func``."""
    return _hvp(func, inputs, v, create_graph, strict, "hvp")


def vhp(func, inputs, v, create_graph=False, strict=False):
    """``(func(inputs), v^T H)`` for scalar ``func`` (equal to ``H v``: H is symmetric)."""
    return _hvp(func, inputs, v, create_graph, strict, "vhp")
