"""The tensor layer: :class:`Tensor`, its repr and construction from data."""

from .factory import as_tensor, from_dlpack, from_numpy, is_tensor, tensor
from .tensor import Size, Tensor

__all__ = ["Tensor", "Size", "tensor", "as_tensor", "from_numpy", "from_dlpack", "is_tensor"]
