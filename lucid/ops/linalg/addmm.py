r"""The fused add-products, PyTorch's: :math:`\beta\,\text{input} + \alpha\,P` for the
product :math:`P` of ``addmm`` (``mat1 @ mat2``), ``addmv`` (``mat @ vec``), ``baddbmm``
(``batch1 @ batch2``, per batch) and ``addbmm`` (the batched products summed), with their
in-place forms. Compositions of registered ops (the matmul and einsum nodes, add, mul).
"""

from __future__ import annotations

from ...errors import DTypeError, ShapeError, reports_as
from ..core._bind import tensor_method
from ..core.base import broadcast_shapes, to_tensor
from ..core.inplace import apply_inplace
from ..binary.arith import AddBackward, MulBackward
from .einsum import EinsumBackward
from .products import _autocast_mix, _check_bmm, _pair, _shape, bmm, mm, mv

__all__ = ["addmm", "addmv", "addbmm", "baddbmm"]


def _scaled_add(input, prod, beta, alpha, op):
    """``beta * input + alpha * prod``; ``beta == 0`` ignores ``input`` (its NaNs too)."""
    input = to_tensor(input, prod)
    if input._dtype is not prod._dtype and _autocast_mix(input, prod):
        input = input.to(prod._dtype)
    if input._dtype is not prod._dtype:
        raise DTypeError(
            f"{op}: expected input and the matrices to have the same dtype, "
            f"got {input._dtype.name} and {prod._dtype.name}"
        )
    if prod._dtype._cat < 2 and (isinstance(alpha, float) or isinstance(beta, float)):
        raise DTypeError(
            f"{op}: for integral tensors, beta and alpha must not be floating "
            f"point numbers, got beta={beta}, alpha={alpha}"
        )
    si, sp = _shape(input), _shape(prod)
    try:
        ok = broadcast_shapes(si, sp) == sp
    except ValueError:
        ok = False
    if not ok:
        raise ShapeError(
            f"{op}: input of shape {si} cannot be broadcast to the product's shape {sp}"
        )
    out = prod if alpha == 1 else MulBackward.call(prod, alpha)
    if beta == 0:
        return out
    return AddBackward.call(out, input) if beta == 1 else AddBackward.call(out, input, alpha=beta)


@tensor_method("addmm")
@reports_as("addmm")
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)`` for 2-D ``mat1``, ``mat2``."""
    return _scaled_add(input, mm(mat1, mat2), beta, alpha, "addmm")


@tensor_method("addmv")
@reports_as("addmv")
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)`` for 2-D ``mat`` and 1-D ``vec``."""
    return _scaled_add(input, mv(mat, vec), beta, alpha, "addmv")


@tensor_method("baddbmm")
@reports_as("baddbmm")
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * bmm(batch1, batch2)``."""
    return _scaled_add(input, bmm(batch1, batch2), beta, alpha, "baddbmm")


@tensor_method("addbmm")
@reports_as("addbmm")
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]`` (one contraction)."""
    b1, b2 = _pair("addbmm", batch1, batch2)
    _check_bmm("addbmm", b1, b2)
    prod = EinsumBackward.apply(b1, b2, equation="abc,acd->bd")
    return _scaled_add(input, prod, beta, alpha, "addbmm")


def _inplace(fn):
    name = fn.__name__ + "_"

    def method(input, *args, beta=1, alpha=1):
        return apply_inplace(fn, input, *args, beta=beta, alpha=alpha)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place :func:`{fn.__name__}`."
    return tensor_method(name)(method)


for _fn in (addmm, addmv, baddbmm, addbmm):
    _inplace(_fn)
