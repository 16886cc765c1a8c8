"""The linear map of ``nn.Linear`` / ``F.linear`` as one fused op."""

from __future__ import annotations

import math

from ..core.base import Op
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = []


@register
class LinearBackward(Op):
    r"""Autograd node for :math:`y = x W^\top + b` over the last dim of ``x``, one fused op
    (one GEMM forward, one per operand backward, no transposed copies or batched products).

    Saves the weight for the input's gradient and the input for the weight's, only those
    the wanted gradients need (as PyTorch); the bias gradient needs nothing. Under
    autocast the input is cast to the autocast dtype and the op casts the weight and bias
    to the input's dtype itself (``AmpPolicy.PROMOTE_FIRST``): no cast nodes, the cast
    weight kept for the backward, and the weight and bias gradients written in their own
    dtype (float32) by the GEMM that computes them.

    Math
    ----
    .. math:: y_{\ldots o} = \sum_i x_{\ldots i} W_{oi} + b_o

    .. math:: \frac{\partial \mathcal{L}}{\partial x} = G W, \qquad
              \frac{\partial \mathcal{L}}{\partial W} = G_2^\top X_2, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = \sum_n (G_2)_{n\cdot}

    with :math:`X_2` (N, in) and :math:`G_2` (N, out) the input and the output gradient
    with their leading dims flattened.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"linear"``, ``AmpPolicy.PROMOTE_FIRST`` (GEMM-bound: autocast computes it in the
        autocast dtype); inputs ``(x, w)`` or ``(x, w, b)`` (``input_arity=-1``).
    saves_input : tuple
        ``((1,), (0,), ())``: ``W`` when ``x`` needs a gradient, ``x`` when ``W`` does.
    saves_output : bool
        False; ``saves_extra``: ``weight``, ``W`` cast to the input's dtype (where it
        has another: ``dispatch`` returns the output alone otherwise).

    Notes
    -----
    Backends: ``be.linear`` is ``matmul`` of the input viewed as (N, in) with ``W.T`` (a
    transposed view: BLAS reads it as is; cuBLAS on CuPy), then the bias added in place;
    half inputs multiply in float32 on the CPU. The gradients are ``matmul`` calls on the
    flattened operands, so graph mode (``create_graph=True``) records matmul ops and the
    gradient is differentiable again. The weight and bias gradients together are
    ``be.linear_weight_grad`` (CUDA: one cuBLASLt GEMM whose epilogue sums :math:`G_2`'s
    columns); the bias gradient alone is ``be.sum_rows`` of :math:`G_2` (the CPU: a gemv
    of a ones vector, two to three times faster than the strided column sum; CUDA: one
    reduction). An empty batch gives an empty output and zero weight and
    bias gradients.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "linear", 1, AmpPolicy.PROMOTE_FIRST, input_arity=-1, complex_grad="holomorphic"
    )
    saves_input = ((1,), (0,), ())
    saves_extra = ("weight",)

    @staticmethod
    def dispatch(be, x, w, b=None):
        if b is not None and b.dtype != x.dtype:
            b = be.astype(b, x.dtype)
        if w.dtype == x.dtype:
            return be.linear(x, w, b)
        w = be.astype(w, x.dtype)
        return be.linear(x, w, b), w

    def grad(self, F, g, x, w, *rest):
        need = self.needs_input_grad
        x_shape, (w_shape, w_dtype) = self.in_meta[0][0], self.in_meta[1]
        if need[0] and w_dtype is not self.in_meta[0][1]:  # weights cast in the forward
            w = self.extra["weight"] if F is self.be else w.to(g.dtype)
        rows = math.prod(x_shape[:-1])  # not -1: a dim may be 0 (in_features=0)
        g2 = F.reshape(g, (rows, w_shape[0]))
        gx = F.reshape(F.matmul(g2, w), x_shape) if need[0] else None
        want_b = len(need) == 3 and need[2]
        if need[1] and want_b:
            gw, gb = F.linear_weight_grad(g2, F.reshape(x, (rows, w_shape[1])), w_dtype.np)
            return gx, gw, gb
        gw = F.matmul(F.swapaxes(g2, 0, 1), F.reshape(x, (rows, w_shape[1]))) if need[1] else None
        if len(need) == 2:
            return gx, gw
        return gx, gw, F.sum_rows(g2) if want_b else None
