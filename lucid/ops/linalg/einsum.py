r"""``einsum``: Einstein summation over any number of operands, as PyTorch evaluates it
(left to right, which fixes the result's dtype), through one registered n-ary node,
:class:`EinsumBackward` (holomorphic for complex operands).
"""

from __future__ import annotations

import functools
import string

from ... import dtypes as _dt
from ...errors import ArgumentError, DTypeError, ShapeError
from ..core.base import Op, to_tensor
from ..core._formula import array_of, const
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from .products import _autocast_mix, _same_device, _shape

__all__ = ["einsum"]


_SUBLIST = string.ascii_uppercase + string.ascii_lowercase  # sublist ints 0..51
_CANON = string.ascii_letters  # letters of the canonical equation the backend runs


@register
class EinsumBackward(Op):
    r"""Autograd node for Einstein summation over any number of operands.

    Saves the inputs: the gradient of each operand is the einsum of the incoming gradient
    with all the *other* operands, so no output is needed.

    Math
    ----
    .. math:: Y_{o} = \sum_{\text{labels} \notin o} \prod_k X^{(k)}_{s_k}, \qquad
              \frac{\partial \mathcal{L}}{\partial X^{(k)}_{s_k}} =
              \sum_{\text{labels} \notin s_k} G_{o} \prod_{j \ne k} X^{(j)}_{s_j}

    A label of :math:`s_k` found in no other operand nor the output enters through a
    vector of ones (the gradient is constant along it); a label repeated in :math:`s_k`
    (a diagonal) through an identity matrix tying a fresh label to it.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"einsum"``, ``AmpPolicy.PROMOTE``; any number of inputs.
    saves_input : str
        ``"others"``: input :math:`i`'s gradient is an einsum of the other operands, so an
        operand is kept only when another one needs a gradient.
    saves_output : bool
        False.

    Notes
    -----
    The wrapper rewrites the equation once per (equation, shapes) into canonical letters
    with every dim named: the ellipsis becomes letters (right-aligned), a size-1 dim that
    broadcasts gets a label of its own (summed away), the implicit output is the ellipsis
    then the labels seen once in alphabetical order. Backends: ``xp.einsum`` with
    ``optimize=True`` for two or more operands (pairwise contractions as BLAS calls), half
    types computed in float32. The gradients are einsums too, so they are differentiable
    again.
    """

    __slots__ = ()
    schema_v1 = OpSchema("einsum", 1, AmpPolicy.PROMOTE, input_arity=-1, complex_grad="holomorphic")
    saves_input = "others"

    @staticmethod
    def dispatch(be, *xs, equation):
        return be.einsum(equation, *xs)

    def grad(self, F, g, *xs_and_out):
        xs, eq = xs_and_out[:-1], self.params["equation"]
        npdtype = array_of(g).dtype
        grads = []
        for i, edge in enumerate(self.next_edges):
            if edge is None:
                grads.append(None)
                continue
            geq, extra = _einsum_grad_plan(eq, i, self.in_meta[i][0])
            consts = [const(_ones_or_eye(self.be, n, eye, npdtype), g) for n, eye in extra]
            grads.append(F.einsum(geq, g, *xs[:i], *xs[i + 1 :], *consts))
        return tuple(grads)


def _ones_or_eye(be, n, eye, npdtype):
    ones = be.ones((n,), npdtype)
    return be.diag_embed(ones, 0, 0, 1) if eye else ones


