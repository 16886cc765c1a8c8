r"""Scalar value transforms of model-based RL (DreamerV3, Hafner et al. 2023): ``symlog``,
``symexp`` and the ``two_hot`` encoding of scalars onto a bin support.

DreamerV3 regresses rewards and values as a softmax over bins :math:`b_1 < \dots < b_K`
(equally spaced in symlog space) trained against the two-hot encoding of the
(symlog-squashed) target, decoded as :math:`\operatorname{symexp}(\sum_k p_k b_k)`.
"""

from __future__ import annotations

from ..._tensor import Tensor
from ...errors import ArgumentTypeError, DTypeError, ShapeError, reports_as
from ...ops import clamp, searchsorted
from ...ops.elementwise.symlog import SymexpBackward, SymlogBackward
from .sparse import one_hot

__all__ = ["symlog", "symexp", "two_hot"]


def _need_tensor(op, name, t):
    if not isinstance(t, Tensor):
        raise ArgumentTypeError(f"{op}: argument '{name}' must be a Tensor, got {type(t).__name__}")


def symlog(input):
    r""":math:`\operatorname{sign}(x)\ln(1 + |x|)` element-wise, with gradient
    :math:`1/(1 + |x|)` (1 at 0): one node
    (:class:`~lucid.ops.elementwise.symlog.SymlogBackward`)."""
    _need_tensor("symlog", "input", input)
    return SymlogBackward.call(input)


def symexp(input):
    r""":math:`\operatorname{sign}(x)(e^{|x|} - 1)` element-wise, the inverse of
    :func:`symlog`, with gradient :math:`e^{|x|}`: one node
    (:class:`~lucid.ops.elementwise.symlog.SymexpBackward`)."""
    _need_tensor("symexp", "input", input)
    return SymexpBackward.call(input)


@reports_as("two_hot")
def two_hot(input, bins):
    r"""The two-hot encoding of the scalars ``input`` (any shape) on the sorted support
    ``bins`` (K,): shape ``input.shape + (K,)``, each row a probability vector.

    A value :math:`x` with :math:`b_k \le x \le b_{k+1}` puts the weight
    :math:`(b_{k+1} - x)/(b_{k+1} - b_k)` on bin :math:`k` and
    :math:`(x - b_k)/(b_{k+1} - b_k)` on bin :math:`k + 1`: the row's expectation
    :math:`\sum_j w_j b_j` is :math:`x` itself. Values outside :math:`[b_1, b_K]` are
    clamped to the end bins (weight 1 there); a value equal to a bin puts all its weight
    on it. Lucid³'s contract: at least two bins.

    ``bins`` must be strictly increasing (not checked: that would read the device); an
    integer ``input`` takes ``bins``' dtype. The encoding is a composition of Lucid ops
    (``clamp``, ``searchsorted``, ``one_hot``), differentiable in ``input`` (the weights
    are linear in it between two bins, constant where clamped) and in ``bins``.
    """
    _need_tensor("two_hot", "input", input)
    _need_tensor("two_hot", "bins", bins)
    if bins.ndim != 1 or bins.shape[0] < 2:
        raise ShapeError(
            f"two_hot: bins must be a 1-D tensor of at least two entries, got "
            f"shape {tuple(bins.shape)}"
        )
    if not bins.dtype.is_floating_point:
        raise DTypeError(f"two_hot: bins must be a floating tensor, got {bins.dtype.name}")
    if not input.dtype.is_floating_point:
        input = input.to(bins.dtype)
    k = bins.shape[0]
    x = clamp(input, bins[0].detach(), bins[-1].detach())
    lo = clamp(searchsorted(bins.detach(), x.detach(), right=True) - 1, 0, k - 2)
    b_lo, b_hi = bins[lo], bins[lo + 1]
    w_hi = ((x - b_lo) / (b_hi - b_lo)).unsqueeze(-1)
    dt = w_hi.dtype
    return one_hot(lo, k).to(dt) * (1 - w_hi) + one_hot(lo + 1, k).to(dt) * w_hi
