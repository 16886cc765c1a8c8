"""Distributions of :math:`Y = f(X)` for a base distribution and invertible transforms:
TransformedDistribution and the families defined that way: LogNormal, HalfNormal,
HalfCauchy, Pareto, Weibull, InverseGamma, Kumaraswamy, LogisticNormal.

:math:`\\log p_Y(y) = \\log p_X(f^{-1}(y)) - \\log|\\det J_f(f^{-1}(y))|`.
"""

import math

from ..autograd import no_grad
from ..ops import digamma, full_like, lgamma, ones_like, where, zeros_like

from . import constraints
from .distribution import Distribution, broadcast_all, sum_rightmost
from .gamma import Exponential, Gamma
from .independent import Independent
from .location_scale import Cauchy, Normal, Uniform
from .transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    PowerTransform,
    StickBreakingTransform,
    Transform,
)
from .. import errors

__all__ = [
    "HalfCauchy",
    "HalfNormal",
    "InverseGamma",
    "Kumaraswamy",
    "LogNormal",
    "LogisticNormal",
    "Pareto",
    "TransformedDistribution",
    "Weibull",
]

_EULER = 0.57721566490153286061


class TransformedDistribution(Distribution):
    """``base_distribution`` pushed through ``transforms`` (applied in order)."""

    arg_constraints: dict = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            transforms = [transforms]
        if not all(isinstance(t, Transform) for t in transforms):
            raise errors.ArgumentTypeError(
                "TransformedDistribution: transforms must be a "
                f"Transform or a list of them, got {transforms!r}"
            )
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
        new = super().expand(batch_shape, _instance)
        # base batch dims beyond ours are event dims here (a transform may reshape them)
        tail = self.base_dist.batch_shape[len(self.batch_shape) :]
        new.base_dist = self.base_dist.expand(new.batch_shape + tail)
        return new

    def sample(self, sample_shape=()):
        with no_grad():
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
            lp = lp - sum_rightmost(t.log_abs_det_jacobian(x, y), event_dim - t.domain.event_dim)
            y = x
        base_lp = self.base_dist.log_prob(y)
        return lp + sum_rightmost(base_lp, event_dim - len(self.base_dist.event_shape))

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


class _Folded(TransformedDistribution):
    """:math:`|X|` for ``base`` symmetric about 0: :math:`p(x) = 2 p_X(x)` on
    :math:`x \\ge 0`, :math:`F(x) = 2F_X(x) - 1`, entropy :math:`H_X - \\log 2`."""

    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, base, validate_args=None):
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    scale = property(lambda self: self.base_dist.scale)
    mode = property(lambda self: zeros_like(self.scale))

    def log_prob(self, value):
        self._check(value)
        lp = self.base_dist.log_prob(value) + math.log(2)
        return where(value >= 0, lp, -math.inf)

    def cdf(self, value):
        self._check(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_Folded):
    """:math:`|X|`, :math:`X \\sim N(0, \\sigma^2)`:
    :math:`p(x) = \\frac{\\sqrt2}{\\sigma\\sqrt\\pi} e^{-x^2/2\\sigma^2}`, :math:`x \\ge 0`."""

    arg_constraints = {"scale": constraints.positive}

    def __init__(self, scale, validate_args=None):
        super().__init__(Normal(0.0, scale, validate_args=validate_args), validate_args)

    mean = property(lambda self: self.scale * math.sqrt(2 / math.pi))
    variance = property(lambda self: self.scale.pow(2) * (1 - 2 / math.pi))


class HalfCauchy(_Folded):
    """:math:`|X|`, :math:`X \\sim` Cauchy(0, scale):
    :math:`p(x) = \\frac{2}{\\pi\\gamma(1 + (x/\\gamma)^2)}`, :math:`x \\ge 0` (mean and
    variance infinite)."""

    arg_constraints = {"scale": constraints.positive}

    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0.0, scale, validate_args=validate_args), validate_args)

    mean = property(lambda self: full_like(self.scale, math.inf))
    variance = property(lambda self: full_like(self.scale, math.inf))


