"""Autograd transforms: ``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``,
``jacfwd``, ``hessian``, as ``torch.func``.

Each call differentiates fresh copies of the chosen arguments (trees of Tensors) with
:func:`lucid.autograd.grad`. A result carries a graph (so it can be differentiated again)
when the call is nested in another transform or an argument requires grad; otherwise it is
detached, as torch.func's are. Inside ``vmap`` the arguments are first made batched at
every active level (a broadcast view where they are not), so each batch entry gets its own
derivative: one backward over the physical batch computes them all, since the entries do
not interact.

Forward mode (``jvp``, ``jacfwd``) uses the double-vjp trick: with :math:`g(u) = u^\\top J`
(one backward, recorded with ``create_graph``), which is linear in :math:`u`,
:math:`J t = \\partial_u (u^\\top J\\, t)` is a second backward, of :math:`g` against the
tangent :math:`t`. It costs two backward passes instead of one forward-mode pass and needs
every op on the path to be twice differentiable (Lucid's graph-mode backward).
``jacrev`` and ``jacfwd`` take one row (one column) per basis vector through
``lucid.autograd.grad(..., is_grads_batched=True)``, which runs one backward per row over
the retained graph. ``vmap(vjp_fn)`` (for a ``vjp`` taken outside vmap) is vectorized
instead: the batched cotangents flow through the engine's graph-mode backward, whose
formulas are ops with batching rules; a formula that writes a batched gradient in place
into a fresh unbatched tensor (the slice backward) raises :class:`VmapError`.
"""

from __future__ import annotations

import functools
import numbers

from .._tensor import Tensor
from ..autograd import grad as _autograd_grad
from ..autograd.grad_mode import enable_grad
from ..autograd.graph import AccumulateGrad, edge
from ..errors import ArgumentError, DTypeError, ShapeError
from . import _batched as _b
from ._pytree import flatten, unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian"]

_DEPTH = [0]  # how many autograd transforms are running (outer ones need graphs)


# -- inputs and outputs ------------------------------------------------------------------


def _argnums(argnums, n, fn):
    """``(tuple of arg indices, whether argnums was an int)``."""
    single = isinstance(argnums, numbers.Integral) and not isinstance(argnums, bool)
    nums = (argnums,) if single else tuple(argnums) if isinstance(argnums, (tuple, list)) else None
    if not nums or not all(
        isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in nums
    ):
        raise ArgumentError(
            f"{fn}: argnums must be an int or a non-empty tuple of ints, got {argnums!r}"
        )
    out = []
    for a in nums:
        if not -n <= a < n:
            raise ArgumentError(
                f"{fn}: argnums {a} is out of range for a function called "
                f"with {n} positional arguments"
            )
        out.append(a % n)
    if len(set(out)) != len(out):
        raise ArgumentError(f"{fn}: argnums {tuple(nums)} has duplicates")
    return tuple(out), single


class _Inputs:
    """The differentiated arguments: per argnum a tree of fresh leaves (plain tensors
    batched at every active vmap level, ``levels``) and the arguments with them in place."""

    def __init__(self, args, nums, fn):
        self.levels = _b.active_levels()
        self.args = list(args)
        self.specs, self.leaves, self.outer = [], [], False
        for a in nums:
            xs, spec = flatten(args[a])
            new = []
            for x in xs:
                if not isinstance(x, Tensor) or not x._dtype._grad:
                    what = type(x).__name__ if not isinstance(x, Tensor) else x._dtype
                    raise DTypeError(
                        f"{fn}: argument {a} must be a floating-point (or "
                        f"complex) Tensor or a tree of them, got {what}"
                    )
                plain = _b.lift(x, self.levels)[1]
                self.outer = self.outer or plain.requires_grad
                leaf = (
                    plain.view_as(plain) if plain.requires_grad else plain.detach().requires_grad_()
                )
                self.leaves.append(leaf)
                new.append(_b.rewrap(leaf, self.levels))
            self.args[a] = unflatten(spec, new)
            self.specs.append((spec, len(xs)))

    def trees(self, plains, single):
        """Per-leaf results (plain, batched like the leaves) as the argnums' trees."""
        out, k = [], 0
        for spec, n in self.specs:
            out.append(unflatten(spec, [_b.rewrap(g, self.levels) for g in plains[k : k + n]]))
            k += n
        return out[0] if single else tuple(out)


