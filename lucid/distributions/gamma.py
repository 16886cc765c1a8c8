"""The gamma family and what is built from gamma variates: Gamma, Exponential, Chi2,
Beta, Dirichlet, StudentT, FisherSnedecor.

Gamma variates come from Marsaglia and Tsang's rejection sampler; their gradient with
respect to the concentration is the implicit reparameterisation
:math:`\\partial x/\\partial\\alpha =
-\\frac{\\partial F(x;\\alpha)/\\partial\\alpha}{p(x;\\alpha)}`
(Figurnov et al., 2018), the numerator from a central difference of the regularised
incomplete gamma function :math:`F = P(\\alpha, x)`.
"""

import math

from ..dtypes import finfo, float64, int64
from ..ops import digamma, lgamma, ones_like, rand, randn, stack, where, zeros_like
from .. import dtypes as _dt
from .. import special
from ..nn import functional as F
from ..autograd import Function

from . import constraints
from .distribution import Distribution, broadcast_all
from .. import errors

__all__ = ["Beta", "Chi2", "Dirichlet", "Exponential", "FisherSnedecor", "Gamma", "StudentT"]


def _marsaglia_tsang(alpha):
    """Unit-rate gamma variates of concentration ``alpha`` (a tensor, any shape)."""
    boost = alpha < 1
    a = where(boost, alpha + 1, alpha)
    d = a - 1.0 / 3
    c = 1.0 / (9 * d).sqrt()
    tiny = finfo(a.dtype).tiny
    out = zeros_like(a)
    todo = ones_like(a, dtype=_dt.bool)
    while bool(todo.any().item()):
        x = randn(tuple(a.shape), dtype=a.dtype, device=a.device)
        v = (1 + c * x) ** 3
        u = rand(tuple(a.shape), dtype=a.dtype, device=a.device).clamp(min=tiny)
        ok = (v > 0) & (u.log() < 0.5 * x * x + d - d * v + d * v.clamp(min=tiny).log())
        take = todo & ok
        out = where(take, d * v, out)
        todo = todo & ~ok
    u = rand(tuple(a.shape), dtype=a.dtype, device=a.device)
    out = where(boost, out * u.pow(1.0 / alpha), out)
    return out.clamp(min=tiny)


class _StandardGamma(Function):
    """A unit-rate gamma sample whose backward is the implicit reparameterisation."""

    @staticmethod
    def forward(ctx, alpha):
        x = _marsaglia_tsang(alpha)
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        dtype = alpha.dtype
        alpha, x = alpha.to(float64), x.to(float64)  # the difference needs it
        h = 1e-5 * alpha.clamp(min=1e-2)
        P = special.gammainc
        dF = (P(alpha + h, x) - P(alpha - h, x)) / (2 * h)
        log_pdf = (alpha - 1) * x.log() - x - lgamma(alpha)
        return grad * (-dF / log_pdf.exp()).to(dtype)


def _standard_gamma(alpha):
    return _StandardGamma.apply(alpha)


class Gamma(Distribution):
    """:math:`p(x) = \\frac{\\beta^\\alpha}{\\Gamma(\\alpha)} x^{\\alpha-1} e^{-\\beta x}`,
    ``concentration`` :math:`\\alpha`, ``rate`` :math:`\\beta`."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)

    mean = property(lambda self: self.concentration / self.rate)
    mode = property(lambda self: ((self.concentration - 1) / self.rate).clamp(min=0.0))
    variance = property(lambda self: self.concentration / self.rate.pow(2))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        x = _standard_gamma(self.concentration.expand(*shape)) / self.rate.expand(*shape)
        return x.clamp(min=finfo(x.dtype).tiny)

    def log_prob(self, value):
        self._check(value)
        a, b = self.concentration, self.rate
        return special.xlogy(a, b) + special.xlogy(a - 1, value) - b * value - lgamma(a)

    def cdf(self, value):
        self._check(value)
        return special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        a = self.concentration
        return a - self.rate.log() + lgamma(a) + (1 - a) * digamma(a)


class Chi2(Gamma):
    """:math:`\\chi^2_k = \\mathrm{Gamma}(k/2, 1/2)`."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        (df,) = broadcast_all(df)
        self.df = df
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)


class Exponential(Distribution):
    """:math:`p(x) = \\lambda e^{-\\lambda x}`."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    mean = property(lambda self: self.rate.reciprocal())
    mode = property(lambda self: zeros_like(self.rate))
    variance = property(lambda self: self.rate.pow(-2))
    stddev = property(lambda self: self.rate.reciprocal())

    def rsample(self, sample_shape=()):
        u = rand(
            tuple(self._extended_shape(sample_shape)),
            dtype=self.rate.dtype,
            device=self.rate.device,
        )
        return -(-u).log1p() / self.rate

    def log_prob(self, value):
        self._check(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        self._check(value)
        return -(-self.rate * value).expm1()

    def icdf(self, value):
        return -(-value).log1p() / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()


class Dirichlet(Distribution):
    """:math:`p(x) = \\frac{\\Gamma(\\sum\\alpha_i)}{\\prod\\Gamma(\\alpha_i)}
    \\prod x_i^{\\alpha_i-1}` on the simplex."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise errors.ShapeError(
                "Dirichlet: parameter concentration must have at least "
                f"one dim, got shape {tuple(concentration.shape)}"
            )
        self.concentration = concentration
        super().__init__(
            concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args
        )

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        """:math:`(\\alpha - 1)_+ / \\sum(\\alpha - 1)_+`; where every :math:`\\alpha_i < 1`
        the density is unbounded at every vertex: the first vertex, as torch gives."""
        a = (self.concentration - 1).clamp(min=0.0)
        interior = a / a.sum(-1, keepdim=True)
        vertex = F.one_hot(zeros_like(a[..., 0], dtype=int64), a.shape[-1]).to(a.dtype)
        corner = (self.concentration < 1).all(-1, keepdim=True)
        return where(corner, vertex, interior)

    @property
    def variance(self):
        a0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (a0 - self.concentration) / (a0.pow(2) * (a0 + 1))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        g = _standard_gamma(self.concentration.expand(*shape))
        x = g / g.sum(-1, keepdim=True)
        tiny = finfo(x.dtype).tiny
        return x.clamp(min=tiny, max=1 - finfo(x.dtype).eps)

    def log_prob(self, value):
        self._check(value)
        a = self.concentration
        return (special.xlogy(a - 1, value)).sum(-1) + lgamma(a.sum(-1)) - lgamma(a).sum(-1)

    def entropy(self):
        a = self.concentration
        k, a0 = a.shape[-1], a.sum(-1)
        return (
            lgamma(a).sum(-1) - lgamma(a0) - (k - a0) * digamma(a0) - ((a - 1) * digamma(a)).sum(-1)
        )


