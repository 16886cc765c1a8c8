"""Module: parameters, buffers, submodules, hooks, state_dict.

:class:`Module` follows PyTorch's ``torch.nn.Module`` name for name: assigning a
:class:`~lucid.nn.Parameter`, :class:`~lucid.nn.Buffer` or Module to an attribute registers
it; ``named_*`` walk the tree in registration order; ``state_dict`` / ``load_state_dict``
use dotted names, so a PyTorch model's state dict loads by name into the same Lucid model;
``__call__`` runs the forward pre-hooks, ``forward``, the forward hooks and sets up the
full backward hooks (an identity :class:`~lucid.autograd.Function` around the inputs and one
around the outputs, whose backward calls the hooks with the gradients that pass through).
The ``register_module_*`` functions here add hooks for every module (PyTorch's global
hooks), run before each module's own.

The deprecated backward hooks (:meth:`Module.register_backward_hook`,
:func:`register_module_backward_hook`) behave as PyTorch's: they hook the graph node of the
first output tensor, so ``grad_input`` holds the gradients of *that node's* inputs (which
for a module of several ops are not the module's inputs; a ``FutureWarning`` says so), and
a module (or the global registry) holds either full or deprecated backward hooks, never
both.
"""

from __future__ import annotations

import functools
import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Self

from ... import dtypes as _dt
from ..._device import device as _device_cls
from ..._tensor import Tensor, from_dlpack
from ...autograd.function import Function
from ...autograd.grad_mode import STATE, no_grad
from ...compiler import compile as _compile
from ...errors import ArgumentError, ArgumentTypeError, AutogradError, DTypeError
from ...ops import empty_like
from ..parameter import Buffer, Parameter, _Uninitialized, warn_uninitialized

__all__ = ["Module"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it missed and the keys it did not use."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """A hook's handle: ``remove()`` takes it out of every dict it was registered in (also a
    context manager that removes it on exit); ``id`` is its key there."""

    _next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_refs = (hooks_dict,)
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1
        self.extra_dict_refs = (
            ()
            if extra_dict is None
            else tuple(extra_dict)
            if isinstance(extra_dict, (list, tuple))
            else (extra_dict,)
        )

    def remove(self):
        for d in self.hooks_dict_refs + self.extra_dict_refs:
            d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _addindent(s, n):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


def _register(hooks, hook, prepend, extra=None):
    handle = RemovableHandle(hooks, extra_dict=extra)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


class _GlobalHooks:
    """The hooks of every module (``register_module_*``), run before each module's own."""

    def __init__(self):
        self.forward_pre = OrderedDict()
        self.forward_pre_with_kwargs = {}
        self.forward = OrderedDict()
        self.forward_with_kwargs = {}
        self.forward_always = {}
        self.backward_pre = OrderedDict()
        self.backward = OrderedDict()
        self.backward_is_full = None  # True: full hooks in .backward, False: deprecated ones
        self.buffer_registration = OrderedDict()
        self.module_registration = OrderedDict()
        self.parameter_registration = OrderedDict()

    def active(self):
        return bool(self.forward_pre or self.forward or self.backward_pre or self.backward)


_G = _GlobalHooks()


def register_module_forward_pre_hook(hook):
    """``hook(module, args)`` before the forward of every module (see
    :meth:`Module.register_forward_pre_hook`); returns a handle."""
    return _register(_G.forward_pre, hook, False)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """``hook(module, args, output)`` after the forward of every module (see
    :meth:`Module.register_forward_hook`); returns a handle."""
    h = _register(_G.forward, hook, False, extra=[_G.forward_with_kwargs, _G.forward_always])
    if with_kwargs:
        _G.forward_with_kwargs[h.id] = True
    if always_call:
        _G.forward_always[h.id] = True
    return h


def register_module_full_backward_pre_hook(hook):
    """``hook(module, grad_output)`` for every module (see
    :meth:`Module.register_full_backward_pre_hook`); returns a handle."""
    return _register(_G.backward_pre, hook, False)


def register_module_full_backward_hook(hook):
    """``hook(module, grad_input, grad_output)`` for every module (see
    :meth:`Module.register_full_backward_hook`); returns a handle."""
    _G.backward_is_full = _backward_kind(_G.backward_is_full, True, "as a global Module hook")
    return _register(_G.backward, hook, False)