def _run(func, args, kwargs, has_aux, fn):
    """``func(*args)`` nested one transform deeper; ``(output, aux)``."""
    _DEPTH[0] += 1
    try:
        out = func(*args, **kwargs)
    finally:
        _DEPTH[0] -= 1
    if has_aux:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise ArgumentError(
                f"{fn}: with has_aux=True the function must return a pair "
                f"(output, aux), got {type(out).__name__}"
            )
        return out
    return out, None


def _out_leaves(out, levels, fn):
    """The output tree's leaves as plain tensors batched at ``levels``; and its spec."""
    leaves, spec = flatten(out)
    for i, o in enumerate(leaves):
        if not isinstance(o, Tensor):
            raise ArgumentError(
                f"{fn}: the function must return Tensors, got a {type(o).__name__} (output {i})"
            )
    return [_b.lift(o, levels)[1] for o in leaves], spec


def _zeros_like(t):
    return Tensor._wrap(t._device._backend.full(t._data.shape, 0, t._dtype.np), t._dtype, t._device)


def _vjp_plain(outs, leaves, cts, create, batch=None):
    """``sum_i ct_i^T d out_i / d leaves`` on plain tensors (zeros where independent);
    with ``batch``, each ``ct_i`` holds ``batch`` cotangents along a leading dim, and so
    does each result."""
    pairs = [(o, c) for o, c in zip(outs, cts) if o.requires_grad]
    gs = (
        _autograd_grad(
            [p[0] for p in pairs],
            leaves,
            [p[1] for p in pairs],
            retain_graph=True,
            create_graph=create,
            allow_unused=True,
            is_grads_batched=batch is not None,
        )
        if pairs
        else [None] * len(leaves)
    )
    lead = () if batch is None else (batch,)
    return [
        g if g is not None else _zeros_like(x).expand(lead + tuple(x.shape))
        for g, x in zip(gs, leaves)
    ]


def _detach(tree, keep):
    if keep:
        return tree
    leaves, spec = flatten(tree)
    return unflatten(spec, [t.detach() if isinstance(t, Tensor) else t for t in leaves])


def _needs_graph(inputs, outs, *more):
    """Whether results need a graph: nested in another transform, an argument or one of
    ``more`` requiring grad, or the outputs' graph reaching another leaf that requires
    grad (a closed-over tensor)."""
    if _DEPTH[0] > 0 or inputs.outer or any(t.requires_grad for t in more):
        return True
    mine = {id(x) for x in inputs.leaves}
    seen = set()
    todo = [o._grad_fn for o in outs if o._grad_fn is not None]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            v = node.variable
            if v is not None and id(v) not in mine:
                return True
            continue
        todo.extend(edge(e)[0] for e in node.next_edges if e is not None)
    return False


# -- grad, grad_and_value, vjp -----------------------------------------------------------


def grad_and_value(func, argnums=0, has_aux=False):
    """``func`` -> a function returning ``(gradient, value)`` (``(gradient, (value,
    aux))`` with ``has_aux``), as torch.func.

    ``func`` returns a one-element Tensor (and aux, with ``has_aux``); the gradient is
    with respect to the arguments ``argnums`` (an int: that argument's tree; a tuple: a
    tuple of trees).

    Math
    ----
    :math:`(\\nabla_x f(x), f(x))`, by one reverse pass.
    """

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        nums, single = _argnums(argnums, len(args), "grad")
        with enable_grad():
            inputs = _Inputs(args, nums, "grad")
            out, aux = _run(func, inputs.args, kwargs, has_aux, "grad")
            if not isinstance(out, Tensor):
                raise ArgumentError(
                    f"grad: the function must return a Tensor, got {type(out).__name__}"
                )
            if out.numel() != 1:
                raise ShapeError(
                    f"grad: the function must return a one-element Tensor, got "
                    f"shape {tuple(out.shape)}"
                )
            (o,), _ = _out_leaves(out, inputs.levels, "grad")
            create = _needs_graph(inputs, [o])
            ones = Tensor._wrap(
                o._device._backend.ones(o._data.shape, o._dtype.np), o._dtype, o._device
            )
            gs = inputs.trees(_vjp_plain([o], inputs.leaves, [ones], create), single)
        value = _detach(out, create)
        if has_aux:
            return gs, (value, _detach(aux, create))
        return gs, value

    return wrapped


