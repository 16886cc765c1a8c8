"""A linear layer and its activation as one op: fused_linear_relu, fused_linear_gelu."""

from __future__ import annotations

from ..._tensor import Tensor
from ...autograd.grad_mode import STATE
from ...errors import ArgumentError, ArgumentTypeError, DTypeError, ShapeError
from ...ops.nn.fused_linear import FusedLinearBackward

__all__ = ["fused_linear_relu", "fused_linear_gelu"]


def _fused(op, input, weight, bias, activation, approximate):
    for name, t in (("input", input), ("weight", weight), ("bias", bias)):
        if t is not None and not isinstance(t, Tensor):
            raise ArgumentTypeError(
                f"{op}: argument '{name}' must be a Tensor, got {type(t).__name__}"
            )
    xs, ws = tuple(input.shape), tuple(weight.shape)
    if len(ws) != 2:
        raise ShapeError(f"{op}: weight must be 2-D (out, in), got shape {ws}")
    if not xs or xs[-1] != ws[1]:
        raise ShapeError(
            f"{op}: input of shape {xs} does not match weight of shape {ws} "
            f"(expected last dim {ws[1]})"
        )
    if bias is not None and tuple(bias.shape) != (ws[0],):
        raise ShapeError(
            f"{op}: bias of shape {tuple(bias.shape)} does not match weight of "
            f"shape {ws} (expected ({ws[0]},))"
        )
    if not input.dtype.is_floating_point:
        raise DTypeError(f"{op}: expected a floating input, got {input.dtype.name}")
    if STATE.autocast is None or input.device.type not in STATE.autocast:
        for name, t in (("weight", weight), ("bias", bias)):
            if t is not None and t.dtype is not input.dtype:
                raise DTypeError(
                    f"{op}: input type ({input.dtype.name}) and {name} type "
                    f"({t.dtype.name}) should be the same"
                )
    args = (input, weight) if bias is None else (input, weight, bias)
    return FusedLinearBackward.apply(*args, activation=activation, approximate=approximate)


def fused_linear_relu(input, weight, bias=None):
    r""":math:`\mathrm{ReLU}(x W^\top + b)` as one op
    (:class:`~lucid.ops.nn.fused_linear.FusedLinearBackward`; on CUDA one cuBLASLt GEMM with
    the ReLU in its epilogue): the values and gradients of
    ``F.relu(F.linear(input, weight, bias))``, without the intermediate's node."""
    return _fused("fused_linear_relu", input, weight, bias, "relu", "none")


def fused_linear_gelu(input, weight, bias=None, approximate="none"):
    r""":math:`\mathrm{GELU}(x W^\top + b)`, exact or ``approximate="tanh"``, as one op
    (:class:`~lucid.ops.nn.fused_linear.FusedLinearBackward`; on CUDA the tanh form is one
    cuBLASLt GEMM with the GELU in its epilogue): the values and gradients of
    ``F.gelu(F.linear(input, weight, bias), approximate=approximate)``."""
    if approximate not in ("none", "tanh"):
        raise ArgumentError(
            f"fused_linear_gelu: approximate must be 'none' or 'tanh', got {approximate!r}"
        )
    return _fused("fused_linear_gelu", input, weight, bias, "gelu", approximate)
