"""Batching rules: how each op runs once on a whole batch under ``lucid.func.vmap``.

While a vmap level is active, :meth:`~lucid.ops.core.base.Op.apply` calls :func:`batched_apply`
(the registry's ``BATCHING`` hook). For an op with an input batched at the innermost
level present, the op's rule gets the inputs as physical tensors (``bat[i]``: whether
input ``i`` is batched, with the batch dim first; unbatched inputs as they are) and the
op's normalised params, and returns the physical result(s), batch dim first. A rule calls
ops itself, so under nested vmap the physical tensors, batched at lower levels, take those
levels' rules in turn. An op without a rule raises :class:`VmapError` naming it: vmap never
falls back to a loop over the batch.

Rule families (the op names in :data:`RULES`):

- element-wise (unary, binary, ternary, scalar, casts, activations, comparisons): a
  batched input's logical dims are padded with size-1 dims after the batch dim, so
  broadcasting lines the batch dim up at the front;
- dim-indexed ops (reductions, softmax, cumulative, sort, select, cat...): each
  non-negative dim param shifted by one (negative dims count from the end: unchanged);
- shape ops (view/reshape, permute, expand, repeat, sum_to_size, basic and advanced
  indexing): the batch dim prepended to the shape, the permutation or the index;
- matmul, einsum, linear: the batch dim made a broadcast (or einsum) batch dimension;
- trailing-dim ops (tril, triu) as they are; pad with no padding of the batch dim;
- layer, RMS, group, instance and batch norm (not updating running statistics): the
  batch dim one more kept axis (batched weights, as ``vmap(grad)`` makes them, applied
  after by the element-wise rules);
- ops over a leading sample dim (convolution, pooling, interpolate; embedding's
  indices): the batch dim merged into the sample dim and split after;
- indexing by batched index tensors (gather included): an ``arange`` over the batch as
  one more advanced index; masked_fill by a batched mask: ``where``; cross-entropy and
  NLL with batched targets: per-element losses reduced per entry;
- dropout, by the level's ``randomness``: ``'different'`` masks per entry, ``'same'`` one
  mask broadcast over the batch, ``'error'`` raises.

An array param made from a batched tensor (a boolean mask, an index tensor turned into
an index) raises: its values would differ per entry. :func:`batched_inplace` is the
in-place counterpart (``x.add_(y)``, ``x[i] = v``): the batched result copied into the
batched destination's physical tensor.
"""

from __future__ import annotations

from .. import dtypes as _dt
from .._tensor import Tensor
from ..ops.core import registry
from . import _batched as _b
from ._batched import VmapError
from ..ops.core.base import to_tensor
from ..ops import arange
from ..ops.core.base import broadcast_shapes

__all__ = ["RULES", "batched_apply", "batched_inplace", "batched_ops"]

RULES: dict = {}


def batched_ops():
    """Sorted names of the ops that have a batching rule."""
    return sorted(RULES)


def batched_apply(cls, inputs, params):
    """The ``BATCHING`` hook: the op's rule at the innermost level among ``inputs``, or
    NotImplemented when no input is batched."""
    level = _level(inputs)
    found = {}  # param key -> batched tensors among its values
    for k, v in params.items():
        ts = [_b.batched_of(e) for e in v] if v.__class__ in (tuple, list) else [_b.batched_of(v)]
        if any(t is not None for t in ts):
            found[k] = ts
            level = max(level, max(t._level for t in ts if t is not None))
    if not level:
        return NotImplemented
    name = cls.schema_v1.name
    if found:
        params = _param_physicals(name, params, found, level)
    rule = RULES.get(name)
    if rule is None:
        raise VmapError(
            f"vmap: there is no batching rule for op '{name}' "
            f"({cls.__name__}); it cannot be vectorized (lucid.func.batched_ops() "
            "lists the ops that can)"
        )
    vals, bat = [], []
    for t in inputs:
        b = t.__class__ is _b.BatchedTensor and t._level == level
        vals.append(t._bval if b else t)
        bat.append(b)
    out = rule(cls, vals, bat, params, level)
    if out.__class__ is tuple:
        return tuple(_b.wrap(o, level) for o in out)
    return _b.wrap(out, level)


_ARRAY_PARAMS = {
    "index": "index",
    "masked_fill": "mask",
    "cross_entropy": "target",
    "nll_loss": "target",
}  # ops whose rule takes a batched array param


