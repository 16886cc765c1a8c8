"""``lucid.backends.mps``: Apple's Metal backend, as ``torch.backends.mps`` reports it.
Lucid has no Metal backend, so :func:`is_available` and :func:`is_built` are False and
programs that probe for MPS take their CUDA or CPU path."""

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """Whether MPS can run here: never in Lucid."""
    return False


def is_built() -> bool:
    """Whether Lucid was built with MPS support: it never is."""
    return False
