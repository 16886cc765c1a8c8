"""Lucid: a deep learning framework you can read end to end.

A PyTorch-shaped API over an op registry (each op: schema, forward dispatch, eager and
graph-mode backward), a reverse-mode autograd engine, and backends that never mix: the CPU
on NumPy, the GPU on CuPy.
"""

import builtins as _builtins

from . import dtypes, errors
from ._state import STATE as _STATE
from ._device import device, get_default_device, set_default_device
from . import backend  # noqa: F401  (registers the backends of each device type)
from .backend.threads import get_num_threads, set_num_threads
from .dtypes import (
    bfloat16,
    bool,
    bool_,
    can_cast,
    cdouble,
    cfloat,
    complex64,
    complex128,
    double,
    dtype,
    finfo,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    iinfo,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    promote_types,
    result_type,
    set_default_dtype,
    short,
    uint8,
)
from ._tensor import Size, Tensor, as_tensor, from_dlpack, from_numpy, is_tensor, tensor
from ._tensor.legacy_types import CPU_TYPES as _LEGACY_TYPES
from .autograd import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from . import ops, autograd, amp, backends
from .amp import autocast
from .backends import get_float32_matmul_precision, set_float32_matmul_precision
from ._tensor.format import get_printoptions, printoptions, set_printoptions
from .ops import *  # noqa: F401,F403
from . import random, return_types
from . import special  # noqa: E402
from . import linalg  # noqa: E402
from . import fft  # noqa: E402
from . import distributions  # noqa: E402
from . import utils
from . import compiler  # noqa: E402
from .compiler import compile  # noqa: E402  (shadows the built-in, as torch.compile does)
from . import nn, optim  # noqa: E402
from . import func  # noqa: E402
from . import cuda, accelerator, onnx, profiler  # noqa: E402
from . import einops  # noqa: E402
from .serialization import *  # noqa: F401,F403
from . import hub  # noqa: E402
from .random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

__version__ = "0.1.0"

globals().update(_LEGACY_TYPES)  # lucid.FloatTensor, ... (PyTorch's legacy types)

del backend  # the backends are internals: reach them through a device (lucid.ops.move)


def is_floating_point(t):
    """Whether tensor ``t`` has a floating dtype."""
    return t._dtype.is_floating_point


def is_complex(t):
    """Whether tensor ``t`` has a complex dtype."""
    return t._dtype.is_complex


def use_deterministic_algorithms(mode, *, warn_only=False) -> None:
    """Require deterministic ops: an op whose schema says ``deterministic=False`` raises a
    :class:`~lucid.errors.DeterminismError` (or warns, with ``warn_only``)."""
    _STATE.deterministic = _builtins.bool(mode)
    _STATE.deterministic_warn_only = _builtins.bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _STATE.deterministic


def is_deterministic_algorithms_warn_only_enabled():
    return _STATE.deterministic_warn_only
