"""Reshaping the batch of other distributions: Independent (batch dims reinterpreted as
event dims) and MixtureSameFamily (a categorical mixture over the rightmost batch dim)."""

from .._tensor import Size
from ..autograd import no_grad
from ..ops import broadcast_shapes
from .. import errors

from . import constraints
from .categorical import Categorical
from .distribution import Distribution, as_size, sum_rightmost

__all__ = ["Independent", "MixtureSameFamily"]


class Independent(Distribution):
    """``base_distribution`` with its rightmost ``reinterpreted_batch_ndims`` batch dims
    treated as event dims: :math:`\\log p(x) = \\sum_{\\text{those dims}} \\log p_i(x_i)`."""

    arg_constraints: dict = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        n = reinterpreted_batch_ndims
        if n > len(base_distribution.batch_shape):
            raise errors.ArgumentError(
                f"Independent: reinterpreted_batch_ndims must be at most the base batch "
                f"ndim {len(base_distribution.batch_shape)}, got {n}"
            )
        self.base_dist, self.reinterpreted_batch_ndims = base_distribution, n
        shape = base_distribution.batch_shape + base_distribution.event_shape
        cut = len(base_distribution.batch_shape) - n
        super().__init__(shape[:cut], shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        n = self.reinterpreted_batch_ndims
        tail = self.base_dist.batch_shape[len(self.base_dist.batch_shape) - n :]
        new.base_dist = self.base_dist.expand(new.batch_shape + tail)
        return new

    has_rsample = property(lambda self: self.base_dist.has_rsample)
    has_enumerate_support = property(
        lambda self: self.reinterpreted_batch_ndims == 0 and self.base_dist.has_enumerate_support
    )

    @property
    def support(self):
        s = self.base_dist.support
        return (
            constraints.independent(s, self.reinterpreted_batch_ndims)
            if self.reinterpreted_batch_ndims
            else s
        )

    mean = property(lambda self: self.base_dist.mean)
    mode = property(lambda self: self.base_dist.mode)
    variance = property(lambda self: self.base_dist.variance)

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"


class MixtureSameFamily(Distribution):
    """:math:`p(x) = \\sum_k \\pi_k p_k(x)`: ``mixture_distribution`` a Categorical over the
    rightmost batch dim of ``component_distribution``."""

    arg_constraints: dict = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise errors.ArgumentTypeError(
                "MixtureSameFamily: mixture_distribution must be a Categorical, got "
                f"{type(mixture_distribution).__name__}"
            )
        cb = component_distribution.batch_shape
        k = mixture_distribution.probs.shape[-1]
        if len(cb) < 1 or cb[-1] != k:
            raise errors.ShapeError(
                f"MixtureSameFamily: the component batch shape {tuple(cb)} must end in the "
                f"number of mixture components {k}"
            )
        batch = broadcast_shapes(mixture_distribution.batch_shape, cb[:-1])
        self._mixture = mixture_distribution
        self._component = component_distribution
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(batch, component_distribution.event_shape, validate_args=validate_args)

    mixture_distribution = property(lambda self: self._mixture)
    component_distribution = property(lambda self: self._component)
    support = property(lambda self: self._component.support)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        k = self._component.batch_shape[-1]
        new._component = self._component.expand(new.batch_shape + Size([k]))
        new._mixture = self._mixture.expand(new.batch_shape)
        return new

    def _pad(self, x):
        """Mixture weights shaped to broadcast against the component's event dims."""
        return x.reshape(*x.shape, *([1] * self._event_ndims))

    @property
    def mean(self):
        w = self._pad(self._mixture.probs)
        return (w * self._component.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        w = self._pad(self._mixture.probs)
        d = -1 - self._event_ndims
        mean = (w * self._component.mean).sum(d)
        within = (w * self._component.variance).sum(d)
        between = (w * (self._component.mean - mean.unsqueeze(d)).pow(2)).sum(d)
        return within + between

    def log_prob(self, value):
        self._check(value)
        x = value.unsqueeze(-1 - self._event_ndims)
        lp = self._component.log_prob(x)
        return (lp + self._mixture.logits).logsumexp(-1)

    def cdf(self, value):
        x = value.unsqueeze(-1 - self._event_ndims)
        return (self._component.cdf(x) * self._mixture.probs).sum(-1)

    def sample(self, sample_shape=()):
        with no_grad():
            sample_shape = as_size(sample_shape)
            idx = self._mixture.expand(self.batch_shape).sample(sample_shape)
            comps = self._component.sample(sample_shape)
            lead = tuple(idx.shape)
            idx = idx.reshape(*lead, 1, *([1] * self._event_ndims)).expand(
                *lead, 1, *self.event_shape
            )
            d = len(sample_shape) + len(self.batch_shape)
            return comps.gather(d, idx).squeeze(d)
