"""Moving tensors between devices (differentiable)."""

from __future__ import annotations

from .._tensor import Tensor
from ..autograd.grad_mode import STATE
from .base import Op
from .registry import register
from .schema import AmpPolicy, OpSchema

__all__ = ["move"]


@register
class ToDeviceBackward(Op):
    r"""Autograd node of a copy to another device, :math:`y = x` on device :math:`d`.

    Saves nothing: the gradient is copied back to the input's device.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial x} = \mathrm{to}_{d_x}\Big(
              \frac{\partial \mathcal{L}}{\partial y}\Big)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"to_device"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Goes through host memory (``to_numpy`` then ``asarray`` on the target backend).
    """

    __slots__ = ()
    schema_v1 = OpSchema("to_device", 1, AmpPolicy.KEEP_INPUT)

    @staticmethod
    def dispatch(be, x, src_be):
        return be.asarray(src_be.to_numpy(x))

    def grad_formula(self, g):
        return self.params["src_be"].asarray(self.params["dst_be"].to_numpy(g))

    def grad_formula_impl(self, g, x, out):
        from .._device import device
        return move(g, device(self.params["src_dev"]))


def move(x, dev):
    """``x`` copied to device ``dev`` (recorded, so gradients flow back)."""
    be = dev.backend
    out = be.asarray(x._device._backend.to_numpy(x._data))
    t = Tensor._wrap(out, x._dtype, dev)
    if x._requires_grad and STATE.grad_enabled:
        from .base import _make_node
        node = _make_node(ToDeviceBackward, be, (x,),
                          {"src_be": x._device._backend, "dst_be": be,
                           "src_dev": str(x._device)}, out, (t,))
        node.be = x._device._backend
        t.grad_fn = node
        t._requires_grad = True
    return t
