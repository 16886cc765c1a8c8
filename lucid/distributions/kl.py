"""KL divergence :math:`\\mathrm{KL}(p\\|q) = E_p[\\log p - \\log q]`: a registry of
closed forms keyed by the pair of distribution types, dispatched to the most specific match
(by position in each argument's method resolution order, the first argument deciding)."""

import math
import warnings

from ..ops import broadcast_shapes, digamma, full_like, lgamma, where
from .. import linalg
from .. import ops as _ops
from .. import special
from ..nn import functional as F
from .. import errors

from .categorical import Categorical, OneHotCategorical
from .continuous_bernoulli import ContinuousBernoulli
from .discrete import Bernoulli, Binomial, Geometric, Poisson
from .distribution import LOG_2PI, sum_rightmost
from .gamma import Beta, Dirichlet, Exponential, Gamma
from .independent import Independent
from .location_scale import Cauchy, Gumbel, Laplace, Normal, Uniform
from .multivariate_normal import MultivariateNormal, _half_logdet
from .transformed import Pareto, TransformedDistribution

__all__ = ["kl_divergence", "register_kl"]

_EULER = 0.57721566490153286061
_KL_REGISTRY: dict = {}
_KL_CACHE: dict = {}


def register_kl(type_p, type_q):
    """Decorator registering ``fn(p, q)`` as KL(p || q) for ``type_p`` x ``type_q`` (and
    their subclasses, unless a more specific pair is registered)."""
    if not (isinstance(type_p, type) and isinstance(type_q, type)):
        raise errors.ArgumentTypeError(
            f"register_kl: expected two Distribution classes, got {type_p!r} and {type_q!r}"
        )

    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        _KL_CACHE.clear()
        return fn

    return decorator


def _dispatch(tp, tq):
    matches = [(P, Q) for P, Q in _KL_REGISTRY if issubclass(tp, P) and issubclass(tq, Q)]
    if not matches:
        return None
    rank = lambda m: (tp.__mro__.index(m[0]), tq.__mro__.index(m[1]))  # noqa: E731
    best = min(matches, key=rank)
    other = min(matches, key=lambda m: rank(m)[::-1])
    if other != best:
        warnings.warn(
            f"kl_divergence: ambiguous registrations for ({tp.__name__}, "
            f"{tq.__name__}): {best[0].__name__, best[1].__name__} and "
            f"{other[0].__name__, other[1].__name__}; using the first",
            stacklevel=2,
        )
    return _KL_REGISTRY[best]


def kl_divergence(p, q):
    """:math:`\\mathrm{KL}(p\\|q)`, batched over the two distributions' broadcast batch."""
    key = (type(p), type(q))
    if key not in _KL_CACHE:
        _KL_CACHE[key] = _dispatch(*key)
    fn = _KL_CACHE[key]
    if fn is None:
        raise NotImplementedError(
            f"kl_divergence: no closed form registered for {type(p).__name__} || {type(q).__name__}"
        )
    return fn(p, q)


