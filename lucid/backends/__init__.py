"""Backend switches, as PyTorch's ``torch.backends`` (not :mod:`lucid.backend`, the
kernels): plain settable attributes that the kernels read when they run.

- :mod:`lucid.backends.cuda`: ``cuda.matmul.allow_tf32`` (default False: float32 GEMMs in
  full IEEE precision), ``allow_fp16_reduced_precision_reduction`` and
  ``allow_bf16_reduced_precision_reduction`` (default True: half GEMMs may reduce in half
  precision between tiles). The CUDA backend reads them at each matmul, so a change takes
  effect at the next op.
- :mod:`lucid.backends.cudnn`: ``enabled``, ``benchmark``, ``deterministic``,
  ``allow_tf32`` (default True, for convolutions), ``benchmark_limit`` and a ``flags(...)``
  context manager. The CUDA convolution reads them at each call.
- :mod:`lucid.backends.mps`, :mod:`lucid.backends.mkldnn`, :mod:`lucid.backends.openmp`:
  libraries Lucid does not have, so their ``is_available()`` is False (and ``mps.is_built()``);
  :func:`lucid.backends.cpu.get_cpu_capability` names the CPU's SIMD level.
- :func:`set_float32_matmul_precision` / :func:`get_float32_matmul_precision`:
  ``"highest"`` is ``allow_tf32 = False``; ``"high"`` and ``"medium"`` allow TF32 (and
  ``"medium"`` bfloat16-based algorithms); setting ``allow_tf32`` sets ``"high"`` or
  ``"highest"``, as PyTorch's legacy API.
"""

from . import cpu, cuda, cudnn, mkldnn, mps, openmp
from .cuda import get_float32_matmul_precision, set_float32_matmul_precision

__all__ = [
    "cpu",
    "cuda",
    "cudnn",
    "mkldnn",
    "mps",
    "openmp",
    "get_float32_matmul_precision",
    "set_float32_matmul_precision",
]
