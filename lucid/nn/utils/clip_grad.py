"""clip_grad_norm_, clip_grad_value_."""

from __future__ import annotations

import math
import warnings

from ..._tensor import Tensor, tensor
from ...autograd.grad_mode import no_grad
from ...errors import ArgumentError
from ...ops import stack

__all__ = [
    "clip_grad_norm_",
    "clip_grad_norm",
    "clip_grad_value_",
    "get_total_norm",
    "clip_grads_with_norm_",
]


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of the norms of ``tensors`` (the norm of their concatenation),
    a 0-d tensor; ``inf`` takes the largest absolute value."""
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    tensors = list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    with no_grad():
        total = stack([t.norm(norm_type) for t in tensors]).norm(norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise ArgumentError(
            f"clip_grad_norm_: the total norm of order {norm_type} for "
            "gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total


def _scale(grads, max_norm, total):
    with no_grad():
        coef = (float(max_norm) / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients of ``parameters`` in place by :math:`\\min(1, \\text{max\\_norm}
    / (\\text{total\\_norm} + 10^{-6}))`."""
    _scale(_grads(parameters), max_norm, total_norm)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Rescale the gradients of ``parameters`` in place so that their total
    ``norm_type``-norm (as of one concatenated vector; ``inf`` allowed) is at most
    ``max_norm``: each is multiplied by :math:`\\min(1, \\text{max\\_norm} / (\\|g\\| +
    10^{-6}))`. Returns the total norm before clipping (a 0-d tensor). ``error_if_nonfinite``
    raises when that norm is nan or inf; ``foreach`` is accepted and ignored."""
    grads = _grads(parameters)
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    _scale(grads, max_norm, total)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp the gradients of ``parameters`` in place to ``[-clip_value, clip_value]``."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated name of :func:`clip_grad_norm_` (warns, as PyTorch's)."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)
