"""The graph-mode forms of the layer kernels: convolution and pooling
(``lucid/backend/interface/conv.py``), normalisation, dropout and embedding
(``interface/norm.py``), attention, the fused activations and losses, interpolation and
grid sampling.

Part of :mod:`lucid.ops.core.graph_ns` (``F`` in graph mode).
"""

from __future__ import annotations

import math

from .... import dtypes as _dt
from ...binary.ternary import where as _where
from .._formula import const
from ...indexing.gather_scatter import scatter_add as _scatter_add
from ...shape.joins import cat as _cat, stack as _stack
from ...linalg.products import matmul as _matmul
from ...elementwise.exp_log import exp, rsqrt, sigmoid
from ...elementwise.trig import tanh
from ...elementwise.erf import erf
from ...nn import conv as _conv, pooling as _pooling
from ...special.functions import softmax as _softmax
from ...creation.creation import zeros as _zeros
from ...nn.vision import InterpolateBackward, InterpolateGradBackward
from .basics import index, index_add_along

__all__ = [
    "conv_forward",
    "conv_backward_input",
    "conv_backward_weight",
    "im2col",
    "col2im",
    "max_pool_backward",
    "pool_scatter",
    "pool_gather",
    "avg_pool_backward",
    "norm_backward",
    "embedding_backward",
    "embedding_bag_backward",
    "attention_probs",
    "gelu_backward",
    "silu_backward",
    "cross_entropy_backward",
    "nll_loss_backward",
    "interpolate",
    "interpolate_backward",
    "grid_sample_backward",
]


# == nn: convolution and pooling (graph-mode forms of lucid/backend/interface/conv.py) ====


def conv_forward(x, w, b, stride, padding, dilation, groups):
    """The convolution op (its gradients are convolutions again)."""
    args = (x, w) if b is None else (x, w, b)
    return _conv.ConvolutionBackward.apply(
        *args, stride=stride, padding=padding, dilation=dilation, groups=groups
    )


def conv_backward_input(g, w, in_spatial, stride, padding, dilation, groups):
    """The input gradient of a convolution: the transposed convolution op of ``g``."""
    return _conv.ConvTransposeBackward.apply(
        g,
        w,
        out_spatial=tuple(in_spatial),
        stride=stride,
        padding=padding,
        dilation=dilation,
        groups=groups,
    )


def conv_backward_weight(g, x, kernel, stride, padding, dilation, groups):
    """The weight gradient as a convolution op: the input's channels of a group become a
    batch of ``C_in/G`` images with ``G N`` channels, the output gradient a kernel
    ``(C_out, N, *O)``; stride and dilation exchange roles, and the result is cropped to
    the kernel shape."""
    n, co = g.shape[:2]
    c = x.shape[1]
    sp = x.ndim - 2
    cg, cog = c // groups, co // groups
    rest = tuple(range(3, 3 + sp))
    xs = x.reshape((n, groups, cg) + tuple(x.shape[2:])).permute((2, 1, 0) + rest)
    xs = xs.reshape((cg, groups * n) + tuple(x.shape[2:]))
    gs = g.reshape((n, groups, cog) + tuple(g.shape[2:])).permute((1, 2, 0) + rest)
    gs = gs.reshape((co, n) + tuple(g.shape[2:]))
    r = _conv.ConvolutionBackward.apply(
        xs, gs, stride=tuple(dilation), padding=padding, dilation=tuple(stride), groups=groups
    )
    r = r[(slice(None), slice(None)) + tuple(slice(0, k) for k in kernel)]
    return r.permute((1, 0) + tuple(range(2, 2 + sp)))


def im2col(x, kernel, stride, padding, dilation):
    return _conv.Im2colBackward.apply(
        x, kernel=tuple(kernel), stride=stride, padding=padding, dilation=dilation
    )


def col2im(col, in_spatial, stride, padding, dilation):
    return _conv.Col2imBackward.apply(
        col, in_spatial=tuple(in_spatial), stride=stride, padding=padding, dilation=dilation
    )


def max_pool_backward(g, argmax, in_spatial, kernel, stride, padding, dilation):
    """``col2im`` (the op) of ``g`` times the one-hot of ``argmax`` over the kernel (a
    constant)."""
    sp = len(kernel)
    lead = tuple(g.shape[:2])
    k = 1
    for n in kernel:
        k *= n
    be = g._device._backend
    hot = be.reshape(argmax._data, lead + (1,) + tuple(argmax.shape[2:])) == be.reshape(
        be.arange(0, 1, k, argmax._dtype.np), (1, 1, k) + (1,) * sp
    )
    hot = const(be.astype(hot, g._dtype.np), g)
    col = g.reshape(lead + (1,) + tuple(g.shape[2:])) * hot
    col = col.reshape(lead + tuple(kernel) + tuple(g.shape[2:]))
    return col2im(col, in_spatial, stride, padding, dilation)