def register_module_backward_hook(hook):
    """Deprecated: :meth:`Module.register_backward_hook` for every module (use
    :func:`register_module_full_backward_hook`); returns a handle."""
    _G.backward_is_full = _backward_kind(_G.backward_is_full, False, "as a global Module hook")
    return _register(_G.backward, hook, False)


def _backward_kind(current, full, where):
    """The backward-hook kind after registering one of kind ``full`` where hooks of kind
    ``current`` (None: none yet) are: the two kinds never mix, as in PyTorch."""
    if current is (not full):
        raise AutogradError(
            f"Cannot use both regular backward hooks and full backward hooks "
            f"{where}. Please use only one of them."
        )
    return full


def register_module_buffer_registration_hook(hook):
    """``hook(module, name, buffer)`` whenever a buffer is registered; a non-None return
    is registered instead. Returns a handle."""
    return _register(_G.buffer_registration, hook, False)


def register_module_module_registration_hook(hook):
    """``hook(module, name, submodule)`` whenever a submodule is registered; a non-None
    return is registered instead. Returns a handle."""
    return _register(_G.module_registration, hook, False)


def register_module_parameter_registration_hook(hook):
    """``hook(module, name, param)`` whenever a parameter is registered; a non-None
    return is registered instead. Returns a handle."""
    return _register(_G.parameter_registration, hook, False)


def _registered(hooks, module, name, value):
    for hook in list(hooks.values()):
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value


