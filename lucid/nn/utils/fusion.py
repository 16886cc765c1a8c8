"""Folding an eval-mode batch norm into the convolution or linear layer before it, as
``torch.nn.utils.fusion``. With :math:`s = \\gamma / \\sqrt{\\sigma^2_{run} + \\epsilon}`
per channel, :math:`\\mathrm{bn}(Wx + b) = (s W) x + (s (b - \\mu_{run}) + \\beta)`: the
weight's output channels are scaled by :math:`s` and the bias becomes
:math:`s (b - \\mu_{run}) + \\beta`, so one layer computes what the two did."""

from __future__ import annotations

import copy

from ... import ops as _ops
from ...autograd.grad_mode import no_grad
from ...errors import ArgumentError
from ..parameter import Parameter

__all__ = [
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
]


def _check_eval(layer, bn, op):
    if layer.training or bn.training:
        raise ArgumentError(
            f"{op}: fusion is only for eval mode; call .eval() on both modules first"
        )
    if bn.running_mean is None or bn.running_var is None:
        raise ArgumentError(
            f"{op}: the batch norm has no running statistics (track_running_stats=False)"
        )


def _bn_scale_shift(bias, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The per-channel scale :math:`s` and the fused bias."""
    scale = _ops.rsqrt(bn_rv + bn_eps)
    if bn_w is not None:
        scale = scale * bn_w
    fused_b = (-bn_rm if bias is None else bias - bn_rm) * scale
    if bn_b is not None:
        fused_b = fused_b + bn_b
    return scale, fused_b


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The fused ``(weight, bias)`` Parameters of a convolution (``transpose``: a
    transposed one, whose output channels are dim 1 of the weight) followed by the batch
    norm with these statistics and affine parameters (None: 1 and 0). They keep the conv
    weight's and bias's dtypes and ``requires_grad``."""
    with no_grad():
        scale, fused_b = _bn_scale_shift(conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b)
        shape = [1, -1] if transpose else [-1, 1]
        fused_w = conv_w * scale.reshape(shape + [1] * (conv_w.ndim - 2))
        bias_dtype = conv_w.dtype if conv_b is None else conv_b.dtype
        return (
            Parameter(fused_w.to(conv_w.dtype), conv_w.requires_grad),
            Parameter(fused_b.to(bias_dtype), False if conv_b is None else conv_b.requires_grad),
        )


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A new convolution (a deep copy of ``conv``) computing ``bn(conv(x))`` of the two
    eval-mode modules."""
    _check_eval(conv, bn, "fuse_conv_bn_eval")
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight,
        fused.bias,
        bn.running_mean,
        bn.running_var,
        bn.eps,
        bn.weight,
        bn.bias,
        transpose,
    )
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The fused ``(weight, bias)`` Parameters of a linear layer followed by the batch norm
    with these statistics and affine parameters (its channels are the linear's outputs, or
    one channel for all)."""
    with no_grad():
        scale, fused_b = _bn_scale_shift(linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b)
        fused_w = linear_w * scale.unsqueeze(-1)
        bias_dtype = linear_w.dtype if linear_b is None else linear_b.dtype
        return (
            Parameter(fused_w.to(linear_w.dtype), linear_w.requires_grad),
            Parameter(
                fused_b.to(bias_dtype), False if linear_b is None else linear_b.requires_grad
            ),
        )


def fuse_linear_bn_eval(linear, bn):
    """A new linear layer (a deep copy of ``linear``) computing ``bn(linear(x))`` of the
    two eval-mode modules; ``bn.num_features`` must be ``linear.out_features`` or 1."""
    _check_eval(linear, bn, "fuse_linear_bn_eval")
    if bn.num_features not in (linear.out_features, 1):
        raise ArgumentError(
            f"fuse_linear_bn_eval: the batch norm's num_features must be "
            f"the linear's out_features ({linear.out_features}) or 1, got "
            f"{bn.num_features}"
        )
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    return fused
