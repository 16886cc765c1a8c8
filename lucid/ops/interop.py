"""Tensor-by-array arithmetic: ``t * np.array(...)`` and ``np.array(...) + t`` give Tensors.

PyTorch turns an array operand of a Tensor operator into a tensor (its own dtype, so a
float64 array makes the result float64). Lucid does the same for any operand that exposes
the array protocol (``__array__``: NumPy and CuPy arrays) without importing an array
library here: each arithmetic, comparison and bitwise operator of :class:`Tensor` is wrapped
so that, only when the op refuses its operand, an array operand is converted with
:func:`lucid.tensor` (on the tensor's device) and the op is called again. The common path
(tensors and Python numbers) costs nothing more than before: the conversion lives in the
``except`` branch. ``ndarray op Tensor`` reaches the reflected operator because
``Tensor.__array_priority__`` makes NumPy defer.
"""

from __future__ import annotations

from .._tensor import Tensor
from ..errors import LucidError

__all__ = []

_OPERATORS = ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv",
              "floordiv", "rfloordiv", "mod", "rmod", "pow", "rpow", "matmul", "rmatmul",
              "lt", "le", "gt", "ge", "and", "rand", "or", "ror", "xor", "rxor", "lshift",
              "rlshift", "rshift", "rrshift", "eq", "ne")


def _is_array(x):
    return not isinstance(x, Tensor) and hasattr(x, "__array__") and hasattr(x, "dtype") \
        and hasattr(x, "shape")


def _with_arrays(op):
    def method(self, other):
        try:
            return op(self, other)
        except LucidError:
            if not _is_array(other):
                raise
        from .._tensor import tensor
        return op(self, tensor(other, device=self._device))
    method.__name__ = op.__name__
    method.__doc__ = op.__doc__
    method.__wrapped__ = op
    return method


for _name in _OPERATORS:
    _dunder = f"__{_name}__"
    _op = getattr(Tensor, _dunder, None)
    if _op is not None and getattr(_op, "__wrapped__", None) is None:
        setattr(Tensor, _dunder, _with_arrays(_op))