def pool_scatter(g, indices, out_spatial, accumulate):
    """``g`` put at flat spatial ``indices``: the max-unpool op (its gradient a gather)."""
    return _pooling.MaxUnpoolBackward.apply(
        g, indices, out_spatial=tuple(out_spatial), accumulate=accumulate
    )


def pool_gather(x, indices):
    """``x`` read at flat spatial ``indices`` (``gather`` over the flattened spatial dims)."""
    n, c = x.shape[:2]
    flat = x.reshape((n, c, -1)).gather(2, indices.reshape((n, c, -1)))
    return flat.reshape(tuple(indices.shape))


def avg_pool_backward(g, in_spatial, kernel, stride, padding, divisor):
    """``col2im`` (the op) of :math:`g / D` broadcast over the kernel; ``divisor`` (an array
    or a number) is a constant."""
    if not isinstance(divisor, (int, float)):
        divisor = const(g._device._backend.astype(divisor, g._dtype.np), g)
    gd = g / divisor
    sp = len(kernel)
    col = gd.reshape(tuple(g.shape[:2]) + (1,) * sp + tuple(g.shape[2:]))
    col = col.expand(tuple(g.shape[:2]) + tuple(kernel) + tuple(g.shape[2:]))
    return col2im(col, in_spatial, stride, padding, (1,) * sp)


# == nn: normalisation, attention, embedding, dropout (interface/norm.py) ================

# -- normalisation, dropout, embedding (interface/norm.py) ------------------------------


def norm_backward(g, x, w, mean, rstd, axes, paxes, eps, stats_grad, need):
    """The norms' gradients (see ``NormKernels.norm_backward``) in Lucid ops. Statistics
    taken from ``x`` (``stats_grad``) are recomputed from it, so the second derivative
    sees their dependence on ``x``; running statistics (``mean``/``rstd`` arrays) are
    constants."""
    if stats_grad:
        xc = x - x.mean(axes, keepdim=True) if mean is not None else x
        rstd = rsqrt((xc * xc).mean(axes, keepdim=True) + eps)
    else:
        xc = x - const(mean, x) if mean is not None else x
        rstd = const(rstd, x)
    xhat = xc * rstd
    gx = gw = gb = None
    if need[1]:
        gw = (g * xhat).sum(paxes, keepdim=True)
    if need[2]:
        gb = g.sum(paxes, keepdim=True)
    if need[0]:
        gh = g if w is None else g * w
        if stats_grad:
            gx = gh - xhat * (gh * xhat).mean(axes, keepdim=True)
            if mean is not None:
                gx = gx - gh.mean(axes, keepdim=True)
            gx = gx * rstd
        else:
            gx = gh * rstd
    return gx, gw, gb


def embedding_backward(g, idx, num_weights, padding_idx, scale_grad_by_freq):
    """The embedding weight's gradient (see ``NormKernels.embedding_backward``):
    ``scatter_add`` of ``g``'s rows into zeros; the frequency scale and the padding row's
    mask are constants."""
    be = g._device._backend
    flat = idx._data.reshape(-1)
    d = tuple(g.shape[idx.ndim :])
    g2 = g.reshape((flat.shape[0],) + d)
    if scale_grad_by_freq:
        counts = be.astype(be.bincount(flat, None, num_weights, flat.dtype), g._dtype.np)
        g2 = g2 * const(be.reshape(1 / be.index(counts, (flat,)), (-1,) + (1,) * len(d)), g)
    pos = be.broadcast_copy(be.reshape(flat, (-1,) + (1,) * len(d)), g2.shape)
    zeros = const(be.full((num_weights,) + d, 0, g._dtype.np), g)
    gw = _scatter_add(zeros, 0, const(pos, g), g2)
    if padding_idx is not None:
        keep = be.ones((num_weights,) + (1,) * len(d), g._dtype.np)
        be.index_put_(keep, (padding_idx,), 0, False)
        gw = gw * const(keep, g)
    return gw


