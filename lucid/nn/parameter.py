"""Parameter and Buffer: tensors a Module registers."""

__all__ = []
