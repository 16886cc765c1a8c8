"""``lucid.backends.cpu``, as ``torch.backends.cpu``: :func:`get_cpu_capability` names the
widest SIMD instruction set of this CPU that the CPU backend's vectorised kernels (NumPy's
runtime-dispatched loops) can use, in PyTorch's words."""

from __future__ import annotations

import functools
import platform

__all__ = ["get_cpu_capability"]

# PyTorch's AVX512 level needs these four extensions together.
_AVX512 = {"avx512f", "avx512bw", "avx512vl", "avx512dq"}


@functools.cache
def get_cpu_capability() -> str:
    """``"AVX512"``, ``"AVX2"`` or ``"DEFAULT"`` on x86-64 (read from the Linux CPU flags;
    ``"DEFAULT"`` where they cannot be read), ``"DEFAULT"`` elsewhere."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return "DEFAULT"
    try:
        with open("/proc/cpuinfo") as f:
            line = next((ln for ln in f if ln.startswith("flags")), "")
    except OSError:
        return "DEFAULT"
    cpu = set(line.partition(":")[2].split())
    if _AVX512 <= cpu:
        return "AVX512"
    return "AVX2" if {"avx2", "fma"} <= cpu else "DEFAULT"
