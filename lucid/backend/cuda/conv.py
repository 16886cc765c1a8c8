"""Convolution helpers on the GPU: im2col and col2im as single kernels."""


class CudaConv:
    """Overrides of the array-module kernels (filled in by its own change)."""
