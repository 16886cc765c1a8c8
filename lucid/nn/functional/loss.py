"""Loss functions (mse, cross_entropy, nll, bce, kl_div, ctc, margin losses, ...).

Cross-entropy with class indices, NLL and binary cross-entropy are fused ops
(:mod:`lucid.ops.nn.loss`; binary cross-entropy with PyTorch's clamps at 0 and 1); the others
are compositions of Lucid ops that follow PyTorch's formulas, so their values and
gradients agree with it (edge conventions included: the clamp of ``var`` outside the
graph in the Gaussian NLL, strict hinges ``max(0, z)`` with gradient 0 at 0 where
PyTorch's kernels test ``z > 0``, and ``clamp_min`` with gradient 1 at 0 where PyTorch
composes with it).
``reduction`` is ``"none"``, ``"mean"`` or ``"sum"``; the legacy ``size_average`` and
``reduce`` arguments are accepted in the signatures for compatibility and must be None.
"""

from __future__ import annotations


import math
import warnings

from ... import dtypes as _dt
from ... import ops as _ops
from ..._tensor import Tensor
from ...autograd.grad_mode import is_grad_enabled
from ...errors import ArgumentError, DeviceMismatchError, DTypeError, IndexingError, ShapeError
from ...ops.core.base import to_tensor
from ...ops.nn.loss import BinaryCrossEntropyBackward, CrossEntropyBackward, NllLossBackward
from ...ops.reduction.norm import norm as _norm
from .activation import logsigmoid
from .vq import straight_through

__all__ = [
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "cross_entropy",
    "nll_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "kl_div",
    "poisson_nll_loss",
    "gaussian_nll_loss",
    "ctc_loss",
    "margin_ranking_loss",
    "hinge_embedding_loss",
    "cosine_embedding_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "soft_margin_loss",
]

_REDUCTIONS = ("none", "mean", "sum")


# -- helpers -------------------------------------------------------------------------------


def _check(reduction, op, size_average=None, reduce=None, extra=()):
    if size_average is not None or reduce is not None:
        raise ArgumentError(
            f"{op}: the legacy size_average and reduce arguments are not "
            "supported; use reduction='none' | 'mean' | 'sum'"
        )
    if reduction not in _REDUCTIONS + tuple(extra):
        raise ArgumentError(
            f"{op}: {reduction!r} is not a valid value for reduction "
            f"(expected one of {', '.join(map(repr, _REDUCTIONS + extra))})"
        )


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _float(x, op, what="input", complex_ok=False):
    t = to_tensor(x)
    if not (t.dtype.is_floating_point or complex_ok and t.dtype.is_complex):
        raise DTypeError(f"{op}: expected a floating point {what}, got {t.dtype}")
    return t


def _same_device(op, *ts):
    devs = {str(t.device) for t in ts if t is not None}
    if len(devs) > 1:
        raise DeviceMismatchError(
            f"{op}: expected all tensors to be on the same device, but "
            f"found tensors on {' and '.join(sorted(devs))}"
        )


def _pair(input, target, op, warn=True, complex_ok=False):
    """``input`` and ``target`` as float (or, where ``complex_ok``, complex) tensors,
    broadcast against each other as PyTorch does (with its warning when their sizes
    differ, for the losses where it warns)."""
    x = _float(input, op, complex_ok=complex_ok)
    t = to_tensor(target, x)
    _same_device(op, x, t)
    if tuple(t.shape) != tuple(x.shape):
        if warn:
            warnings.warn(
                f"{op}: using a target size ({tuple(t.shape)}) that is different "
                f"to the input size ({tuple(x.shape)}). This will likely lead to "
                "incorrect results due to broadcasting. Please ensure they have the "
                "same size.",
                stacklevel=3,
            )
        shape = _ops.broadcast_shapes(tuple(x.shape), tuple(t.shape))
        x, t = x.expand(shape), t.expand(shape)
    return x, t


def _same_size(input, target, op):
    x = _float(input, op)
    t = to_tensor(target, x)
    _same_device(op, x, t)
    if tuple(t.shape) != tuple(x.shape):
        raise ShapeError(
            f"{op}: using a target size ({tuple(t.shape)}) that is different to "
            f"the input size ({tuple(x.shape)}) is not supported; please ensure "
            "they have the same size"
        )
    return x, t


