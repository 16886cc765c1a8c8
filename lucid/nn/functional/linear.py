"""Linear maps: linear, bilinear."""

from __future__ import annotations


from ..._tensor import Tensor
from ...autograd.grad_mode import STATE
from ...errors import ArgumentTypeError, DTypeError, ShapeError, reports_as
from ...ops import matmul
from ...ops.nn.linear import LinearBackward

__all__ = ["linear", "bilinear"]


def _need_tensor(op, name, t):
    if not isinstance(t, Tensor):
        raise ArgumentTypeError(f"{op}: argument '{name}' must be a Tensor, got {type(t).__name__}")


@reports_as("linear")
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """:math:`y = x W^\\top + b` over the last dim of ``input`` (..., in) with ``weight``
    (out, in) (or (in,): a dot product per row) and ``bias`` (out,): one fused op
    (:class:`~lucid.ops.nn.linear.LinearBackward`: one GEMM forward, one per operand
    backward)."""
    _need_tensor("linear", "input", input)
    _need_tensor("linear", "weight", weight)
    if bias is not None:
        _need_tensor("linear", "bias", bias)
    xs, ws = input._data.shape, weight._data.shape  # (the arrays': no Size objects)
    if len(ws) not in (1, 2):
        raise ShapeError(f"linear: weight must be 1-D or 2-D, got shape {tuple(ws)}")
    if not xs or xs[-1] != ws[-1]:
        raise ShapeError(
            f"linear: input of shape {tuple(xs)} does not match weight "
            f"of shape {tuple(ws)} (expected last dim {ws[-1]})"
        )
    dt = input._dtype
    if STATE.autocast is None or input._device.type not in STATE.autocast:
        for name, t in (("weight", weight), ("bias", bias)):
            if t is not None and t._dtype is not dt:
                raise DTypeError(
                    f"linear: input type ({dt.name}) and {name} type "
                    f"({t._dtype.name}) should be the same"
                )
    if len(ws) == 1:
        out = matmul(input, weight)
        return out if bias is None else out + bias
    if bias is not None:
        if bias._data.shape != (ws[0],):
            raise ShapeError(
                f"linear: bias of shape {tuple(bias.shape)} does not match "
                f"weight of shape {tuple(weight.shape)} (expected "
                f"({weight.shape[0]},))"
            )
        return LinearBackward.apply(input, weight, bias)
    return LinearBackward.apply(input, weight)


@reports_as("bilinear")
def bilinear(input1, input2, weight, bias=None):
    """:math:`y_k = x_1^\\top A_k x_2 + b_k` for ``input1`` (..., in1), ``input2``
    (..., in2), ``weight`` (out, in1, in2), ``bias`` (out,): one GEMM of ``x_1`` with
    :math:`A` laid out as (in1, out * in2), then a product with :math:`x_2` summed over
    in2."""
    for name, t in (("input1", input1), ("input2", input2), ("weight", weight)):
        _need_tensor("bilinear", name, t)
    if weight.ndim != 3:
        raise ShapeError(
            f"bilinear: weight must be 3-D (out, in1, in2), got shape {tuple(weight.shape)}"
        )
    n_out, in1, in2 = weight.shape
    if (
        input1.ndim == 0
        or input1.shape[-1] != in1
        or input2.ndim == 0
        or input2.shape[-1] != in2
        or input1.shape[:-1] != input2.shape[:-1]
    ):
        raise ShapeError(
            f"bilinear: inputs of shapes {tuple(input1.shape)} and "
            f"{tuple(input2.shape)} do not match weight of shape "
            f"{tuple(weight.shape)} (expected (..., {in1}) and (..., {in2}) "
            "with equal leading dims)"
        )
    lead = input1.shape[:-1]
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, 1, in2)
    a = weight.permute(1, 0, 2).reshape(in1, n_out * in2)
    out = (matmul(x1, a).reshape(-1, n_out, in2) * x2).sum(-1)
    if bias is not None:
        out = out + bias
    return out.reshape(lead + (n_out,))