class Module:
    """Base class of every layer and model.

    Subclasses call ``super().__init__()`` first, assign parameters, buffers and submodules
    as attributes, and define ``forward``; calling the module runs ``forward`` with its
    hooks. ``training`` (True after construction) is switched by :meth:`train` /
    :meth:`eval` for the whole tree.
    """

    _version = 1  # of the state-dict format, in its metadata (as PyTorch)

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise ArgumentTypeError(
                f"{type(self).__name__}.__init__() got unexpected arguments {args!r} {kwargs!r}"
            )
        sa = object.__setattr__
        sa(self, "training", True)
        sa(self, "_parameters", {})
        sa(self, "_buffers", {})
        sa(self, "_non_persistent_buffers_set", set())
        sa(self, "_backward_pre_hooks", OrderedDict())
        sa(self, "_backward_hooks", OrderedDict())
        sa(self, "_is_full_backward_hook", None)
        sa(self, "_forward_hooks", OrderedDict())
        sa(self, "_forward_hooks_with_kwargs", OrderedDict())
        sa(self, "_forward_hooks_always_called", OrderedDict())
        sa(self, "_forward_pre_hooks", OrderedDict())
        sa(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        sa(self, "_state_dict_hooks", OrderedDict())
        sa(self, "_state_dict_pre_hooks", OrderedDict())
        sa(self, "_load_state_dict_pre_hooks", OrderedDict())
        sa(self, "_load_state_dict_post_hooks", OrderedDict())
        sa(self, "_modules", {})

    def forward(self, *args, **kwargs):
        """The computation of the module; every subclass defines it."""
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    # -- registration ------------------------------------------------------------------

    def _check_name(self, name, kind, store):
        if not isinstance(name, str):
            raise ArgumentTypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in store:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer ``name`` (a tensor or None); ``persistent=False`` keeps it out of
        ``state_dict``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise ArgumentTypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer "
                f"'{name}' (lucid Tensor or None required)"
            )
        self._buffers[name] = _registered(_G.buffer_registration, self, name, tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add a parameter ``name`` (a :class:`Parameter` or None)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter", self._parameters)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise ArgumentTypeError(
                f"cannot assign '{type(param).__name__}' object to parameter "
                f"'{name}' (lucid.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ArgumentError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                "parameters must be created explicitly. To express "
                f"'{name}' as a function of another Tensor, compute the value "
                "in the forward() method."
            )
        self._parameters[name] = _registered(_G.parameter_registration, self, name, param)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module ``name`` (a Module or None)."""
        if not isinstance(module, Module) and module is not None:
            raise ArgumentTypeError(f"{type(module).__name__} is not a Module subclass")
        if "_modules" not in self.__dict__:
            raise AttributeError("cannot assign module before Module.__init__() call")
        self._check_name(name, "module", self._modules)
        self._modules[name] = _registered(_G.module_registration, self, name, module)

    register_module = add_module

    def get_submodule(self, target):
        """The submodule at dotted path ``target`` (``""`` is the module itself)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Put ``module`` at dotted path ``target`` (its parent must exist); ``strict``: the
        attribute must exist already."""
        if target == "":
            raise ArgumentError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ArgumentError(f"`module` is not an nn.Module, found {type(module)}")
        path, _, name = target.rpartition(".")
        parent = self.get_submodule(path)
        if hasattr(parent, name):
            if not isinstance(getattr(parent, name), Module):
                raise AttributeError(f"`{name}` is not an nn.Module")
        elif strict:
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        setattr(parent, name, module)

    def get_parameter(self, target):
        """The parameter at dotted path ``target``."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at dotted path ``target``."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return mod._buffers[name]

    def get_extra_state(self):
        """Extra state to put in ``state_dict`` (override together with
        :meth:`set_extra_state`)."""
        raise ArgumentError(
            "Reached a code path in Module.get_extra_state() that should never be called."
        )

    def set_extra_state(self, state):
        """Restore what :meth:`get_extra_state` returned."""
        raise ArgumentError(
            "Reached a code path in Module.set_extra_state() that should never be called."
        )

    # -- attributes --------------------------------------------------------------------

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            s = d.get(store)
            if s is not None and name in s:
                return s[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__

        def remove_from(*stores):
            for s in stores:
                if name in s:
                    if isinstance(s, set):
                        s.discard(name)
                    else:
                        del s[name]

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise ArgumentTypeError(
                    f"cannot assign '{type(value).__name__}' as parameter "
                    f"'{name}' (lucid.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = _registered(_G.module_registration, self, name, value)
            return
        if modules is not None and name in modules:
            if value is not None:
                raise ArgumentTypeError(
                    f"cannot assign '{type(value).__name__}' as child module "
                    f"'{name}' (lucid.nn.Module or None expected)"
                )
            modules[name] = _registered(_G.module_registration, self, name, value)
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise ArgumentTypeError(
                    f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                    "(lucid.nn.Buffer, lucid.Tensor or None expected)"
                )
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            remove_from(d, self._parameters, self._modules)
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = (
            dir(type(self))
            + list(self.__dict__)
            + list(self._parameters)
            + list(self._modules)
            + list(self._buffers)
        )
        return sorted(k for k in keys if not k[0].isdigit())

    # -- iteration ---------------------------------------------------------------------

    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for mod_prefix, mod in modules:
            for k, v in get_members(mod):
                if v is None or id(v) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(v))
                yield (mod_prefix + "." + k if mod_prefix else k), v

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters of this module (and, with ``recurse``, of every submodule), each
        once."""
        warned = False
        for _, p in self.named_parameters(recurse=recurse):
            if not warned and isinstance(p, _Uninitialized):
                warned = True  # the placeholders of a lazy layer: shapes still unknown
                warn_uninitialized("parameters() yields placeholders")
            yield p

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs; a parameter shared by several modules comes
        once unless ``remove_duplicate=False``."""
        return self._named_members(
            lambda m: m._parameters.items(),
            prefix=prefix,
            recurse=recurse,
            remove_duplicate=remove_duplicate,
        )

    def has_uninitialized_parameters(self, recurse=True):
        """Whether a parameter or buffer of this module (and, with ``recurse``, of its
        submodules) is still an uninitialized placeholder of a lazy layer (Lucid³'s
        method; PyTorch's lazy layers have ``has_uninitialized_params()`` for their
        own)."""
        members = itertools.chain(
            self.named_parameters(recurse=recurse), self.named_buffers(recurse=recurse)
        )
        return any(isinstance(t, _Uninitialized) for _, t in members)

    def has_uninitialized_params(self):
        """Whether this module's own parameters or buffers hold a placeholder (PyTorch's
        name, of its lazy modules' mixin): :meth:`has_uninitialized_parameters` without
        the submodules."""
        return self.has_uninitialized_parameters(recurse=False)

    def buffers(self, recurse=True):
        """The buffers of this module (and of every submodule with ``recurse``)."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """``(dotted name, buffer)`` pairs."""
        return self._named_members(
            lambda m: m._buffers.items(),
            prefix=prefix,
            recurse=recurse,
            remove_duplicate=remove_duplicate,
        )

    def children(self) -> Iterator[Module]:
        """The direct submodules, each once."""
        for _, m in self.named_children():
            yield m

    def named_children(self):
        """``(name, module)`` pairs of the direct submodules, each module once."""
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def modules(self) -> Iterator[Module]:
        """This module and every submodule (depth first, pre-order), each once."""
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """``(dotted name, module)`` pairs of this module (name ``prefix``) and every
        submodule, each once unless ``remove_duplicate=False``."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(
                    memo, prefix + "." + name if prefix else name, remove_duplicate
                )

    # -- lucid.compile -----------------------------------------------------------------

    def compile(self, *args, **kwargs) -> None:
        """Compile this module's forward in place (``lucid.compile`` with the same
        options): later calls replay the recorded forward; hooks run around it, eagerly."""
        object.__setattr__(self, "forward", _compile(type(self).forward.__get__(self), **kwargs))

    def _compile_guard(self):
        """``(structure, flags)`` that a recording of a call reaching this module depends on
        (:mod:`lucid.compiler.guards`): the parameters and buffers; each submodule's
        training flag and whether each parameter has a ``.grad``."""
        mods, seen = [self], {id(self)}  # breadth first, each module once
        for m in mods:
            for c in m._modules.values():
                if c is not None and id(c) not in seen:
                    seen.add(id(c))
                    mods.append(c)
        params = [p for m in mods for p in m._parameters.values() if p is not None]
        bufs = [id(b) for m in mods for b in m._buffers.values() if b is not None]
        structure = (tuple(map(id, params)), tuple(bufs))
        flags = (tuple(m.training for m in mods), tuple(p._grad is None for p in params))
        return structure, flags

    def _compile_unreplayable(self):
        """Why a call reaching this module cannot be replayed (a forward or backward hook
        runs Python that a replay would not), or None."""
        for m in self.modules():
            if (
                m._forward_pre_hooks
                or m._forward_hooks
                or m._backward_hooks
                or m._backward_pre_hooks
            ):
                return f"{type(m).__name__} has a forward or backward hook"
        return None

    # -- modes and conversion ----------------------------------------------------------

    def train(self, mode: bool = True) -> Self:
        """Set training mode (``mode=False``: evaluation) on this module and every
        submodule; returns ``self``."""
        if not isinstance(mode, bool):
            raise ArgumentError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self) -> Self:
        """``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Self:
        """Set ``requires_grad`` of every parameter; returns ``self``."""
        for _, p in self.named_parameters():  # placeholders too, without a warning
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter: to None (the default) or to zeros in
        place."""
        for _, p in self.named_parameters():  # placeholders too, without a warning
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def apply(self, fn: Callable[[Module], object]) -> Self:
        """Call ``fn(module)`` on every submodule (children first), then on ``self``;
        returns ``self``."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply(self, fn, recurse=True):
        """Replace every parameter's data (and gradient's) by ``fn`` of it, in place (the
        Parameter objects stay), and every buffer by ``fn`` of it."""
        if recurse:
            for m in self.children():
                m._apply(fn)
        for p in self._parameters.values():
            if p is None:
                continue
            with no_grad():
                p.data = fn(p)
                if p._grad is not None:
                    p._grad.data = fn(p._grad)
        for k, b in self._buffers.items():
            if b is not None:
                self._buffers[k] = fn(b)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Self:
        """Move and/or cast the parameters and buffers in place: ``to(device)``,
        ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)``, or the keywords ``device``,
        ``dtype``, ``non_blocking``; a dtype applies to floating-point tensors only.
        Returns ``self``."""
        device, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        if kwargs:
            raise ArgumentTypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, Tensor):
                device, dtype = a.device, a.dtype
            elif isinstance(a, _dt.dtype):
                dtype = a
            elif isinstance(a, (str, _device_cls, int)) and not isinstance(a, bool):
                device = _device_cls(f"cuda:{a}" if isinstance(a, int) else a)
            else:
                raise ArgumentTypeError(
                    f"to() received an invalid combination of arguments: {type(a).__name__}"
                )
        if dtype is not None:
            dtype = _dt.as_dtype(dtype)
            if not dtype.is_floating_point:
                raise DTypeError(
                    "nn.Module.to only accepts floating point or complex "
                    f"dtypes, but got desired dtype={dtype}"
                )

        def convert(t):
            return t.to(
                device=device, dtype=dtype if dtype is not None and t.is_floating_point() else None
            )

        return self._apply(convert)

    def to_empty(self, *, device, recurse=True):
        """Give every parameter and buffer new, uninitialised storage on ``device`` (same
        shapes and dtypes); returns ``self``."""
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def cuda(self, device=None):
        """Move every parameter and buffer to the GPU ``device``; returns ``self``."""
        return self._apply(lambda t: t.cuda(device))

    def cpu(self):
        """Move every parameter and buffer to the CPU; returns ``self``."""
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        """Cast every parameter and buffer to ``dst_type``; returns ``self``."""
        return self._apply(lambda t: t.type(dst_type))

    def _float_cast(self, dt):
        return self._apply(lambda t: t.to(dt) if t.is_floating_point() else t)

    def float(self):
        """Cast floating-point parameters and buffers to float32; returns ``self``."""
        return self._float_cast(_dt.float32)

    def double(self):
        """Cast floating-point parameters and buffers to float64; returns ``self``."""
        return self._float_cast(_dt.float64)

    def half(self):
        """Cast floating-point parameters and buffers to float16; returns ``self``."""
        return self._float_cast(_dt.float16)

    def bfloat16(self):
        """Cast floating-point parameters and buffers to bfloat16; returns ``self``."""
        return self._float_cast(_dt.bfloat16)

    def share_memory(self):
        """Move every parameter and buffer to shared memory; returns ``self``."""
        return self._apply(lambda t: t.share_memory_())

    # -- state dict --------------------------------------------------------------------

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        lazy = [
            n
            for n, t in itertools.chain(self._parameters.items(), self._buffers.items())
            if isinstance(t, _Uninitialized)
        ]
        if lazy:
            warn_uninitialized(
                f"state_dict of {type(self).__name__} holds {', '.join(prefix + n for n in lazy)}",
                stacklevel=4,
            )
        # a placeholder is kept as itself (as PyTorch): detached it would be a plain empty
        # tensor that loads as a real one of shape (0,)
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars or name in lazy else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars or name in lazy else b.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(
        self, *, destination: Any = None, prefix: str = "", keep_vars: bool = False
    ) -> dict[str, Any]:
        """An ``OrderedDict`` of every parameter and persistent buffer by dotted name
        (detached unless ``keep_vars``), each name prefixed with ``prefix``."""
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        for hook in self._state_dict_hooks.values():
            res = hook(self, destination, prefix, local_metadata)
            if res is not None:
                destination = res
        return destination

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        """Copy this module's own entries of ``state_dict`` (keys ``prefix + name``) into
        its parameters and persistent buffers, recording missing and unexpected keys and
        shape mismatches; subclasses override it to convert old formats."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(
                state_dict,
                prefix,
                local_metadata,
                strict,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
        persistent = (
            (k, v) for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set
        )
        local_state = {
            k: v for k, v in itertools.chain(self._parameters.items(), persistent) if v is not None
        }
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            inp = state_dict[key]
            if not isinstance(inp, Tensor) and hasattr(inp, "__dlpack__"):
                inp = from_dlpack(inp)  # a NumPy array or a torch tensor, shared
            if not isinstance(inp, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected '
                    "lucid.Tensor or Tensor-like object from checkpoint but "
                    f"received {type(inp)}"
                )
                continue
            lazy = isinstance(param, _Uninitialized)
            if isinstance(inp, _Uninitialized):  # a lazy layer's checkpoint, unrun
                if not lazy:
                    error_msgs.append(
                        f'While copying the parameter named "{key}": the '
                        "checkpoint holds an uninitialized placeholder (its "
                        "lazy layer never ran), the model a real tensor"
                    )
                continue
            if not lazy and param.ndim == 0 and inp.ndim == 1 and inp.shape[0] == 1:
                inp = inp[0]
            if not lazy and inp.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape "
                    f"{inp.shape} from checkpoint, the shape in current model "
                    f"is {param.shape}."
                )
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            if isinstance(inp, Parameter):
                                inp.requires_grad_(param.requires_grad)
                            else:
                                inp = Parameter(inp, requires_grad=param.requires_grad)
                        setattr(self, name, inp)
                    elif lazy:
                        param.materialize(inp.shape)
                        param.copy_(inp)
                    else:
                        param.copy_(inp)
            except Exception as ex:  # noqa: BLE001  (reported, as PyTorch does)
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose '
                    f"dimensions in the model are {param.size()} and whose "
                    f"dimensions in the checkpoint are {inp.size()}, an "
                    f"exception occurred : {ex.args}."
                )
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head = key[len(prefix) :].split(".", 1)
                    if len(head) > 1:
                        if head[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif head[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> Any:
        """Copy ``state_dict`` (dotted names, as :meth:`state_dict` makes) into the
        parameters and buffers, in place (``assign=True``: make the given tensors the
        parameters). Values may also be any array with ``__dlpack__`` (a NumPy array, a
        torch tensor: ``load_state_dict(torch_model.state_dict())`` works), read through
        :func:`lucid.from_dlpack`. Returns ``(missing_keys, unexpected_keys)``; raises
        :class:`~lucid.errors.ArgumentError` listing missing and unexpected keys
        (``strict=True``) and shape mismatches (always)."""
        if not isinstance(state_dict, Mapping):
            raise ArgumentTypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)

        def load(module, local, prefix=""):
            meta = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                meta["assign_to_params_buffers"] = True
            module._load_from_state_dict(local, prefix, meta, True, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    p = prefix + name + "."
                    load(child, {k: v for k, v in local.items() if k.startswith(p)}, p)
            keys = _IncompatibleKeys(missing, unexpected)
            for hook in module._load_state_dict_post_hooks.values():
                hook(module, keys)

        load(self, state_dict)
        if strict:
            if unexpected:
                errors.insert(
                    0,
                    "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected)
                    ),
                )
            if missing:
                errors.insert(
                    0,
                    "Missing key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in missing)
                    ),
                )
        if errors:
            raise ArgumentError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(
                    type(self).__name__, "\n\t".join(errors)
                )
            )
        return _IncompatibleKeys(missing, unexpected)

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` runs before :meth:`state_dict` collects."""
        return _register(self._state_dict_pre_hooks, hook, False)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` runs after
        :meth:`state_dict`; a non-None return replaces the state dict."""
        return _register(self._state_dict_hooks, hook, False)

    _register_state_dict_hook = register_state_dict_post_hook

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` runs before this module's entries are loaded; it may
        edit ``state_dict`` in place (rename old keys)."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        if with_module:
            hook = functools.partial(hook, self)
        return _register(self._load_state_dict_pre_hooks, hook, False)

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` runs after :meth:`load_state_dict` loaded this
        module and its children; it may edit the key lists in place."""
        return _register(self._load_state_dict_post_hooks, hook, False)

    # -- hooks and calling -------------------------------------------------------------

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` (``with_kwargs``: ``hook(module, args, kwargs)``) runs
        before ``forward``; a non-None return replaces the positional arguments (a single
        value becomes a 1-tuple), with ``with_kwargs`` an ``(args, kwargs)`` pair."""
        h = _register(
            self._forward_pre_hooks, hook, prepend, extra=self._forward_pre_hooks_with_kwargs
        )
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[h.id] = True
        return h

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """``hook(module, args, output)`` (``with_kwargs``: ``hook(module, args, kwargs,
        output)``) runs after ``forward``; a non-None return replaces the output.
        ``always_call``: it runs even when ``forward`` raised."""
        h = _register(
            self._forward_hooks,
            hook,
            prepend,
            extra=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called],
        )
        if with_kwargs:
            self._forward_hooks_with_kwargs[h.id] = True
        if always_call:
            self._forward_hooks_always_called[h.id] = True
        return h

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` runs when the gradients w.r.t. the module's outputs
        are known; a non-None return (a tuple) replaces them."""
        return _register(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` runs when the gradients w.r.t. the
        module's tensor inputs are known (None for inputs that need none); a non-None
        return replaces ``grad_input``."""
        self._is_full_backward_hook = _backward_kind(
            self._is_full_backward_hook, True, "on a single Module"
        )
        return _register(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """Deprecated (use :meth:`register_full_backward_hook`): ``hook(module,
        grad_input, grad_output)`` runs on the graph node of the forward's first output
        tensor, ``grad_input`` being the gradients of that node's inputs; a non-None return
        replaces them. See the module doc."""
        self._is_full_backward_hook = _backward_kind(
            self._is_full_backward_hook, False, "on a single Module"
        )
        return _register(self._backward_hooks, hook, False)

    def _call_impl(self, *args, **kwargs):
        if not (
            self._forward_pre_hooks
            or self._forward_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
            or _G.active()
        ):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args, kwargs):
        """``__call__`` when some hook is registered: the global hooks run before the
        module's own (as PyTorch)."""
        pre = [(h, hid in _G.forward_pre_with_kwargs) for hid, h in _G.forward_pre.items()] + [
            (h, hid in self._forward_pre_hooks_with_kwargs)
            for hid, h in self._forward_pre_hooks.items()
        ]
        for hook, with_kwargs in pre:
            if with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    if not (isinstance(res, tuple) and len(res) == 2):
                        raise ArgumentError(
                            "forward pre-hook must return None or a tuple of "
                            f"(new_args, new_kwargs), but got {res}."
                        )
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        bw = None
        bw_pre = list(_G.backward_pre.values()) + list(self._backward_pre_hooks.values())
        bw_full, bw_node = [], []
        for hooks, full in (
            (_G.backward, _G.backward_is_full),
            (self._backward_hooks, self._is_full_backward_hook),
        ):
            (bw_node if full is False else bw_full).extend(hooks.values())
        if (bw_pre or bw_full) and STATE.grad_enabled:
            bw = _BackwardHookState(self, bw_pre, bw_full)
            args = bw.wrap_inputs(args)
        post = [
            (h, hid in _G.forward_with_kwargs, hid in _G.forward_always)
            for hid, h in _G.forward.items()
        ] + [
            (h, hid in self._forward_hooks_with_kwargs, hid in self._forward_hooks_always_called)
            for hid, h in self._forward_hooks.items()
        ]
        done = 0
        try:
            result = self.forward(*args, **kwargs)
            for hook, with_kwargs, _ in post:
                done += 1
                res = hook(self, args, kwargs, result) if with_kwargs else hook(self, args, result)
                if res is not None:
                    result = res
        except Exception:
            for hook, with_kwargs, always in post[done:]:
                if always:
                    try:
                        if with_kwargs:
                            hook(self, args, kwargs, None)
                        else:
                            hook(self, args, None)
                    except Exception:  # noqa: BLE001  (the forward's error is the one raised)
                        pass
            raise
        if bw is not None:
            result = bw.wrap_outputs(result)
        if bw_node and STATE.grad_enabled:
            _hook_output_node(self, args, result, bw_node)
        return result

    __call__ = _call_impl

    # -- repr --------------------------------------------------------------------------

    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The module's own settings for its repr (one line per setting group)."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({k}): " + _addindent(repr(m), 2) for k, m in self._modules.items()]
        lines = extra_lines + child_lines
        s = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                s += extra_lines[0]
            else:
                s += "\n  " + "\n  ".join(lines) + "\n"
        return s + ")"


