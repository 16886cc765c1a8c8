"""Core linear algebra: matmul and friends."""

from __future__ import annotations

from .._tensor import Tensor
from ..errors import DTypeError, ShapeError
from ._bind import tensor_method
from .base import Op, to_tensor, _device_mismatch
from .registry import register
from .schema import AmpPolicy, OpSchema

__all__ = ["matmul"]


@register
class MatmulBackward(Op):
    r"""Autograd node for :math:`Y = A B` with NumPy's batching and 1-d promotion rules.

    Saves both inputs: each gradient is the incoming gradient times the other's transpose.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial A} = G B^{\top}, \qquad
              \frac{\partial \mathcal{L}}{\partial B} = A^{\top} G

    with 1-d operands treated as a row (left) or column (right) vector and batch dims summed
    back to each operand's shape.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"matmul"``, ``AmpPolicy.PROMOTE`` (runs in the autocast dtype).
    saves_input : bool
        True: ``A`` and ``B``.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.matmul`` (BLAS GEMM on NumPy, cuBLAS on CuPy). Integer matmul is exact
    with wrap-around; half types compute in float32 on the CPU.
    """

    __slots__ = ()
    schema_v1 = OpSchema("matmul", 1, AmpPolicy.PROMOTE, input_arity=2)
    saves_input = True

    @staticmethod
    def dispatch(be, a, b):
        return be.matmul(a, b)

    def grad_formula(self, g):
        a, b = self.saved
        a, b = a._data, b._data
        be = self.be
        e = self.next_edges
        if a.ndim == 1 and b.ndim == 1:
            return (g * b if e[0] else None), (g * a if e[1] else None)
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        g2 = g
        if a.ndim == 1:
            g2 = g2[..., None, :]
        if b.ndim == 1:
            g2 = g2[..., None]
        ga = gb = None
        if e[0] is not None:
            ga = be.matmul(g2, be.swapaxes(b2, -1, -2))
            ga = be.sum_to(ga, a2.shape).reshape(a.shape) if ga.shape != a2.shape else \
                ga.reshape(a.shape)
        if e[1] is not None:
            gb = be.matmul(be.swapaxes(a2, -1, -2), g2)
            gb = be.sum_to(gb, b2.shape).reshape(b.shape) if gb.shape != b2.shape else \
                gb.reshape(b.shape)
        return ga, gb

    def grad_formula_impl(self, g, a, b, out):
        if a.ndim == 1 and b.ndim == 1:
            return g * b, g * a
        a2 = a.unsqueeze(0) if a.ndim == 1 else a
        b2 = b.unsqueeze(-1) if b.ndim == 1 else b
        g2 = g
        if a.ndim == 1:
            g2 = g2.unsqueeze(-2)
        if b.ndim == 1:
            g2 = g2.unsqueeze(-1)
        ga = matmul(g2, b2.transpose(-1, -2)).sum_to_size(a2.shape).reshape(a.shape)
        gb = matmul(a2.transpose(-1, -2), g2).sum_to_size(b2.shape).reshape(b.shape)
        return ga, gb


def _check_matmul(a, b, op):
    if a._data.ndim == 0 or b._data.ndim == 0:
        raise ShapeError(f"{op}: both arguments need at least 1 dimension, got shapes "
                         f"{tuple(a._data.shape)} and {tuple(b._data.shape)}")
    k1 = a._data.shape[-1]
    k2 = b._data.shape[-2] if b._data.ndim > 1 else b._data.shape[0]
    if k1 != k2:
        raise ShapeError(f"{op}: shapes {tuple(a._data.shape)} and {tuple(b._data.shape)} "
                         f"cannot be multiplied ({k1} != {k2})")
    if a._data.ndim > 2 and b._data.ndim > 2:
        try:
            a._device._backend.xp.broadcast_shapes(a._data.shape[:-2], b._data.shape[:-2])
        except ValueError:
            raise ShapeError(f"{op}: batch dims of shapes {tuple(a._data.shape)} and "
                             f"{tuple(b._data.shape)} cannot broadcast") from None


@tensor_method("matmul")
def matmul(input, other):
    """Matrix product with broadcasting over batch dims (1-d operands as vectors)."""
    input, other = to_tensor(input), to_tensor(other, input)
    if input._device is not other._device:
        _device_mismatch(MatmulBackward, (input, other))
    _check_matmul(input, other, "matmul")
    if input._dtype is not other._dtype:
        raise DTypeError(f"matmul: expected both operands to have the same dtype, got "
                         f"{input._dtype.name} and {other._dtype.name}")
    return MatmulBackward.apply(input, other)


Tensor.__matmul__ = matmul
Tensor.__rmatmul__ = lambda self, other: matmul(to_tensor(other, self), self)