def _param_physicals(name, params, found, level):
    """``params`` with each array of a tensor batched at ``level`` replaced by that
    tensor's physical Tensor (for the rules of :data:`_ARRAY_PARAMS`); arrays of lower
    levels stay, for those levels' rules."""
    p = dict(params)
    for k, ts in found.items():
        hit = [t is not None and t._level == level for t in ts]
        if not any(hit):
            continue
        if _ARRAY_PARAMS.get(name) != k:
            raise VmapError(
                f"vmap: op '{name}' got a batched tensor as its '{k}' argument "
                "(a value that differs per batch entry), which its batching "
                "rule does not support"
            )
        v = p[k]
        if v.__class__ in (tuple, list):
            p[k] = tuple(t._bval if h else e for e, t, h in zip(v, ts, hit))
        else:
            p[k] = ts[0]._bval
    return p


def _level(tensors):
    level = 0
    for t in tensors:
        if t.__class__ is _b.BatchedTensor and t._level > level:
            level = t._level
    return level


def batched_inplace(fn, self_t, args, kwargs):
    """The in-place hook: ``fn(self_t, *args)`` computed batched, then copied into
    ``self_t``'s physical tensor (an in-place copy there, so its history is rebased). A
    batched result cannot be written into an unbatched tensor."""
    level = _level((self_t,) + args)
    if not level:
        return NotImplemented
    if not (self_t.__class__ is _b.BatchedTensor and self_t._level == level):
        raise VmapError(
            f"vmap: {getattr(fn, '__name__', 'op')}_ would write a result that "
            "differs per batch entry into a tensor that is the same for all of "
            "them (not batched); use the out-of-place op"
        )
    res = fn(self_t, *args, **kwargs)
    phys = res._bval if res.__class__ is _b.BatchedTensor and res._level == level else res
    if phys._dtype is not self_t._dtype:
        phys = phys.to(self_t._dtype)
    self_t._bval.copy_(phys)
    return self_t


def _rule(*names):
    def deco(fn):
        for n in names:
            RULES[n] = fn
        return fn

    return deco


def _lnd(v, b):
    """The logical ndim of input ``v`` (a number: 0)."""
    nd = v.ndim if isinstance(v, Tensor) else 0
    return nd - 1 if b else nd


def _pad(v, nd):
    """Physical ``v`` (batch first) with size-1 dims after the batch dim up to logical
    ndim ``nd``."""
    s = tuple(v.shape)
    k = nd - (len(s) - 1)
    return v.reshape(s[:1] + (1,) * k + s[1:]) if k > 0 else v


def _batch(v, b, size):
    """Input ``v`` batched: an unbatched one broadcast over the batch (an expanded view)."""
    return v if b else v.unsqueeze(0).expand((size,) + tuple(v.shape))


_ELEMENTWISE = (
    # unary math
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "ceil",
    "clamp",
    "cos",
    "cosh",
    "digamma",
    "erf",
    "erfc",
    "erfinv",
    "exp",
    "exp2",
    "expm1",
    "floor",
    "frac",
    "isfinite",
    "isinf",
    "isnan",
    "isneginf",
    "isposinf",
    "lgamma",
    "log",
    "log10",
    "log1p",
    "log2",
    "logit",
    "nan_to_num",
    "neg",
    "polygamma",
    "reciprocal",
    "relu",
    "round",
    "rsqrt",
    "sigmoid",
    "sign",
    "signbit",
    "sin",
    "sinc",
    "sinh",
    "sqrt",
    "square",
    "tan",
    "tanh",
    "trunc",
    "gelu",
    "silu",
    "cast",
    "clone",
    "bitwise_not",
    "logical_not",
    # special functions (lucid.special)
    "bessel_j0",
    "bessel_j1",
    "spherical_bessel_j0",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "ndtr",
    "ndtri",
    "log_ndtr",
    "erfcx",
    "entr",
    "xlog1py",
    "zeta",
    "gammainc",
    "gammaincc",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "orthogonal_polynomial",
    # with a Python scalar
    "add_scalar",
    "sub_scalar",
    "mul_scalar",
    "div_scalar",
    "rsub_scalar",
    "pow_scalar",
    # binary and ternary
    "add",
    "sub",
    "mul",
    "div",
    "div_rounding",
    "pow",
    "atan2",
    "copysign",
    "fmax",
    "fmin",
    "fmod",
    "remainder",
    "hypot",
    "logaddexp",
    "logaddexp2",
    "maximum",
    "minimum",
    "xlogy",
    "nextafter",
    "heaviside",
    "ldexp",
    "gcd",
    "lcm",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "isclose",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "where",
    "lerp",
    "addcmul",
    "addcdiv",
    "copy",
    # backward helpers (element-wise on a gradient and a saved tensor)
    "sigmoid_backward",
    "tanh_backward",
    "pow_scalar_backward",
    # complex numbers (view_as_real/view_as_complex add/drop a trailing dim: batch-safe)
    "conj",
    "real",
    "imag",
    "angle",
    "sgn",
    "polar",
    "complex",
    "view_as_real",
    "view_as_complex",
)


