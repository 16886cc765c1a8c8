"""Scaled dot-product attention: two fused ops, ``ScaledDotProductAttentionBackward``
(saves the probabilities) and ``FlashAttentionBackward`` (recomputes them).

The public wrapper is :func:`lucid.nn.functional.scaled_dot_product_attention`; this module
holds the op and :func:`scaled_dot_product_attention`, which validates its arguments.
"""

from __future__ import annotations

import math
import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...errors import ArgumentError, ArgumentTypeError, DTypeError, ShapeError
from ...random import generator_for
from ..core._formula import const
from ..core.base import MultiOutputOp, Op, broadcast_shapes
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = []


@register
class ScaledDotProductAttentionBackward(MultiOutputOp):
    r"""Autograd node for :math:`O = \mathrm{dropout}(\mathrm{softmax}(QK^\top s + B))\,V`,
    one fused op; its outputs are :math:`O` and the attention weights :math:`W`.

    Saves the inputs and, from the forward, the probabilities :math:`P` (``saves_extra``)
    rather than the row log-sum-exp: with :math:`P` kept the backward is four batched
    products and one fused softmax backward, without recomputing :math:`QK^\top` and its
    exponentials; :math:`P` costs :math:`L \times S` per head, small next to the
    activations of the layers around it at the sequence lengths a CPU trains.

    Math
    ----
    With :math:`S = s\,QK^\top + B` (:math:`-\infty` where masked), :math:`P =
    \mathrm{softmax}(S)` along the keys, :math:`W = P \odot M` (:math:`M` the dropout mask
    scaled by :math:`1/(1-p)`, all ones without dropout) and :math:`O = WV`:

    .. math::
        \bar W = \bar O V^\top + \bar W_{\text{out}}, \quad
        \bar V = W^\top \bar O, \quad \bar P = \bar W \odot M, \quad
        \bar S = P \odot \big(\bar P - \textstyle\sum_j \bar P_{\cdot j} P_{\cdot j}\big),

    .. math::
        \bar Q = s\,\bar S K, \qquad \bar K = s\,\bar S^\top Q, \qquad \bar B = \bar S.

    With grouped-query attention (``groups`` :math:`G > 1`) each key/value head serves
    :math:`G` consecutive query heads: :math:`K, V` are repeated along axis -3 and
    :math:`\bar K, \bar V` are summed over each group.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"scaled_dot_product_attention"``, ``AmpPolicy.PROMOTE`` (matmul-bound; the
        softmax inside computes in float32 for half inputs); 3 or 4 inputs (the float
        mask :math:`B` is the fourth and gets a gradient), 2 outputs (:math:`O`,
        :math:`W`; the weights are a copy of :math:`P` when ``copy_weights`` is set and
        dropout is off, so changing them in place cannot reach the saved :math:`P`).
    saves_input : bool
        True: :math:`Q, K, V` (and :math:`B`); graph mode recomputes :math:`P` from them.
    saves_output : bool
        False; ``saves_extra``: ``probs`` (:math:`P`) and ``keep`` (:math:`M`, or None).

    Notes
    -----
    Backends: ``be.attention_probs`` (scores by one batched ``matmul``, the row max
    subtracted before ``exp``; boolean and causal masks applied as :math:`-\infty`; on
    NumPy the scores live transposed in memory, so the reductions over the keys are
    vectorised, and :math:`P` is a view of that buffer, as is :math:`\bar W` in the
    backward (``be.probs_transposed``); on CUDA one row kernel scales, masks and
    normalises the scores in place), then
    ``be.bernoulli`` for the dropout mask (the generator of the inputs' device, so
    ``manual_seed`` reproduces it) and one ``matmul`` with :math:`V`. A row whose every
    key is masked gets :math:`P = 0`, hence output 0 and zero gradients, as PyTorch's
    CPU math kernel (no nan). The eager backward uses the saved :math:`P`; graph mode
    (``create_graph``) recomputes it with Lucid ops (``graph_ns.attention_probs``) so the
    gradient is differentiable in :math:`Q, K, B` again. Outputs that got no gradient
    are not materialised as zeros (``materialize_grads = False``).
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "scaled_dot_product_attention", 1, AmpPolicy.PROMOTE, input_arity=-1, output_arity=2
    )
    saves_input = True
    saves_extra = ("probs", "keep")
    materialize_grads = False

    @staticmethod
    def dispatch(
        be, q, k, v, bias=None, *, allowed, scale, causal, groups, dropout_p, rng, copy_weights
    ):
        if groups > 1:
            k = be.repeat_interleave(k, groups, k.ndim - 3)
            v = be.repeat_interleave(v, groups, v.ndim - 3)
        p = be.attention_probs(q, k, bias, allowed, scale, causal)
        keep = None
        if dropout_p > 0:
            keep = be.bernoulli(rng, p.shape, 1.0 - dropout_p, p.dtype)
            if dropout_p < 1:
                keep *= 1.0 / (1.0 - dropout_p)
            w = p * keep
        else:
            w = be.copy(p) if copy_weights else p
        return be.matmul(w, v), w, p, keep

    def grad(self, F, g, q, k, v, *rest):
        go, gw = g
        bias = rest[0] if len(rest) == 2 else None
        keep = self.extra["keep"]
        p = self.extra["probs"] if F is self.be else None
        return _probs_grad(self, F, go, gw, q, k, v, bias, p, keep)


@register
class FlashAttentionBackward(Op):
    r"""Autograd node for :math:`O = \mathrm{softmax}(QK^\top s + B)\,V` computed without
    the probabilities in memory (flash attention): the path of
    :func:`scaled_dot_product_attention` without weights or dropout on a backend that
    prefers it (``be.prefers_flash_attention``: CUDA, for half types and for attention
    whose :math:`P` would be large).

    Saves the inputs, the output :math:`O` and the row log-sum-exp :math:`\ell`
    (``saves_extra``), :math:`L` numbers per head instead of :math:`P`'s :math:`L \times
    S`; the backward recomputes :math:`P` tile by tile.

    Math
    ----
    With :math:`S = s\,QK^\top + B` (:math:`-\infty` where masked),
    :math:`\ell_i = \log \sum_j e^{S_{ij}}`, :math:`P = e^{S - \ell}` and
    :math:`O = PV`:

    .. math::
        \bar V = P^\top \bar O, \quad D_i = \textstyle\sum_e \bar O_{ie} O_{ie}, \quad
        \bar S = P \odot (\bar O V^\top - D), \quad
        \bar Q = s\,\bar S K, \quad \bar K = s\,\bar S^\top Q,

    :math:`D_i = \sum_j P_{ij} (\bar O V^\top)_{ij}` being the softmax backward's row
    sum. With grouped-query attention each key/value head serves ``groups`` consecutive
    query heads and :math:`\bar K, \bar V` are summed over each group.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"flash_attention"``, ``AmpPolicy.PROMOTE`` (as the P-saving op); 3 or 4 inputs
        (the float mask :math:`B`, taken only when it needs no gradient), 1 output.
    saves_input : bool
        True: :math:`Q, K, V` (and :math:`B`), from which :math:`P` is recomputed.
    saves_output : bool
        True (:math:`O`, for :math:`D`); ``saves_extra``: ``lse`` (:math:`\ell`, float32
        for half inputs, :math:`+\infty` on a fully masked row so its :math:`P` is 0).

    Notes
    -----
    Backends: ``be.attention_forward`` and ``be.attention_backward``. On CUDA these are
    flash kernels (tiles of queries and keys, online softmax, tensor cores for half
    inputs, :math:`\bar Q` accumulated atomically in float32; the output, and for half
    inputs :math:`\bar Q, \bar K, \bar V`, are laid out in ``(N, L, heads, E)`` memory,
    so a transformer's merge of the heads is a view); the array-module
    implementation (NumPy, and CUDA for the shapes its kernels do not take)
    materialises :math:`P` inside each call but keeps nothing. The float mask gets no
    gradient (:func:`scaled_dot_product_attention` takes the P-saving op when it needs
    one). Graph mode (``create_graph``) recomputes :math:`P` with Lucid ops
    (``graph_ns.attention_probs``) and differentiates through it as the P-saving op does.
    """

    __slots__ = ()
    schema_v1 = OpSchema("flash_attention", 1, AmpPolicy.PROMOTE, input_arity=-1)
    saves_input = True
    saves_output = True
    saves_extra = ("lse",)

    @staticmethod
    def dispatch(be, q, k, v, bias=None, *, allowed, scale, causal, groups):
        return be.attention_forward(q, k, v, bias, allowed, scale, causal, groups)

    def grad(self, F, g, q, k, v, *rest):
        bias = rest[0] if len(rest) == 2 else None
        if F is not self.be:
            return _probs_grad(self, F, g, None, q, k, v, bias, None, None)
        prm = self.params
        dq, dk, dv = F.attention_backward(
            g,
            q,
            k,
            v,
            bias,
            prm["allowed"],
            rest[-1],
            self.extra["lse"],
            prm["scale"],
            prm["causal"],
            prm["groups"],
        )
        need = self.needs_input_grad
        return _grads(
            dq if need[0] else None,
            dk if need[1] else None,
            dv if need[2] else None,
            None,
            len(need),
        )


def _probs_grad(node, F, go, gw, q, k, v, bias, p, keep):
    """The gradients of both ops through the probabilities :math:`P` (``p``, recomputed
    with ``F.attention_probs`` when None) and the dropout mask ``keep`` (or None)."""
    prm, need = node.params, node.needs_input_grad
    groups, scale = prm["groups"], prm["scale"]
    kk = k if groups == 1 else F.repeat_interleave(k, groups, k.ndim - 3)
    vv = v if groups == 1 else F.repeat_interleave(v, groups, v.ndim - 3)
    if p is None:
        p = F.attention_probs(q, kk, bias, prm["allowed"], scale, prm["causal"])
    keep = None if keep is None else const(keep, p)
    w = p if keep is None else p * keep
    dv = None
    if need[2] and go is not None:
        dv = _group_sum(F, F.matmul(F.swapaxes(w, -1, -2), go), groups)
    if not (need[0] or need[1] or len(need) == 4 and need[3]):
        return _grads(None, None, dv, None, len(need))
    # dW in the layout of P (be.probs_transposed: as the transpose of V dO^T), so the
    # element-wise steps and the sum of the softmax backward run on matching buffers
    dw = None
    if go is not None:
        dw = (
            F.swapaxes(F.matmul(vv, F.swapaxes(go, -1, -2)), -1, -2)
            if node.be.probs_transposed
            else F.matmul(go, F.swapaxes(vv, -1, -2))
        )
    if gw is not None:
        dw = gw if dw is None else dw + gw
    ds = F.softmax_backward(p, dw if keep is None else dw * keep, -1)
    # the scale on K and Q (S x E, L x E) rather than on dS (L x S): s dS K = dS (s K)
    dq = F.matmul(ds, kk * scale) if need[0] else None
    dk = _group_sum(F, F.matmul(F.swapaxes(ds, -1, -2), q * scale), groups) if need[1] else None
    return _grads(dq, dk, dv, ds, len(need))


def _grads(dq, dk, dv, db, n):
    """The gradients as the op's inputs: three, or four with the float mask."""
    return (dq, dk, dv) if n == 3 else (dq, dk, dv, db)


def _group_sum(F, a, groups):
    """``a`` (``(..., H * groups, S, E)``) summed over each group of consecutive heads."""
    if groups == 1:
        return a
    shape = tuple(a.shape)
    h = shape[-3] // groups
    return F.sum(F.reshape(a, shape[:-3] + (h, groups) + shape[-2:]), len(shape) - 2, False)


def scaled_dot_product_attention(
    query,
    key,
    value,
    attn_mask=None,
    dropout_p=0.0,
    is_causal=False,
    scale=None,
    enable_gqa=False,
    need_weights=False,
):
    """Validate the arguments of scaled dot-product attention and run a fused op: the
    flash op when the backend prefers it and neither weights, dropout nor the float mask's
    gradient are asked for, else the P-saving op.

    Returns the output, or ``(output, weights)`` with ``need_weights`` (the attention
    weights after dropout, shape ``(..., L, S)``).
    """
    op = "scaled_dot_product_attention"
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise ArgumentTypeError(f"{op}: {name} must be a Tensor, got {type(t).__name__}")
        if t.ndim < 2:
            raise ShapeError(
                f"{op}: {name} must have at least 2 dims (..., L, E), got shape {tuple(t.shape)}"
            )
        if not t.dtype.is_floating_point:
            raise DTypeError(f"{op}: expected a floating point {name}, got {t.dtype.name}")
    if not (query.dtype is key.dtype is value.dtype):
        raise DTypeError(
            f"{op}: expected query, key and value to have the same dtype, but "
            f"got query.dtype: {query.dtype.name}, key.dtype: "
            f"{key.dtype.name} and value.dtype: {value.dtype.name}"
        )
    qs, ks, vs = tuple(query.shape), tuple(key.shape), tuple(value.shape)
    if qs[-1] != ks[-1]:
        raise ShapeError(
            f"{op}: query and key must have the same embedding size, got {qs[-1]} and {ks[-1]}"
        )
    if ks[-2] != vs[-2]:
        raise ShapeError(
            f"{op}: key and value must have the same sequence length, got {ks[-2]} and {vs[-2]}"
        )
    groups = 1
    if enable_gqa:
        if len(qs) < 3 or len(ks) < 3 or len(vs) < 3:
            raise ShapeError(
                f"{op}: enable_gqa needs a heads dim (-3) on query, key and "
                f"value, got shapes {qs}, {ks}, {vs}"
            )
        if ks[-3] != vs[-3] or ks[-3] == 0 or qs[-3] % ks[-3]:
            raise ShapeError(
                f"{op}: enable_gqa expects the query heads ({qs[-3]}) to be a "
                f"multiple of the key/value heads (key {ks[-3]}, value "
                f"{vs[-3]})"
            )
        groups = qs[-3] // ks[-3]
    kb = ks[:-3] + (ks[-3] * groups,) if groups > 1 else ks[:-2]  # key heads repeated
    vb = vs[:-3] + (vs[-3] * groups,) if groups > 1 else vs[:-2]
    batch = broadcast_shapes(qs[:-2], kb, vb, op=op)
    out_shape = tuple(batch) + (qs[-2], ks[-2])
    if not isinstance(dropout_p, numbers.Real) or not 0.0 <= dropout_p <= 1.0:
        raise ArgumentError(f"{op}: dropout_p must be a number in [0, 1], got {dropout_p!r}")
    if scale is None:
        scale = 1.0 / math.sqrt(qs[-1]) if qs[-1] else 1.0
    elif not isinstance(scale, numbers.Real):
        raise ArgumentTypeError(f"{op}: scale must be a float or None, got {type(scale).__name__}")
    inputs = [query, key, value]
    allowed = None
    if attn_mask is not None:
        if is_causal:
            raise ArgumentError(f"{op}: explicit attn_mask should not be set when is_causal=True")
        if not isinstance(attn_mask, Tensor):
            raise ArgumentTypeError(
                f"{op}: attn_mask must be a Tensor or None, got {type(attn_mask).__name__}"
            )
        broadcast_shapes(tuple(attn_mask.shape), out_shape, op=op)
        if attn_mask.dtype is _dt.bool:
            allowed = attn_mask._data
        elif attn_mask.dtype is query.dtype:
            inputs.append(attn_mask)
        else:
            raise DTypeError(
                f"{op}: expected attn_mask dtype to be bool or to match query "
                f"dtype, but got attn_mask.dtype: {attn_mask.dtype.name} and "
                f"query.dtype: {query.dtype.name}"
            )
    if (
        not (need_weights or dropout_p)
        and (len(inputs) == 3 or not inputs[3].requires_grad)
        and query._device._backend.prefers_flash_attention(query._data.dtype, math.prod(out_shape))
    ):
        return FlashAttentionBackward.apply(
            *inputs, allowed=allowed, scale=float(scale), causal=bool(is_causal), groups=groups
        )
    rng = None
    if dropout_p > 0:
        rng = generator_for(None, query.device, op)._impl
    out, w = ScaledDotProductAttentionBackward.apply(
        *inputs,
        allowed=allowed,
        scale=float(scale),
        causal=bool(is_causal),
        groups=groups,
        dropout_p=float(dropout_p),
        rng=rng,
        copy_weights=bool(need_weights),
    )
    return (out, w) if need_weights else out