def embedding_bag_backward(
    g, weight, idx, bag, num_weights, mode, psw, aux, scale_grad_by_freq, need
):
    """The gradients of a bag of embeddings (see ``NormKernels.embedding_bag_backward``)
    in Lucid ops: ``g`` gathered by bag (scaled by the constant bag sizes, or times the
    per-sample weights) and scatter-added into the weight rows; for max, each element of
    ``g`` scatter-added to its maximum's row."""
    be = g._device._backend
    kpos = be.nonzero_index(bag >= 0)[0]
    iv, bv = be.index(idx._data, (kpos,)), be.index(bag, (kpos,))
    d = g.shape[1]
    gw = gpsw = None
    if need[0]:
        if mode == "max":
            rows = be.reshape(aux, (-1,))
            hit = be.nonzero_index(rows >= 0)[0]
            cols = be.broadcast_copy(be.arange(0, 1, d, rows.dtype), aux.shape)
            tgt = be.index(rows * d + be.reshape(cols, (-1,)), (hit,))
            zeros = const(be.full((num_weights * d,), 0, g._dtype.np), g)
            gw = _scatter_add(zeros, 0, const(tgt, g), index(g.reshape(-1), (hit,)))
            gw = gw.reshape(num_weights, d)
        else:
            eg = index(g, (bv,))
            if mode == "mean":
                size = be.index(be.maximum(aux, be.ones((), aux.dtype)), (bv,))
                eg = eg * const(be.astype(be.reshape(1 / size, (-1, 1)), g._dtype.np), g)
            elif psw is not None:
                eg = eg * index(psw, (kpos,)).unsqueeze(1)
            gw = embedding_backward(eg, const(iv, g), num_weights, None, scale_grad_by_freq)
    if need[1]:
        vals = (index(g, (bv,)) * index(weight, (iv,))).sum(1)
        gpsw = index_add_along(vals, kpos, 0, idx.shape[0])
    return gw, gpsw


# -- attention (interface/attention.py) -------------------------------------------------


def attention_probs(q, k, bias, allowed, scale, causal):
    """``softmax(scale * q k^T + bias)`` over the allowed keys (``allowed`` a bool array or
    None, ``causal`` top-left), recorded; a row with no finite score gives zeros (its
    scores are replaced by 0 before the softmax, so the gradient there is 0, not nan)."""
    s = _matmul(q, k.transpose(-1, -2)) * scale
    if bias is not None:
        s = s + bias
    be = q._device._backend
    if causal:
        tri = be.tril(be.full(tuple(s.shape[-2:]), True, _dt.bool.np), 0)
        allowed = tri if allowed is None else allowed & tri
    if allowed is not None:
        s = _where(const(allowed, q), s, -math.inf)
    if bias is None and allowed is None or not s.shape[-1]:
        return _softmax(s, -1)
    dead = s.detach().amax(-1, keepdim=True) == -math.inf
    return _where(dead, 0.0, _softmax(_where(dead, 0.0, s), -1))


# == nn: activations and losses (interface/loss.py) ========================================


def gelu_backward(a, g, approximate):
    """``g * GELU'(a)`` (see ``LossKernels.gelu_backward``) in Lucid ops."""
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        t = tanh(k * (a + 0.044715 * a * a * a))
        return g * (0.5 * (1 + t) + 0.5 * a * (1 - t * t) * (k * (1 + 0.134145 * a * a)))
    cdf = 0.5 * (1 + erf(a * math.sqrt(0.5)))
    return g * (cdf + a * exp(-0.5 * a * a) * (1.0 / math.sqrt(2.0 * math.pi)))


def silu_backward(a, g):
    s = sigmoid(a)
    return g * (s * (1 + a * (1 - s)))


def _class_loss_terms(be, target, weight, n_cls, ignore_index, reduction, g, npdtype):
    """The constants of a class-index loss gradient: the target weights ``wt``, the safe
    target, and the scale :math:`s_n` (``g`` over :math:`W` for a mean) shaped to
    broadcast over the class axis."""
    wt, safe = be.nll_target_weights(target, weight, n_cls, ignore_index, npdtype)
    s = g
    if reduction == "mean":
        w = float(wt.sum())
        s = g * (0.0 if w == 0 else 1.0 / w)
    elif reduction == "none":
        s = g.unsqueeze(1)
    return wt, safe, s


def cross_entropy_backward(a, lse, g, target, weight, ignore_index, reduction, label_smoothing):
    """:math:`s_n (p_n \\sum_k q_{nk} - q_n)` with :math:`p` the softmax op of ``a``
    (recorded, so the Hessian is exact; ``lse`` is unused) and :math:`q` a constant."""
    be, npdt, n_cls = a._device._backend, a._dtype.np, a.shape[1]
    wt, safe, s = _class_loss_terms(be, target, weight, n_cls, ignore_index, reduction, g, npdt)
    q = be.class_onehot(safe, n_cls, npdt) * be.reshape(
        wt * (1.0 - label_smoothing), (wt.shape[0], 1) + wt.shape[1:]
    )
    if label_smoothing:
        valid = be.astype(target != ignore_index, npdt)
        wc = be.ones((n_cls,), npdt) if weight is None else be.astype(weight, npdt)
        q = q + be.reshape(valid, (wt.shape[0], 1) + wt.shape[1:]) * be.reshape(
            wc * (label_smoothing / n_cls), (1, n_cls) + (1,) * (wt.ndim - 1)
        )
    q = const(q, a)
    return s * (_softmax(a, 1) * q.sum(1, keepdim=True) - q)