def grad(func, argnums=0, has_aux=False):
    """``func`` -> its gradient function: :math:`\\nabla_x f` at the arguments
    ``argnums`` (see :func:`grad_and_value`); with ``has_aux``, ``(gradient, aux)``."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapped


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)`` (and aux): ``vjp_fn(cotangents)`` gives
    :math:`v^\\top J` for each primal, as a tuple, ``cotangents`` shaped like the output.

    Math
    ----
    :math:`\\mathrm{vjp\\_fn}(v) = (v^\\top \\partial f / \\partial x_i)_i`: one reverse
    pass per call, over the graph kept from the forward.
    """
    with enable_grad():
        inputs = _Inputs(primals, tuple(range(len(primals))), "vjp")
        out, aux = _run(func, inputs.args, {}, has_aux, "vjp")
        outs, spec = _out_leaves(out, inputs.levels, "vjp")
        create = _needs_graph(inputs, outs)

    def vjp_fn(cotangents):
        """:math:`v^\\top J`. Under a vmap opened after ``vjp`` (``vmap(vjp_fn)``: many
        cotangents at once), the backward itself runs batched: the engine's graph-mode
        formulas are ops, which take their batching rules."""
        cts, cspec = flatten(cotangents)
        if len(cts) != len(outs):
            raise ArgumentError(
                f"vjp_fn: expected cotangents shaped like the output "
                f"({len(outs)} tensors), got {len(cts)}"
            )
        plain, batched = [], False
        for i, (c, o) in enumerate(zip(cts, outs)):
            if not isinstance(c, Tensor):
                raise ArgumentError(
                    f"vjp_fn: cotangent {i} must be a Tensor, got {type(c).__name__}"
                )
            p = (
                _b.lift(c, inputs.levels)[1]
                if set(_b.unwrap_all(c)[1]) <= set(inputs.levels)
                else _new_level_cotangent(c, inputs.levels)
            )
            batched = batched or p.__class__ is _b.BatchedTensor
            if tuple(p.shape) != tuple(o.shape):
                raise ShapeError(
                    f"vjp_fn: cotangent {i} has shape {tuple(c.shape)}, expected the output's shape"
                )
            plain.append(p)
        with enable_grad():
            gs = _vjp_plain(
                outs, inputs.leaves, plain, create or batched or any(p.requires_grad for p in plain)
            )
        res = tuple(inputs.trees(gs, False))
        return res if create or not batched else _detach(res, False)

    out = _detach(out, create)
    return (out, vjp_fn, _detach(aux, create)) if has_aux else (out, vjp_fn)


# -- forward mode by double vjp ---------------------------------------------------------


def jvp(func, primals, tangents, *, has_aux=False):
    """``(func(*primals), J t)`` (and aux): the Jacobian-vector product, ``tangents``
    shaped like ``primals`` (both tuples).

    Math
    ----
    :math:`J t = \\partial_u\\, (u^\\top J)\\, t`: the vjp :math:`g(u) = u^\\top J` is
    linear in :math:`u`, so its own vjp against :math:`t` is :math:`J t`.

    Notes
    -----
    Forward mode by the double-vjp trick on Lucid's higher-order reverse mode (Lucid has
    no forward-mode AD): two backward passes, the first recorded with ``create_graph``.
    torch.func.jvp is true forward mode (dual numbers), one pass.
    """
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise ArgumentError("jvp: primals and tangents must be tuples")
    if len(primals) != len(tangents):
        raise ArgumentError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    with enable_grad():
        inputs = _Inputs(primals, tuple(range(len(primals))), "jvp")
        tans = _tangent_leaves(tangents, inputs, "jvp")
        out, aux = _run(func, inputs.args, {}, has_aux, "jvp")
        outs, spec = _out_leaves(out, inputs.levels, "jvp")
        create = _needs_graph(inputs, outs, *tans)
        jv = _jvp_plain(outs, inputs.leaves, tans, create)
        res = unflatten(spec, [_b.rewrap(j, inputs.levels) for j in jv])
    out = _detach(out, create)
    return (out, res, _detach(aux, create)) if has_aux else (out, res)


