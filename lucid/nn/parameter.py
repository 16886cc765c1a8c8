"""Parameter and Buffer: tensors a Module registers.

A :class:`Parameter` is a :class:`~lucid.Tensor` (a subclass, sharing the storage of the data
it is made from) that requires grad by default; assigning one to a Module attribute registers
it. A :class:`Buffer` (PyTorch 2.x) marks a tensor to register as a buffer, with its
``persistent`` flag. :class:`UninitializedParameter` is the placeholder of lazy layers until
their first call fixes its shape; :class:`UninitializedParameterWarning` is the warning
given where one would otherwise pass silently for a real tensor.
"""

from __future__ import annotations

from typing import Any

import warnings

from .._tensor import Tensor
from ..ops import empty
from ..errors import AutogradError

__all__ = [
    "Parameter",
    "Buffer",
    "UninitializedParameter",
    "UninitializedBuffer",
    "UninitializedParameterWarning",
]


def _alias(cls, data):
    """A tensor of class ``cls`` over ``data``'s storage and version counter, no history."""
    if data is None:
        data = empty(0)
    elif not isinstance(data, Tensor):
        raise AutogradError(f"{cls.__name__}: expected a Tensor as data, got {type(data).__name__}")
    t = cls._wrap(data._data, data._dtype, data._device)
    t._vc = data._vc
    return t


class Parameter(Tensor):
    """A tensor that is a module parameter: ``Parameter(data=None, requires_grad=True)``.

    It shares ``data``'s storage (no copy); ``requires_grad`` is True unless given False.
    Ops on a Parameter return plain Tensors; ``copy.deepcopy`` and pickling keep the class.
    """

    def __new__(cls, data=None, requires_grad=True):
        p = _alias(cls, data)
        p.requires_grad = requires_grad
        return p

    def __init__(self, data=None, requires_grad=True):
        pass  # everything is done in __new__ (Tensor.__init__ would reread the arguments)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        p = type(self)(Tensor.__deepcopy__(self.detach(), {}), self._requires_grad)
        if self._grad is not None:
            p._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = p
        return p

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (type(self), self.detach(), self._requires_grad))


def _rebuild_parameter(cls, data, requires_grad):
    return cls(data, requires_grad)


class Buffer(Tensor):
    """A tensor to register as a module buffer when assigned to a Module attribute:
    ``Buffer(data, *, persistent=True)``; non-persistent buffers stay out of ``state_dict``.
    Shares ``data``'s storage."""

    def __new__(cls, data=None, *, persistent=True):
        b = _alias(cls, data)
        b.persistent = persistent
        return b

    def __init__(self, data=None, *, persistent=True):
        pass  # everything is done in __new__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        b = type(self)(Tensor.__deepcopy__(self.detach(), {}), persistent=self.persistent)
        memo[id(self)] = b
        return b

    def __reduce_ex__(self, protocol):
        return (_rebuild_buffer, (type(self), self.detach(), self.persistent))


def _rebuild_buffer(cls, data, persistent):
    return cls(data, persistent=persistent)


class UninitializedParameterWarning(UserWarning):
    """A lazy module's parameters or buffers were read before its first forward gave them
    shapes, where that reads nothing: ``parameters()`` yielding placeholders (Lucid³'s
    place for it: an optimizer built then still trains, but counting or flattening the
    list reads nothing), ``numel()`` of one (0 until then) and a ``state_dict`` holding
    them. Lucid³'s warning; PyTorch has none (its ``numel()`` raises, its state dict keeps
    the placeholders, as Lucid's does: Lucid³'s leaves them out)."""


def warn_uninitialized(what, stacklevel=3):
    """Give :class:`UninitializedParameterWarning` for ``what`` (a phrase naming the use
    and the tensors)."""
    warnings.warn(
        f"{what}: uninitialized (lazy) parameters or buffers, reading nothing "
        "until a forward pass gives them their shapes",
        UninitializedParameterWarning,
        stacklevel=stacklevel,
    )


class _Uninitialized:
    """What uninitialised parameters and buffers share: no data until
    :meth:`materialize` gives them a shape; any other use raises."""

    __slots__ = ()
    cls_to_become: Any = None

    def materialize(self, shape, device=None, dtype=None):
        """Give this placeholder the shape ``shape`` (uninitialised values) and turn it into
        a :attr:`cls_to_become` in place."""
        dev = self._device if device is None else device
        dt = self._dtype if dtype is None else dtype
        data = empty(tuple(shape), device=dev, dtype=dt)
        self._data, self._dtype, self._device = data._data, data._dtype, data._device
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return f"<{type(self).__name__}>"

    def numel(self):
        """0, with :class:`UninitializedParameterWarning`: the size is not known yet."""
        warn_uninitialized(f"numel() of an {type(self).__name__}")
        return 0

    @property
    def shape(self):
        raise AutogradError(
            f"{type(self).__name__}: can't access the shape of an "
            "uninitialized parameter or buffer; run a forward first"
        )


class UninitializedParameter(_Uninitialized, Parameter):
    """A parameter of a lazy module before its first forward fixes its shape."""

    cls_to_become = Parameter


class UninitializedBuffer(_Uninitialized, Buffer):
    """A buffer of a lazy module before its first forward fixes its shape."""

    cls_to_become = Buffer
