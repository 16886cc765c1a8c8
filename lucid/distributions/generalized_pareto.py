"""The generalized Pareto distribution, the limit law of threshold exceedances."""

import math

from ..ops import rand, where

from . import constraints
from .distribution import Distribution, broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """With :math:`z = (x - \\mu)/\\sigma` and shape :math:`\\xi`:
    :math:`\\log p = -\\log\\sigma - (1 + 1/\\xi)\\log(1 + \\xi z)` (:math:`-\\log\\sigma - z`
    at :math:`\\xi = 0`) on :math:`z \\ge 0`, and :math:`z \\le -1/\\xi` when :math:`\\xi < 0`;
    :math:`F = 1 - (1 + \\xi z)^{-1/\\xi}`, sampled through its inverse."""

    arg_constraints = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def support(self):
        xi = self.concentration
        upper = where(xi < 0, self.loc - self.scale / self._nonzero(), math.inf)
        return constraints.interval(self.loc, upper)

    def _nonzero(self):
        """:math:`\\xi` with zeros replaced by 1 (their closed form is taken separately)."""
        return where(self.concentration == 0, 1.0, self.concentration)

    def log_prob(self, value):
        self._check(value)
        z = (value - self.loc) / self.scale
        xi = self._nonzero()
        lp = -(1 + 1 / xi) * (xi * z).log1p()
        lp = where(self.concentration == 0, -z, lp)
        inside = (z >= 0) & ((self.concentration >= 0) | (z <= -1 / xi))
        return where(inside, lp - self.scale.log(), -math.inf)

    def cdf(self, value):
        self._check(value)
        z = ((value - self.loc) / self.scale).clamp(min=0.0)
        xi = self._nonzero()
        log_survival = where(self.concentration == 0, -z, -(xi * z).log1p() / xi)
        return -log_survival.expm1()

    def icdf(self, value):
        xi = self._nonzero()
        log_survival = (-value).log1p()
        z = where(self.concentration == 0, -log_survival, (-xi * log_survival).expm1() / xi)
        return self.loc + self.scale * z

    def rsample(self, sample_shape=()):
        u = rand(
            tuple(self._extended_shape(sample_shape)), dtype=self.loc.dtype, device=self.loc.device
        )
        return self.icdf(u)

    @property
    def mean(self):
        finite = self.concentration < 1
        xi = where(finite, self.concentration, 0.0)
        return where(finite, self.loc + self.scale / (1 - xi), math.inf)

    mode = property(lambda self: self.loc)

    @property
    def variance(self):
        """:math:`\\sigma^2/((1-\\xi)^2(1-2\\xi))` for :math:`\\xi < 1/2`, infinite for
        :math:`1/2 \\le \\xi < 1`, undefined (NaN) beyond, where the mean is infinite."""
        finite = self.concentration < 0.5
        xi = where(finite, self.concentration, 0.0)
        v = self.scale.pow(2) / ((1 - xi).pow(2) * (1 - 2 * xi))
        return where(finite, v, where(self.concentration < 1, math.inf, math.nan))

    def entropy(self):
        return self.scale.log() + self.concentration + 1
