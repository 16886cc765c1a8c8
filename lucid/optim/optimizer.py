"""The :class:`Optimizer` base: param groups, per-parameter state, ``state_dict``, hooks.

An optimizer reads in three layers, as PyTorch's: the class validates its hyperparameters
and holds the state; a functional update (``adam(params, grads, exp_avgs, ...)``) takes
lists of Tensors; it hands their arrays to one backend kernel
(:mod:`lucid.backend.interface.optim`) that updates the whole group in place, per device.
The parameters' version counters are bumped as an in-place op does.

The ``state_dict`` format is PyTorch's: ``{"state": {index: {...}}, "param_groups":
[{..., "params": [indices]}]}`` with parameters numbered in group order, so a PyTorch
optimizer's state dict (its tensors converted to Lucid tensors) loads into the matching
Lucid optimizer.
"""

from __future__ import annotations

import copy
import functools
import warnings
from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from .. import dtypes as _dt
from .._hooks import RemovableHandle
from .._state import STATE
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from ..errors import ArgumentError, ArgumentTypeError, ShapeError
from .._tensor.factory import tensor

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

_GLOBAL_PRE_HOOKS: list = []
_GLOBAL_POST_HOOKS: list = []


def register_optimizer_step_pre_hook(hook):
    """Call ``hook(optimizer, args, kwargs)`` before every optimizer's ``step``; it may
    return ``(new_args, new_kwargs)``. Returns a handle with ``remove()``."""
    return _add_hook(_GLOBAL_PRE_HOOKS, hook)


def register_optimizer_step_post_hook(hook):
    """Call ``hook(optimizer, args, kwargs)`` after every optimizer's ``step``."""
    return _add_hook(_GLOBAL_POST_HOOKS, hook)


def _add_hook(hooks, hook, prepend=False):
    if prepend:
        hooks.insert(0, hook)
    else:
        hooks.append(hook)
    return RemovableHandle(hooks, hook)


_HOOK_KINDS = (
    "step_pre",
    "step_post",
    "state_dict_pre",
    "state_dict_post",
    "load_state_dict_pre",
    "load_state_dict_post",
)


def _new_hooks():
    return {k: [] for k in _HOOK_KINDS}