def _hook_output_node(module, args, result, hooks):
    """The deprecated backward hooks: on the node of the first tensor of ``result`` (found
    as PyTorch finds it), with PyTorch's warnings where they miss gradients."""
    var = result
    while not isinstance(var, Tensor):
        var = (
            next(v for v in var.values() if isinstance(v, Tensor))
            if isinstance(var, dict)
            else var[0]
        )
    node = var.grad_fn
    if node is None:
        return
    for hook in hooks:
        node.register_hook(functools.partial(_call_node_hook, hook, module))
    outs = (result,) if isinstance(result, Tensor) else result
    if not (isinstance(outs, tuple) and all(isinstance(r, Tensor) for r in outs)):
        what = "return a single Tensor or a tuple of Tensors"
        _warn_node_hook(f"on a Module that does not {what}", "grad_output")
        return
    if not all(isinstance(a, Tensor) for a in args):
        what = "take as input a single Tensor or a tuple of Tensors"
        _warn_node_hook(f"on a Module that does not {what}", "grad_input")
        return
    out_nodes = {r.grad_fn for r in outs if r.grad_fn is not None}
    if not out_nodes or (len(out_nodes) == 1 and node not in out_nodes):
        _warn_node_hook("when outputs are nested in python data structure", "grad_output")
    elif len(out_nodes) > 1:
        _warn_node_hook("when outputs are generated by different autograd Nodes", "grad_output")
    elif {a.grad_fn for a in args if a.grad_fn is not None} != {n for n, _ in node.next_functions}:
        _warn_node_hook("when the forward contains multiple autograd Nodes", "grad_input")


