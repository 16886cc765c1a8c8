"""Distributions over K categories: Categorical (an index), OneHotCategorical (a one-hot
vector), Multinomial (counts of ``total_count`` draws)."""

import math

from .._tensor import Size
from ..autograd import no_grad
from ..dtypes import finfo
from ..ops import arange, broadcast_tensors, eye, full, lgamma, multinomial
from ..nn import functional as F

from . import constraints
from .discrete import _ProbsOrLogits
from .distribution import Distribution, as_size
from .discrete import Binomial
from .. import errors

__all__ = [
    "Categorical",
    "CategoricalWrapper",
    "Multinomial",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
]


class Categorical(_ProbsOrLogits):
    """:math:`P(i) = p_i`, :math:`i \\in \\{0, \\dots, K-1\\}`; ``probs`` are normalised
    along the last dim, ``logits`` are unnormalised log-probabilities."""

    arg_constraints = {
        "probs": constraints.simplex,
        "logits": constraints.independent(constraints.real, 1),
    }
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        given = probs if probs is not None else logits
        if given is not None and given.dim() < 1:
            raise errors.ShapeError(
                f"{type(self).__name__}: parameter "
                f"{'probs' if probs is not None else 'logits'} must have "
                "at least one dim, got a scalar"
            )
        p, _ = self._set(probs, logits, is_binary=False)
        self._num_events = p.shape[-1]
        super().__init__(p.shape[:-1], validate_args=validate_args)

    @property
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def param_shape(self):
        return self.probs.shape

    @property
    def mean(self):
        return full(tuple(self.batch_shape), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(-1)

    @property
    def variance(self):
        return full(tuple(self.batch_shape), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape=()):
        with no_grad():
            shape = as_size(sample_shape)
            flat = self.probs.reshape(-1, self._num_events)
            draws = multinomial(flat, max(shape.numel(), 1), replacement=True)
            return draws.mT.reshape(*(shape + self.batch_shape))  # (batch, n) -> shape

    def log_prob(self, value):
        self._check(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        tiny = finfo(self.logits.dtype).min
        return -(self.logits.clamp(min=tiny) * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = arange(self._num_events, device=self.probs.device)
        values = values.reshape((-1,) + (1,) * len(self.batch_shape))
        return values.expand(self._num_events, *self.batch_shape) if expand else values


class CategoricalWrapper(Distribution):
    """A distribution built on a Categorical ``_categorical`` (its probs and logits, the
    category count as the event shape)."""

    arg_constraints = Categorical.arg_constraints

    def _wrap(self, probs, logits, validate_args):
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        Distribution.__init__(
            self,
            self._categorical.batch_shape,
            self._categorical.param_shape[-1:],
            validate_args=validate_args,
        )

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new._categorical = self._categorical.expand(batch_shape)
        return new

    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)


class OneHotCategorical(CategoricalWrapper):
    """A Categorical whose samples are one-hot vectors of length K (event shape ``(K,)``)."""

    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._wrap(probs, logits, validate_args)

    mean = property(lambda self: self._categorical.probs)
    variance = property(lambda self: self.probs * (1 - self.probs))

    @property
    def mode(self):
        return F.one_hot(self._categorical.mode, self.event_shape[0]).to(self.probs.dtype)

    def sample(self, sample_shape=()):
        idx = self._categorical.sample(sample_shape)
        return F.one_hot(idx, self.event_shape[0]).to(self.probs.dtype)

    def log_prob(self, value):
        self._check(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self.event_shape[0]
        values = eye(n, dtype=self.probs.dtype, device=self.probs.device)
        values = values.reshape((n,) + (1,) * len(self.batch_shape) + (n,))
        return values.expand(n, *self.batch_shape, n) if expand else values


class Multinomial(CategoricalWrapper):
    """Counts of ``total_count`` categorical draws:
    :math:`P(x) = \\frac{n!}{\\prod x_i!} \\prod p_i^{x_i}`, :math:`\\sum x_i = n`."""

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise errors.ArgumentTypeError(
                f"Multinomial: total_count must be an int, got {type(total_count).__name__}"
            )
        self.total_count = total_count
        self._wrap(probs, logits, validate_args)

    @property
    def support(self):
        return constraints.multinomial(self.total_count)

    mean = property(lambda self: self.probs * self.total_count)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    def sample(self, sample_shape=()):
        idx = self._categorical.sample(Size([self.total_count]) + as_size(sample_shape))
        counts = F.one_hot(idx, self.event_shape[0]).sum(0)
        return counts.to(self.probs.dtype)

    def log_prob(self, value):
        self._check(value)
        logits, value = broadcast_tensors(self.logits, value)
        tiny = finfo(logits.dtype).min
        return (
            lgamma(value.sum(-1) + 1)
            - lgamma(value + 1).sum(-1)
            + (value * logits.clamp(min=tiny)).sum(-1)
        )

    def entropy(self):
        """By enumeration of the binomial marginals (as torch):
        :math:`H = -\\log n! - n\\sum p_i\\log p_i + \\sum_i E[\\log x_i!]`."""
        n = self.total_count
        binom = Binomial(n, probs=self.probs, validate_args=False)
        support = binom.enumerate_support(expand=False)[1:]
        log_factorial = lgamma(support + 1)
        weights = binom.log_prob(support).exp()
        return (
            -math.lgamma(n + 1)
            + n * Categorical(probs=self.probs, validate_args=False).entropy()
            + (weights * log_factorial).sum([0, -1])
        )


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A OneHotCategorical whose ``rsample`` is the straight-through estimator (Bengio et
    al., 2013): the one-hot sample forward, the gradient of ``probs`` backward,
    :math:`x + p - \\mathrm{stop\\_grad}(p)`."""

    has_rsample = True

    def rsample(self, sample_shape=()):
        x = self.sample(sample_shape)
        return x + (self.probs - self.probs.detach())
