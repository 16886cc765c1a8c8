"""Moving tensors between devices (differentiable)."""

from __future__ import annotations

from .._tensor import Tensor
from ..autograd.grad_mode import STATE
from ..autograd.graph import new_node
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
    ``Backend.from_backend`` of the target: device to device where the backends allow,
    else through host memory. The gradient is copied back the same way.

    Two backward forms, by necessity rather than speed: the eager gradient is an array of
    the other device, which only the source device's backend can take over
    (``from_backend``); the graph-mode gradient is a recorded :func:`move` back to the
    source device, which a backend does not know.
    """

    __slots__ = ()
    schema_v1 = OpSchema("to_device", 1, AmpPolicy.KEEP_INPUT)

    @staticmethod
    def dispatch(be, x, dst):
        """Runs on the source backend ``be``; the copy lands on device ``dst``."""
        return dst.backend.from_backend(x, be)

    def grad_formula(self, g):
        return self.be.from_backend(g, self.params["dst"].backend)

    def grad_formula_impl(self, g, x, out):
        return move(g, self.params["src"])


def move(x, dev):
    """``x`` copied to device ``dev`` (recorded, so gradients flow back)."""
    src_be = x._device._backend
    out = ToDeviceBackward.dispatch(src_be, x._data, dev)
    t = Tensor._wrap(out, x._dtype, dev)
    if x.requires_grad and STATE.grad_enabled:
        t._grad_fn = new_node(ToDeviceBackward, src_be, (x,),
                              {"dst": dev, "src": x._device}, out, (t,))
        t._requires_grad = True
    return t