@_rule(*_ELEMENTWISE)
def _elementwise(cls, vals, bat, params, level):
    """Batched inputs padded to the output's logical ndim, so the batch dim broadcasts at
    the front; an op whose inputs do not broadcast gets every input expanded."""
    nd = max(_lnd(v, b) for v, b in zip(vals, bat))
    args = [_pad(v, nd) if b else v for v, b in zip(vals, bat)]
    if len(args) > 1 and not cls._broadcast:
        shape = _bshape(args)
        args = [a.expand(shape) if isinstance(a, Tensor) else a for a in args]
    return cls.apply(*args, **params)


def _bshape(args):
    return broadcast_shapes(*[tuple(a.shape) for a in args if isinstance(a, Tensor)])


def _shift(d):
    """A logical dim as a physical one (batch dim first)."""
    if d is None:
        return None
    if isinstance(d, (tuple, list)):
        return tuple(_shift(e) for e in d)
    return d + 1 if d >= 0 else d


def _dims_rule(*keys):
    """Rule for ops whose params ``keys`` are dims (int or tuple); every tensor input is
    batched (an unbatched one broadcast: cat, stack)."""

    def rule(cls, vals, bat, params, level):
        size = _batch_size(vals, bat)
        p = dict(params)
        for k in keys:
            p[k] = _shift(p[k])
        return cls.apply(*[_batch(v, b, size) for v, b in zip(vals, bat)], **p)

    return rule


_DIM_PARAMS = {  # op names -> their dim params; () : leading dims are batch dims
    (
        "sum",
        "mean",
        "prod",
        "var",
        "std",
        "norm",
        "logsumexp",
        "amax",
        "amin",
        "all",
        "any",
        "count_nonzero",
        "nansum",
        "nanmean",
        "softmax",
        "log_softmax",
        "cumsum",
        "cumprod",
        "logcumsumexp",
        "cummax",
        "cummin",
        "max",
        "min",
        "median",
        "mode",
        "kthvalue",
        "sort",
        "topk",
        "unbind",
        "split",
        "select",
        "narrow",
        "cat",
        "stack",
        "diff",
        "cross",
        "unfold",
    ): ("dim",),
    ("flip",): ("dims",),
    ("diagonal", "diag_embed"): ("dim1", "dim2"),
    (
        "scaled_dot_product_attention",
        "cdist",
        "linalg_det",
        "linalg_slogdet",
        "linalg_inv",
        "linalg_solve",
        "linalg_solve_triangular",
        "linalg_cholesky",
        "linalg_qr",
        "linalg_svd",
        "linalg_eigh",
        "linalg_pinv",
        "linalg_matrix_exp",
        "linalg_lu_factor",
    ): (),
}
for _names, _keys in _DIM_PARAMS.items():
    _rule(*_names)(_dims_rule(*_keys))


@_rule("repeat_interleave")
def _repeat_interleave(cls, vals, bat, params, level):
    """``dim=None`` repeats each flattened entry."""
    (v,) = vals
    if params["dim"] is None:
        v = v.reshape(v.shape[0], -1)
        return cls.apply(v, **dict(params, dim=1))
    return cls.apply(v, **dict(params, dim=_shift(params["dim"])))


@_rule("tril", "triu")
def _trailing(cls, vals, bat, params, level):
    """Ops on the last dims only: the physical tensor as it is."""
    return cls.apply(*vals, **params)


