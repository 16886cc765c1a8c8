"""weight_norm, remove_weight_norm.

PyTorch's hook-based API: the parameter ``name`` is replaced by ``name_g`` (the norms) and
``name_v`` (the direction), and a forward pre-hook recomputes
:math:`w = g \\, v / \\lVert v \\rVert` (norm over every dim but ``dim``) before each call.
"""

from __future__ import annotations

from ...errors import ArgumentError
from ..parameter import Parameter, UninitializedParameter

__all__ = ["weight_norm", "remove_weight_norm", "WeightNorm"]


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dim but ``dim``, keeping ``v``'s rank (size 1
    there); ``dim=-1``: over the whole tensor (0-d), as PyTorch's ``norm_except_dim``."""
    if dim == -1:
        return v.norm(pow)
    dims = tuple(d for d in range(v.ndim) if d != dim)
    return v.norm(pow, dims, keepdim=True) if dims else v.abs()


class WeightNorm:
    """The forward pre-hook of :func:`weight_norm` on one parameter."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / norm_except_dim(v, 2, self.dim))

    @staticmethod
    def apply(module, name, dim):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise ArgumentError(
                    f"weight_norm: cannot register two weight_norm hooks on "
                    f"the same parameter {name}"
                )
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ArgumentError(
                "weight_norm: the module passed has an uninitialized parameter; "
                "run a dummy forward first"
            )
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Reparametrise ``module.<name>`` as :math:`w = g\\, v / \\lVert v \\rVert` with
    parameters ``<name>_g`` (the norms over every dim but ``dim``; ``dim=None``: one norm of
    the whole tensor) and ``<name>_v``; returns ``module``."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo :func:`weight_norm`: ``<name>`` becomes a plain parameter again."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ArgumentError(f"weight_norm of '{name}' not found in {module}")
