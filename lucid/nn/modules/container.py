"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict.

Their semantics and reprs are PyTorch's: list-like containers key their entries ``"0"``,
``"1"``, ... and renumber after a deletion; ``ModuleList``'s repr folds runs of identical
entries (``(0-2): 3 x Linear(...)``).
"""

from __future__ import annotations

import numbers
import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from itertools import chain, islice

from ..._tensor import Tensor
from ...errors import ArgumentError, ArgumentTypeError, IndexingError
from ..parameter import Parameter
from .module import Module, _addindent

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _abs_index(container, idx):
    """``idx`` (an int, possibly negative) as the string key of ``container``'s entry."""
    idx = operator.index(idx)
    n = len(container)
    if not -n <= idx < n:
        raise IndexingError(f"index {idx} is out of range")
    return str(idx % n)


def _renumber(container):
    object.__setattr__(
        container, "_modules", dict((str(i), m) for i, m in enumerate(container._modules.values()))
    )


def _no_digits(keys):
    return [k for k in keys if not k.isdigit()]


class Sequential(Module):
    """Modules run one after the other: ``Sequential(m0, m1, ...)`` (keys ``"0"``, ``"1"``,
    ...) or ``Sequential(OrderedDict(name=module, ...))``; ``forward`` feeds each output to
    the next module."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _item_by_idx(self, iterator, idx):
        idx = int(_abs_index(self, idx))
        return next(islice(iterator, idx, None))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return self._item_by_idx(iter(self._modules.values()), idx)

    def __setitem__(self, idx, module):
        setattr(self, self._item_by_idx(iter(self._modules.keys()), idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._item_by_idx(iter(self._modules.keys()), idx))
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ArgumentError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        out = Sequential()
        for layer in chain(self, other):
            out.append(layer)
        return out

    def __iadd__(self, other):
        if not isinstance(other, Sequential):
            raise ArgumentError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def _check_factor(self, other):
        if not isinstance(other, int) or isinstance(other, bool):
            raise ArgumentTypeError(
                f"unsupported operand type(s) for *: {type(self)} and {type(other)}"
            )
        if other <= 0:
            raise ArgumentError(f"Non-positive multiplication factor {other} for {type(self)}")

    def __mul__(self, other):
        self._check_factor(other)
        out = Sequential()
        for i, module in enumerate(m for _ in range(other) for m in self):
            out.add_module(str(i), module)
        return out

    __rmul__ = __mul__

    def __imul__(self, other):
        self._check_factor(other)
        mods, n = list(self), len(self)
        for k in range(1, other):
            for i, module in enumerate(mods):
                self.add_module(str(k * n + i), module)
        return self

    def pop(self, key):
        """Remove the entry at ``key`` (an index or slice) and return it."""
        v = self[key]
        del self[key]
        return v

    def append(self, module):
        """Add ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        """Insert ``module`` before position ``index`` (negative counts from the end)."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexingError(f"Index out of range: {index}")
        if index < 0:
            index += n
        items = list(self._modules.values())
        items.insert(index, module)
        object.__setattr__(self, "_modules", {str(i): m for i, m in enumerate(items)})
        return self

    def extend(self, sequential):
        """Append every module of ``sequential``; returns ``self``."""
        for layer in sequential:
            self.append(layer)
        return self

    def __dir__(self):
        return _no_digits(super().__dir__())

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered as submodules ``"0"``, ``"1"``, ...; it has no
    ``forward`` of its own."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[_abs_index(self, idx)]

    def __setitem__(self, idx, module):
        setattr(self, _abs_index(self, idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, _abs_index(self, idx))
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        out = ModuleList()
        for i, module in enumerate(chain(self, other)):
            out.add_module(str(i), module)
        return out

    def __repr__(self):
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs = []  # [start, end, repr] of equal neighbours
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = [
            _addindent(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}", 2)
            for a, b, r in runs
        ]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self):
        return _no_digits(super().__dir__())

    def insert(self, index, module):
        """Insert ``module`` before position ``index``, as ``list.insert``: a negative
        index counts from the end, one past either end inserts there. (PyTorch 2.13 raises
        a bare ``KeyError`` for a negative index and leaves a gap in the keys for one
        above ``len``; Lucid keeps the list whole.)"""
        if isinstance(index, bool) or not isinstance(index, numbers.Integral):
            raise ArgumentTypeError(
                f"ModuleList.insert: index must be an int, got {type(index).__name__}"
            )
        items = list(self._modules.values())
        items.insert(index, module)
        for i in range(len(items)):
            self._modules[str(i)] = items[i]

    def append(self, module):
        """Add ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        """Remove the entry at ``key`` (an index or slice) and return it."""
        v = self[key]
        del self[key]
        return v

    def extend(self, modules):
        """Append every module of the iterable ``modules``; returns ``self``."""
        if not isinstance(modules, Iterable):
            raise ArgumentTypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


