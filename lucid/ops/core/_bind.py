"""Installing ops as Tensor methods: the tensor layer cannot import ops, so ops attach here."""

from ..._tensor import Tensor

__all__ = ["tensor_method"]


def tensor_method(*names):
    """Decorator: also expose the function as ``Tensor.<name>`` for each name."""

    def deco(fn):
        for n in names:
            setattr(Tensor, n, fn)
        return fn

    return deco
