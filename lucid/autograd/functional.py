"""Higher-level derivatives of a function ``func(*inputs)``, built on :func:`grad`.

``vjp`` gives :math:`v^\\top J`; ``jvp`` gives :math:`J v` by the double-vjp trick
(:math:`J v = \\partial_u (u^\\top J)\\, v`, the inner vjp being linear in :math:`u`);
``jacobian`` runs one vjp per output element; ``hessian`` is the Jacobian of the gradient;
``vhp``/``hvp`` differentiate :math:`\\nabla f \\cdot v` once more (equal, as the Hessian is
symmetric).

Like PyTorch: ``inputs`` is a Tensor or a tuple of Tensors and results mirror that nesting;
results are detached unless ``create_graph``; an output independent of an input gives zeros,
or raises with ``strict=True``.
"""

from __future__ import annotations

from .._tensor import Tensor
from ..errors import AutogradError, DTypeError, ShapeError
from .engine import grad as _grad
from .grad_mode import enable_grad
from .graph import OPS

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(x, what, fn):
    """``(tuple of Tensors, whether x was a tuple)``; anything else raises DTypeError."""
    is_tuple = isinstance(x, (tuple, list))
    xs = tuple(x) if is_tuple else (x,)
    for i, t in enumerate(xs):
        if not isinstance(t, Tensor):
            where = f"entry {i} of " if is_tuple else ""
            raise DTypeError(
                f"{fn}: {where}{what} must be a Tensor or a tuple of Tensors, "
                f"got {type(t).__name__}"
            )
    return xs, is_tuple


def _unpack(xs, is_tuple):
    return xs if is_tuple else xs[0]


def _prepare(xs, create_graph, need_graph):
    """Fresh tensor objects for ``xs``: still linked to their history when ``create_graph``
    (so results can be differentiated back into it), else detached; requiring grad when
    ``need_graph``."""
    out = []
    for t in xs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _postprocess(xs, create_graph):
    return xs if create_graph else tuple(t.detach() for t in xs)


def _zeros(t, shape=None):
    """Zeros of ``t``'s dtype and device, shaped like ``t`` or ``shape`` (no history)."""
    shape = t._data.shape if shape is None else shape
    return Tensor._wrap(t._device.backend.full(shape, 0, t._dtype.np), t._dtype, t._device)


def _validate_v(v, refs, is_tuple, fn):
    if len(v) != len(refs):
        raise ShapeError(
            f"{fn}: v has {len(v)} tensors, expected {len(refs)}"
            if is_tuple
            else f"{fn}: v should be a single Tensor"
        )
    for i, (a, b) in enumerate(zip(v, refs)):
        if a.shape != b.shape:
            where = f"entry {i} of " if is_tuple else ""
            raise ShapeError(
                f"{fn}: {where}v has shape {tuple(a.shape)}, expected {tuple(b.shape)}"
            )


def _check_outputs(outputs, strict, fn):
    if strict:
        for i, o in enumerate(outputs):
            if not o.requires_grad:
                raise AutogradError(
                    f"{fn}: output {i} of the function does not require grad; "
                    "with strict=True outputs must depend differentiably on "
                    "the inputs"
                )