def linearize(func, *primals):
    r"""``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is :math:`J t` at ``primals``,
    each call one backward pass over a graph kept from this call (the forward is not
    rerun).

    Math
    ----
    :math:`t \mapsto J t`, by the double-vjp trick of :func:`jvp`: :math:`g(u) = u^\top
    J` is recorded once; each call differentiates it against :math:`t`.
    """
    with enable_grad():
        inputs = _Inputs(primals, tuple(range(len(primals))), "linearize")
        out, _ = _run(func, inputs.args, {}, False, "linearize")
        outs, spec = _out_leaves(out, inputs.levels, "linearize")
        create = _needs_graph(inputs, outs)
        us, gs = _dual(outs, inputs.leaves)

    def jvp_fn(*tangents):
        tans = _tangent_leaves(tangents, inputs, "linearize")
        with enable_grad():
            jv = _jvp_dual(us, gs, tans, create or any(t.requires_grad for t in tans))
        return unflatten(spec, [_b.rewrap(j, inputs.levels) for j in jv])

    return _detach(out, create), jvp_fn


def _tangent_leaves(tangents, inputs, fn):
    ts = flatten(tangents)[0]
    if len(ts) != len(inputs.leaves):
        raise ArgumentError(
            f"{fn}: tangents must match primals' structure "
            f"({len(inputs.leaves)} tensors), got {len(ts)}"
        )
    out = []
    for i, (t, x) in enumerate(zip(ts, inputs.leaves)):
        if not isinstance(t, Tensor):
            raise ArgumentError(f"{fn}: tangent {i} must be a Tensor, got {type(t).__name__}")
        p = _b.lift(t, inputs.levels)[1]
        if tuple(p.shape) != tuple(x.shape):
            raise ShapeError(
                f"{fn}: tangent {i} has shape {tuple(t.shape)}, expected its primal's shape"
            )
        out.append(p)
    return out


def _new_level_cotangent(c, levels):
    """A cotangent batched at vmap levels opened after ``vjp`` (which had ``levels``):
    supported when ``vjp`` ran outside any vmap, the cotangent then passing batched into
    the backward."""
    if levels:
        raise _b.VmapError(
            "vjp_fn: vmap over vjp_fn is supported when vjp itself ran "
            "outside vmap; here vjp ran inside one"
        )
    return c


def _dual(outs, leaves):
    """``(u, g)``: zero cotangents requiring grad and :math:`g(u) = u^\\top J` per leaf
    (recorded; None where the outputs do not depend on a leaf)."""
    us = [_zeros_like(o).requires_grad_() for o in outs]
    pairs = [(o, u) for o, u in zip(outs, us) if o.requires_grad]
    gs = (
        _autograd_grad(
            [p[0] for p in pairs],
            leaves,
            [p[1] for p in pairs],
            retain_graph=True,
            create_graph=True,
            allow_unused=True,
        )
        if pairs
        else [None] * len(leaves)
    )
    return us, gs


def _jvp_plain(outs, leaves, tans, create, batch=None):
    """:math:`J t` per output: the vjp of :math:`g(u)` against the tangents."""
    return _jvp_dual(*_dual(outs, leaves), tans, create, batch)


def _jvp_dual(us, gs, tans, create, batch=None):
    pairs = [(g, t) for g, t in zip(gs, tans) if g is not None and g.requires_grad]
    return _vjp_plain([p[0] for p in pairs], us, [p[1] for p in pairs], create, batch)


# -- Jacobians and the Hessian -----------------------------------------------------------


def _basis(n, like, shape, lead):
    """``n`` basis vectors, ``(n, *lead, *shape)`` (``prod(shape) == n``) broadcast over
    the ``lead`` batch dims."""
    eye = Tensor._wrap(like._device._backend.eye(n, n, like._dtype.np), like._dtype, like._device)
    eye = eye.reshape((n,) + (1,) * len(lead) + tuple(shape))
    return eye.expand((n,) + tuple(lead) + tuple(shape))


def _jac_block(g, nlev, row_shape, col_shape, rows_first):
    """A batched grad ``g`` of shape ``(n, *levels, *other)`` as ``(*levels, *out_shape,
    *in_shape)``: ``rows_first`` (jacrev) when ``n`` indexes the output."""
    g = g.movedim(0, nlev) if rows_first else g.movedim(0, -1)
    lead = tuple(g.shape[:nlev])
    return g.reshape(lead + tuple(row_shape) + tuple(col_shape))


