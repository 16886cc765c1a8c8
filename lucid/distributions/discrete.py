"""Counting distributions with a probability (or logit) parameter or a rate: Bernoulli,
Geometric, Binomial, NegativeBinomial, Poisson."""

from ..autograd import no_grad
from ..dtypes import finfo
from ..ops import (
    arange,
    bernoulli,
    broadcast_shapes,
    broadcast_tensors,
    lgamma,
    poisson,
    rand,
    sigmoid,
    where,
    zeros_like,
)
from .. import special
from ..nn import functional as F

from . import constraints
from .distribution import Distribution, broadcast_all
from .gamma import Gamma
from .. import errors

__all__ = ["Bernoulli", "Binomial", "Geometric", "NegativeBinomial", "Poisson", "probs_and_logits"]


def probs_and_logits(name, probs, logits, is_binary=True):
    """Both parametrisations from the one given: binary ``logit(p)`` / ``sigmoid(l)``, or
    categorical ``log p`` (normalised) / ``softmax(l)``."""
    if (probs is None) == (logits is None):
        raise errors.ArgumentError(
            f"{name}: give exactly one of probs or logits, got "
            f"{'both' if probs is not None else 'neither'}"
        )
    if probs is not None:
        (probs,) = broadcast_all(probs)
        if is_binary:
            eps = finfo(probs.dtype).eps
            p = probs.clamp(min=eps, max=1 - eps)
            return probs, p.log() - (-p).log1p(), "probs"
        probs = probs / probs.sum(-1, keepdim=True)
        tiny = finfo(probs.dtype).tiny
        return probs, probs.clamp(min=tiny).log(), "probs"
    (logits,) = broadcast_all(logits)
    if is_binary:
        return sigmoid(logits), logits, "logits"
    logits = logits - logits.logsumexp(-1, keepdim=True)
    return logits.exp(), logits, "logits"


class _ProbsOrLogits(Distribution):
    """Stores ``probs`` and ``logits``; only the one given is validated."""

    def _set(self, probs, logits, is_binary=True):
        p, l, given = probs_and_logits(type(self).__name__, probs, logits, is_binary)
        self.__dict__["probs" if given == "probs" else "logits"] = p if given == "probs" else l
        self._other = ("logits", l) if given == "probs" else ("probs", p)
        return p, l

    def __getattr__(self, name):
        other = self.__dict__.get("_other")
        if other is not None and name == other[0]:
            return other[1]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        n = len(self.batch_shape)
        value = self._other[1]
        new._other = (self._other[0], value.expand(*(new.batch_shape + value.shape[n:])))
        return new


