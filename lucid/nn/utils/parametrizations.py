"""Weight and spectral normalisation as parametrizations (PyTorch's
``torch.nn.utils.parametrizations``; the orthogonal parametrization is not provided).

``weight_norm`` keeps :math:`g` and :math:`v` as ``parametrizations.weight.original0`` and
``original1`` and computes :math:`w = g\\, v / \\lVert v \\rVert`; ``spectral_norm`` keeps
the weight as ``parametrizations.weight.original`` and the power-iteration vectors as
buffers ``parametrizations.weight.0._u`` / ``_v``, and computes :math:`w / \\sigma(w)`
(iterating only in training mode). The key names are PyTorch's, so state dicts load both
ways.
"""

from __future__ import annotations

from ...autograd.grad_mode import no_grad
from ...errors import ArgumentError
from ..functional.distance import normalize
from ..modules.module import Module
from . import parametrize
from .weight_norm import norm_except_dim

__all__ = ["weight_norm", "spectral_norm"]


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / norm_except_dim(weight_v, 2, self.dim))

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrise ``module.<name>`` as :math:`g\\, v / \\lVert v \\rVert` (norms over
    every dim but ``dim``; ``None``: the whole tensor); returns ``module``."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def old_keys(state_dict, prefix, *args):
        """State dicts of the hook-based ``weight_norm`` (``<name>_g``, ``<name>_v``)."""
        g, v = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g in state_dict and v in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v)

    module._register_load_state_dict_pre_hook(old_keys)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        if n_power_iterations <= 0:
            raise ArgumentError(
                "spectral_norm: expected n_power_iterations to be positive, "
                f"but got n_power_iterations={n_power_iterations}"
            )
        ndim = weight.ndim
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = self._reshape_weight_to_matrix(weight)
            h, w = mat.shape
            u = mat.new_empty((h,)).normal_(0, 1)
            v = mat.new_empty((w,)).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            self._power_method(mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.movedim(self.dim, 0)
        return weight.flatten(1)

    def _power_method(self, mat, n):
        with no_grad():
            for _ in range(n):
                normalize(mat.mv(self._v), dim=0, eps=self.eps, out=self._u)
                normalize(mat.t().mv(self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        return weight / u.dot(mat.mv(v))

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its largest singular value, estimated by power
    iteration (``dim``: the output dim, default 0, 1 for transposed convolutions); returns
    ``module``."""
    weight = getattr(module, name, None)
    if weight is None:
        raise ArgumentError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module
