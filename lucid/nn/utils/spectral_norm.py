"""spectral_norm, remove_spectral_norm.

PyTorch's hook-based API: ``name`` becomes ``name_orig`` (the parameter) and buffers
``name_u``, ``name_v`` (the power-iteration vectors); a forward pre-hook sets
:math:`w = w_\\text{orig} / \\sigma`, :math:`\\sigma = u^\\top W v` with :math:`W` the weight
as a matrix (dim ``dim`` first). In training mode each call first runs
``n_power_iterations`` steps :math:`v \\leftarrow \\text{normalize}(W^\\top u)`,
:math:`u \\leftarrow \\text{normalize}(W v)`, updating the buffers in place; in eval mode the
stored vectors are used as they are.
"""

from __future__ import annotations

from ...autograd.grad_mode import no_grad
from ...errors import ArgumentError
from ..functional.distance import normalize
from ..parameter import Parameter, UninitializedParameter

__all__ = ["spectral_norm", "remove_spectral_norm", "SpectralNorm"]


class SpectralNorm:
    """The forward pre-hook of :func:`spectral_norm` on one parameter."""

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ArgumentError(
                "spectral_norm: expected n_power_iterations to be positive, "
                f"but got n_power_iterations={n_power_iterations}"
            )
        self.name = name
        self.dim = dim
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.ndim) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    normalize(mat.t().mv(u), dim=0, eps=self.eps, out=v)
                    normalize(mat.mv(v), dim=0, eps=self.eps, out=u)
                u, v = u.clone(), v.clone()  # the graph keeps these, not the buffers
        return weight / u.dot(mat.mv(v))

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise ArgumentError(
                    f"spectral_norm: cannot register two spectral_norm hooks "
                    f"on the same parameter {name}"
                )
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if isinstance(weight, UninitializedParameter):
            raise ArgumentError(
                "spectral_norm: the module passed has an uninitialized "
                "parameter; run a dummy forward first"
            )
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = normalize(weight.new_empty((h,)).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty((w,)).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        setattr(module, name, weight.data)
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its largest singular value, estimated by power iteration
    (see the module docstring); ``dim`` (default 0, 1 for transposed convolutions) is the
    output dim. Returns ``module``."""
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo :func:`spectral_norm`: ``<name>`` becomes a plain parameter holding the last
    normalised weight."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ArgumentError(f"spectral_norm of '{name}' not found in {module}")
