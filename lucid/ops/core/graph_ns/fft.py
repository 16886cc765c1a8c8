"""The graph-mode kernels of the Fourier transforms (``lucid/backend/interface/fft.py``).

Part of :mod:`lucid.ops.core.graph_ns` (``F`` in graph mode).
"""

from __future__ import annotations


from ...signal.fft import FftC2cBackward, FftC2rBackward, FftR2cBackward

__all__ = ["fft_c2c", "fft_r2c", "fft_c2r"]


# -- Fourier transforms ------------------------------------------------------------------------


def fft_c2c(a, axes, norm, forward):
    return FftC2cBackward.apply(a, axes=axes, norm=norm, forward=forward)


def fft_r2c(a, axes, norm):
    return FftR2cBackward.apply(a, axes=axes, norm=norm)


def fft_c2r(a, axes, norm, last):
    return FftC2rBackward.apply(a, axes=axes, norm=norm, last=last)
