"""spectral_norm, remove_spectral_norm."""

__all__ = []