@functools.lru_cache(maxsize=1024)
def _einsum_grad_plan(equation, i, shape):
    """The canonical equation of operand ``i``'s gradient and its constant operands
    ``((size, is_eye), ...)``: ``grad_i = einsum(eq, g, *others, *constants)``."""
    lhs, out = equation.split("->")
    terms = lhs.split(",")
    others = terms[:i] + terms[i + 1 :]
    used = set(equation)
    fresh = (c for c in _CANON if c not in used)
    have = set(out).union(*others)
    target, subs, extra = [], [], []
    for c, n in zip(terms[i], shape):
        if c in target:  # diagonal: a fresh label equal to c
            f = next(fresh, None)
            if f is None:
                raise ShapeError(
                    "einsum: too many labels to differentiate this equation (52 letters at most)"
                )
            target.append(f)
            subs.append(c + f)
            extra.append((n, True))
        else:
            target.append(c)
            if c not in have:  # summed in this operand only: gradient constant
                have.add(c)
                subs.append(c)
                extra.append((n, False))
    geq = ",".join([out, *others, *subs]) + "->" + "".join(target)
    return geq, tuple(extra)


def _einsum_term(term, k):
    """Labels of one subscript term; ``...`` becomes ``None``."""
    labels, j = [], 0
    while j < len(term):
        c = term[j]
        if c == ".":
            if term[j : j + 3] != "..." or None in labels:
                raise ArgumentError(
                    f"einsum: invalid ellipsis in the subscripts {term!r} of "
                    f"{'the output' if k is None else f'operand {k}'}"
                )
            labels.append(None)
            j += 3
            continue
        if c not in _CANON:
            raise ArgumentError(
                f"einsum: invalid subscript {c!r} in the equation, subscripts must be in [a-zA-Z]"
            )
        labels.append(c)
        j += 1
    return labels


@functools.lru_cache(maxsize=1024)
def _einsum_plan(equation, shapes):
    """``equation`` over operands of ``shapes`` as a canonical explicit equation."""
    eq = equation.replace(" ", "")
    if eq.count("->") > 1:
        raise ArgumentError(f"einsum: more than one '->' in the equation {equation!r}")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ArgumentError(
            f"einsum: the equation {equation!r} has {len(terms)} operand(s) but "
            f"{len(shapes)} were given"
        )
    parsed = [_einsum_term(t, k) for k, t in enumerate(terms)]
    n_ell = 0
    for k, (labels, shape) in enumerate(zip(parsed, shapes)):
        named = len(labels) - (None in labels)
        if (None in labels and named > len(shape)) or (None not in labels and named != len(shape)):
            raise ShapeError(
                f"einsum: the subscripts {terms[k]!r} do not match the "
                f"{len(shape)} dimension(s) of operand {k} (shape {shape})"
            )
        if None in labels:
            n_ell = max(n_ell, len(shape) - named)
    # every dim of every operand as a label: letters, or ints for ellipsis dims
    full = []
    for labels, shape in zip(parsed, shapes):
        row = []
        for lab in labels:
            if lab is None:
                m = len(shape) - (len(labels) - 1)
                row.extend(range(n_ell - m, n_ell))
            else:
                row.append(lab)
        full.append(row)
    if arrow:
        out_labels = _einsum_term(rhs, None)
        out = []
        seen = {lab for row in full for lab in row}
        for lab in out_labels:
            if lab is None:
                out.extend(range(n_ell))
            elif lab not in seen:
                raise ArgumentError(
                    f"einsum: output subscript {lab!r} does not appear in the "
                    f"equation for any input operand"
                )
            elif lab in out:
                raise ArgumentError(
                    f"einsum: output subscript {lab!r} appears more than once in the output"
                )
            else:
                out.append(lab)
    else:
        counts = {}
        for row in full:
            for lab in row:
                counts[lab] = counts.get(lab, 0) + 1
        out = list(range(n_ell)) + sorted(
            lab for lab, c in counts.items() if c == 1 and isinstance(lab, str)
        )
    for k, (row, shape) in enumerate(zip(full, shapes)):
        own = {}  # a label repeated in one operand (a diagonal): equal sizes
        for lab, n in zip(row, shape):
            if own.setdefault(lab, n) != n:
                raise ShapeError(
                    f"einsum: subscript {lab!r} is repeated for operand {k} but "
                    f"the sizes don't match, {n} != {own[lab]}"
                )
    size = {}
    for k, (row, shape) in enumerate(zip(full, shapes)):
        for lab, n in zip(row, shape):
            m = size.get(lab, 1)
            if n != 1 and m != 1 and n != m:
                name = lab if isinstance(lab, str) else "..."
                raise ShapeError(
                    f"einsum: subscript {name!r} has size {n} for operand {k} "
                    f"which does not broadcast with previously seen size {m}"
                )
            size[lab] = max(m, n) if n != 1 else m
    canon = {}

    def letter(lab):
        c = canon.get(lab)
        if c is None:
            if len(canon) == len(_CANON):
                raise ShapeError(
                    "einsum: more than 52 distinct labels after expanding the "
                    "ellipsis and broadcast dims"
                )
            c = canon[lab] = _CANON[len(canon)]
        return c

    parts = []
    for k, (row, shape) in enumerate(zip(full, shapes)):
        # a size-1 dim broadcasting against a larger one gets its own (summed) label
        parts.append(
            "".join(
                letter(("bcast", k, j) if n == 1 and size[lab] != 1 else lab)
                for j, (lab, n) in enumerate(zip(row, shape))
            )
        )
    return ",".join(parts) + "->" + "".join(letter(lab) for lab in out), _einsum_steps(
        full, shapes, out
    )


