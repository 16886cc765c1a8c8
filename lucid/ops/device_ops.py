"""Moving tensors between devices (differentiable)."""

from __future__ import annotations

from .._device import CPU, device as _device_cls
from .._tensor import Tensor
from ..autograd.grad_mode import STATE
from ..autograd.graph import new_node
from ..errors import DeviceError
from ._bind import tensor_method
from .base import Op
from .registry import register
from .schema import AmpPolicy, OpSchema

__all__ = ["move"]     # the other functions here are Tensor methods only


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

    Two backward forms: by necessity, not for speed. The eager gradient is an array of the
    other device, which only the source device's backend can take over
    (``from_backend``); the graph-mode gradient is a recorded :func:`move` back to the
    source device, which no backend kernel (and so no ``graph_ns`` function) does.
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


@tensor_method("cpu")
def cpu(self, memory_format=None):
    """``self`` on the CPU (``self`` itself when already there)."""
    return self if self._device is CPU else move(self, CPU)


@tensor_method("cuda")
def cuda(self, device=None, non_blocking=False, memory_format=None):
    """``self`` on a CUDA device (``device``: an index, "cuda:N" or a device; default 0);
    a clear DeviceError where no CUDA backend is available."""
    dev = _device_cls("cuda", device) if isinstance(device, int) else \
        _device_cls("cuda" if device is None else device)
    if dev.type != "cuda":
        raise DeviceError(f"cuda: expected a CUDA device, got {dev}")
    dev.backend                      # raises, naming how to install CuPy, where absent
    return self if self._device is dev else move(self, dev)


@tensor_method("get_device")
def get_device(self):
    """The CUDA device index, or -1 on the CPU (PyTorch's convention)."""
    return -1 if self._device.type == "cpu" else self._device.index


@tensor_method("pin_memory")
def pin_memory(self, device=None):
    """``self`` in page-locked host memory for fast copies to a GPU; without a CUDA
    backend there is nothing to pin for, and ``self`` is returned."""
    if self._device.type != "cpu":
        raise DeviceError(f"pin_memory: cannot pin a tensor on {self._device}; only CPU "
                          "tensors can be pinned")
    return self


@tensor_method("is_pinned")
def is_pinned(self, device=None):
    """Whether ``self`` lives in page-locked host memory (never, without a CUDA backend)."""
    return False
