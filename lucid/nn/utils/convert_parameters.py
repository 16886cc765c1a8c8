"""parameters_to_vector, vector_to_parameters."""

from __future__ import annotations

from ..._tensor import Tensor
from ...errors import ArgumentTypeError, DeviceMismatchError, ShapeError
from ...ops import cat

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _same_device(params, op):
    params = list(params)
    devs = {p.device for p in params}
    if len(devs) > 1:
        raise DeviceMismatchError(
            f"{op}: found parameters on different devices "
            f"({', '.join(sorted(map(str, devs)))}); expected one"
        )
    return params


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated into one 1-D tensor (differentiable)."""
    params = _same_device(parameters, "parameters_to_vector")
    return cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec, parameters):
    """Give the parameters, in order, the consecutive slices of the 1-D ``vec`` as their
    data (the reverse of :func:`parameters_to_vector`)."""
    if not isinstance(vec, Tensor):
        raise ArgumentTypeError(
            f"vector_to_parameters: expected a Tensor, but got: {type(vec).__name__}"
        )
    params = _same_device(parameters, "vector_to_parameters")
    total = sum(p.numel() for p in params)
    if vec.ndim != 1 or vec.numel() != total:
        raise ShapeError(
            f"vector_to_parameters: expected a 1-D vector of {total} elements "
            f"(the parameters' total), got shape {tuple(vec.shape)}"
        )
    at = 0
    for p in params:
        n = p.numel()
        p.data = vec[at : at + n].reshape(p.shape).data
        at += n
