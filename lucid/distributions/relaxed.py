"""Continuous relaxations of discrete distributions (Concrete / Gumbel-softmax; Maddison
et al. 2017, Jang et al. 2017), reparameterised: RelaxedBernoulli and
RelaxedOneHotCategorical, each a transformed logit-space base distribution."""

import math

from .._tensor import as_tensor
from ..ops import broadcast_tensors, log_softmax

from . import constraints
from .discrete import _ProbsOrLogits
from .categorical import CategoricalWrapper
from .location_scale import _open_uniform
from .transformed import TransformedDistribution
from .transforms import ExpTransform, SigmoidTransform

__all__ = [
    "ExpRelaxedCategorical",
    "LogitRelaxedBernoulli",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
]


class LogitRelaxedBernoulli(_ProbsOrLogits):
    """The logit of a RelaxedBernoulli: :math:`x = (\\ell + \\log u - \\log(1-u))/\\tau`."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        p, l = self._set(probs, logits)
        self.temperature = as_tensor(temperature, dtype=p.dtype)
        super().__init__(p.shape, validate_args=validate_args)

    def rsample(self, sample_shape=()):
        u = _open_uniform(self.logits, self._extended_shape(sample_shape))
        return (self.logits + u.log() - (-u).log1p()) / self.temperature

    def log_prob(self, value):
        self._check(value)
        logits, value = broadcast_tensors(self.logits, value)
        diff = logits - value * self.temperature
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """:math:`\\sigma(X)`, :math:`X \\sim` LogitRelaxedBernoulli(temperature, p), on (0, 1)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    temperature = property(lambda self: self.base_dist.temperature)
    probs = property(lambda self: self.base_dist.probs)
    logits = property(lambda self: self.base_dist.logits)


class ExpRelaxedCategorical(CategoricalWrapper):
    """The log of a RelaxedOneHotCategorical:
    :math:`x = \\mathrm{log\\_softmax}((\\ell + g)/\\tau)`, :math:`g` Gumbel noise;
    density (Maddison et al., eq. 13)
    :math:`\\log p(x) = \\log (K-1)! + (K-1)\\log\\tau + \\sum(\\ell - \\tau x)
    - K\\,\\mathrm{logsumexp}(\\ell - \\tau x)`."""

    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._wrap(probs, logits, validate_args)
        self.temperature = as_tensor(temperature, dtype=self.probs.dtype)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new.temperature = self.temperature  # one temperature per event: kept as given
        return new

    def rsample(self, sample_shape=()):
        u = _open_uniform(self.logits, self._extended_shape(sample_shape))
        gumbels = -(-u.log()).log()
        return log_softmax((self.logits + gumbels) / self.temperature, -1)

    def log_prob(self, value):
        self._check(value)
        k = self.event_shape[0]
        t = self.temperature
        score = self.logits - value * t
        return math.lgamma(k) + (k - 1) * t.log() + score.sum(-1) - k * score.logsumexp(-1)


class RelaxedOneHotCategorical(TransformedDistribution):
    """:math:`\\exp(X)`, :math:`X \\sim` ExpRelaxedCategorical: points on the simplex that
    approach one-hot vectors as the temperature goes to 0."""

    arg_constraints = {
        "probs": constraints.simplex,
        "logits": constraints.independent(constraints.real, 1),
    }
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    temperature = property(lambda self: self.base_dist.temperature)
    probs = property(lambda self: self.base_dist.probs)
    logits = property(lambda self: self.base_dist.logits)
