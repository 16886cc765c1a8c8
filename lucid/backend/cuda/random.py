"""Counter-based random numbers (Philox4x32-10) on the GPU."""


class CudaRandom:
    """Overrides of the array-module kernels (filled in by its own change)."""
