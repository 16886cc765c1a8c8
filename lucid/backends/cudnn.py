"""``lucid.backends.cudnn``: the cuDNN switches, as ``torch.backends.cudnn``, plain settable
attributes the CUDA backend reads per call. ``enabled``: calls cuDNN takes go to it (off:
Lucid's own kernels everywhere); ``benchmark``: time the candidate algorithms once per shape
and keep the fastest (up to ``benchmark_limit`` of them); ``deterministic``: only algorithms
with run-to-run identical results; ``allow_tf32``: float32 convolutions may use TF32 tensor
cores.

cuDNN comes through NVIDIA's cuDNN frontend (``pip install lucid[cuda]``: the
``nvidia-cudnn-frontend`` and ``nvidia-cudnn-cu13`` wheels), an optional dependency: where it
is installed and loads, :func:`is_available` is True, half-precision
``scaled_dot_product_attention`` runs on cuDNN's fused attention, forward and backward,
and float32/float16/bfloat16 convolutions (1-d to 3-d, forward, input and weight
gradients; float32 with TF32 unless ``allow_tf32`` is off, as in PyTorch) on cuDNN's
convolution graphs (``lucid/backend/cuda/cudnn.py``); elsewhere Lucid's own kernels run.
:func:`chosen` says which path each op's last call took."""

from __future__ import annotations

import contextlib
import sys

__all__ = [
    "enabled",
    "benchmark",
    "benchmark_limit",
    "deterministic",
    "allow_tf32",
    "flags",
    "is_available",
    "version",
    "chosen",
]

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


_FRONTEND: list = []  # the imported frontend, or None, after the first look
#: op name -> "cudnn" or "lucid (<why>)": the path its last call took (the CUDA backend
#: writes it)
CHOSEN: dict = {}


def frontend():
    """The ``cudnn`` module, or None where the frontend or libcudnn cannot be loaded."""
    if not _FRONTEND:
        try:
            import cudnn as mod

            mod.backend_version()  # (loads libcudnn)
        except Exception:  # noqa: BLE001 (ImportError, OSError, a broken install: no cuDNN)
            mod = None
        _FRONTEND.append(mod)
    return _FRONTEND[0]


def is_available() -> bool:
    """Whether the cuDNN frontend and libcudnn load (see the module doc)."""
    return frontend() is not None


def version():
    """cuDNN's version number (9.19.0 gives 91900), or None where it is not available, as
    PyTorch's."""
    mod = frontend()
    return None if mod is None else int(mod.backend_version())


def chosen() -> dict:
    """``{op: path}`` for the ops cuDNN was asked to take: ``"cudnn"``, or ``"lucid (why
    not)"`` where the call ran on Lucid's own kernels (a copy)."""
    return dict(CHOSEN)


_NAMES = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """Set all five switches inside the block (PyTorch's defaults: cuDNN off) and restore
    them after."""
    mod = sys.modules[__name__]
    new = dict(zip(_NAMES, (enabled, benchmark, benchmark_limit, deterministic, allow_tf32)))
    old = {k: getattr(mod, k) for k in _NAMES}
    for k, v in new.items():
        setattr(mod, k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            setattr(mod, k, v)