def _vjp_raw(outputs, inputs, grad_outputs, create_graph, retain_graph=None):
    """``grad`` over the outputs that require grad; None for every input when none does."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad(
        tuple(p[0] for p in pairs),
        inputs,
        tuple(p[1] for p in pairs),
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )


def _fill(grads, refs, strict, create_graph, fn, what):
    """Replace None gradients by zeros (or raise with ``strict``); with ``strict`` and
    ``create_graph`` a gradient that does not require grad also raises."""
    out = []
    for i, (g, r) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise AutogradError(
                    f"{fn}: {what} is independent of input {i}; not allowed with strict=True"
                )
            g = _zeros(r)
        elif strict and create_graph and not g.requires_grad:
            raise AutogradError(
                f"{fn}: the derivative of {what} with respect to input {i} "
                "is independent of the inputs; not allowed with strict=True "
                "and create_graph=True"
            )
        out.append(g)
    return tuple(out)


def _default_v(refs, fn, what):
    if len(refs) != 1 or refs[0].numel() != 1:
        raise AutogradError(
            f"{fn}: v can only be None if {what} is a single Tensor with a single element"
        )
    r = refs[0]
    return (Tensor._wrap(r._device.backend.ones(r._data.shape, r._dtype.np), r._dtype, r._device),)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product at ``inputs``."""
    with enable_grad():
        xs, in_tuple = _as_tuple(inputs, "inputs", "vjp")
        xs = _prepare(xs, create_graph, True)
        outs, out_tuple = _as_tuple(func(*xs), "the output of func", "vjp")
        _check_outputs(outs, strict, "vjp")
        if v is None:
            vs = _default_v(outs, "vjp", "the output of func")
        else:
            vs = _prepare(_as_tuple(v, "v", "vjp")[0], create_graph, False)
            _validate_v(vs, outs, out_tuple, "vjp")
        res = _fill(
            _vjp_raw(outs, xs, vs, create_graph),
            xs,
            strict,
            create_graph,
            "vjp",
            "the output of func",
        )
    return (
        _unpack(_postprocess(outs, create_graph), out_tuple),
        _unpack(_postprocess(res, create_graph), in_tuple),
    )


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``: the Jacobian-vector product, by differentiating the vjp
    ``u -> u^T J`` with respect to ``u``."""
    with enable_grad():
        xs, in_tuple = _as_tuple(inputs, "inputs", "jvp")
        xs = _prepare(xs, create_graph, True)
        if v is None:
            vs = _default_v(xs, "jvp", "the input")
        else:
            vs = _prepare(_as_tuple(v, "v", "jvp")[0], create_graph, False)
            _validate_v(vs, xs, in_tuple, "jvp")
        outs, out_tuple = _as_tuple(func(*xs), "the output of func", "jvp")
        _check_outputs(outs, strict, "jvp")
        us = tuple(_zeros(o).requires_grad_() for o in outs)
        gs = _vjp_raw(outs, xs, us, True)
        if strict:
            for i, g in enumerate(gs):
                if g is None or not g.requires_grad:
                    raise AutogradError(
                        f"jvp: the output of func is independent of input "
                        f"{i}; not allowed with strict=True"
                    )
        pairs = [(g, vv) for g, vv in zip(gs, vs) if g is not None]
        jv = (
            _vjp_raw(tuple(p[0] for p in pairs), us, tuple(p[1] for p in pairs), create_graph)
            if pairs
            else (None,) * len(outs)
        )
        res = _fill(jv, outs, strict, create_graph, "jvp", "the gradient")
    return (
        _unpack(_postprocess(outs, create_graph), out_tuple),
        _unpack(_postprocess(res, create_graph), out_tuple),
    )


def jacobian(
    func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"
):
    """The Jacobian of ``func`` at ``inputs``: for output ``i`` and input ``j`` a tensor of
    shape ``out_i.shape + in_j.shape``, nested like PyTorch's (a Tensor for one input and
    one output, tuples otherwise). ``vectorize`` and ``strategy`` are accepted for
    compatibility; rows are computed one vjp at a time."""
    stack = OPS["stack"]

    if strategy not in ("reverse-mode", "forward-mode"):
        raise AutogradError(
            f"jacobian: strategy must be 'reverse-mode' or 'forward-mode', got {strategy!r}"
        )
    with enable_grad():
        xs, in_tuple = _as_tuple(inputs, "inputs", "jacobian")
        xs = _prepare(xs, create_graph, True)
        outs, out_tuple = _as_tuple(func(*xs), "the output of func", "jacobian")
        _check_outputs(outs, strict, "jacobian")
        jac = []
        for i, o in enumerate(outs):
            rows = [[] for _ in xs]
            for k in range(o.numel()):
                e = _zeros(o)
                e._data.reshape(-1)[k] = 1
                gs = _vjp_raw((o,), xs, (e,), create_graph, retain_graph=True)
                gs = _fill(gs, xs, strict, create_graph, "jacobian", f"output {i}")
                for j, g in enumerate(gs):
                    rows[j].append(g)
            blocks = []
            for j, x in enumerate(xs):
                shape = tuple(o.shape) + tuple(x.shape)
                blocks.append(stack(rows[j]).reshape(shape) if rows[j] else _zeros(x, shape))
            jac.append(_unpack(_postprocess(tuple(blocks), create_graph), in_tuple))
    return _unpack(tuple(jac), out_tuple)


def hessian(
    func,
    inputs,
    create_graph=False,
    strict=False,
    vectorize=False,
    outer_jacobian_strategy="reverse-mode",
):
    """The Hessian of scalar ``func`` at ``inputs``: the Jacobian of its gradient. For
    inputs ``i`` and ``j`` a tensor of shape ``in_i.shape + in_j.shape``."""

    def scalar(*xs):
        out = func(*xs)
        outs, is_tuple = _as_tuple(out, "the output of func", "hessian")
        _check_outputs(outs, strict, "hessian")
        if is_tuple:
            raise AutogradError("hessian: func must return a single Tensor, got a tuple")
        if out.numel() != 1:
            raise AutogradError(
                f"hessian: func must return a single-element Tensor, got shape {tuple(out.shape)}"
            )
        return out.reshape(())

    def gradient(*xs):
        g = jacobian(scalar, xs, create_graph=True)
        if strict:
            for i, gi in enumerate(g):
                if not gi.requires_grad:
                    raise AutogradError(
                        f"hessian: the gradient with respect to input {i} is "
                        "independent of the inputs; not allowed with "
                        "strict=True"
                    )
        return g

    xs, in_tuple = _as_tuple(inputs, "inputs", "hessian")
    res = jacobian(gradient, xs, create_graph=create_graph, strict=strict)
    return res if in_tuple else res[0][0]


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)`` for scalar ``func``."""
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)`` for scalar ``func`` (equal to ``v^T H``: H is symmetric)."""
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")


def _hessian_product(func, inputs, v, create_graph, strict, fn):
    with enable_grad():
        xs, in_tuple = _as_tuple(inputs, "inputs", fn)
        xs = _prepare(xs, create_graph, True)
        if v is None:
            vs = _default_v(xs, fn, "the input")
        else:
            vs = _prepare(_as_tuple(v, "v", fn)[0], create_graph, False)
            _validate_v(vs, xs, in_tuple, fn)
        out = func(*xs)
        outs, is_tuple = _as_tuple(out, "the output of func", fn)
        _check_outputs(outs, strict, fn)
        if is_tuple or out.numel() != 1:
            raise AutogradError(
                f"{fn}: func must return a single Tensor with a single "
                f"element, got {'a tuple' if is_tuple else tuple(out.shape)}"
            )
        jac = _vjp_raw(outs, xs, (None,), True)
        if strict:
            for i, g in enumerate(jac):
                if g is None or not g.requires_grad:
                    raise AutogradError(
                        f"{fn}: the gradient with respect to input {i} is "
                        "independent of the inputs; not allowed with "
                        "strict=True"
                    )
        pairs = [(g, vv) for g, vv in zip(jac, vs) if g is not None]
        hv = (
            _vjp_raw(tuple(p[0] for p in pairs), xs, tuple(p[1] for p in pairs), create_graph)
            if pairs
            else (None,) * len(xs)
        )
        res = _fill(hv, xs, strict, create_graph, fn, "the gradient")
    return (_postprocess(outs, create_graph)[0], _unpack(_postprocess(res, create_graph), in_tuple))