@_rule("roll")
def _roll(cls, vals, bat, params, level):
    """``dims=None`` rolls each flattened entry."""
    (v,) = vals
    if params["dims"] is None:
        flat = cls.apply(v.reshape(v.shape[0], -1), shifts=params["shifts"], dims=(1,))
        return flat.reshape(v.shape)
    return cls.apply(v, shifts=params["shifts"], dims=_shift(tuple(params["dims"])))


@_rule("pad")
def _pad_rule(cls, vals, bat, params, level):
    return cls.apply(vals[0], **dict(params, pads=((0, 0),) + tuple(params["pads"])))


@_rule("layer_norm", "rms_norm", "group_norm", "instance_norm", "batch_norm")
def _norm(cls, vals, bat, params, level):
    """The normalised axes shifted, the batch dim one more kept axis: statistics per
    entry. Batched weights (as ``vmap(grad)`` makes them) are applied after the op, by
    the element-wise rules. Running statistics are used (eval mode) but not updated."""
    if params.get("running") is not None and params.get("use_input_stats", True):
        raise VmapError(
            f"vmap: {cls.schema_v1.name} updating running statistics has no "
            "batching rule (they would be updated per batch entry); use eval "
            "mode or track_running_stats=False"
        )
    view, axes, paxes, wshape = params["layout"]
    v = vals[0]
    layout = (
        None if view is None else (v.shape[0],) + tuple(view),
        _shift(tuple(axes)),
        (0,) + _shift(tuple(paxes)),
        (1,) + tuple(wshape),
    )
    if not any(bat[1:]):
        return cls.apply(*vals, **dict(params, layout=layout))
    y = cls.apply(v, **dict(params, layout=layout))
    for i, name in ((1, "mul"), (2, "add")):
        if len(vals) > i:
            w = vals[i]
            w = w.reshape((w.shape[0],) + tuple(wshape)) if bat[i] else w.reshape(wshape)
            y = _elementwise(registry.get_op(name), [y, w], [True, bat[i]], {}, level)
    return y


@_rule(
    "convolution",
    "conv_transpose",
    "avg_pool",
    "max_pool",
    "adaptive_avg_pool",
    "adaptive_max_pool",
    "interpolate",
    "embedding",
)
def _merge_batch(cls, vals, bat, params, level):
    """Ops over a leading sample dim (N, ...): the batch dim merged into it, split after.
    Only that input may be batched (for embedding: the indices)."""
    k = 1 if cls.schema_v1.name == "embedding" else 0
    if any(b for i, b in enumerate(bat) if i != k):
        raise VmapError(
            f"vmap: {cls.schema_v1.name} has a batching rule for a batched input {k} only"
        )
    v = vals[k]
    size, shape = v.shape[0], tuple(v.shape)
    args = list(vals)
    args[k] = v.reshape((size * shape[1],) + shape[2:]) if k == 0 else v
    out = cls.apply(*args, **params)
    if k:
        return out
    split = lambda o: o.reshape((size, shape[1]) + tuple(o.shape)[1:])  # noqa: E731
    return tuple(split(o) for o in out) if out.__class__ is tuple else split(out)


@_rule("argmax", "argmin")
def _arg_reduce(cls, vals, bat, params, level):
    """``dim=None`` reduces the flattened tensor: flatten each entry first."""
    (v,) = vals
    if params["dim"] is None:
        return cls.apply(v.reshape(v.shape[0], -1), dim=1, keepdim=False)
    return cls.apply(v, dim=_shift(params["dim"]), keepdim=params["keepdim"])


@_rule("view", "reshape")
def _view(cls, vals, bat, params, level):
    """A reshape of each entry; copies where the physical strides need it."""
    (v,) = vals
    return v.reshape((v.shape[0],) + tuple(params["shape"]))


@_rule("permute")
def _permute(cls, vals, bat, params, level):
    return cls.apply(vals[0], dims=(0,) + _shift(tuple(params["dims"])))


@_rule("expand")
def _expand(cls, vals, bat, params, level):
    (v,) = vals
    shape = tuple(params["shape"])
    return cls.apply(_pad(v, len(shape)), shape=(v.shape[0],) + shape)


