"""``lucid.nn.init``: in-place initialisers with PyTorch's fan and gain rules."""

__all__ = []