def _update_pairs(target, pairs, cls_name):
    for j, p in enumerate(pairs):
        if not isinstance(p, Iterable):
            raise ArgumentTypeError(
                f"{cls_name} update sequence element #{j} should be Iterable; is {type(p).__name__}"
            )
        if len(p) != 2:
            raise ArgumentError(
                f"{cls_name} update sequence element #{j} has length {len(p)}; 2 is required"
            )
        target[p[0]] = p[1]


class ModuleDict(Module):
    """An ordered dict of modules, registered as submodules under their keys."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        """Remove every entry."""
        self._modules.clear()

    def pop(self, key):
        """Remove the entry ``key`` and return its module."""
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        """Add the entries of a mapping or of an iterable of ``(key, module)`` pairs."""
        if not isinstance(modules, Iterable):
            raise ArgumentTypeError(
                "ModuleDict.update should be called with an iterable of "
                f"key/value pairs, but got {type(modules).__name__}"
            )
        if isinstance(modules, (Mapping, ModuleDict)):
            for key, module in modules.items():
                self[key] = module
        else:
            _update_pairs(self, modules, "ModuleDict")


def _param_line(key, p):
    if isinstance(p, Tensor):
        size = "x".join(str(s) for s in p.shape)
        dev = f" ({p.device})" if p.device.type == "cuda" else ""
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        return f"  ({key}): {kind} containing: [{p.dtype} of size {size}{dev}]"
    return f"  ({key}): Object of type: {type(p).__name__}"


class ParameterList(Module):
    """A list of parameters (tensors are wrapped in :class:`Parameter`; other objects are
    kept as they are), registered as ``"0"``, ``"1"``, ...; not callable."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = type(self)()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, _abs_index(self, idx))

    def __setitem__(self, idx, param):
        idx = _abs_index(self, idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, idx, param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return _no_digits(super().__dir__())

    def append(self, value):
        """Add ``value`` at the end; returns ``self``."""
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        """Append every value of the iterable ``values``; returns ``self``."""
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise ArgumentTypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_param_line(k, p) for k, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise ArgumentError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters (tensors are wrapped in :class:`Parameter`) with
    string keys; a plain ``dict`` given to :meth:`update` is added in sorted key order, an
    ``OrderedDict`` or ``ParameterDict`` in its own order, as PyTorch does; not callable."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _key_to_attr(key):
        if not isinstance(key, str):
            raise ArgumentTypeError(
                "Index given to ParameterDict cannot be used as a key as it is "
                f"not a string (type is '{type(key).__name__}')."
            )
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value):
        attr = self._key_to_attr(key)
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def copy(self):
        """A new ParameterDict holding the same parameters."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for k in list(self._keys):
            del self[k]

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        """Remove and return the last ``(key, parameter)`` pair."""
        k = next(reversed(self._keys))
        v = self[k]
        del self[k]
        return k, v

    def get(self, key, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters):
        """Add the entries of a mapping or of an iterable of ``(key, value)`` pairs."""
        if not isinstance(parameters, Iterable):
            raise ArgumentTypeError(
                "ParametersDict.update should be called with an iterable of "
                f"key/value pairs, but got {type(parameters).__name__}"
            )
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, p in parameters.items():
                self[key] = p
        elif isinstance(parameters, Mapping):
            for key, p in sorted(parameters.items()):
                self[key] = p
        else:
            _update_pairs(self, parameters, "ParameterDict")

    def extra_repr(self):
        return "\n".join(_param_line(k, p) for k, p in self.items())

    def __call__(self, *args, **kwargs):
        raise ArgumentError("ParameterDict should not be called.")

    def __or__(self, other):
        out = self.copy()
        out.update(other)
        return out

    def __ror__(self, other):
        out = other.copy()
        out.update(self)
        return out

    def __ior__(self, other):
        self.update(other)
        return self
