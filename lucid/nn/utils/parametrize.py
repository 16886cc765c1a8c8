"""Parametrizations: a module's tensor computed from others by modules (PyTorch's
``torch.nn.utils.parametrize``).

:func:`register_parametrization` moves ``module.<name>`` to
``module.parametrizations.<name>.original`` (or ``original0``, ``original1``, ... when the
parametrization's ``right_inverse`` splits it) and turns ``<name>`` into a property of a
subclass made for the module (``Parametrized<Class>``): reading it runs the
parametrizations on the originals, assigning to it runs their ``right_inverse``. Inside
:func:`cached` each parametrized tensor is computed once.
"""

from __future__ import annotations

import collections.abc
import contextlib

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...errors import ArgumentError
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = [
    "register_parametrization",
    "remove_parametrizations",
    "is_parametrized",
    "cached",
    "type_before_parametrizations",
    "ParametrizationList",
]

_cache_depth = 0
_cache: dict = {}


@contextlib.contextmanager
def cached():
    """Within the block each parametrized tensor is computed once, at its first use."""
    global _cache_depth
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if not _cache_depth:
            _cache.clear()


def _register_tensor(module, name, t):
    if isinstance(t, Parameter):
        module.register_parameter(name, t)
    else:
        module.register_buffer(name, t)


def _check_result(z, shape, dtype, what):
    if not isinstance(z, Tensor):
        raise ArgumentError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
    if z.dtype is not dtype:
        raise ArgumentError(
            f"{what} may not change the dtype of the tensor, unless the "
            f"`unsafe` flag is enabled.\nunparametrized dtype: {dtype}\n"
            f"parametrized dtype: {z.dtype}"
        )
    if tuple(z.shape) != tuple(shape):
        raise ArgumentError(
            f"{what} may not change the shape of the tensor, unless the "
            f"`unsafe` flag is enabled.\nunparametrized shape: {tuple(shape)}\n"
            f"parametrized shape: {tuple(z.shape)}"
        )


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and its original(s)."""

    def __init__(self, modules, original, unsafe=False):
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = tuple(original.shape), original.dtype
        new = original
        with no_grad():
            for m in reversed(list(self)):
                if hasattr(m, "right_inverse"):
                    new = m.right_inverse(new)
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ArgumentError(
                "'right_inverse' must return a Tensor or a Sequence of tensors "
                f"(list, tuple...). Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if new.dtype is not original.dtype:
                raise ArgumentError(
                    "When `right_inverse` outputs one tensor, it may not change "
                    f"the dtype.\noriginal.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}"
                )
            with no_grad():
                original.data = new
            _register_tensor(self, "original", original)
        else:
            for i, t in enumerate(new):
                if not isinstance(t, Tensor):
                    raise ArgumentError(
                        "'right_inverse' must return a Tensor or a Sequence of "
                        f"tensors (list, tuple...). Got element {i} of type "
                        f"{type(t).__name__}"
                    )
                t = t.detach()
                if isinstance(original, Parameter):
                    t = Parameter(t, original.requires_grad)
                _register_tensor(self, f"original{i}", t)
        if not unsafe:
            _check_result(self(), shape, dtype, "Registering a parametrization")

    def right_inverse(self, value):
        """Set the original(s) so that the parametrized tensor becomes ``value``."""
        with no_grad():
            for m in reversed(list(self)):
                if not hasattr(m, "right_inverse"):
                    raise ArgumentError(
                        f"parametrization {type(m).__name__} does not implement right_inverse."
                    )
                value = m.right_inverse(value)
            if self.is_tensor:
                if not self.unsafe:
                    _check_result(value, self.original.shape, self.original.dtype, "right_inverse")
                self.original.data = value
            else:
                if len(value) != self.ntensors:
                    raise ArgumentError(
                        f"'right_inverse' must return a sequence of "
                        f"{self.ntensors} tensors, got {len(value)}"
                    )
                for i, t in enumerate(value):
                    getattr(self, f"original{i}").data = t

    def forward(self):
        first, *rest = list(self)
        if self.is_tensor:
            x = first(self.original)
        else:
            x = first(*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for m in rest:
            x = m(x)
        return x


def _parametrized_property(name):
    def get(self):
        p = self.parametrizations[name]
        if not _cache_depth:
            return p()
        key = (id(self), name)
        if key not in _cache:
            _cache[key] = p()
        return _cache[key]

    def set_(self, value):
        self.parametrizations[name].right_inverse(value)

    return property(get, set_)


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has a parametrization (on ``tensor_name``, if given)."""
    p = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(p, ModuleDict):
        return False
    return len(p) > 0 if tensor_name is None else tensor_name in p


def type_before_parametrizations(module):
    """The class of ``module`` before parametrizations made it ``Parametrized<Class>``."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make ``module.<tensor_name>`` the output of ``parametrization`` (a Module) applied to
    the original tensor (see the module docstring); a second registration on the same name
    applies after the first. ``unsafe``: skip the shape and dtype checks. Returns
    ``module``."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe:
            y = getattr(module, tensor_name)
            _check_result(parametrization(y), y.shape, y.dtype, "Registering a parametrization")
        plist.append(parametrization)
        plist.unsafe |= unsafe
        return module
    if tensor_name not in module._buffers and tensor_name not in module._parameters:
        raise ArgumentError(
            f"Module '{module}' does not have a parameter, a buffer, or a "
            f"parametrized element with name '{tensor_name}'"
        )
    original = getattr(module, tensor_name)
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        cls = type(module)
        module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {})
        module.parametrizations = ModuleDict()
    module.parametrizations[tensor_name] = plist
    setattr(type(module), tensor_name, _parametrized_property(tensor_name))
    return module


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo the parametrizations of ``tensor_name``: it becomes a parameter (or buffer)
    again, holding the parametrized value (``leave_parametrized``) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ArgumentError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                original.data = getattr(module, tensor_name).detach()
    else:
        if not leave_parametrized:
            raise ArgumentError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a "
                "tensor that is parametrized in terms of a sequence of tensors."
            )
        with no_grad():
            t = getattr(module, tensor_name)
        first = plist.original0
        original = (
            Parameter(t.detach(), first.requires_grad)
            if isinstance(first, Parameter)
            else t.detach()
        )
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register_tensor(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module
