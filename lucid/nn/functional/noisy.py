r"""NoisyNet's linear layer (Fortunato et al. 2017, "Noisy Networks for Exploration"):
learned Gaussian perturbations of the weights, with factorised noise.

A noisy linear layer computes :math:`y = x(\mu^w + \sigma^w \odot \varepsilon^w)^\top +
\mu^b + \sigma^b \odot \varepsilon^b`; factorised noise draws only
:math:`p + q` unit Gaussians per layer (``in`` :math:`p`, ``out`` :math:`q`) and builds

.. math:: \varepsilon^w_{ij} = f(\varepsilon_j)\,f(\varepsilon_i), \qquad
          \varepsilon^b_j = f(\varepsilon_j), \qquad f(x) = \operatorname{sign}(x)\sqrt{|x|}

(:math:`i` an input and :math:`j` an output index).
"""

from __future__ import annotations

from ..._tensor import Tensor
from ...errors import ArgumentTypeError, ShapeError, reports_as
from ...ops import outer, randn
from .linear import linear

__all__ = ["scaled_noise", "noisy_linear"]


@reports_as("scaled_noise")
def scaled_noise(*size, generator=None, dtype=None, device=None):
    r""":math:`f(\varepsilon) = \operatorname{sign}(\varepsilon)\sqrt{|\varepsilon|}` of
    unit Gaussians :math:`\varepsilon \sim \mathcal N(0, 1)` of shape ``size``, drawn
    from ``generator`` (Lucid's default generator when None): the factors of NoisyNet's
    factorised noise. Never records a graph."""
    eps = randn(*size, generator=generator, dtype=dtype, device=device)
    return eps.sign() * eps.abs().sqrt()


def _check(name, t, shape):
    if not isinstance(t, Tensor):
        raise ArgumentTypeError(
            f"noisy_linear: argument '{name}' must be a Tensor, got {type(t).__name__}"
        )
    if tuple(t.shape) != shape:
        raise ShapeError(
            f"noisy_linear: {name} of shape {tuple(t.shape)} does not match "
            f"weight_mu (expected {shape})"
        )


@reports_as("noisy_linear")
def noisy_linear(
    input,
    weight_mu,
    weight_sigma,
    bias_mu=None,
    bias_sigma=None,
    *,
    weight_epsilon=None,
    bias_epsilon=None,
    training=True,
    generator=None,
):
    r"""NoisyNet's linear map: in training,

    .. math:: y = x\,(\mu^w + \sigma^w \odot \varepsilon^w)^\top + \mu^b + \sigma^b \odot
              \varepsilon^b,

    and :math:`y = x\,{\mu^w}^\top + \mu^b` in evaluation (``training=False``: the mean
    network, no noise). ``weight_mu`` and ``weight_sigma`` are (out, in), ``bias_mu`` and
    ``bias_sigma`` (out,) or both None. The noise ``weight_epsilon`` (out, in) and
    ``bias_epsilon`` (out,) is given, or, where None, drawn fresh as factorised noise
    from ``generator`` (:func:`scaled_noise`; see the module doc).

    A composition of Lucid ops: one ``linear`` (the fused op) of the perturbed weight;
    its gradient reaches :math:`\mu` (the identity) and :math:`\sigma` (times
    :math:`\varepsilon`), never the noise. Forming the (out, in) noisy weight costs one
    element-wise pass, less than the GEMM of any batch.
    """
    if not isinstance(weight_mu, Tensor) or weight_mu.ndim != 2:
        raise ShapeError(
            "noisy_linear: weight_mu must be a 2-D (out, in) Tensor, got "
            f"{getattr(weight_mu, 'shape', type(weight_mu).__name__)}"
        )
    out_f, in_f = weight_mu.shape
    _check("weight_sigma", weight_sigma, (out_f, in_f))
    if (bias_mu is None) != (bias_sigma is None):
        raise ArgumentTypeError(
            "noisy_linear: bias_mu and bias_sigma must both be given or both be None"
        )
    if bias_mu is not None:
        _check("bias_mu", bias_mu, (out_f,))
        _check("bias_sigma", bias_sigma, (out_f,))
    if not training:
        return linear(input, weight_mu, bias_mu)
    if weight_epsilon is None or (bias_mu is not None and bias_epsilon is None):
        kw = dict(generator=generator, dtype=weight_mu.dtype, device=weight_mu.device)
        eps_in, eps_out = scaled_noise(in_f, **kw), scaled_noise(out_f, **kw)
        if weight_epsilon is None:
            weight_epsilon = outer(eps_out, eps_in)
        if bias_epsilon is None:
            bias_epsilon = eps_out
    _check("weight_epsilon", weight_epsilon, (out_f, in_f))
    weight = weight_mu + weight_sigma * weight_epsilon
    if bias_mu is None:
        return linear(input, weight)
    _check("bias_epsilon", bias_epsilon, (out_f,))
    return linear(input, weight, bias_mu + bias_sigma * bias_epsilon)