class Beta(Distribution):
    """:math:`p(x) = \\frac{x^{a-1}(1-x)^{b-1}}{B(a,b)}` on :math:`[0, 1]`, sampled as the
    first coordinate of a Dirichlet(a, b)."""

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        self._dirichlet = Dirichlet(
            stack([self.concentration1, self.concentration0], -1), validate_args=False
        )
        super().__init__(self.concentration1.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        return new

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        self._check(value)
        return self._dirichlet.log_prob(stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()


class StudentT(Distribution):
    """:math:`p(x) = \\frac{\\Gamma((\\nu+1)/2)}{\\Gamma(\\nu/2)\\sqrt{\\nu\\pi}\\sigma}
    (1 + z^2/\\nu)^{-(\\nu+1)/2}`, :math:`z = (x-\\mu)/\\sigma`; sampled as
    :math:`\\mu + \\sigma\\,\\epsilon\\sqrt{\\nu/\\chi^2_\\nu}`."""

    arg_constraints = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        super().__init__(self.df.shape, validate_args=validate_args)

    @property
    def mean(self):
        return where(self.df > 1, self.loc, math.nan)

    mode = property(lambda self: self.loc)

    @property
    def variance(self):
        v = self.scale.pow(2) * self.df / (self.df - 2)
        v = where(self.df > 2, v, math.inf)
        return where(self.df > 1, v, math.nan)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        eps = randn(shape, dtype=self.df.dtype, device=self.df.device)
        chi2 = 2 * _standard_gamma((0.5 * self.df).expand(*shape))
        return self.loc + self.scale * eps * (self.df / chi2).sqrt()

    def log_prob(self, value):
        self._check(value)
        z = (value - self.loc) / self.scale
        nu = self.df
        return (
            lgamma(0.5 * (nu + 1))
            - lgamma(0.5 * nu)
            - 0.5 * (nu * math.pi).log()
            - self.scale.log()
            - 0.5 * (nu + 1) * (z * z / nu).log1p()
        )

    def entropy(self):
        nu = self.df
        lbeta = lgamma(0.5 * nu) + math.lgamma(0.5) - lgamma(0.5 * (nu + 1))
        return (
            self.scale.log()
            + 0.5 * (nu + 1) * (digamma(0.5 * (nu + 1)) - digamma(0.5 * nu))
            + 0.5 * nu.log()
            + lbeta
        )


class FisherSnedecor(Distribution):
    """:math:`F(d_1, d_2) = \\frac{\\chi^2_{d_1}/d_1}{\\chi^2_{d_2}/d_2}`:
    :math:`\\log p(x) = \\frac{d_1}{2}\\log\\frac{d_1}{d_2} + (\\frac{d_1}{2}-1)\\log x
    - \\frac{d_1+d_2}{2}\\log(1 + \\frac{d_1}{d_2}x) - \\log B(\\frac{d_1}{2}, \\frac{d_2}{2})`."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        super().__init__(self.df1.shape, validate_args=validate_args)

    @property
    def mean(self):
        d2 = self.df2.clamp(min=2.0)
        return where(self.df2 > 2, d2 / (d2 - 2), math.nan)

    @property
    def mode(self):
        d1 = self.df1.clamp(min=2.0)
        return where(self.df1 > 2, (d1 - 2) / d1 * self.df2 / (self.df2 + 2), math.nan)

    @property
    def variance(self):
        d1, d2 = self.df1, self.df2.clamp(min=4.0)
        v = 2 * d2.pow(2) * (d1 + d2 - 2) / (d1 * (d2 - 2).pow(2) * (d2 - 4))
        return where(self.df2 > 4, v, math.nan)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        x1 = _standard_gamma((0.5 * self.df1).expand(*shape)) / self.df1
        x2 = _standard_gamma((0.5 * self.df2).expand(*shape)) / self.df2
        return (x1 / x2).clamp(min=finfo(x1.dtype).tiny)

    def log_prob(self, value):
        self._check(value)
        a, b = 0.5 * self.df1, 0.5 * self.df2
        ratio = self.df1 / self.df2
        lbeta = lgamma(a) + lgamma(b) - lgamma(a + b)
        return a * ratio.log() + (a - 1) * value.log() - (a + b) * (ratio * value).log1p() - lbeta
