"""The continuous Bernoulli distribution (Loaiza-Ganem and Cunningham, 2019) on [0, 1]."""

import math

from ..ops import broadcast_tensors, rand, where
from ..nn import functional as F

from . import constraints
from .discrete import _ProbsOrLogits

__all__ = ["ContinuousBernoulli"]

_LIMS = (0.499, 0.501)  # around lambda = 1/2 the closed forms are 0/0: Taylor there


class ContinuousBernoulli(_ProbsOrLogits):
    """:math:`p(x) = C(\\lambda)\\,\\lambda^x (1-\\lambda)^{1-x}`, :math:`x \\in [0, 1]`, with
    :math:`C(\\lambda) = \\frac{2\\,\\mathrm{atanh}(1-2\\lambda)}{1-2\\lambda}` (2 at
    :math:`\\lambda = 1/2`); sampled by the inverse CDF
    :math:`x = \\frac{\\log(1 - \\lambda + u(2\\lambda-1)) - \\log(1-\\lambda)}
    {\\log\\lambda - \\log(1-\\lambda)}`."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        p, _ = self._set(probs, logits)
        super().__init__(p.shape, validate_args=validate_args)

    def _near_half(self):
        return (self.probs > _LIMS[0]) & (self.probs < _LIMS[1])

    def _safe_probs(self):
        """The probabilities with those near 1/2 moved off it (their branch is unused)."""
        return where(self._near_half(), _LIMS[0], self.probs)

    def _log_normalizer(self):
        lam = self._safe_probs()
        c = (2 * (1 - 2 * lam).atanh()).abs().log() - (1 - 2 * lam).abs().log()
        d = self.probs - 0.5
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * d * d) * d * d
        return where(self._near_half(), taylor, c)

    @property
    def mean(self):
        lam = self._safe_probs()
        m = lam / (2 * lam - 1) + 1 / (2 * (1 - 2 * lam).atanh())
        d = self.probs - 0.5
        return where(self._near_half(), 0.5 + (1 / 3 + 16 / 45 * d * d) * d, m)

    @property
    def variance(self):
        lam = self._safe_probs()
        v = lam * (lam - 1) / (1 - 2 * lam).pow(2) + 1 / (2 * (1 - 2 * lam).atanh()).pow(2)
        d2 = (self.probs - 0.5).pow(2)
        return where(self._near_half(), 1 / 12 - (1 / 15 - 128 / 945 * d2) * d2, v)

    def rsample(self, sample_shape=()):
        u = rand(
            tuple(self._extended_shape(sample_shape)),
            dtype=self.probs.dtype,
            device=self.probs.device,
        )
        return self.icdf(u)

    def log_prob(self, value):
        self._check(value)
        logits, value = broadcast_tensors(self.logits, value)
        return (
            -F.binary_cross_entropy_with_logits(logits, value, reduction="none")
            + self._log_normalizer()
        )

    def cdf(self, value):
        self._check(value)
        lam = self._safe_probs()
        c = (lam.pow(value) * (1 - lam).pow(1 - value) + lam - 1) / (2 * lam - 1)
        c = where(self._near_half(), value, c)
        return where(value <= 0, 0.0, where(value >= 1, 1.0, c))

    def icdf(self, value):
        lam = self._safe_probs()
        x = ((-lam + value * (2 * lam - 1)).log1p() - (-lam).log1p()) / (lam.log() - (-lam).log1p())
        return where(self._near_half(), value, x)

    def entropy(self):
        log0, log1 = (-self.probs).log1p(), self.probs.log()
        return self.mean * (log0 - log1) - self._log_normalizer() - log0