@_rule("sum_to_size")
def _sum_to_size(cls, vals, bat, params, level):
    """Each entry summed down to ``shape``: the target padded to the entry's rank behind
    the batch dim, then the padding dropped."""
    (v,) = vals
    shape = tuple(params["shape"])
    size, nd = v.shape[0], v.ndim - 1
    out = cls.apply(v, shape=(size,) + (1,) * (nd - len(shape)) + shape)
    return out.reshape((size,) + shape)


@_rule("repeat")
def _repeat(cls, vals, bat, params, level):
    (v,) = vals
    reps = tuple(params["reps"])
    return cls.apply(_pad(v, len(reps)), reps=(1,) + reps)


@_rule("slice")
def _slice(cls, vals, bat, params, level):
    """Basic indexing: a full slice over the batch dim before the index."""
    return cls.apply(vals[0], index=(slice(None),) + tuple(params["index"]))


@_rule("index")
def _index(cls, vals, bat, params, level):
    """Advanced indexing, the batch dim kept first. Unbatched index arrays: a full slice
    over the batch dim before them (separated advanced indices put their dims first,
    NumPy's rule, so the batch dim is moved back to the front). Batched integer indices
    (physical Tensors here): :func:`_batched_index`."""
    v = _batch(vals[0], bat[0], _batch_size(vals, bat, params["index"]))
    index = tuple(params["index"])
    adv = [i for i, e in enumerate(index) if hasattr(e, "shape")]
    if any(isinstance(e, Tensor) for e in index):
        return _batched_index(cls, v, index, adv)
    out = cls.apply(v, index=(slice(None),) + index)
    if adv and adv[-1] - adv[0] + 1 != len(adv):
        k = max(1 if str(index[i].dtype) == "bool" else index[i].ndim for i in adv)
        out = out.movedim(k, 0)
    return out


def _batch_size(vals, bat, *params):
    """The batch size: of a batched input, else of a batched tensor among ``params``."""
    for v, b in zip(vals, bat):
        if b:
            return v.shape[0]
    for p in params:
        for e in p if isinstance(p, tuple) else (p,):
            if isinstance(e, Tensor):
                return e.shape[0]
    raise VmapError("vmap: internal error: no batched operand")


def _batched_index(cls, v, index, adv):
    """Batched integer indices: the batch dim and any leading full slices become
    ``arange`` advanced indices, broadcast with the others into one block (so the result
    is ``(batch, sliced dims, index dims, rest)``)."""
    p = adv[0] if adv else 0
    shape = tuple(v.shape)
    if (
        adv != list(range(p, p + len(adv)))
        or not all(_full(index[i], shape[i + 1]) for i in range(p))
        or any(isinstance(index[i], Tensor) and index[i]._dtype is _dt.bool for i in adv)
    ):
        raise VmapError(
            "vmap: indexing by a batched index tensor supports integer indices "
            "in one block after full slices (x[i], x[i, j], x[:, i], x[i, 1:]); "
            "a boolean mask per entry has a data-dependent shape"
        )
    na = max((e.ndim - 1 if isinstance(e, Tensor) else e.ndim) for e in (index[i] for i in adv))
    lead = 1 + p  # the batch dim and the sliced dims
    grids = []
    for k in range(lead):
        g = _arange(shape[k], v).reshape((1,) * k + (shape[k],) + (1,) * (lead - 1 - k + na))
        grids.append(g)
    for i in adv:
        e = index[i]
        if isinstance(e, Tensor):
            es = tuple(e.shape)
            e = e.reshape(es[:1] + (1,) * (lead - 1 + na - (len(es) - 1)) + es[1:])
        else:
            e = _const(e, v)
        grids.append(e)
    full = _bshape(grids)
    ix = tuple(g.expand(full)._data for g in grids)
    return cls.apply(v, index=ix + index[p + len(adv) :])


def _full(e, n):
    """Whether index entry ``e`` is a full slice of a dim of size ``n``."""
    return (
        isinstance(e, slice)
        and e.start in (None, 0)
        and e.step in (None, 1)
        and (e.stop is None or e.stop >= n)
    )


def _arange(n, like):
    return arange(n, device=like._device)


def _const(a, like):
    """Array param ``a`` as a Tensor: the batched tensor of a lower level it stands for,
    else a copy."""
    t = _b.batched_of(a)
    return t if t is not None else to_tensor(a, like)


