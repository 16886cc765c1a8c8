"""NoisyLinear: NoisyNet's linear layer with factorised Gaussian noise."""

from __future__ import annotations

import math

from ...autograd.grad_mode import no_grad
from ...errors import ArgumentError
from ...ops import empty, outer
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["NoisyLinear"]


class NoisyLinear(Module):
    r"""A linear layer with learned noise on its weights (Fortunato et al. 2017): in
    training :math:`y = x(\mu^w + \sigma^w \odot \varepsilon^w)^\top + \mu^b + \sigma^b
    \odot \varepsilon^b`, in evaluation the mean layer :math:`y = x{\mu^w}^\top + \mu^b`
    (:func:`~lucid.nn.functional.noisy_linear`).

    Parameters ``weight_mu``, ``weight_sigma`` (out, in), ``bias_mu``, ``bias_sigma``
    (out,) (none of the bias ones unless ``bias``); buffers ``weight_epsilon`` (out, in)
    and ``bias_epsilon`` (out,), the current factorised noise
    :math:`\varepsilon^w = f(\varepsilon_{out}) f(\varepsilon_{in})^\top`,
    :math:`\varepsilon^b = f(\varepsilon_{out})`, :math:`f(x) = \operatorname{sign}(x)
    \sqrt{|x|}`, redrawn by :meth:`reset_noise` from ``generator`` (Lucid's default
    generator when None). The noise stays fixed between calls of :meth:`reset_noise` (call
    it once per step, as NoisyNet's agents do). Initialisation is the paper's for
    factorised noise: :math:`\mu \sim \mathcal U(-1/\sqrt p, 1/\sqrt p)` and
    :math:`\sigma = \sigma_0/\sqrt p` (``in_features`` :math:`p`, ``sigma0`` 0.5). The
    names are those of the common PyTorch implementations (Rainbow's), so their state
    dicts load by name.
    """

    def __init__(
        self,
        in_features,
        out_features,
        bias=True,
        sigma0=0.5,
        device=None,
        dtype=None,
        generator=None,
    ):
        super().__init__()
        for name, v in (("in_features", in_features), ("out_features", out_features)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ArgumentError(f"NoisyLinear: {name} must be a positive int, got {v!r}")
        if sigma0 < 0:
            raise ArgumentError(f"NoisyLinear: sigma0 must be >= 0, got {sigma0}")
        self.in_features, self.out_features = in_features, out_features
        self.sigma0 = sigma0
        self.generator = generator
        kw = dict(device=device, dtype=dtype)
        self.weight_mu = Parameter(empty((out_features, in_features), **kw))
        self.weight_sigma = Parameter(empty((out_features, in_features), **kw))
        self.register_buffer("weight_epsilon", empty((out_features, in_features), **kw))
        if bias:
            self.bias_mu = Parameter(empty(out_features, **kw))
            self.bias_sigma = Parameter(empty(out_features, **kw))
            self.register_buffer("bias_epsilon", empty(out_features, **kw))
        else:
            self.register_parameter("bias_mu", None)
            self.register_parameter("bias_sigma", None)
            self.register_buffer("bias_epsilon", None)
        self.reset_parameters()
        self.reset_noise()

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.in_features)
        sigma = self.sigma0 / math.sqrt(self.in_features)
        init.uniform_(self.weight_mu, -bound, bound, generator=self.generator)
        init.constant_(self.weight_sigma, sigma)
        if self.bias_mu is not None:
            init.uniform_(self.bias_mu, -bound, bound, generator=self.generator)
            init.constant_(self.bias_sigma, sigma)

    def reset_noise(self):
        """Draw new factorised noise into ``weight_epsilon`` and ``bias_epsilon``."""
        kw = dict(
            generator=self.generator, dtype=self.weight_mu.dtype, device=self.weight_mu.device
        )
        eps_in = F.scaled_noise(self.in_features, **kw)
        eps_out = F.scaled_noise(self.out_features, **kw)
        with no_grad():
            self.weight_epsilon.copy_(outer(eps_out, eps_in))
            if self.bias_epsilon is not None:
                self.bias_epsilon.copy_(eps_out)

    def forward(self, input):
        return F.noisy_linear(
            input,
            self.weight_mu,
            self.weight_sigma,
            self.bias_mu,
            self.bias_sigma,
            weight_epsilon=self.weight_epsilon,
            bias_epsilon=self.bias_epsilon,
            training=self.training,
        )

    def extra_repr(self):
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias_mu is not None}, sigma0={self.sigma0}"
        )
