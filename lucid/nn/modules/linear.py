"""Identity, Linear, NonDynamicallyQuantizableLinear, Bilinear, LazyLinear."""

from __future__ import annotations

import math

from ...ops import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .module import Module

__all__ = ["Identity", "Linear", "NonDynamicallyQuantizableLinear", "Bilinear", "LazyLinear"]


class Identity(Module):
    """Returns its input; takes (and ignores) any constructor arguments."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """:math:`y = x W^\\top + b`: ``weight`` (out_features, in_features) and ``bias``
    (out_features,) start as PyTorch's: :math:`\\mathcal U(-1/\\sqrt{\\text{in}},
    1/\\sqrt{\\text{in}})` (the weight through ``kaiming_uniform_(a=sqrt(5))``)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class NonDynamicallyQuantizableLinear(Linear):
    """A :class:`Linear` under PyTorch's name for attention's output projection (PyTorch
    marks it so that dynamic quantization skips it; Lucid has no quantization, so it is
    just a Linear)."""


class Bilinear(Module):
    """:math:`y = x_1^\\top A x_2 + b`: ``weight`` (out, in1, in2) and ``bias`` (out,)
    start at :math:`\\mathcal U(-1/\\sqrt{\\text{in1}}, 1/\\sqrt{\\text{in1}})`."""

    def __init__(
        self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None
    ):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(
            empty((out_features, in1_features, in2_features), device=device, dtype=dtype)
        )
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )


class LazyLinear(Linear):
    """A :class:`Linear` whose ``in_features`` is the last dim of its first input: until
    then ``weight`` and ``bias`` are :class:`UninitializedParameter`; the first call (or
    loading a state dict) gives them their shapes, initialises them as ``Linear`` and turns
    the module into a ``Linear``."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Module.__init__(self)
        self.in_features = 0
        self.out_features = out_features
        self.weight = UninitializedParameter(empty(0, device=device, dtype=dtype))
        if bias:
            self.bias = UninitializedParameter(empty(0, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self):
        if self.in_features:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Materialise ``weight`` (out, input.shape[-1]) and ``bias`` and initialise them."""
        self.in_features = input.shape[-1]
        self.weight.materialize((self.out_features, self.in_features))
        if self.bias is not None:
            self.bias.materialize((self.out_features,))
        self.reset_parameters()
        self.__class__ = self.cls_to_become

    def forward(self, input):
        if isinstance(self.weight, UninitializedParameter):
            self.initialize_parameters(input)
        return F.linear(input, self.weight, self.bias)
