"""Padding: ``pad`` (``lucid.pad``; ``lucid.nn.functional.pad`` checks its arguments the
functional way, then calls it) in the constant, reflect, replicate and circular modes;
negative pads crop, PyTorch's rule.

Constant padding is its own adjoint (the gradient is the crop of the incoming one); the
other modes fold the padded cells' gradients back onto the cells they copy (the internal
``pad_backward``, itself differentiable). Complex tensors pad like any other
(holomorphic).
"""

from __future__ import annotations

from ...errors import ArgumentError, ShapeError
from ..core.base import UnaryOp
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ._common import _shape_arg

__all__ = ["pad"]


# -- padding -----------------------------------------------------------------------------

_PAD_MODES = ("constant", "reflect", "replicate", "circular")


@register
class PadBackward(UnaryOp):
    r"""Autograd node for ``pad(x, pads, mode, value)``: :math:`x` padded (or cropped, for
    negative pads) along each dim.

    Saves nothing: constant padding's gradient is the crop of :math:`g` (padding by the
    negated pads, so the op is its own adjoint); the other modes fold the padded cells'
    gradients back onto the cells they copy (internal ``pad_backward``).

    Math
    ----
    .. math:: y_j = x_{\pi(j)} \ (\text{or } v \text{ outside, for constant}), \qquad
              \frac{\partial \mathcal{L}}{\partial x_i} = \sum_{j:\, \pi(j) = i} g_j

    with :math:`\pi` the reflect / replicate / circular index map.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"pad"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: a filled array with the input written inside (constant) or ``xp.pad`` with
    ``reflect`` / ``edge`` / ``wrap``. Negative pads crop before padding (PyTorch's rule).
    """

    __slots__ = ()
    schema_v1 = OpSchema("pad", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, pads, mode, value):
        return be.pad(x, pads, mode, value)

    def grad(self, F, g, x, out):
        return F.pad_backward(g, self.params["pads"], self.params["mode"])


@register
class PadGradBackward(UnaryOp):
    r"""Autograd node of the backward of reflect / replicate / circular ``pad``.

    Internal. Saves nothing: it is linear, and its own gradient is ``pad`` of the incoming
    gradient with the same pads and mode.

    Math
    ----
    .. math:: y_i = \sum_{j:\, \pi(j) = i} x_j, \qquad
              \frac{\partial \mathcal{L}}{\partial x_j} = g_{\pi(j)}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"pad_backward"``, ``AmpPolicy.KEEP_INPUT``, internal.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: per padded dim, the inner slice plus the pad slices added to their sources
    (flipped for reflect, summed onto the edge for replicate); cropped cells get 0.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "pad_backward", 1, AmpPolicy.KEEP_INPUT, internal=True, complex_grad="holomorphic"
    )

    @staticmethod
    def dispatch(be, g, pads, mode):
        return be.pad_backward(g, pads, mode)

    def grad(self, F, g, x, out):
        return F.pad(g, self.params["pads"], self.params["mode"], 0)


def pad(input, pad, mode="constant", value=None):
    """``input`` padded by ``pad = (last_lo, last_hi, prev_lo, prev_hi, ...)`` from the last
    dim backward; negative pads crop. ``mode``: constant (``value``, default 0), reflect,
    replicate, circular."""
    pad = _shape_arg((pad,), "pad")
    shape = input._data.shape
    nd = len(shape)
    if len(pad) % 2:
        raise ShapeError(f"pad: padding length must be divisible by 2, got {len(pad)}")
    if len(pad) > 2 * nd:
        raise ShapeError(
            f"pad: padding length should be less than or equal to two times the "
            f"input dimension but got padding length {len(pad)} and input of "
            f"dimension {nd}"
        )
    if mode not in _PAD_MODES:
        raise ArgumentError(
            f"pad: unsupported padding mode {mode!r}; expected one of {', '.join(_PAD_MODES)}"
        )
    if mode != "constant" and value is not None and value != 0:
        raise ArgumentError(f"pad: padding mode {mode!r} doesn't take in a value argument")
    pads = [(0, 0)] * nd
    for i in range(len(pad) // 2):
        d = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        pads[d] = (lo, hi)
        n = shape[d] - max(-lo, 0) - max(-hi, 0)
        if n + max(lo, 0) + max(hi, 0) < 0 or n < 0:
            raise ShapeError(
                f"pad: the input size {shape[d]}, plus negative padding {lo} and "
                f"{hi} resulted in a negative output size, which is invalid. "
                f"Check dimension {d} of your input."
            )
        if mode == "constant" or (lo <= 0 and hi <= 0):
            continue
        if mode == "reflect" and max(lo, hi) >= n:
            raise ShapeError(
                f"pad: padding size should be less than the corresponding input "
                f"dimension, but got padding ({lo}, {hi}) at dimension {d} of "
                f"input {list(shape)}"
            )
        if mode == "circular" and max(lo, hi) > n:
            raise ShapeError(
                f"pad: padding value ({lo}, {hi}) must be at most the size "
                f"{n} of dimension {d} of input {list(shape)} (circular)"
            )
        if mode == "replicate" and n == 0:
            raise ShapeError(
                f"pad: cannot replicate-pad the empty dimension {d} of input {list(shape)}"
            )
    return PadBackward.call(input, pads=tuple(pads), mode=mode, value=0 if value is None else value)
