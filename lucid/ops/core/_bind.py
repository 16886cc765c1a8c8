"""Installing ops as Tensor methods: the tensor layer cannot import ops, so ops attach here."""

from ..._tensor import Tensor

__all__ = ["tensor_method", "install"]


def tensor_method(*names):
    """Decorator: also expose the function as ``Tensor.<name>`` for each name."""

    def deco(fn):
        install(**dict.fromkeys(names, fn))
        return fn

    return deco


def install(**methods):
    """Expose each function as ``Tensor.<name>``: the operators (``__add__``, ``__neg__``,
    ``__getitem__``, ...) an op module defines, in one place."""
    for name, fn in methods.items():
        setattr(Tensor, name, fn)
