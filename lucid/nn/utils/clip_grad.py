"""clip_grad_norm_, clip_grad_value_."""

__all__ = []
