"""Distributions of :math:`Y = f(X)` for a base distribution and invertible transforms:
TransformedDistribution and the families defined that way, LogNormal and HalfNormal.

:math:`\\log p_Y(y) = \\log p_X(f^{-1}(y)) - \\log|\\det J_f(f^{-1}(y))|`.
"""

import math

import lucid

from . import constraints
from .distribution import Distribution
from .location_scale import Normal
from .transforms import AbsTransform, ComposeTransform, ExpTransform, Transform

__all__ = ["HalfNormal", "LogNormal", "TransformedDistribution"]


def _sum_rightmost(x, n):
    return x.sum(list(range(-n, 0))) if n > 0 else x


class TransformedDistribution(Distribution):
    """``base_distribution`` pushed through ``transforms`` (applied in order)."""
    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            transforms = [transforms]
        if not all(isinstance(t, Transform) for t in transforms):
            from lucid import errors
            raise errors.ArgumentTypeError("TransformedDistribution: transforms must be a "
                                           f"Transform or a list of them, got {transforms!r}")
        self.base_dist, self.transforms = base_distribution, list(transforms)
        chain = ComposeTransform(self.transforms)
        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        shape = chain.forward_shape(base_shape)
        event_dim = max(chain.codomain.event_dim, len(base_distribution.event_shape))
        cut = len(shape) - event_dim
        super().__init__(shape[:cut], shape[cut:], validate_args=validate_args)

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        extra = len(self.event_shape) - support.event_dim
        return constraints.independent(support, extra) if extra > 0 else support

    def expand(self, batch_shape, _instance=None):
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        extra = len(self.base_dist.event_shape) - len(self.event_shape)
        base_batch = lucid.Size(list(batch_shape) + list(self.event_shape[:extra]) if extra > 0
                                else list(batch_shape))
        new.base_dist = self.base_dist.expand(base_batch)
        new._batch_shape = lucid.Size(list(batch_shape))
        return new

    def sample(self, sample_shape=()):
        with lucid.no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape=()):
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value):
        self._check(value)
        event_dim = len(self.event_shape)
        lp, y = 0.0, value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            lp = lp - _sum_rightmost(t.log_abs_det_jacobian(x, y),
                                     event_dim - t.domain.event_dim)
            y = x
        base_lp = self.base_dist.log_prob(y)
        return lp + _sum_rightmost(base_lp, event_dim - len(self.base_dist.event_shape))

    def _monotone_sign(self):
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        return sign

    def cdf(self, value):
        for t in reversed(self.transforms):
            value = t.inv(value)
        value = self.base_dist.cdf(value)
        sign = self._monotone_sign()
        return value if isinstance(sign, int) and sign == 1 else sign * (value - 0.5) + 0.5

    def icdf(self, value):
        sign = self._monotone_sign()
        if not (isinstance(sign, int) and sign == 1):
            value = sign * (value - 0.5) + 0.5
        value = self.base_dist.icdf(value)
        for t in self.transforms:
            value = t(value)
        return value


class LogNormal(TransformedDistribution):
    """:math:`\\exp(X)`, :math:`X \\sim N(\\mu, \\sigma^2)`."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    loc = property(lambda self: self.base_dist.loc)
    scale = property(lambda self: self.base_dist.scale)
    mean = property(lambda self: (self.loc + self.scale.pow(2) / 2).exp())
    mode = property(lambda self: (self.loc - self.scale.pow(2)).exp())

    @property
    def variance(self):
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc


class HalfNormal(TransformedDistribution):
    """:math:`|X|`, :math:`X \\sim N(0, \\sigma^2)`:
    :math:`p(x) = \\frac{\\sqrt2}{\\sigma\\sqrt\\pi} e^{-x^2/2\\sigma^2}`, :math:`x \\ge 0`."""
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base = Normal(0.0, scale, validate_args=validate_args)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    scale = property(lambda self: self.base_dist.scale)
    mean = property(lambda self: self.scale * math.sqrt(2 / math.pi))
    mode = property(lambda self: lucid.zeros_like(self.scale))
    variance = property(lambda self: self.scale.pow(2) * (1 - 2 / math.pi))

    def log_prob(self, value):
        self._check(value)
        lp = self.base_dist.log_prob(value) + math.log(2)
        return lucid.where(value >= 0, lp, -math.inf)

    def cdf(self, value):
        self._check(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