def _with_hooks(step):
    """Wrap a subclass's ``step`` so that the global and per-instance step hooks run,
    once per call (a ``step`` that calls its base class's runs them once)."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        if self._in_step:
            return step(self, *args, **kwargs)
        self._in_step = True
        try:
            prof = STATE.profiler
            if prof is None:
                return _hooked_step(step, self, args, kwargs)
            name = f"Optimizer.step#{type(self).__name__}.step"
            return prof.call(name, "annotation", None, _hooked_step, step, self, args, kwargs)
        finally:
            self._in_step = False

    wrapper._hooked = True
    return wrapper


def _hooked_step(step, self, args, kwargs):
    """Run the pre-hooks (which may replace the arguments), ``step``, the post-hooks."""
    pre, post = self._hooks["step_pre"], self._hooks["step_post"]
    if pre or _GLOBAL_PRE_HOOKS:
        for hook in (*_GLOBAL_PRE_HOOKS, *pre):
            res = hook(self, args, kwargs)
            if res is not None:
                if not (isinstance(res, tuple) and len(res) == 2):
                    raise ArgumentError(
                        f"{type(self).__name__}.step: a step pre-hook "
                        f"must return None or (args, kwargs), got "
                        f"{res!r}"
                    )
                args, kwargs = res
    out = step(self, *args, **kwargs)
    if post or _GLOBAL_POST_HOOKS:
        for hook in (*post, *_GLOBAL_POST_HOOKS):
            hook(self, args, kwargs)
    return out


def scalar_dtype():
    """The dtype of scalar state (``step``): float64 when that is the default, else
    float32, as PyTorch."""
    return _dt.float64 if _dt.get_default_dtype() is _dt.float64 else _dt.float32


def invalid(opt, what, value, expected):
    """The error for a bad hyperparameter: ``Adam: invalid learning rate: -1.0 (expected
    lr >= 0)``."""
    return ArgumentError(f"{opt}: invalid {what}: {value!r} (expected {expected})")


class Optimizer:
    """Base class of all optimizers.

    Parameters
    ----------
    params : iterable
        Tensors, ``(name, tensor)`` pairs, or dicts defining param groups (each with a
        ``"params"`` entry and per-group options overriding ``defaults``).
    defaults : dict
        The default options of every group.
    """

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_hooked", False):
            cls.step = _with_hooks(step)

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._hooks = _new_hooks()
        self._in_step = False
        name = type(self).__name__
        if isinstance(params, Tensor):
            raise ArgumentTypeError(
                f"{name}: params should be an iterable of Tensors or dicts, but got a Tensor"
            )
        if isinstance(params, dict):
            raise ArgumentTypeError(
                f"{name}: params should be an iterable of Tensors or "
                f"dicts, but got a dict (wrap a param group in a list)"
            )
        self.state = defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if not groups:
            raise ArgumentError(f"{name}: got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    # -- param groups --------------------------------------------------------------------

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a param group (a dict with ``"params"``; missing options take the
        defaults)."""
        name = type(self).__name__
        if not isinstance(param_group, dict):
            raise ArgumentTypeError(
                f"{name}.add_param_group: param_group must be a dict, "
                f"but got {type(param_group).__name__}"
            )
        if "params" not in param_group:
            raise ArgumentError(f"{name}.add_param_group: the param group has no 'params' entry")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise ArgumentTypeError(
                f"{name}: optimizer parameters need to be organized in "
                f"ordered collections, but the ordering of tensors in "
                f"sets will change between runs; use a list instead"
            )
        else:
            params = list(params)
        tensors, names = [], []
        for p in params:
            if isinstance(p, tuple) and len(p) == 2:
                names.append(p[0])
                p = p[1]
            tensors.append(p)
        if names and len(names) != len(tensors):
            raise ArgumentError(
                f"{name}: all optimizer params should be with/without "
                f"names; some param names are missing"
            )
        for p in tensors:
            if not isinstance(p, Tensor):
                raise ArgumentTypeError(
                    f"{name}: can only optimize Tensors, but one of the "
                    f"params is {type(p).__name__}"
                )
            if not p.is_leaf and not p.retains_grad:
                raise ArgumentError(f"{name}: can't optimize a non-leaf Tensor")
        param_group["params"] = tensors
        if names:
            param_group["param_names"] = names
        for k, v in self.defaults.items():
            param_group.setdefault(k, v)
        ids = [id(p) for p in tensors]
        if len(ids) != len(set(ids)):
            warnings.warn(f"{name}: a parameter group contains duplicate parameters", stacklevel=3)
        seen: set[int] = set()
        for g in self.param_groups:
            seen.update(id(p) for p in g["params"])
            if ("param_names" in g) != ("param_names" in param_group):
                raise ArgumentError(
                    f"{name}: all optimizer param groups should be with/without names"
                )
        if not seen.isdisjoint(ids):
            raise ArgumentError(f"{name}: some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # -- gradients and steps ---------------------------------------------------------------

    def _compile_guard(self):
        """``(structure, flags)`` that a recording of a call reaching this optimizer
        depends on (:mod:`lucid.compiler.guards`): the parameters and the size of the
        state; the hyperparameters and whether each parameter has a ``.grad``."""
        params = [p for g in self.param_groups for p in g["params"]]
        structure = (len(self.state), tuple(map(id, params)))
        floats = self._builtin_step()
        flags = (
            tuple(
                tuple(
                    (k, v)
                    for k, v in g.items()
                    if k != "params" and _hashable(v) and not (floats and _floats(v))
                )
                for g in self.param_groups
            ),
            tuple(p._grad is None for p in params),
        )
        return structure, flags

    def _builtin_step(self):
        """Whether ``step`` is one of Lucid's: each hands its group's float
        hyperparameters to its kernel as they are (``lr=float(group["lr"])``)."""
        return getattr(type(self).step, "__module__", "").startswith("lucid.optim")

    def _compile_hypers(self):
        """``(group, key, index, value)`` of each float hyperparameter the guard leaves out
        (a built-in ``step``): ``lucid.compile`` reads it from the group at replay where
        the kernel took it as it is, else checks it is unchanged."""
        if not self._builtin_step():
            return []
        out = []
        for g in self.param_groups:
            for k, v in g.items():
                if k != "params" and _floats(v):
                    if v.__class__ is float:
                        out.append((g, k, None, v))
                    else:
                        out.extend((g, k, i, x) for i, x in enumerate(v))
        return out

    def _compile_unreplayable(self):
        """Why a call reaching this optimizer cannot be replayed (a step hook, but for
        those marked ``_compile_safe``: the schedulers' call marker), or None."""
        hooks = [*self._hooks["step_pre"], *self._hooks["step_post"]]
        hooks += [*_GLOBAL_PRE_HOOKS, *_GLOBAL_POST_HOOKS]
        if any(not getattr(h, "_compile_safe", False) for h in hooks):
            return f"{type(self).__name__} has a step hook"
        return None

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters: to None (default), or to zeros."""
        prof = STATE.profiler
        if prof is not None:
            name = f"Optimizer.zero_grad#{type(self).__name__}.zero_grad"
            prof.call(name, "annotation", None, self._zero_grad, set_to_none)
        else:
            self._zero_grad(set_to_none)

    def _zero_grad(self, set_to_none):
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    with no_grad():
                        g.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One optimization step; ``closure`` re-evaluates the model and returns the loss."""
        raise NotImplementedError(f"{type(self).__name__} does not define step()")

    @staticmethod
    def _closure_loss(closure):
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def register_step_pre_hook(self, hook):
        """Call ``hook(optimizer, args, kwargs)`` before ``step``; it may return
        ``(new_args, new_kwargs)``. Returns a handle with ``remove()``."""
        return _add_hook(self._hooks["step_pre"], hook)

    def register_step_post_hook(self, hook):
        """Call ``hook(optimizer, args, kwargs)`` after ``step``."""
        return _add_hook(self._hooks["step_post"], hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """Call ``hook(optimizer)`` before :meth:`state_dict` builds the dict."""
        return _add_hook(self._hooks["state_dict_pre"], hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """Call ``hook(optimizer, state_dict)`` on the dict :meth:`state_dict` built; a
        non-None return replaces it."""
        return _add_hook(self._hooks["state_dict_post"], hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """Call ``hook(optimizer, state_dict)`` before :meth:`load_state_dict` reads it;
        a non-None return is loaded instead."""
        return _add_hook(self._hooks["load_state_dict_pre"], hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """Call ``hook(optimizer)`` after :meth:`load_state_dict`."""
        return _add_hook(self._hooks["load_state_dict_post"], hook, prepend)

    # -- state dict ------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: state}, "param_groups": [...]}`` with parameters replaced by
        their index in group order (PyTorch's format). The state tensors are the
        optimizer's own (not copies), as PyTorch's."""
        for hook in self._hooks["state_dict_pre"]:
            hook(self)
        index: dict[int, int] = {}
        groups = []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            for p in g["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in g["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        out = {"state": state, "param_groups": groups}
        for hook in self._hooks["state_dict_post"]:
            res = hook(self, out)
            if res is not None:
                out = res
        return out

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Load a :meth:`state_dict` (of this optimizer, or of its PyTorch counterpart with
        the tensors converted). Tensors are copied, floating state cast to its parameter's
        dtype and device (``step`` stays a host scalar); group sizes must match. State
        keys may be the indices' strings (a state dict that went through JSON)."""
        name = type(self).__name__
        if (
            not isinstance(state_dict, dict)
            or "state" not in state_dict
            or "param_groups" not in state_dict
        ):
            raise ArgumentError(
                f"{name}.load_state_dict: expected a dict with 'state' and 'param_groups'"
            )
        state_dict = dict(state_dict)
        for hook in self._hooks["load_state_dict_pre"]:
            res = hook(self, state_dict)
            if res is not None:
                state_dict = res
        groups = self.param_groups
        saved = copy.deepcopy([{k: v for k, v in g.items()} for g in state_dict["param_groups"]])
        if len(groups) != len(saved):
            raise ShapeError(
                f"{name}.load_state_dict: loaded state dict has "
                f"{len(saved)} parameter groups, the optimizer has "
                f"{len(groups)}"
            )
        for i, (g, s) in enumerate(zip(groups, saved)):
            if len(g["params"]) != len(s["params"]):
                raise ShapeError(
                    f"{name}.load_state_dict: parameter group {i} has "
                    f"{len(s['params'])} parameters in the loaded state dict "
                    f"but {len(g['params'])} in the optimizer"
                )
        id_map: dict[Any, Any] = {}
        for g, s in zip(groups, saved):
            id_map.update(zip(s["params"], g["params"]))
        state: defaultdict[Any, dict] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if isinstance(k, str) and k.isdigit():  # keys that went through JSON
                k = int(k)
            if k in id_map:
                p = id_map[k]
                state[p] = {key: _cast(p, val, key) for key, val in v.items()}
            else:
                state[k] = v
        for g, s in zip(groups, saved):
            s["params"] = g["params"]
            if "param_names" in g and "param_names" not in s:
                s["param_names"] = g["param_names"]
        self.state = state
        self.param_groups = saved
        for hook in self._hooks["load_state_dict_post"]:
            hook(self)

    def __getstate__(self):
        """Everything but the hooks (a copy or a pickle of an optimizer has none)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_hooks", "_in_step")}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._hooks = _new_hooks()
        self._in_step = False

    def __repr__(self):
        s = type(self).__name__ + " ("
        for i, g in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for k in sorted(g):
                if k != "params":
                    s += f"    {k}: {g[k]}\n"
        return s + ")"

    # -- helpers of the subclasses ---------------------------------------------------------

    def _gather(self, group, init, keys):
        """The group's parameters that have a gradient, their gradients, and per state
        ``key`` the list of those parameters' ``state[key]`` (None where absent); a
        parameter without state gets it from ``init(p, state)`` first."""
        params, grads, cols = [], [], [[] for _ in keys]
        state = self.state
        for p in group["params"]:
            g = p._grad
            if g is None:
                continue
            st = state.get(p)
            if not st:
                st = {}
                init(p, st)
                if st:
                    state[p] = st
            params.append(p)
            grads.append(g)
            for c, k in zip(cols, keys):
                c.append(st.get(k))
        return params, grads, cols


def check_flags(opt, differentiable):
    """Options Lucid does not implement refuse clearly: ``differentiable=True`` (an update
    recorded in the graph)."""
    if differentiable:
        raise ArgumentError(
            f"{opt}: differentiable=True is not supported (the update is "
            f"done in place on the arrays, outside the graph)"
        )


def _hashable(v):
    """Whether a param-group value is a plain hyperparameter (a guard of lucid.compile)."""
    if isinstance(v, (int, float, str, bool)) or v is None:
        return True
    return isinstance(v, tuple) and all(isinstance(x, (int, float)) for x in v)


def _floats(v):
    """A float, or a tuple of floats (``betas``)."""
    return v.__class__ is float or (
        v.__class__ is tuple and bool(v) and all(x.__class__ is float for x in v)
    )


def host_scalar(value, dtype=None):
    """A 0-d CPU tensor holding ``value`` (scalar state: step, mu_product, eta, mu)."""
    return tensor(float(value), dtype=dtype or scalar_dtype())


def _cast(param, value, key):
    """One loaded state value: tensors copied, floating ones cast to ``param``'s dtype and
    device (``step`` kept a host scalar); containers walked."""
    if isinstance(value, Tensor):
        if key == "step":
            return value.detach().clone()
        if param.is_floating_point() and value.is_floating_point():
            out = value.to(dtype=param.dtype, device=param.device)
        else:
            out = value.to(device=param.device)
        return out.clone() if out is value else out.detach()
    if key == "step" and isinstance(value, (int, float)):
        return host_scalar(value)
    if isinstance(value, dict):
        return {k: _cast(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v, None) for v in value)
    return value


def _array(t):
    return t._data


def _real_view(t):
    """``t``'s array, viewed as (real, imaginary) pairs when complex (shared memory)."""
    return t._device.backend.view_as_real(t._data) if t._dtype.is_complex else t._data


def run_kernel(kernel, params, grads, *lists, **hyper):
    """Call backend kernel ``kernel`` on the arrays of ``params``, ``grads`` and the state
    ``lists`` (each a list of Tensors, of ``None`` entries, or ``None``), once per device,
    and bump the parameters' version counters. Returns the kernel's result (per device
    group, concatenated back in order) when it returns one. Complex parameters, gradients
    and states reach the kernel as their ``view_as_real`` views, as in PyTorch: each part
    is its own parameter (Adam's second moment is per part, not :math:`g^2`)."""
    dev = params[0]._device
    if all(p._device == dev for p in params):
        groups = [(dev, range(len(params)))]
    else:
        by = {}
        for i, p in enumerate(params):
            by.setdefault(p._device, []).append(i)
        groups = list(by.items())
    results = [None] * len(params)
    got = False
    part = _real_view if any(p._dtype.is_complex for p in params) else _array
    for dev, idx in groups:
        arrays = [[part(params[i]) for i in idx], [part(grads[i]) for i in idx]]
        for lst in lists:
            arrays.append(
                None if lst is None else [None if lst[i] is None else part(lst[i]) for i in idx]
            )
        res = getattr(dev.backend, kernel)(*arrays, **hyper)
        if res is not None:
            got = True
            for i, r in zip(idx, res):  # (new complex state: back from its pairs)
                results[i] = (
                    dev.backend.view_as_complex(r)
                    if part is _real_view and r is not None and params[i]._dtype.is_complex
                    else r
                )
    for p in params:
        p._vc[0] += 1
    return results if got else None
