"""``lucid.backends.openmp``, as ``torch.backends.openmp``: Lucid's own code has no OpenMP
parallelism (the CPU kernels are NumPy's), so :func:`is_available` is False."""

__all__ = ["is_available"]


def is_available() -> bool:
    """Whether Lucid was built with OpenMP: it never is."""
    return False
