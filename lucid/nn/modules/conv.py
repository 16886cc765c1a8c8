"""Convolution layers: Conv1d/2d/3d and ConvTranspose1d/2d/3d, as PyTorch's.

A layer holds ``weight`` (``(out, in/groups, *k)``; transposed ``(in, out/groups, *k)``)
and ``bias``, initialised as PyTorch does (``kaiming_uniform_(a=sqrt(5))``, bias
:math:`\\mathcal U(-1/\\sqrt{\\text{fan\\_in}}, 1/\\sqrt{\\text{fan\\_in}})`); ``forward`` is one
call of :mod:`lucid.nn.functional` (after ``lucid.pad`` for the non-zero padding modes).
"""

from __future__ import annotations

from typing import Any

import math
import numbers

from ...errors import ArgumentError
from ...ops import empty, pad as _pad
from .. import functional as F
from .. import init
from ..functional.conv import transpose_output_padding
from ..parameter import Parameter, UninitializedParameter
from .module import Module

__all__ = [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(v, n):
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return (int(v),) * n
    t = tuple(v)
    return t * n if len(t) == 1 else t


class _ConvNd(Module):
    """The state and checks shared by the convolution layers."""

    _n = 0
    _transposed = False

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride,
        padding,
        dilation,
        output_padding,
        groups,
        bias,
        padding_mode,
        device=None,
        dtype=None,
    ):
        super().__init__()
        name = type(self).__name__
        n = self._n
        if not isinstance(groups, numbers.Integral) or groups <= 0:
            raise ArgumentError(f"{name}: groups must be a positive integer, got {groups!r}")
        if in_channels % groups:
            raise ArgumentError(
                f"{name}: in_channels must be divisible by groups ({in_channels} % {groups} != 0)"
            )
        if out_channels % groups:
            raise ArgumentError(
                f"{name}: out_channels must be divisible by groups ({out_channels} % {groups} != 0)"
            )
        if padding_mode not in _PADDING_MODES:
            raise ArgumentError(
                f"{name}: padding_mode must be one of {list(_PADDING_MODES)}"
                f", but got padding_mode={padding_mode!r}"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.dilation = _ntuple(dilation, n)
        self.output_padding = _ntuple(output_padding, n)
        self.transposed = self._transposed
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ArgumentError(
                    f"{name}: Invalid padding string {padding!r}, should be "
                    "one of ['valid', 'same']"
                )
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ArgumentError(
                    f"{name}: padding='same' is not supported for strided convolutions"
                )
            self.padding = padding
            rev = [0] * (2 * n)
            if padding == "same":
                for i, (d, k) in enumerate(zip(self.dilation, self.kernel_size)):
                    tot = d * (k - 1)
                    j = 2 * (n - 1 - i)
                    rev[j], rev[j + 1] = tot // 2, tot - tot // 2
        else:
            self.padding = _ntuple(padding, n)
            rev = [p for p in reversed(self.padding) for _ in range(2)]
        self._reversed_padding_repeated_twice = tuple(rev)
        shape = (
            (in_channels, out_channels // groups)
            if self._transposed
            else (out_channels, in_channels // groups)
        )
        self.weight = Parameter(empty(shape + self.kernel_size, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    _fn: Any = None

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            0,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def _conv_forward(self, input, weight, bias):
        fn = type(self)._fn
        if self.padding_mode != "zeros":
            return fn(
                _pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                weight,
                bias,
                self.stride,
                0,
                self.dilation,
                self.groups,
            )
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-d convolution over ``(N, C_in, L)`` input (see :func:`~lucid.nn.functional.conv1d`;
    ``padding_mode``: zeros, reflect, replicate, circular)."""

    _n = 1
    _fn = staticmethod(F.conv1d)


class Conv2d(_Conv):
    """2-d convolution over ``(N, C_in, H, W)`` input (see
    :func:`~lucid.nn.functional.conv2d`)."""

    _n = 2
    _fn = staticmethod(F.conv2d)


class Conv3d(_Conv):
    """3-d convolution over ``(N, C_in, D, H, W)`` input (see
    :func:`~lucid.nn.functional.conv3d`)."""

    _n = 3
    _fn = staticmethod(F.conv3d)


class _ConvTranspose(_ConvNd):
    _transposed = True
    _fn: Any = None

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        if padding_mode != "zeros":
            raise ArgumentError(
                f'{type(self).__name__}: Only "zeros" padding mode is '
                f"supported, got {padding_mode!r}"
            )
        if isinstance(padding, str):
            raise ArgumentError(
                f"{type(self).__name__}: padding must be an int or a tuple, got {padding!r}"
            )
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            output_padding,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def forward(self, input, output_size=None):
        opad = self.output_padding
        if output_size is not None:
            opad = transpose_output_padding(
                type(self).__name__,
                tuple(input.shape[-self._n :]),
                output_size,
                self.stride,
                self.padding,
                self.kernel_size,
                self.dilation,
            )
        return type(self)._fn(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            opad,
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTranspose):
    """1-d transposed convolution; ``forward(input, output_size=None)`` picks the
    ``output_padding`` that gives ``output_size``."""

    _n = 1
    _fn = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTranspose):
    """2-d transposed convolution; ``forward(input, output_size=None)``."""

    _n = 2
    _fn = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTranspose):
    """3-d transposed convolution; ``forward(input, output_size=None)``."""

    _n = 3
    _fn = staticmethod(F.conv_transpose3d)


# -- lazy layers ----------------------------------------------------------------------


class _LazyConv:
    """A convolution whose ``in_channels`` is read from its first input (dim 1, or dim 0
    unbatched): until then ``weight`` and ``bias`` are :class:`UninitializedParameter`; the
    first call (or loading a state dict) gives them their shapes, initialises them as the
    layer does and turns the module into :attr:`cls_to_become`."""

    cls_to_become: Any = None

    def _lazy_init(self, out_channels, bias, device, dtype):
        self.in_channels = 0
        self.weight = UninitializedParameter(empty(0, device=device, dtype=dtype))
        if bias:
            self.bias = UninitializedParameter(empty(0, device=device, dtype=dtype))

    def reset_parameters(self):
        if not isinstance(self.weight, UninitializedParameter) and self.in_channels:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Materialise ``weight`` and ``bias`` for ``input``'s channels and initialise them."""
        n = self._n
        if isinstance(self.weight, UninitializedParameter):
            self.in_channels = input.shape[0] if input.ndim == n + 1 else input.shape[1]
            if self.in_channels % self.groups:
                raise ArgumentError(
                    f"{type(self).__name__}: in_channels must be divisible "
                    f"by groups ({self.in_channels} % {self.groups} != 0)"
                )
            g = self.groups
            shape = (
                (self.in_channels, self.out_channels // g)
                if self._transposed
                else (self.out_channels, self.in_channels // g)
            )
            self.weight.materialize(shape + self.kernel_size)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()
        else:  # materialised by load_state_dict
            w = self.weight.shape
            self.in_channels = w[0] if self._transposed else w[1] * self.groups
        self.__class__ = self.cls_to_become

    def forward(self, input, *args, **kwargs):
        self.initialize_parameters(input)
        return self.forward(input, *args, **kwargs)


class _LazyConvNd(_LazyConv):
    def __init__(
        self,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        self.cls_to_become.__init__(
            self,
            groups,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            False,
            padding_mode,
            device,
            dtype,
        )
        self._lazy_init(out_channels, bias, device, dtype)


class _LazyConvTransposeNd(_LazyConv):
    def __init__(
        self,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        self.cls_to_become.__init__(
            self,
            groups,
            out_channels,
            kernel_size,
            stride,
            padding,
            output_padding,
            groups,
            False,
            dilation,
            padding_mode,
            device,
            dtype,
        )
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConvNd, Conv1d):
    """A :class:`Conv1d` whose ``in_channels`` is inferred from its first input."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConvNd, Conv2d):
    """A :class:`Conv2d` whose ``in_channels`` is inferred from its first input."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConvNd, Conv3d):
    """A :class:`Conv3d` whose ``in_channels`` is inferred from its first input."""

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTransposeNd, ConvTranspose1d):
    """A :class:`ConvTranspose1d` whose ``in_channels`` is inferred from its first input."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeNd, ConvTranspose2d):
    """A :class:`ConvTranspose2d` whose ``in_channels`` is inferred from its first input."""

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTransposeNd, ConvTranspose3d):
    """A :class:`ConvTranspose3d` whose ``in_channels`` is inferred from its first input."""

    cls_to_become = ConvTranspose3d