def _weighted(loss, weight, reduction, op, input_shape, mean_by_weight):
    """The element-wise ``weight`` (same size as the input) of mse/l1/huber."""
    w = to_tensor(weight, loss)
    if tuple(w.shape) != tuple(input_shape):
        raise ShapeError(
            f"{op}: weights and input must have the same size, got weight "
            f"{tuple(w.shape)} and input {tuple(input_shape)}"
        )
    loss = loss * w
    if reduction == "mean" and mean_by_weight:
        return loss.sum() / w.sum()
    return _reduce(loss, reduction)


# -- regression losses ---------------------------------------------------------------------


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """:math:`(x - y)^2`, reduced; with ``weight``, :math:`w (x - y)^2` and the mean
    :math:`\\sum w (x - y)^2 / \\sum w`."""
    _check(reduction, "mse_loss", size_average, reduce)
    shape = tuple(to_tensor(input).shape)
    x, t = _pair(input, target, "mse_loss")
    loss = (x - t).square()
    if weight is not None:
        return _weighted(loss, weight, reduction, "mse_loss", shape, True)
    return _reduce(loss, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """:math:`|x - y|`, reduced (real for complex inputs, as PyTorch); with ``weight`` as
    :func:`mse_loss`."""
    _check(reduction, "l1_loss", size_average, reduce)
    shape = tuple(to_tensor(input).shape)
    x, t = _pair(input, target, "l1_loss", complex_ok=True)
    loss = _ops.abs(x - t)
    if weight is not None:
        return _weighted(loss, weight, reduction, "l1_loss", shape, True)
    return _reduce(loss, reduction)


def _huber(d, delta):
    a = _ops.abs(d)
    return _ops.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """:math:`0.5 d^2 / \\beta` where :math:`|d| < \\beta`, else :math:`|d| - 0.5\\beta`
    (:math:`d = x - y`; ``beta=0`` is the L1 loss)."""
    _check(reduction, "smooth_l1_loss", size_average, reduce)
    if beta < 0:
        raise ArgumentError(f"smooth_l1_loss: beta must be non-negative, got {beta}")
    x, t = _pair(input, target, "smooth_l1_loss")
    d = x - t
    loss = _ops.abs(d) if beta == 0 else _huber(d, beta) / beta
    return _reduce(loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """:math:`0.5 d^2` where :math:`|d| < \\delta`, else :math:`\\delta(|d| - 0.5\\delta)`;
    with ``weight`` the element-wise product, its mean an ordinary mean."""
    _check(reduction, "huber_loss")
    if delta <= 0:
        raise ArgumentError(f"huber_loss: delta must be positive, got {delta}")
    shape = tuple(to_tensor(input).shape)
    x, t = _pair(input, target, "huber_loss")
    loss = _huber(x - t, delta)
    if weight is not None:
        return _weighted(loss, weight, reduction, "huber_loss", shape, False)
    return _reduce(loss, reduction)


# -- classification: class indices and probabilities --------------------------------------


def _class_weight(weight, x, n_cls, op):
    if weight is None:
        return None
    w = _float(weight, op, "weight")
    _same_device(op, x, w)
    if tuple(w.shape) != (n_cls,):
        raise ShapeError(
            f"{op}: weight tensor should be defined either for all {n_cls} "
            f"classes or no classes but got weight tensor of shape: "
            f"{tuple(w.shape)}"
        )
    return w


def _class_target(x, target, op):
    """The integer target of a class-index loss, checked against the input's shape."""
    t = to_tensor(target, x)
    _same_device(op, x, t)
    if t.dtype.is_floating_point or t.dtype is _dt.bool:
        raise DTypeError(
            f"{op}: expected an integer (class index) target, got {t.dtype}"
            + (
                f" (probability targets must have the input's shape {tuple(x.shape)})"
                if op == "cross_entropy"
                else ""
            )
        )
    want = () if x.ndim == 1 else (x.shape[0],) + tuple(x.shape[2:])
    if tuple(t.shape) != want:
        raise ShapeError(
            f"{op}: expected target size {list(want)}, got {list(t.shape)} "
            f"(input of shape {tuple(x.shape)})"
        )
    return t


def _class_input(input, op):
    x = _float(input, op)
    if x.ndim == 0:
        raise ShapeError(
            f"{op}: expected an input of 1 or more dimensions (C), (N, C) or "
            "(N, C, d1, ...), got a 0-d tensor"
        )
    return x


def _class_loss(cls, x, t, w, reduction, **params):
    """Run a class-index op on ``(N, C, ...)`` input; a ``(C,)`` input is one sample."""
    single = x.ndim == 1
    if single:
        x, t = x.unsqueeze(0), t.unsqueeze(0)
    try:
        out = cls.call(
            x, target=t._data, weight=None if w is None else w._data, reduction=reduction, **params
        )
    except IndexingError as e:
        raise IndexingError(
            f"{cls.schema_v1.name}: target out of bounds for {x.shape[1]} classes ({e})"
        ) from None
    return out.squeeze(0) if single and reduction == "none" else out


def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
    label_smoothing=0.0,
):
    """Cross-entropy of the logits ``input`` (``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``)
    against class indices (one fused op: log-softmax and NLL in one pass, with ``weight``,
    ``ignore_index`` and ``label_smoothing``) or class probabilities (a float ``target`` of
    the input's shape; ``ignore_index`` does not apply)."""
    _check(reduction, "cross_entropy", size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ArgumentError(
            f"cross_entropy: label_smoothing must be between 0.0 and 1.0, got {label_smoothing}"
        )
    x = _class_input(input, "cross_entropy")
    n_cls = x.shape[0] if x.ndim == 1 else x.shape[1]
    w = _class_weight(weight, x, n_cls, "cross_entropy")
    t = to_tensor(target, x)
    if t.dtype.is_floating_point and tuple(t.shape) == tuple(x.shape):
        return _soft_cross_entropy(x, t, w, reduction, label_smoothing, n_cls)
    t = _class_target(x, t, "cross_entropy")
    return _class_loss(
        CrossEntropyBackward,
        x,
        t,
        w,
        reduction,
        ignore_index=int(ignore_index),
        label_smoothing=float(label_smoothing),
    )


def _soft_cross_entropy(x, t, w, reduction, eps, n_cls):
    """:math:`-\\sum_c w_c \\tilde q_c \\log p_c`, :math:`\\tilde q = (1 - \\varepsilon) q +
    \\varepsilon / C`; the mean divides by the number of samples."""
    cdim = 0 if x.ndim == 1 else 1
    _same_device("cross_entropy", x, t)
    logp = _ops.log_softmax(x, cdim)
    if eps:
        t = t * (1.0 - eps) + eps / n_cls
    prod = logp * t
    if w is not None:
        prod = prod * (w if cdim == 0 else w.reshape((n_cls,) + (1,) * (x.ndim - 2)))
    loss = -prod.sum(cdim)
    return _reduce(loss, reduction)


def nll_loss(
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"
):
    """Negative log-likelihood :math:`-w_{y_n} x_{n, y_n}` of log-probabilities ``input``
    (``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``) against class indices; the mean divides by
    the total weight of the targets not ignored."""
    _check(reduction, "nll_loss", size_average, reduce)
    x = _class_input(input, "nll_loss")
    n_cls = x.shape[0] if x.ndim == 1 else x.shape[1]
    w = _class_weight(weight, x, n_cls, "nll_loss")
    t = _class_target(x, target, "nll_loss")
    return _class_loss(NllLossBackward, x, t, w, reduction, ignore_index=int(ignore_index))


# -- binary classification -----------------------------------------------------------------


def binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """:math:`-w\\,(y \\log x + (1 - y) \\log(1 - x))` for probabilities ``input``, one
    fused op (:class:`~lucid.ops.nn.loss.BinaryCrossEntropyBackward`) with PyTorch's clamps:
    each log at -100 and, in the gradient, :math:`x (1 - x)` at :math:`10^{-12}`, so
    :math:`x = 0` or 1 gives a finite loss and gradient. ``target`` has the input's dtype;
    ``weight`` (no gradient, as PyTorch) broadcasts to the input's shape."""
    op = "binary_cross_entropy"
    _check(reduction, op, size_average, reduce)
    x, t = _same_size(input, target, op)
    if t.dtype is not x.dtype:
        if isinstance(target, Tensor):
            raise DTypeError(
                f"{op}: expected a target of the input's dtype {x.dtype}, got {t.dtype}"
            )
        t = t.to(x.dtype)
    x._device._backend.check_range(
        x._data, 0.0, 1.0, f"{op}: all elements of input should be between 0 and 1"
    )
    loss = BinaryCrossEntropyBackward.call(x, t)
    if weight is not None:
        loss = loss * _bce_weight(weight, x, op)
    return _reduce(loss, reduction)


def _bce_weight(weight, x, op):
    """``weight`` in the input's dtype, checked to broadcast to the input's shape."""
    w = to_tensor(weight, x)
    _same_device(op, x, w)
    if w.requires_grad and is_grad_enabled():
        raise ArgumentError(
            f"{op}: not differentiable with respect to 'weight'; pass a "
            "weight that does not require grad (detach it)"
        )
    _check_broadcasts_to(op, "weight", w, x)
    return w if w.dtype is x.dtype else w.to(x.dtype)


def _check_broadcasts_to(op, name, w, x):
    """A ShapeError unless ``w`` broadcasts to ``x``'s shape (PyTorch's loss is written
    into a tensor of that shape, so a larger broadcast is refused)."""
    shape = tuple(x.shape)
    try:
        ok = _ops.broadcast_shapes(shape, tuple(w.shape)) == shape
    except ShapeError:
        ok = False
    if not ok:
        raise ShapeError(
            f"{op}: {name} of shape {tuple(w.shape)} does not broadcast to the "
            f"input's shape {shape}"
        )


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    """:math:`-w\\,[p\\,y \\log\\sigma(x) + (1 - y) \\log(1 - \\sigma(x))]`, computed
    stably as :math:`(1 - y)\\,x + (1 + (p - 1) y)\\,\\mathrm{softplus}(-x)`; ``pos_weight``
    :math:`p` broadcasts against the class (last) dim. ``weight`` and ``pos_weight`` must
    broadcast to the input's shape (not widen it), as PyTorch."""
    op = "binary_cross_entropy_with_logits"
    _check(reduction, op, size_average, reduce)
    x, t = _same_size(input, target, op)
    sp = -logsigmoid(x)  # softplus(-x), stable
    if pos_weight is not None:
        pw = to_tensor(pos_weight, x)
        _same_device(op, x, pw)
        _check_broadcasts_to(op, "pos_weight", pw, x)
        loss = (1 - t) * x + (1 + (pw - 1) * t) * sp
    else:
        loss = (1 - t) * x + sp
    if weight is not None:
        w = to_tensor(weight, x)
        _check_broadcasts_to(op, "weight", w, x)
        loss = loss * w
    return _reduce(loss, reduction)


# -- distributions -------------------------------------------------------------------------


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Point-wise KL divergence :math:`y (\\log y - x)` of log-probabilities ``input``
    (``log_target``: ``target`` is given as :math:`\\log y`); ``"batchmean"`` divides the
    sum by the batch size (``"mean"`` by every element, with PyTorch's warning)."""
    _check(reduction, "kl_div", size_average, reduce, extra=("batchmean",))
    x, t = _pair(input, target, "kl_div", warn=False)
    if reduction == "mean":
        warnings.warn(
            "kl_div: reduction 'mean' divides the total loss by both the batch size "
            "and the support size; 'batchmean' divides only by the batch size and "
            "aligns with the KL divergence math definition",
            stacklevel=2,
        )
    if log_target:
        loss = _ops.exp(t) * (t - x)
    else:
        loss = _ops.xlogy(t, t) - t * x
    if reduction == "batchmean":
        s = loss.sum()
        return s / x.shape[0] if x.ndim else s
    return _reduce(loss, reduction)


def poisson_nll_loss(
    input,
    target,
    log_input=True,
    full=False,
    size_average=None,
    eps=1e-8,
    reduce=None,
    reduction="mean",
):
    """Poisson NLL: :math:`e^x - y x` (``log_input``) or :math:`x - y \\log(x + \\epsilon)`;
    ``full`` adds Stirling's :math:`y \\log y - y + \\frac12 \\log(2\\pi y)` where
    :math:`y > 1`."""
    _check(reduction, "poisson_nll_loss", size_average, reduce)
    x, t = _pair(input, target, "poisson_nll_loss", warn=False)
    if log_input:
        loss = _ops.exp(x) - t * x
    else:
        loss = x - t * _ops.log(x + eps)
    if full:
        stirling = t * _ops.log(t) - t + 0.5 * _ops.log(2 * math.pi * t)
        loss = loss + _ops.where(t > 1, stirling, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """:math:`\\frac12(\\log v + (x - y)^2 / v)` (+ :math:`\\frac12\\log 2\\pi` with
    ``full``), ``var`` clamped at ``eps`` outside the graph; ``var`` of the input's shape,
    one dim short, or with one dim of size 1 (homoscedastic), or a number."""
    _check(reduction, "gaussian_nll_loss")
    x = _float(input, "gaussian_nll_loss")
    t = to_tensor(target, x)
    if isinstance(var, (int, float)):
        if var < 0:
            raise ArgumentError("gaussian_nll_loss: var has negative entry/entries")
        v = _ops.full_like(x.detach(), float(var))
    else:
        v = to_tensor(var, x)
        _same_device("gaussian_nll_loss", x, t, v)
        v._device._backend.check_range(
            v._data, 0.0, math.inf, "gaussian_nll_loss: var has negative entry/entries"
        )
    if tuple(v.shape) != tuple(x.shape):
        if tuple(x.shape[:-1]) == tuple(v.shape):
            v = v.unsqueeze(-1)
        elif not (v.ndim == x.ndim and sum(b for a, b in zip(x.shape, v.shape) if a != b) == 1):
            raise ShapeError(
                f"gaussian_nll_loss: var is of incorrect size {tuple(v.shape)} "
                f"for input of size {tuple(x.shape)}"
            )
    vd = v.detach()
    v = v + (_ops.clamp(vd, min=eps) - vd)  # clamped value, identity gradient
    loss = 0.5 * (_ops.log(v) + (x - t).square() / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


# -- margin and embedding losses -----------------------------------------------------------


def margin_ranking_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    """:math:`\\max(0, -y (x_1 - x_2) + \\text{margin})`."""
    _check(reduction, "margin_ranking_loss", size_average, reduce)
    x1 = _float(input1, "margin_ranking_loss")
    x2, y = to_tensor(input2, x1), to_tensor(target, x1)
    if not x1.ndim == x2.ndim == y.ndim:
        raise ShapeError(
            f"margin_ranking_loss: all input tensors should have same dimension "
            f"but got sizes: input1: {tuple(x1.shape)}, input2: "
            f"{tuple(x2.shape)}, target: {tuple(y.shape)}"
        )
    loss = _ops.clamp(-y * (x1 - x2) + margin, min=0.0)
    return _reduce(loss, reduction)


def hinge_embedding_loss(
    input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"
):
    """:math:`x` where :math:`y = 1`, :math:`\\max(0, \\text{margin} - x)` where
    :math:`y = -1` (PyTorch's sum of both terms for other labels)."""
    _check(reduction, "hinge_embedding_loss", size_average, reduce)
    x = _float(input, "hinge_embedding_loss")
    y = to_tensor(target, x)
    m = _ops.where(y != 1, _ops.clamp(margin - x, min=0.0), 0.0)
    s = _ops.where(y != -1, x, 0.0)
    return _reduce(m + s, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """:math:`\\log(1 + e^{-y x})`."""
    _check(reduction, "soft_margin_loss", size_average, reduce)
    x, y = _same_size(input, target, "soft_margin_loss")
    return _reduce(-logsigmoid(y * x), reduction)


def cosine_embedding_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    """:math:`1 - \\cos(x_1, x_2)` where :math:`y = 1`, :math:`\\max(0, \\cos(x_1, x_2) -
    \\text{margin})` where :math:`y = -1`; inputs ``(N, D)`` or ``(D,)``."""
    _check(reduction, "cosine_embedding_loss", size_average, reduce)
    x1 = _float(input1, "cosine_embedding_loss")
    x2, y = to_tensor(input2, x1), to_tensor(target, x1)
    if x1.ndim not in (1, 2) or tuple(x1.shape) != tuple(x2.shape) or y.ndim != x1.ndim - 1:
        raise ShapeError(
            f"cosine_embedding_loss: expected inputs of the same shape (N, D) or "
            f"(D,) and a target of shape (N,) or (), got {tuple(x1.shape)}, "
            f"{tuple(x2.shape)} and {tuple(y.shape)}"
        )
    d = x1.ndim - 1
    eps = 1e-12
    cos = (x1 * x2).sum(d) / _ops.sqrt(((x1 * x1).sum(d) + eps) * ((x2 * x2).sum(d) + eps))
    pos = _ops.where(y == 1, 1 - cos, 0.0)
    neg = _ops.where(y == -1, _ops.clamp(cos - margin, min=0.0), 0.0)
    return _reduce(pos + neg, reduction)


def _pairwise_distance(x1, x2, p=2.0, eps=1e-6):
    return _norm(x1 - x2 + eps, p, dim=-1)


def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin=1.0,
    p=2,
    eps=1e-6,
    swap=False,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """:math:`\\max(d(a, p) - d(a, n) + \\text{margin}, 0)` with the :math:`p`-norm pairwise
    distance :math:`\\|x_1 - x_2 + \\epsilon\\|_p`; ``swap`` takes
    :math:`\\min(d(a, n), d(p, n))` as the negative distance."""
    _check(reduction, "triplet_margin_loss", size_average, reduce)
    if margin <= 0:
        raise ArgumentError(f"triplet_margin_loss: margin must be greater than 0, got {margin}")
    a = _float(anchor, "triplet_margin_loss")
    pos, neg = to_tensor(positive, a), to_tensor(negative, a)
    _check_triplet_dims(a, pos, neg, "triplet_margin_loss")
    return _triplet(
        a, pos, neg, lambda u, v: _pairwise_distance(u, v, p, eps), margin, swap, reduction
    )


def triplet_margin_with_distance_loss(
    anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False, reduction="mean"
):
    """:func:`triplet_margin_loss` with any ``distance_function(x1, x2)`` (default: the
    Euclidean pairwise distance)."""
    _check(reduction, "triplet_margin_with_distance_loss")
    if margin <= 0:
        raise ArgumentError(
            f"triplet_margin_with_distance_loss: margin must be greater than 0, got {margin}"
        )
    a = to_tensor(anchor)
    pos, neg = to_tensor(positive, a), to_tensor(negative, a)
    _check_triplet_dims(a, pos, neg, "triplet_margin_with_distance_loss")
    dist = _pairwise_distance if distance_function is None else distance_function
    return _triplet(a, pos, neg, dist, margin, swap, reduction)


def _check_triplet_dims(a, p, n, op):
    if not a.ndim == p.ndim == n.ndim:
        raise ShapeError(
            f"{op}: the anchor, positive, and negative tensors are expected to "
            f"have the same number of dimensions, but got: anchor {a.ndim}D, "
            f"positive {p.ndim}D, and negative {n.ndim}D inputs"
        )


def _triplet(a, p, n, dist, margin, swap, reduction):
    d_pos, d_neg = dist(a, p), dist(a, n)
    if swap:
        d_neg = _ops.minimum(d_neg, dist(p, n))
    return _reduce(_ops.clamp(margin + d_pos - d_neg, min=0.0), reduction)


def multi_margin_loss(
    input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """:math:`\\frac1C \\sum_{i \\ne y} w_y \\max(0, \\text{margin} - x_y + x_i)^p`
    (``p`` 1 or 2) per sample of ``input`` ``(N, C)`` or ``(C,)``."""
    _check(reduction, "multi_margin_loss", size_average, reduce)
    if p not in (1, 2):
        raise ArgumentError(f"multi_margin_loss: only p == 1 and p == 2 supported, got {p}")
    x = _float(input, "multi_margin_loss")
    if x.ndim not in (1, 2) or x.ndim == 2 and x.shape[1] == 0 or x.ndim == 1 and not x.shape[0]:
        raise ShapeError(
            f"multi_margin_loss: expected a non-empty input of shape (N, C) or "
            f"(C,), got {tuple(x.shape)}"
        )
    single = x.ndim == 1
    t = to_tensor(target, x)
    _same_device("multi_margin_loss", x, t)
    if t.dtype.is_floating_point:
        raise DTypeError(f"multi_margin_loss: expected an integer target, got {t.dtype}")
    if single:
        x, t = x.unsqueeze(0), t.reshape(-1)
    if tuple(t.shape) != (x.shape[0],):
        raise ShapeError(
            f"multi_margin_loss: inconsistent target size: got {tuple(t.shape)} "
            f"for input of size {tuple(x.shape)}"
        )
    n_cls = x.shape[1]
    x._device._backend.check_index_bounds(t._data, 0, n_cls)
    idx = t.unsqueeze(1)
    z = _ops.relu(margin - x.gather(1, idx) + x)
    if p == 2:
        z = z * z
    if weight is not None:
        w = _class_weight(weight, x, n_cls, "multi_margin_loss")
        z = z * w.gather(0, t).unsqueeze(1)
    other = _ops.arange(n_cls, device=x.device).unsqueeze(0) != idx
    loss = _ops.where(other, z, 0.0).sum(1) / n_cls
    if single:
        loss = loss.squeeze(0)
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """:math:`\\frac1C \\sum_{j} \\sum_{i \\notin Y} \\max(0, 1 - (x_{y_j} - x_i))` with
    :math:`Y` the target classes of each sample: ``target`` lists them, padded (and ended)
    by -1."""
    _check(reduction, "multilabel_margin_loss", size_average, reduce)
    x = _float(input, "multilabel_margin_loss")
    t = to_tensor(target, x)
    _same_device("multilabel_margin_loss", x, t)
    if t.dtype.is_floating_point:
        raise DTypeError(f"multilabel_margin_loss: expected an integer target, got {t.dtype}")
    if x.ndim not in (1, 2) or tuple(t.shape) != tuple(x.shape):
        raise ShapeError(
            f"multilabel_margin_loss: expected input of shape (N, C) or (C,) and "
            f"a target of the same shape, got {tuple(x.shape)} and "
            f"{tuple(t.shape)}"
        )
    single = x.ndim == 1
    if single:
        x, t = x.unsqueeze(0), t.unsqueeze(0)
    n_cls = x.shape[1]
    valid = _ops.cumprod((t >= 0).to(_dt.int64), 1) > 0  # up to the first -1
    safe = _ops.where(valid, t, 0)
    x._device._backend.check_index_bounds(safe._data, 0, max(n_cls, 1))
    hits = valid.to(_dt.int64)
    is_target = _ops.zeros_like(hits).scatter_add(1, safe, hits) > 0
    xy = x.gather(1, safe)  # (N, C) target scores
    z = _ops.relu(1 - xy.unsqueeze(2) + x.unsqueeze(1))  # (N, slot j, class i)
    keep = valid.unsqueeze(2) & ~is_target.unsqueeze(1)
    loss = _ops.where(keep, z, 0.0).sum((1, 2)) / max(n_cls, 1)
    if single:
        loss = loss.squeeze(0)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """:math:`-\\frac1C \\sum_c w_c [y_c \\log\\sigma(x_c) + (1 - y_c)\\log\\sigma(-x_c)]`
    per sample."""
    _check(reduction, "multilabel_soft_margin_loss", size_average, reduce)
    x = _float(input, "multilabel_soft_margin_loss")
    t = to_tensor(target, x)
    _same_device("multilabel_soft_margin_loss", x, t)
    loss = -(t * logsigmoid(x) + (1 - t) * logsigmoid(-x))
    if weight is not None:
        loss = loss * to_tensor(weight, x)
    c = x.ndim - 1
    loss = loss.sum(c) / x.shape[c]
    return _reduce(loss, reduction)


# -- sequences -----------------------------------------------------------------------------

_CTC_NEG = -1e30  # log 0 of the recursion: finite, so logsumexp's gradient stays 0, not nan


def _int_vector(v, like, op, what):
    t = to_tensor([v] if isinstance(v, int) else v, like)
    if t.dtype.is_floating_point or t.dtype is _dt.bool:
        raise DTypeError(f"{op}: {what} must be integers, got {t.dtype}")
    return t.to(_dt.int64).reshape(-1)


def _nan_gradient(lp, il, impossible):
    """Zeros of shape ``(N,)`` whose gradient is nan on the frames ``t < input_length``
    of the impossible samples (0 elsewhere): PyTorch's gradient of an infinite CTC loss,
    where its kernel computes ``exp(-inf + inf)``."""
    frames = _ops.arange(lp.shape[0], device=lp.device).unsqueeze(1) < il.unsqueeze(0)
    frames = (frames & impossible.unsqueeze(0)).unsqueeze(2)  # (T, N, 1)
    # nan times the selection (not a selection of nan times lp): the where then routes
    # the nan gradient to the selected frames only
    nan = (_ops.where(frames, lp, 0.0) * math.nan).sum((0, 2))
    return straight_through(hard=_ops.zeros_like(nan.detach()), soft=nan)


def ctc_loss(
    log_probs,
    targets,
    input_lengths,
    target_lengths,
    blank=0,
    reduction="mean",
    zero_infinity=False,
):
    """Connectionist temporal classification loss of ``log_probs`` ``(T, N, C)`` (or
    ``(T, C)``) against ``targets`` (``(N, S)`` padded, or the concatenation of all target
    sequences), by the forward recursion in log space over the extended label sequence
    (blanks between labels), vectorised over the batch and the label positions, one step
    per time frame; autograd gives the gradient, the true one to ``log_probs`` (PyTorch's
    kernel adds :math:`e^{\\text{log\\_probs}}`, assuming they come from a log-softmax,
    whose backward removes that term: through a log-softmax both agree). An
    impossible alignment gives an infinite loss whose gradient is nan on that sample's
    frames, as PyTorch's (``zero_infinity``: 0, with 0 gradient).
    ``"mean"`` divides each loss by its target length (at least 1), then averages. Half
    inputs compute in float32 and round back."""
    _check(reduction, "ctc_loss")
    lp = _float(log_probs, "ctc_loss", "log_probs")
    if lp.dtype in (_dt.float16, _dt.bfloat16):  # the recursion's log 0 needs float32
        return ctc_loss(
            lp.float(), targets, input_lengths, target_lengths, blank, reduction, zero_infinity
        ).to(lp.dtype)
    single = lp.ndim == 2
    if lp.ndim not in (2, 3):
        raise ShapeError(
            f"ctc_loss: expected log_probs of shape (T, N, C) or (T, C), got {tuple(lp.shape)}"
        )
    tg = to_tensor(targets, lp)
    if tg.dtype.is_floating_point:
        raise DTypeError(f"ctc_loss: targets must be integers, got {tg.dtype}")
    if single:
        lp, tg = lp.unsqueeze(1), tg.reshape(1, -1)
    n_t, n, n_cls = lp.shape
    il = _int_vector(input_lengths, lp, "ctc_loss", "input_lengths")
    tl = _int_vector(target_lengths, lp, "ctc_loss", "target_lengths")
    if il.shape[0] != n or tl.shape[0] != n:
        raise ShapeError(
            f"ctc_loss: expected input_lengths and target_lengths of size {n}, "
            f"got {il.shape[0]} and {tl.shape[0]}"
        )
    if not 0 <= blank < n_cls:
        raise ArgumentError(f"ctc_loss: blank must be in label range [0, {n_cls}), got {blank}")
    il_max = int(il.max()) if n else 0
    if il_max > n_t or n and int(il.min()) < 0:
        raise ArgumentError(f"ctc_loss: input_lengths must be in [0, {n_t}], got {il.tolist()}")
    lmax = int(tl.max()) if n else 0
    pos = _ops.arange(max(lmax, 1), device=lp.device).unsqueeze(0)
    if tg.ndim == 1:  # concatenated targets: pad them to (N, lmax)
        starts = (_ops.cumsum(tl, 0) - tl).unsqueeze(1)
        flat = _ops.clamp(starts + pos, max=max(tg.shape[0] - 1, 0))
        padded = tg[flat] if tg.shape[0] else _ops.zeros_like(flat)
    else:
        if tg.shape[0] != n or tg.shape[1] < lmax:
            raise ShapeError(
                f"ctc_loss: targets of shape {tuple(tg.shape)} do not hold "
                f"{n} sequences of lengths up to {lmax}"
            )
        padded = tg[:, : max(lmax, 1)] if tg.shape[1] else _ops.zeros_like(pos.expand(n, -1))
    lab_ok = pos < tl.unsqueeze(1)
    labels = _ops.where(lab_ok, padded.to(_dt.int64), blank)
    n_s = 2 * max(lmax, 1) + 1
    ext = _ops.full((n, n_s), blank, dtype=_dt.int64, device=lp.device)
    ext[:, 1::2] = labels
    prev2 = _ops.cat([_ops.full((n, 2), -1, dtype=_dt.int64, device=lp.device), ext[:, :-2]], 1)
    skip = (ext != blank) & (ext != prev2)
    emit = lp.gather(2, ext.unsqueeze(0).expand(n_t, n, n_s))  # (T, N, S)
    neg = _ops.full((n, n_s), _CTC_NEG, dtype=lp.dtype, device=lp.device)
    s_idx = _ops.arange(n_s, device=lp.device).unsqueeze(0)
    alpha = _ops.where(s_idx < 2, emit[0], neg) if n_t else neg
    pad1 = neg[:, :1]
    pad2 = neg[:, :2]
    for step in range(1, il_max):
        a1 = _ops.cat([pad1, alpha[:, :-1]], 1)
        a2 = _ops.where(skip, _ops.cat([pad2, alpha[:, :-2]], 1), neg)
        new = _ops.logsumexp(_ops.stack([alpha, a1, a2]), 0) + emit[step]
        alpha = _ops.where((il > step).unsqueeze(1), new, alpha)
    last = (2 * tl).unsqueeze(1)  # S_n - 1
    end1 = alpha.gather(1, last)
    end2 = _ops.where(last > 0, alpha.gather(1, _ops.clamp(last - 1, min=0)), _CTC_NEG)
    nll = -_ops.logsumexp(_ops.cat([end1, end2], 1), 1)
    impossible = nll > -_CTC_NEG / 2
    no_input = il == 0  # no frame: only the empty target is possible
    nll = _ops.where(no_input, 0.0, nll)
    impossible = _ops.where(no_input, tl > 0, impossible)
    nll = _ops.where(impossible, 0.0 if zero_infinity else math.inf, nll)
    if not zero_infinity and lp.requires_grad and bool(impossible.any()):
        nll = nll + _nan_gradient(lp, il, impossible)
    if reduction == "mean":
        return (nll / _ops.clamp(tl, min=1).to(nll.dtype)).mean()
    if reduction == "sum":
        return nll.sum()
    return nll.squeeze(0) if single else nll
