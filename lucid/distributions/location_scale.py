"""Location-scale families on the real line: Normal, Laplace, Cauchy, Gumbel, and Uniform.

Each samples by the reparameterisation :math:`x = \\mathrm{loc} + \\mathrm{scale}\\,\\epsilon`
(or the inverse CDF of a uniform), so gradients reach the parameters through ``rsample``.
"""

import math

from ..dtypes import finfo
from ..ops import atan, full_like, rand, randn, tan, where
from .. import ops as _ops
from .. import special

from . import constraints
from .distribution import LOG_2PI, Distribution, broadcast_all
from .. import errors

__all__ = ["Cauchy", "Gumbel", "Laplace", "Normal", "Uniform"]

_EULER = 0.57721566490153286061


def _open_uniform(like, shape):
    """Uniforms on the open interval (0, 1), of ``like``'s dtype and device."""
    u = rand(tuple(shape), dtype=like.dtype, device=like.device)
    return u.clamp(min=finfo(like.dtype).tiny, max=1 - finfo(like.dtype).eps)


class _LocScale(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def rsample(self, sample_shape=()):
        return self.icdf(_open_uniform(self.loc, self._extended_shape(sample_shape)))


class Normal(_LocScale):
    """:math:`p(x) = \\frac{1}{\\sigma\\sqrt{2\\pi}} e^{-(x-\\mu)^2 / 2\\sigma^2}`."""

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)
    stddev = property(lambda self: self.scale)
    variance = property(lambda self: self.scale.pow(2))

    def rsample(self, sample_shape=()):
        eps = randn(
            tuple(self._extended_shape(sample_shape)), dtype=self.loc.dtype, device=self.loc.device
        )
        return self.loc + eps * self.scale

    def log_prob(self, value):
        self._check(value)
        return -((value - self.loc) ** 2) / (2 * self.scale**2) - self.scale.log() - 0.5 * LOG_2PI

    def cdf(self, value):
        self._check(value)
        return special.ndtr((value - self.loc) / self.scale)

    def icdf(self, value):
        return self.loc + self.scale * special.ndtri(value)

    def entropy(self):
        return 0.5 + 0.5 * LOG_2PI + self.scale.log()


class Laplace(_LocScale):
    """:math:`p(x) = \\frac{1}{2b} e^{-|x-\\mu|/b}`."""

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)
    variance = property(lambda self: 2 * self.scale.pow(2))
    stddev = property(lambda self: math.sqrt(2) * self.scale)

    def rsample(self, sample_shape=()):
        like = self.loc
        eps = finfo(like.dtype).eps
        u = (
            rand(tuple(self._extended_shape(sample_shape)), dtype=like.dtype, device=like.device)
            * 2
            - 1
        )
        u = u.clamp(min=-1 + eps, max=1 - eps)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        self._check(value)
        return -math.log(2) - self.scale.log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        self._check(value)
        z = (value - self.loc) / self.scale
        return 0.5 - 0.5 * z.sign() * (-z.abs()).expm1()

    def icdf(self, value):
        t = value - 0.5
        return self.loc - self.scale * t.sign() * (-2 * t.abs()).log1p()

    def entropy(self):
        return 1 + math.log(2) + self.scale.log()


class Cauchy(_LocScale):
    """:math:`p(x) = \\frac{1}{\\pi\\gamma(1 + ((x-x_0)/\\gamma)^2)}` (mean and variance
    undefined: NaN and inf)."""

    mode = property(lambda self: self.loc)

    @property
    def mean(self):
        return full_like(self.loc, math.nan)

    @property
    def variance(self):
        return full_like(self.loc, math.inf)

    def log_prob(self, value):
        self._check(value)
        return (
            -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()
        )

    def cdf(self, value):
        self._check(value)
        return atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return self.loc + self.scale * tan(math.pi * (value - 0.5))

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()


class Gumbel(_LocScale):
    """:math:`p(x) = \\frac{1}{\\beta} e^{-(z + e^{-z})}`, :math:`z = (x-\\mu)/\\beta`."""

    mean = property(lambda self: self.loc + self.scale * _EULER)
    mode = property(lambda self: self.loc)
    variance = property(lambda self: (math.pi**2 / 6) * self.scale.pow(2))
    stddev = property(lambda self: (math.pi / math.sqrt(6)) * self.scale)

    def log_prob(self, value):
        self._check(value)
        z = (value - self.loc) / self.scale
        return -(z + (-z).exp()) - self.scale.log()

    def cdf(self, value):
        self._check(value)
        return (-(-(value - self.loc) / self.scale).exp()).exp()

    def icdf(self, value):
        return self.loc - self.scale * (-value.log()).log()

    def entropy(self):
        return self.scale.log() + 1 + _EULER


class Uniform(Distribution):
    """:math:`p(x) = 1/(b-a)` on :math:`[a, b)`."""

    arg_constraints = {
        "low": constraints.dependent(is_discrete=False, event_dim=0),
        "high": constraints.dependent(is_discrete=False, event_dim=0),
    }
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.shape, validate_args=validate_args)
        if self._validate_args and not bool(_ops.all(self.low < self.high).item()):
            raise errors.ArgumentError(
                f"Uniform: parameter low must be less than high, got "
                f"low={self.low}, high={self.high}"
            )

    @property
    def support(self):
        return constraints.half_open_interval(self.low, self.high)

    mean = property(lambda self: (self.high + self.low) / 2)
    mode = property(lambda self: full_like(self.low, math.nan))
    variance = property(lambda self: (self.high - self.low).pow(2) / 12)
    stddev = property(lambda self: (self.high - self.low) / math.sqrt(12))

    def rsample(self, sample_shape=()):
        u = rand(
            tuple(self._extended_shape(sample_shape)), dtype=self.low.dtype, device=self.low.device
        )
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        self._check(value)
        inside = (value >= self.low) & (value < self.high)
        return where(inside, -(self.high - self.low).log(), -math.inf)

    def cdf(self, value):
        self._check(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0.0, max=1.0)

    def icdf(self, value):
        return self.low + value * (self.high - self.low)

    def entropy(self):
        return (self.high - self.low).log()