class Bernoulli(_ProbsOrLogits):
    """:math:`P(x) = p^x (1-p)^{1-x}`, :math:`x \\in \\{0, 1\\}`."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        p, _ = self._set(probs, logits)
        super().__init__(p.shape, validate_args=validate_args)

    mean = property(lambda self: self.probs)
    mode = property(lambda self: (self.probs > 0.5).to(self.probs.dtype))
    variance = property(lambda self: self.probs * (1 - self.probs))

    def sample(self, sample_shape=()):
        with no_grad():
            return bernoulli(self.probs.expand(*self._extended_shape(sample_shape)))

    def log_prob(self, value):
        self._check(value)
        logits, value = broadcast_tensors(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = arange(2, dtype=self.probs.dtype, device=self.probs.device)
        values = values.reshape((2,) + (1,) * len(self.batch_shape))
        return values.expand(2, *self.batch_shape) if expand else values


class Geometric(_ProbsOrLogits):
    """Failures before the first success: :math:`P(k) = (1-p)^k p`, :math:`k \\ge 0`."""

    arg_constraints = {"probs": constraints.interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        p, _ = self._set(probs, logits)
        super().__init__(p.shape, validate_args=validate_args)

    mean = property(lambda self: 1.0 / self.probs - 1.0)
    mode = property(lambda self: zeros_like(self.probs))
    variance = property(lambda self: (1.0 / self.probs - 1.0) / self.probs)

    def sample(self, sample_shape=()):
        with no_grad():
            tiny = finfo(self.probs.dtype).tiny
            u = rand(
                tuple(self._extended_shape(sample_shape)),
                dtype=self.probs.dtype,
                device=self.probs.device,
            ).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        self._check(value)
        p = self.probs
        value, p = broadcast_tensors(value, p)
        return special.xlog1py(value, -p) + p.log()

    def entropy(self):
        return (
            F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
            / self.probs
        )


class Binomial(_ProbsOrLogits):
    """:math:`P(k) = \\binom{n}{k} p^k (1-p)^{n-k}`, sampled as a count of Bernoulli
    successes (cost grows with ``total_count``)."""

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        p, l = self._set(probs, logits)
        self.total_count, _ = broadcast_all(total_count, p if probs is not None else l)
        self.total_count = self.total_count.to(p.dtype)
        shape = broadcast_shapes(self.total_count.shape, p.shape)
        given = "probs" if probs is not None else "logits"
        self.__dict__[given] = self.__dict__[given].expand(*shape)
        self._other = (self._other[0], self._other[1].expand(*shape))
        super().__init__(shape, validate_args=validate_args)

    @property
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    mean = property(lambda self: self.total_count * self.probs)
    mode = property(
        lambda self: ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)
    )
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    def sample(self, sample_shape=()):
        with no_grad():
            shape = tuple(self._extended_shape(sample_shape))
            n_max = int(self.total_count.max().item())
            u = rand(shape + (n_max,), dtype=self.probs.dtype, device=self.probs.device)
            live = arange(
                n_max, dtype=self.probs.dtype, device=self.probs.device
            ) < self.total_count.expand(*shape).unsqueeze(-1)
            return (
                ((u < self.probs.expand(*shape).unsqueeze(-1)) & live).sum(-1).to(self.probs.dtype)
            )

    def log_prob(self, value):
        self._check(value)
        n, logits = self.total_count, self.logits
        log_binom = lgamma(n + 1) - lgamma(value + 1) - lgamma(n - value + 1)
        # k log p + (n-k) log(1-p) = k l - n softplus(l), computed stably for either sign
        return log_binom + value * logits - n * F.softplus(logits)

    def entropy(self):
        n_max = int(self.total_count.max().item())
        values = self.enumerate_support(expand=False)[: n_max + 1]
        lp = Binomial(self.total_count, logits=self.logits, validate_args=False).log_prob(values)
        return -(lp.exp() * lp).nan_to_num(0.0).sum(0)

    def enumerate_support(self, expand=True):
        n_max = int(self.total_count.max().item())
        values = arange(n_max + 1, dtype=self.probs.dtype, device=self.probs.device)
        values = values.reshape((-1,) + (1,) * len(self.batch_shape))
        return values.expand(n_max + 1, *self.batch_shape) if expand else values


class Poisson(Distribution):
    """:math:`P(k) = \\lambda^k e^{-\\lambda} / k!`."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    mean = property(lambda self: self.rate)
    mode = property(lambda self: self.rate.floor())
    variance = property(lambda self: self.rate)

    def sample(self, sample_shape=()):
        with no_grad():
            return poisson(self.rate.expand(*self._extended_shape(sample_shape)))

    def log_prob(self, value):
        self._check(value)
        rate, value = broadcast_tensors(self.rate, value)
        return special.xlogy(value, rate) - rate - lgamma(value + 1)


class NegativeBinomial(_ProbsOrLogits):
    """Successes before ``total_count`` failures, success probability :math:`p`:
    :math:`P(k) = \\frac{\\Gamma(k+r)}{k!\\,\\Gamma(r)} p^k (1-p)^r`; sampled as a
    Poisson whose rate is Gamma(r, (1-p)/p)."""

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0.0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        p, l = self._set(probs, logits)
        given = "probs" if probs is not None else "logits"
        self.total_count, self.__dict__[given] = broadcast_all(total_count, self.__dict__[given])
        self._other = (self._other[0], self._other[1].expand(*self.total_count.shape))
        super().__init__(self.total_count.shape, validate_args=validate_args)

    mean = property(lambda self: self.total_count * self.logits.exp())
    mode = property(
        lambda self: ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)
    )
    variance = property(lambda self: self.mean / sigmoid(-self.logits))

    def sample(self, sample_shape=()):
        with no_grad():
            rate = Gamma(self.total_count, (-self.logits).exp(), validate_args=False).sample(
                sample_shape
            )
            return poisson(rate)

    def log_prob(self, value):
        self._check(value)
        r, l = self.total_count, self.logits
        log_norm = lgamma(value + r) - lgamma(value + 1) - lgamma(r)
        # k log p + r log(1-p) = k logsigmoid(l) + r logsigmoid(-l)
        lp = value * F.logsigmoid(l) + r * F.logsigmoid(-l)
        return log_norm + where((r == 0) & (value == 0), 0.0, lp)