def nll_loss_backward(g, target, weight, ignore_index, reduction, shape):
    """:math:`-s_n w_{y_n}` at the targets: ``g`` times a constant one-hot."""
    be, npdt = g._device._backend, g._dtype.np
    wt, safe, s = _class_loss_terms(be, target, weight, shape[1], ignore_index, reduction, g, npdt)
    hot = be.class_onehot(safe, shape[1], npdt) * be.reshape(wt, (wt.shape[0], 1) + wt.shape[1:])
    return -(s * const(hot, g))


# == nn: vision (interface/vision.py) ======================================================


def interpolate(x, size, mode, align_corners, scales):
    return InterpolateBackward.call(
        x, size=tuple(size), mode=mode, align_corners=align_corners, scales=scales
    )


def interpolate_backward(g, in_size, mode, align_corners, scales):
    """The adjoint of :func:`interpolate`, as the op whose own gradient is the forward."""
    return InterpolateGradBackward.call(
        g, in_size=tuple(in_size), mode=mode, align_corners=align_corners, scales=scales
    )


def _tap_weights(t, mode):
    """One axis' tap weights at fractional positions ``t`` and their derivatives in ``t``
    (linear; Keys' cubic with A = -0.75; nearest 1)."""
    if mode == "nearest":
        return (1,), (0,)
    if mode == "bilinear":
        return (1 - t, t), (-1, 1)
    a = -0.75

    def near(s):
        return ((a + 2) * s - (a + 3)) * s * s + 1, (3 * (a + 2) * s - 2 * (a + 3)) * s

    def far(s):
        return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a, (3 * a * s - 10 * a) * s + 8 * a

    (w0, d0), (w1, d1), (w2, d2), (w3, d3) = far(t + 1), near(t), near(1 - t), far(2 - t)
    return (w0, w1, w2, w3), (d0, d1, -d2, -d3)


def grid_sample_backward(g, x, grid, mode, padding_mode, align_corners, input_grad, grid_grad):
    """The gradients of ``grid_sample`` composed from Lucid ops: the tap positions of
    ``be.grid_sample_plan`` are constants, the weights are recomputed from ``grid``,
    ``index_select`` / ``index_add`` read and scatter channels-last rows. ``None`` for a
    gradient not asked for."""
    n, ch = x.shape[:2]
    sp = tuple(x.shape[2:])
    d, p = len(sp), math.prod(sp)
    q = math.prod(grid.shape[1:-1])
    like = dict(dtype=g.dtype, device=g.device)
    gx = _zeros(n * p + 1, ch, **like)
    gc = [_zeros(n * q, **like) for _ in range(d)]
    axes = ()
    if g.numel() and x.numel():
        axes, taps = g._device._backend.grid_sample_plan(
            grid._data, sp, mode, padding_mode, align_corners
        )
        flat = grid.reshape(n * q, d)
        ws = [
            _tap_weights(flat[:, d - 1 - a] * const(du, g) + const(b, g), mode)
            for a, (du, b) in enumerate(axes)
        ]
        grows = g.reshape(n, ch, q).transpose(1, 2).reshape(n * q, ch)
        xrows = _cat(
            [x.reshape(n, ch, p).transpose(1, 2).reshape(n * p, ch), _zeros(1, ch, **like)], 0
        )
        for row, ks in taps:
            r = const(row, g)
            w = [ws[a][0][k] for a, k in enumerate(ks)]
            if input_grad:
                wk = math.prod(w)
                gx = gx.index_add(0, r, grows if isinstance(wk, int) else grows * wk.unsqueeze(1))
            if grid_grad and mode != "nearest":
                gv = (grows * xrows.index_select(0, r)).sum(1)
                for a, k in enumerate(ks):
                    gc[a] = gc[a] + gv * (ws[a][1][k] * math.prod(w[:a] + w[a + 1 :]))
    gx = gx[: n * p].reshape(n, p, ch).transpose(1, 2).reshape(tuple(x.shape))
    if axes:
        gc = [gc[a] * const(axes[a][0], g) for a in range(d)]
    gg = _stack(gc[::-1], -1).reshape(tuple(grid.shape))
    return gx if input_grad else None, gg if grid_grad else None
