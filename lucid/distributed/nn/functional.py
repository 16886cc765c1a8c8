"""Differentiable collectives: ``all_reduce`` (SUM) whose backward all-reduces the
gradient, as ``torch.distributed.nn.functional.all_reduce``.

With :math:`y = \\sum_r x_r` on every rank and the total loss :math:`L = \\sum_s L_s`,
:math:`\\partial L / \\partial x_r = \\sum_s \\partial L_s / \\partial y_s`: the backward
is the same all-reduce, of the gradients. Every rank must run the backward.
"""

from __future__ import annotations

from ...autograd.function import Function
from ...errors import ArgumentError
from .. import collectives as _c
from ..work import ReduceOp

__all__ = ["all_reduce"]


class _AllReduceSum(Function):
    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        y = x.clone()
        _c.all_reduce(y, ReduceOp.SUM, group)
        return y

    @staticmethod
    def backward(ctx, grad):
        g = grad.clone()
        _c.all_reduce(g, ReduceOp.SUM, ctx.group)
        return g, None


def all_reduce(tensor, op=ReduceOp.SUM, group=None):
    """The sum of ``tensor`` over the ranks of ``group``, as a new tensor in the graph."""
    if op is not ReduceOp.SUM:
        raise ArgumentError(
            f"lucid.distributed.nn.functional.all_reduce: only ReduceOp.SUM "
            f"is differentiable here, got {op}"
        )
    return _AllReduceSum.apply(tensor, group)