def jacrev(func, argnums=0, *, has_aux=False):
    """``func`` -> its Jacobian by reverse mode: for each output leaf, the tree (of
    ``argnums``) of blocks of shape ``out.shape + in.shape``; with ``has_aux``, ``(jac,
    aux)``.

    Math
    ----
    Row :math:`k` of :math:`J` is :math:`e_k^\\top J`: one vjp per output element.
    """

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        with enable_grad():
            inputs, single, outs, spec, aux, create = _traced(
                func, args, kwargs, argnums, has_aux, "jacrev"
            )
            nlev = len(inputs.levels)
            blocks = []
            for o in outs:
                lead, oshape = tuple(o.shape[:nlev]), tuple(o.shape[nlev:])
                n = _numel(oshape)
                gs = (
                    _vjp_plain([o], inputs.leaves, [_basis(n, o, oshape, lead)], create, n)
                    if n
                    else [_empty(o, x, oshape, nlev) for x in inputs.leaves]
                )
                blocks.append(
                    inputs.trees(
                        [
                            _jac_block(g, nlev, oshape, x.shape[nlev:], True) if n else g
                            for g, x in zip(gs, inputs.leaves)
                        ],
                        single,
                    )
                )
            jac = unflatten(spec, blocks)
        return (jac, _detach(aux, create)) if has_aux else jac

    return wrapped


def _traced(func, args, kwargs, argnums, has_aux, fn):
    """``func`` run on the differentiated ``args`` (grad mode on, the caller's): ``(inputs,
    single, output leaves, their tree spec, aux, whether the result needs a graph)``."""
    nums, single = _argnums(argnums, len(args), fn)
    inputs = _Inputs(args, nums, fn)
    out, aux = _run(func, inputs.args, kwargs, has_aux, fn)
    outs, spec = _out_leaves(out, inputs.levels, fn)
    return inputs, single, outs, spec, aux, _needs_graph(inputs, outs)


def jacfwd(func, argnums=0, *, has_aux=False):
    """``func`` -> its Jacobian by forward mode (the double-vjp :func:`jvp`): shaped as
    :func:`jacrev`'s.

    Math
    ----
    Column :math:`k` of :math:`J` is :math:`J e_k`: one jvp per input element (here two
    backward passes each, see :func:`jvp`).
    """

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        with enable_grad():
            inputs, single, outs, spec, aux, create = _traced(
                func, args, kwargs, argnums, has_aux, "jacfwd"
            )
            nlev = len(inputs.levels)
            sizes = [_numel(x.shape[nlev:]) for x in inputs.leaves]
            total = sum(sizes)
            x0 = inputs.leaves[0]
            lead = tuple(x0.shape[:nlev])
            cols = [[] for _ in outs]
            if total:
                basis = _basis(total, x0, (total,), lead)
                tans, k = [], 0
                for x, n in zip(inputs.leaves, sizes):
                    tans.append(basis[..., k : k + n].reshape((total,) + tuple(x.shape)))
                    k += n
                jv = _jvp_plain(outs, inputs.leaves, tans, create, total)
            for j, o in enumerate(outs):
                k = 0
                for x, n in zip(inputs.leaves, sizes):
                    if n:
                        g = jv[j][k : k + n]
                        cols[j].append(_jac_block(g, nlev, o.shape[nlev:], x.shape[nlev:], False))
                    else:
                        cols[j].append(_empty(o, x, o.shape[nlev:], nlev))
                    k += n
            jac = unflatten(spec, [inputs.trees(c, single) for c in cols])
        return (jac, _detach(aux, create)) if has_aux else jac

    return wrapped


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _empty(o, x, oshape, nlev):
    shape = tuple(x.shape[:nlev]) + tuple(oshape) + tuple(x.shape[nlev:])
    return Tensor._wrap(x._device._backend.full(shape, 0, o._dtype.np), o._dtype, x._device)


def hessian(func, argnums=0):
    """``func`` -> its Hessian, ``jacfwd(jacrev(func, argnums), argnums)`` (as
    torch.func).

    Math
    ----
    :math:`H_{ij} = \\partial^2 f / \\partial x_i \\partial x_j`.
    """
    return jacfwd(jacrev(func, argnums), argnums)
