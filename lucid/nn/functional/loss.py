"""Loss functions (mse, cross_entropy, nll, bce, kl_div, ctc, margin losses, ...)."""

__all__ = []