def _inf_like(x):
    return full_like(x, math.inf)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    ratio = (p.scale / q.scale).pow(2)
    return 0.5 * (ratio + ((p.loc - q.loc) / q.scale).pow(2) - 1 - ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    # log p = -softplus(-l), log(1-p) = -softplus(l)
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t1 = where(p.probs == 0, 0.0, t1)
    t2 = where(p.probs == 1, 0.0, t2)
    return t1 + t2


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if not bool(_ops.all(p.total_count == q.total_count).item()):
        raise NotImplementedError("kl_divergence: Binomial || Binomial needs equal total_count")
    return p.total_count * _kl_bernoulli_bernoulli(p, q)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = where(p.probs == 0, 0.0, t)
    t = where((q.probs == 0) & (p.probs > 0), math.inf, t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return special.xlogy(p.rate, p.rate) - special.xlogy(p.rate, q.rate) - (p.rate - q.rate)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - 1 - ratio.log()


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    ap, bp, aq, bq = p.concentration, p.rate, q.concentration, q.rate
    return (
        (ap - aq) * digamma(ap)
        - lgamma(ap)
        + lgamma(aq)
        + aq * (bp.log() - bq.log())
        + ap * (bq - bp) / bp
    )


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    ap, aq = p.concentration, q.concentration
    sp = ap.sum(-1)
    return (
        lgamma(sp)
        - lgamma(aq.sum(-1))
        - lgamma(ap).sum(-1)
        + lgamma(aq).sum(-1)
        + ((ap - aq) * (digamma(ap) - digamma(sp).unsqueeze(-1))).sum(-1)
    )


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    return _kl_dirichlet_dirichlet(p._dirichlet, q._dirichlet)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    kl = ((q.high - q.low) / (p.high - p.low)).log()
    return where((q.low > p.low) | (q.high < p.high), math.inf, kl)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    ratio = p.scale / q.scale
    gap = (p.loc - q.loc).abs()
    return -ratio.log() + gap / q.scale + ratio * (-gap / p.scale).exp() - 1


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    num = (p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)
    return (num / (4 * p.scale * q.scale)).log()


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ratio = p.scale / q.scale
    a, b = q.loc / q.scale, p.loc / q.scale
    return -ratio.log() - a + b + ratio * _EULER + (a + lgamma(1 + ratio) - b).exp() - (1 + _EULER)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    """:math:`\\frac12[\\mathrm{tr}(\\Sigma_q^{-1}\\Sigma_p) + \\|L_q^{-1}(\\mu_q-\\mu_p)\\|^2
    - k + \\log|\\Sigma_q| - \\log|\\Sigma_p|]`."""
    if p.event_shape != q.event_shape:
        raise errors.ShapeError(
            "kl_divergence: MultivariateNormal event shapes differ: "
            f"{tuple(p.event_shape)} and {tuple(q.event_shape)}"
        )
    Lp, Lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    shape = broadcast_shapes(Lp.shape, Lq.shape)
    Lp_, Lq_ = Lp.expand(*shape), Lq.expand(*shape)
    trace = linalg.solve_triangular(Lq_, Lp_, upper=False).pow(2).sum([-2, -1])
    diff = q.loc - p.loc
    bshape = broadcast_shapes(shape[:-2], diff.shape[:-1])
    z = linalg.solve_triangular(
        Lq.expand(*bshape, *shape[-2:]),
        diff.expand(*bshape, diff.shape[-1]).unsqueeze(-1),
        upper=False,
    ).squeeze(-1)
    k = p.event_shape[0]
    return _half_logdet(Lq) - _half_logdet(Lp) + 0.5 * (trace + z.pow(2).sum(-1) - k)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli(p, q):
    # E_p[log p - log q] = m (l_p - l_q) + log(1-p) - log(1-q) + log C_p - log C_q
    t1 = p.mean * (p.logits - q.logits)
    t2 = (-p.probs).log1p() - (-q.probs).log1p() + p._log_normalizer() - q._log_normalizer()
    return t1 + t2


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    ratio = q.alpha / p.alpha
    kl = q.alpha * (p.scale / q.scale).log() - ratio.log() + ratio - 1
    return where(p.scale < q.scale, math.inf, kl)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError(
            "kl_divergence: Independent || Independent needs equal reinterpreted_batch_ndims"
        )
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    """KL is invariant under a common bijection: KL of the base distributions."""
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError(
            "kl_divergence: TransformedDistributions need the same transforms and event shape"
        )
    extra = len(p.event_shape) - len(p.base_dist.event_shape)
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), extra)


# ---- pairs of different families: KL = -H(p) - E_p[log q], E_p in closed form ----------


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    # E_p[log x] = -gamma - log(rate), E_p[x] = 1/rate
    a, b = q.concentration, q.rate
    e_log = -_EULER - p.rate.log()
    return -p.entropy() - a * b.log() + lgamma(a) - (a - 1) * e_log + b / p.rate


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    # E_p[(x - mu)^2] = 2/rate^2 - 2 mu/rate + mu^2
    second = 2 / p.rate.pow(2) - 2 * q.loc / p.rate + q.loc.pow(2)
    return -p.entropy() + 0.5 * LOG_2PI + q.scale.log() + second / (2 * q.scale.pow(2))


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    second = 2 * p.scale.pow(2) + (p.loc - q.loc).pow(2)
    return -p.entropy() + 0.5 * LOG_2PI + q.scale.log() + second / (2 * q.scale.pow(2))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    # E|N(m, s^2)| = s sqrt(2/pi) e^{-m^2/2s^2} + m (1 - 2 Phi(-m/s))
    m, s = p.loc - q.loc, p.scale
    abs_mean = s * math.sqrt(2 / math.pi) * (-(m / s).pow(2) / 2).exp() + m * (
        1 - 2 * special.ndtr(-m / s)
    )
    return -p.entropy() + (2 * q.scale).log() + abs_mean / q.scale


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    # z = (x - loc_q)/scale_q ~ N(m, s^2): E[z + e^{-z}] = m + e^{-m + s^2/2}
    m, s = (p.loc - q.loc) / q.scale, p.scale / q.scale
    return -p.entropy() + q.scale.log() + m + (-m + s.pow(2) / 2).exp()


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    lo, hi = p.low - q.loc, p.high - q.loc
    second = (hi.pow(3) - lo.pow(3)) / (3 * (hi - lo))
    return -p.entropy() + 0.5 * LOG_2PI + q.scale.log() + second / (2 * q.scale.pow(2))


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    kl = -p.entropy() - q.rate.log() + q.rate * p.mean
    return where(p.low < 0, math.inf, kl)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    # E_p[log x] = (b log b - a log a)/(b - a) - 1
    a, b = p.low, p.high
    xlogx = special.xlogy
    e_log = (xlogx(b, b) - xlogx(a, a)) / (b - a) - 1
    c, r = q.concentration, q.rate
    kl = -p.entropy() - c * r.log() + lgamma(c) - (c - 1) * e_log + r * p.mean
    return where(p.low < 0, math.inf, kl)
