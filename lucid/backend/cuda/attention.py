"""Flash attention: tiled online-softmax attention, forward and backward."""


class CudaAttention:
    """Overrides of the array-module kernels (filled in by its own change)."""