class Pareto(TransformedDistribution):
    """:math:`p(x) = \\alpha s^\\alpha / x^{\\alpha+1}`, :math:`x \\ge s`: the image of
    Exponential(:math:`\\alpha`) under :math:`x \\mapsto s e^x`."""

    arg_constraints = {"scale": constraints.positive, "alpha": constraints.positive}
    has_rsample = True

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        super().__init__(
            base, [ExpTransform(), AffineTransform(0.0, self.scale)], validate_args=validate_args
        )

    @property
    def support(self):
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1.0)
        return where(self.alpha > 1, a * self.scale / (a - 1), math.inf)

    mode = property(lambda self: self.scale)

    @property
    def variance(self):
        a = self.alpha.clamp(min=2.0)
        v = self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))
        return where(self.alpha > 2, v, math.inf)

    def entropy(self):
        return (self.scale / self.alpha).log() + 1 / self.alpha + 1


class Weibull(TransformedDistribution):
    """:math:`p(x) = \\frac{k}{\\lambda}(x/\\lambda)^{k-1} e^{-(x/\\lambda)^k}`: the image of
    Exponential(1) under :math:`x \\mapsto \\lambda x^{1/k}`."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        base = Exponential(ones_like(self.scale), validate_args=validate_args)
        super().__init__(
            base,
            [PowerTransform(self.concentration.reciprocal()), AffineTransform(0.0, self.scale)],
            validate_args=validate_args,
        )

    mean = property(lambda self: self.scale * lgamma(1 + self.concentration.reciprocal()).exp())

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k).clamp(min=0.0).pow(1 / k)

    @property
    def variance(self):
        k = self.concentration
        return self.scale.pow(2) * (lgamma(1 + 2 / k).exp() - lgamma(1 + 1 / k).mul(2).exp())

    def entropy(self):
        k = self.concentration
        return _EULER * (1 - 1 / k) + (self.scale / k).log() + 1


class InverseGamma(TransformedDistribution):
    """:math:`1/X`, :math:`X \\sim` Gamma(:math:`\\alpha`, :math:`\\beta`):
    :math:`p(x) = \\frac{\\beta^\\alpha}{\\Gamma(\\alpha)} x^{-\\alpha-1} e^{-\\beta/x}`."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -ones_like(base.rate)
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    concentration = property(lambda self: self.base_dist.concentration)
    rate = property(lambda self: self.base_dist.rate)

    @property
    def mean(self):
        a = self.concentration.clamp(min=1.0)
        return where(self.concentration > 1, self.rate / (a - 1), math.inf)

    mode = property(lambda self: self.rate / (self.concentration + 1))

    @property
    def variance(self):
        a = self.concentration.clamp(min=2.0)
        v = self.rate.pow(2) / ((a - 1).pow(2) * (a - 2))
        return where(self.concentration > 2, v, math.inf)

    def entropy(self):
        a = self.concentration
        return a + self.rate.log() + lgamma(a) - (1 + a) * digamma(a)


class Kumaraswamy(TransformedDistribution):
    """:math:`p(x) = ab\\,x^{a-1}(1-x^a)^{b-1}` on (0, 1): the image of U(0, 1) under its
    inverse CDF :math:`x = (1 - (1-u)^{1/b})^{1/a}`; :math:`E[X^n] = b\\,B(1 + n/a, b)`."""

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        a, b = self.concentration1, self.concentration0
        base = Uniform(zeros_like(a), ones_like(a), validate_args=validate_args)
        flip = AffineTransform(1.0, -1.0)
        super().__init__(
            base,
            [flip, PowerTransform(b.reciprocal()), flip, PowerTransform(a.reciprocal())],
            validate_args=validate_args,
        )

    def _moment(self, n):
        a, b = self.concentration1, self.concentration0
        return b * (lgamma(1 + n / a) + lgamma(b) - lgamma(1 + n / a + b)).exp()

    mean = property(lambda self: self._moment(1))
    variance = property(lambda self: self._moment(2) - self._moment(1).pow(2))

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        m = ((a - 1) / (a * b - 1)).pow(1 / a)
        return where((a < 1) | (b < 1), math.nan, m)

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        harmonic_b = digamma(b + 1) + _EULER
        return (1 - 1 / b) + (1 - 1 / a) * harmonic_b - (a * b).log()


class LogisticNormal(TransformedDistribution):
    """The image of :math:`N(\\mu, \\mathrm{diag}(\\sigma^2))` on :math:`\\mathbb{R}^{K-1}`
    under the stick-breaking map onto the K-simplex."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        normal = Normal(loc, scale, validate_args=validate_args)
        base = Independent(normal, 1) if normal.batch_shape else normal
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    loc = property(lambda self: self.base_dist.base_dist.loc)
    scale = property(lambda self: self.base_dist.base_dist.scale)