def _call_node_hook(hook, module, grad_input, grad_output):
    return hook(module, grad_input, grad_output)


def _warn_node_hook(situation, missing):
    warnings.warn(
        f"Using a non-full backward hook {situation} is deprecated and will be "
        f"removed in future versions. This hook will be missing some {missing}. "
        "Please use register_full_backward_hook to get the documented behavior.",
        FutureWarning,
        stacklevel=5,
    )


class _BackwardHookState:
    """One call's full backward hooks. The module's tensor inputs and outputs that require
    grad pass through :class:`_BackwardHookFn`; the output pass runs the pre-hooks and keeps
    ``grad_output``, the input pass runs the hooks with ``grad_input``. Both hold one entry
    per tensor argument (None for those that need no gradient)."""

    __slots__ = ("module", "pre_hooks", "hooks", "inputs", "outputs", "grad_output")

    def __init__(self, module, pre_hooks, hooks):
        self.module = module
        self.pre_hooks, self.hooks = pre_hooks, hooks
        self.inputs = self.outputs = None  # (number of tensors, slots that require grad)
        self.grad_output = None

    def wrap_inputs(self, args):
        self.inputs, args = _pass_through(self, False, args)
        return args

    def wrap_outputs(self, result):
        single = isinstance(result, Tensor)
        if not (single or isinstance(result, tuple)):
            return result
        self.outputs, items = _pass_through(self, True, (result,) if single else result)
        return items[0] if single else items

    def on_grad_output(self, grads):
        mod = self.module
        grads = _padded(self.outputs, grads)
        for hook in self.pre_hooks:
            res = hook(mod, grads)
            if res is not None:
                grads = _checked(res, grads, "Backward pre hook", "grad_output")
        self.grad_output = grads
        n_in, slots_in = self.inputs
        if not slots_in:  # no input needs a gradient: call the hooks now
            none = (None,) * n_in
            for hook in self.hooks:
                res = hook(mod, none, grads)
                if res is not None and not all(r is None for r in res):
                    raise AutogradError(
                        "Backward hook for Modules where no input requires "
                        "gradient should always return None or None for "
                        "all gradients."
                    )
        return tuple(grads[k] for k in self.outputs[1])

    def on_grad_input(self, grads):
        mod = self.module
        grads = _padded(self.inputs, grads)
        for hook in self.hooks:
            res = hook(mod, grads, self.grad_output)
            if res is not None:
                grads = _checked(res, grads, "Backward hook", "grad_input")
        return tuple(grads[k] for k in self.inputs[1])