def _einsum_steps(full, shapes, out):
    """The steps of PyTorch's evaluation that decide the result's dtype.

    One operand: summed over the labels not in the output, if there are any (``sum``:
    integers and bool become int64). More: PyTorch folds them left to right, the dims of
    every operand aligned (the output's, then the others). At each step a label not in
    the output is summed away on one side if no other operand still has it (``sum``), or
    contracted by both sides if none after them has it (``bmm``, which wants one dtype,
    not bool; with an empty side it checks nothing and gives its second matrix's dtype:
    the operand's, or the product's where the operands are swapped for the memory order).
    A step that contracts nothing multiplies (the dtypes promote). Returns ``"sum"``,
    ``None`` or, for more operands, ``(sum product, sum operand, "mul" | "bmm" | "empty
    left" | "empty right")`` per operand after the first."""
    rest = [lab for row in full for lab in row if lab not in out]
    dims = list(out) + sorted(set(rest), key=lambda lab: (isinstance(lab, str), lab))
    pos = {lab: i for i, lab in enumerate(dims)}
    if len(shapes) == 1:
        return "sum" if rest else None
    sizes = []
    for row, shape in zip(full, shapes):
        s = [1] * len(dims)
        for lab, n in zip(row, shape):
            s[pos[lab]] = n
        sizes.append(s)
    contracted = range(len(out), len(dims))
    count = {i: sum(s[i] != 1 for s in sizes) for i in contracted}
    a, steps = sizes[0], []
    for b in sizes[1:]:
        a, b = list(a), list(b)
        both, sum_a, sum_b = [], False, False
        for i in contracted:
            if a[i] != 1 and b[i] != 1:
                count[i] -= 1
                if count[i] == 1:
                    both.append(i)
                    count[i] = 0
            elif count[i] == 1 and (a[i] != 1 or b[i] != 1):
                sum_a, sum_b = sum_a or a[i] != 1, sum_b or b[i] != 1
                a[i], b[i], count[i] = 1, 1, 0
        if not both:
            how = "mul"
        elif 0 in a or 0 in b:
            lo = [i for i in range(len(dims)) if i not in both and a[i] != 1 and b[i] == 1]
            ro = [i for i in range(len(dims)) if i not in both and a[i] == 1]
            how = "empty left" if lo and ro and ro[-1] < lo[0] else "empty right"
        else:
            how = "bmm"
        steps.append((sum_a, sum_b, how))
        a = [
            1 if i in both else max(m, n) if 0 not in (m, n) else 0
            for i, (m, n) in enumerate(zip(a, b))
        ]
    return tuple(steps)