@_rule("masked_fill")
def _masked_fill(cls, vals, bat, params, level):
    """Only the input batched: the op as is (the mask broadcasts from the right). A batched
    mask or value: ``where(mask, value, x)`` by the element-wise rule."""
    mask = params["mask"]
    if not isinstance(mask, Tensor) and not bat[1]:
        return cls.apply(*vals, **params)
    m = mask if isinstance(mask, Tensor) else _const(mask, vals[0])
    return _elementwise(
        registry.get_op("where"),
        [m, vals[1], vals[0]],
        [isinstance(mask, Tensor), bat[1], bat[0]],
        {},
        level,
    )


@_rule("cross_entropy", "nll_loss")
def _class_loss(cls, vals, bat, params, level):
    """Per-element losses (``reduction='none'``) over the batch merged into the sample dim,
    then reduced per entry: ``'mean'`` divides by the entry's total target weight."""
    t = params["target"]
    size = _batch_size(vals, bat, t)
    x = _batch(vals[0], bat[0], size)
    t = _batch(t if isinstance(t, Tensor) else _const(t, x), isinstance(t, Tensor), size)
    xs, ts = tuple(x.shape), tuple(t.shape)
    xf = x.reshape((size * xs[1],) + xs[2:])
    tf = t.reshape((size * ts[1],) + ts[2:])
    loss = cls.apply(xf, **dict(params, target=tf._data, reduction="none"))
    red = params["reduction"]
    if red == "none":
        return loss.reshape(ts)
    loss = loss.reshape(size, -1).sum(1)
    if red == "sum":
        return loss
    valid = tf != params["ignore_index"]
    w = valid.to(x.dtype)
    if params.get("weight") is not None:
        cw = _const(params["weight"], x).to(x.dtype)
        w = w * cw[valid.to(tf.dtype) * tf]
    return loss / w.reshape(size, -1).sum(1)


@_rule("matmul")
def _matmul(cls, vals, bat, params, level):
    """1-d operands become matrices (a row on the left, a column on the right, squeezed
    after); batched operands are padded so the batch dim leads the broadcast batch dims."""
    (a, b), (ba, bb) = vals, bat
    na, nb = _lnd(a, ba), _lnd(b, bb)
    if na == 1:
        a = a.unsqueeze(1 if ba else 0)
    if nb == 1:
        b = b.unsqueeze(-1)
    nd = max(na, nb, 2)
    a = _pad(a, nd) if ba else a
    b = _pad(b, nd) if bb else b
    out = cls.apply(a, b)
    if nb == 1:
        out = out.squeeze(-1)
    if na == 1:
        out = out.squeeze(-2)
    return out


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


@_rule("einsum")
def _einsum(cls, vals, bat, params, level):
    """A fresh subscript for the batch dim, on the batched operands and the output."""
    eq = params["equation"].replace(" ", "")
    lhs, rhs = eq.split("->")
    z = next(c for c in _LETTERS if c not in eq)
    ops = [z + s if b else s for s, b in zip(lhs.split(","), bat)]
    return cls.apply(*vals, equation=",".join(ops) + "->" + z + rhs)


@_rule("linear")
def _linear(cls, vals, bat, params, level):
    """Only the input batched: the op as is (it maps the last dim). A batched weight or
    bias: as a batched matmul plus bias."""
    if not any(bat[1:]):
        return cls.apply(*vals)
    w, bw = vals[1], bat[1]
    wt = w.transpose(-1, -2) if _lnd(w, bw) == 2 else w
    y = _matmul(registry.get_op("matmul"), [vals[0], wt], [bat[0], bw], {}, level)
    if len(vals) > 2:
        y = _elementwise(registry.get_op("add"), [y, vals[2]], [True, bat[2]], {}, level)
    return y


@_rule("dropout")
def _dropout(cls, vals, bat, params, level):
    """By the level's randomness: one mask per entry, or one for the whole batch."""
    mode = _b.LEVELS[level - 1][1]
    if mode == "error":
        raise VmapError(
            "vmap: dropout is random: pass randomness='different' (a mask per "
            "batch entry) or 'same' (one mask for all) to vmap"
        )
    (v,) = vals
    lead = v.shape[0] if mode == "different" else 1
    return cls.apply(v, **dict(params, noise_shape=(lead,) + tuple(params["noise_shape"])))


registry.BATCHING[0] = batched_apply
registry.BATCHING[1] = batched_inplace
