"""Moving tensors between devices (differentiable)."""

from __future__ import annotations

from ..._device import CPU, device as _device_cls
from ..._tensor import Tensor
from ...autograd.grad_mode import STATE
from ...autograd.graph import new_node
from ...errors import DeviceError
from ._bind import tensor_method
from .base import Op
from .registry import register
from .schema import AmpPolicy, OpSchema

__all__ = ["move"]  # the other functions here are Tensor methods only


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
    schema_v1 = OpSchema("to_device", 1, AmpPolicy.KEEP_INPUT, complex_grad="custom")

    @staticmethod
    def dispatch(be, x, dst, non_blocking=False):
        """Runs on the source backend ``be``; the copy lands on device ``dst``."""
        return dst.backend.from_backend(x, be, non_blocking)

    def grad_formula(self, g):
        return self.be.from_backend(g, self.params["dst"].backend)

    def grad_formula_impl(self, g, x, out):
        return move(g, self.params["src"])


def move(x, dev, non_blocking=False):
    """``x`` copied to device ``dev`` (recorded, so gradients flow back); ``non_blocking``
    makes a copy between pinned host memory and a GPU asynchronous on the current stream."""
    out = ToDeviceBackward.dispatch(x._device._backend, x._data, dev, non_blocking)
    return _recorded_copy(x, out, dev)


def _recorded_copy(x, out, dev):
    """Array ``out`` (a copy of ``x`` on ``dev``) as a tensor whose gradient flows to ``x``."""
    t = Tensor._wrap(out, x._dtype, dev)
    if x.requires_grad and STATE.grad_enabled:
        t._grad_fn = new_node(
            ToDeviceBackward, x._device._backend, (x,), {"dst": dev, "src": x._device}, out, (t,)
        )
        t._requires_grad = True
    return t


@tensor_method("cpu")
def cpu(self, memory_format=None, non_blocking=False):
    """``self`` on the CPU (``self`` itself when already there)."""
    return self if self._device is CPU else move(self, CPU, non_blocking)


@tensor_method("cuda")
def cuda(self, device=None, non_blocking=False, memory_format=None):
    """``self`` on a CUDA device (``device``: an index, "cuda:N" or a device; default 0);
    a clear DeviceError where no CUDA backend is available."""
    dev = (
        _device_cls("cuda", device)
        if isinstance(device, int)
        else _device_cls("cuda" if device is None else device)
    )
    if dev.type != "cuda":
        raise DeviceError(f"cuda: expected a CUDA device, got {dev}")
    _ = dev.backend  # raises, naming how to install CuPy, where absent
    return self if self._device is dev else move(self, dev, non_blocking)


@tensor_method("get_device")
def get_device(self):
    """The CUDA device index, or -1 on the CPU (PyTorch's convention)."""
    return -1 if self._device.type == "cpu" else self._device.index


def _cuda_backend():
    """The CUDA backend (it allocates page-locked host memory), or None without one."""
    try:
        return _device_cls("cuda").backend
    except DeviceError:
        return None


@tensor_method("pin_memory")
def pin_memory(self, device=None):
    """A copy of ``self`` in page-locked host memory, from which copies to a GPU can be
    asynchronous (``.cuda(non_blocking=True)``); ``self`` when already pinned, or when
    there is no CUDA backend to pin for."""
    if self._device.type != "cpu":
        raise DeviceError(
            f"pin_memory: cannot pin a tensor on {self._device}; only CPU tensors can be pinned"
        )
    be = _cuda_backend()
    if be is None or be.is_pinned(self._data):
        return self
    return _recorded_copy(self, be.pin_host(self._data), CPU)


@tensor_method("is_pinned")
def is_pinned(self, device=None):
    """Whether ``self`` lives in page-locked host memory."""
    be = _cuda_backend() if self._device.type == "cpu" else None
    return be is not None and be.is_pinned(self._data)