def _einsum_dtypes(steps, dtypes):
    """``(result dtype, dtype to compute in)`` of an einsum whose evaluation takes ``steps``
    (:func:`_einsum_steps`) over operands of ``dtypes``, PyTorch's; a DTypeError where
    PyTorch refuses."""

    def summed(d):
        return _dt.int64 if d._cat < 2 else d

    res = dtypes[0]
    if steps == "sum":
        res = summed(res)
    for i, ((sum_a, sum_b, how), d) in enumerate(zip(steps or (), dtypes[1:]), 1):
        res, d = (summed(res) if sum_a else res), (summed(d) if sum_b else d)
        if how == "mul":
            res = _dt.promote_types(res, d)
        elif how != "empty left":
            if how == "bmm" and res is not d:
                raise DTypeError(
                    f"einsum: contracting operand {i} with the product of the "
                    f"operands before it needs one dtype, got {res.name} and "
                    f"{d.name}"
                )
            if how == "bmm" and res is _dt.bool:
                raise DTypeError("einsum: contracting bool operands is not implemented")
            res = d
    compute = res
    for d in dtypes:
        compute = _dt.promote_types(compute, d)
    # a bool result is a product of bools, computed in 0/1 integers (CuPy's einsum has no
    # bool kernels)
    return res, _dt.uint8 if compute is _dt.bool else compute


def _sublist_equation(args):
    """``einsum(op0, sub0, op1, sub1, ..., [out])`` as ``(equation, operands)``."""
    ops, subs = args[0::2], list(args[1::2])
    out = None
    if len(args) % 2:
        ops, out = ops[:-1], ops[-1]

    def term(sub):
        try:
            return "".join("..." if s is Ellipsis else _SUBLIST[s] for s in sub)
        except (IndexError, TypeError):
            raise ArgumentError(
                f"einsum: subscripts in a sublist must be ints in [0, 52) or Ellipsis, got {sub!r}"
            ) from None

    eq = ",".join(term(s) for s in subs)
    return (eq if out is None else eq + "->" + term(out)), ops


def einsum(*args):
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` (implicit output, ``...`` and
    size-1 broadcasting as in PyTorch), ``einsum(eq, [a, b])`` or the sublist form
    ``einsum(a, [0, 1], b, [1, 2], [0, 2])``.

    The result's dtype is PyTorch's, which follows from its left-to-right evaluation
    (:func:`_einsum_steps`): a label summed on one operand alone makes an integer or bool
    operand int64 (``einsum("ij->", int16)`` is int64, ``"ij->ji"`` keeps int16), operands
    that are only multiplied promote (``"ij,ij->ij"`` of int64 and float32 is float32),
    and operands contracted together must share a dtype (a DTypeError otherwise, as
    PyTorch's ``bmm``); Lucid computes in the promotion of all of them and casts."""
    if not args:
        raise ArgumentError("einsum: expected an equation and at least one operand")
    if isinstance(args[0], str):
        equation, ops = args[0], args[1:]
        if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
            ops = tuple(ops[0])
    else:
        equation, ops = _sublist_equation(args)
    if not ops:
        raise ArgumentError("einsum: expected at least one operand")
    first = to_tensor(ops[0])
    ops = (first,) + tuple(_same_device("einsum", first, to_tensor(t, first)) for t in ops[1:])
    eq, steps = _einsum_plan(equation, tuple(_shape(t) for t in ops))
    if all(_autocast_mix(first, t) for t in ops):  # autocast casts them all
        return EinsumBackward.apply(*ops, equation=eq)
    dtype, compute = _einsum_dtypes(steps, tuple(t._dtype for t in ops))
    out = EinsumBackward.apply(
        *(t if t._dtype is compute else t.to(compute) for t in ops), equation=eq
    )
    return out if out._dtype is dtype else out.to(dtype)
