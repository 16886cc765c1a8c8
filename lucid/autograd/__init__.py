"""Reverse-mode automatic differentiation: the engine, grad modes and tools.

The functional transforms of :mod:`.functional` (``jacobian``, ``hessian``, ``vjp``,
``jvp``, ``hvp``, ``vhp``) are reachable here too, and ``checkpoint`` is
:func:`lucid.utils.checkpoint.checkpoint` (looked up on first use: the utils layer sits
above this one)."""

from . import functional, profiler, profiler_util
from .functional import hessian, hvp, jacobian, jvp, vhp, vjp
from .anomaly_mode import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from .engine import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import gradcheck, gradgradcheck
from .graph import Node

__all__ = [
    "backward",
    "grad",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "is_inference_mode_enabled",
    "Node",
    "Function",
    "FunctionCtx",
    "once_differentiable",
    "gradcheck",
    "gradgradcheck",
    "functional",
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "jacobian",
    "hessian",
    "vjp",
    "jvp",
    "hvp",
    "vhp",
]
