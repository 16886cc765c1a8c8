"""FusedLinear: a linear layer and its activation as one op."""

from __future__ import annotations

from ...errors import ArgumentError
from .. import functional as F
from .linear import Linear

__all__ = ["FusedLinear"]


class FusedLinear(Linear):
    """:math:`y = \\mathrm{act}(x W^\\top + b)`, ``activation`` ``"relu"`` (default) or
    ``"gelu"`` (exact, or ``approximate="tanh"``), as one op
    (:func:`~lucid.nn.functional.fused_linear_relu` /
    :func:`~lucid.nn.functional.fused_linear_gelu`): a :class:`Linear` with the same
    ``weight`` and ``bias`` and initialisation (so a ``Linear``'s state dict loads), whose
    forward is ``Linear`` then the activation without the intermediate's node (on CUDA,
    one cuBLASLt GEMM with the activation in its epilogue where it can)."""

    def __init__(
        self,
        in_features,
        out_features,
        bias=True,
        activation="relu",
        approximate="none",
        device=None,
        dtype=None,
    ):
        if activation not in ("relu", "gelu"):
            raise ArgumentError(
                f"FusedLinear: activation must be 'relu' or 'gelu', got {activation!r}"
            )
        if approximate not in ("none", "tanh") or (activation == "relu" and approximate != "none"):
            raise ArgumentError(
                f"FusedLinear: approximate must be 'none' or, for gelu, "
                f"'tanh'; got {approximate!r} with activation={activation!r}"
            )
        super().__init__(in_features, out_features, bias, device=device, dtype=dtype)
        self.activation = activation
        self.approximate = approximate

    def forward(self, input):
        if self.activation == "relu":
            return F.fused_linear_relu(input, self.weight, self.bias)
        return F.fused_linear_gelu(input, self.weight, self.bias, self.approximate)

    def extra_repr(self):
        s = f"{super().extra_repr()}, activation={self.activation}"
        return s + (f", approximate={self.approximate}" if self.approximate != "none" else "")