def _padded(layout, grads):
    """One gradient per tensor argument: ``grads`` at the slots that required grad."""
    n, slots = layout
    full = [None] * n
    for k, g in zip(slots, grads):
        full[k] = g
    return tuple(full)


def _checked(res, grads, who, what):
    res = res if isinstance(res, tuple) else (res,)
    if len(res) != len(grads):
        raise AutogradError(
            f"{who} returned an invalid number of {what}, got {len(res)}, but expected {len(grads)}"
        )
    return res


def _pass_through(state, is_output, items):
    """``(layout, items)``: ``items`` with its tensors that require grad routed through
    one :class:`_BackwardHookFn` (the others, and non-tensors, as they are); ``layout`` is
    (number of tensors, positions among them of those that require grad)."""
    tensor_pos = [i for i, a in enumerate(items) if isinstance(a, Tensor)]
    slots = [k for k, i in enumerate(tensor_pos) if items[i].requires_grad]
    layout = (len(tensor_pos), slots)
    if not slots:
        return layout, items
    out = _BackwardHookFn.apply(state, is_output, *(items[tensor_pos[k]] for k in slots))
    items = list(items)
    for k, t in zip(slots, out):
        items[tensor_pos[k]] = t
    return layout, tuple(items)


class _BackwardHookFn(Function):
    """Identity on its tensors; its backward hands their gradients to a module's backward
    hooks (``is_output``: the module's outputs, else its inputs)."""

    @staticmethod
    def forward(ctx, state, is_output, *tensors):
        ctx.state, ctx.is_output = state, is_output
        ctx.set_materialize_grads(False)
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        st = ctx.state
        grads = st.on_grad_output(grads) if ctx.is_output else st.on_grad_input(grads)
        return (None, None) + tuple(grads)
