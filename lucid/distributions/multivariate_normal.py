"""Gaussians over vectors: MultivariateNormal (full covariance through its Cholesky factor
:math:`L`, :math:`\\Sigma = LL^\\top`) and LowRankMultivariateNormal
(:math:`\\Sigma = WW^\\top + \\mathrm{diag}(D)`)."""

from ..ops import broadcast_shapes, diag_embed, diagonal, randn
from .. import linalg
from .. import errors

from . import constraints
from .distribution import LOG_2PI, Distribution

__all__ = ["LowRankMultivariateNormal", "MultivariateNormal"]


def _mahalanobis(L, diff):
    """:math:`\\|L^{-1} d\\|^2` for lower-triangular ``L``, broadcasting batch dims."""
    shape = broadcast_shapes(L.shape[:-2], diff.shape[:-1])
    L = L.expand(*shape, *L.shape[-2:])
    diff = diff.expand(*shape, diff.shape[-1])
    z = linalg.solve_triangular(L, diff.unsqueeze(-1), upper=False).squeeze(-1)
    return z.pow(2).sum(-1)


def _half_logdet(L):
    return diagonal(L, 0, -2, -1).log().sum(-1)


class ScaleTrilMatrices:
    """The matrices of a distribution parameterised by a Cholesky factor ``L`` (kept
    unbroadcast as ``_unbroadcasted_scale_tril``): ``scale_tril`` :math:`L`,
    ``covariance_matrix`` :math:`LL^\top` and ``precision_matrix`` :math:`(LL^\top)^{-1}`,
    each broadcast to the batch shape, and ``expand`` sharing ``L``."""

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    @property
    def scale_tril(self):
        L = self._unbroadcasted_scale_tril
        return L.expand(*self.batch_shape, *L.shape[-2:])

    @property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(*self.batch_shape, *L.shape[-2:])

    @property
    def precision_matrix(self):
        return linalg.inv(self.covariance_matrix)


class MultivariateNormal(ScaleTrilMatrices, Distribution):
    """:math:`p(x) = (2\\pi)^{-k/2} |\\Sigma|^{-1/2}
    e^{-\\frac12 (x-\\mu)^\\top\\Sigma^{-1}(x-\\mu)}`;
    give exactly one of ``covariance_matrix``, ``precision_matrix``, ``scale_tril``."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc,
        covariance_matrix=None,
        precision_matrix=None,
        scale_tril=None,
        validate_args=None,
    ):
        given = [
            (n, m)
            for n, m in (
                ("covariance_matrix", covariance_matrix),
                ("precision_matrix", precision_matrix),
                ("scale_tril", scale_tril),
            )
            if m is not None
        ]
        if len(given) != 1:
            raise errors.ArgumentError(
                "MultivariateNormal: give exactly one of "
                "covariance_matrix, precision_matrix, scale_tril; got "
                f"{[n for n, _ in given] or 'none'}"
            )
        name, matrix = given[0]
        if loc.dim() < 1 or matrix.dim() < 2:
            raise errors.ShapeError(
                "MultivariateNormal: loc needs at least one dim and "
                f"{name} two, got shapes {tuple(loc.shape)} and "
                f"{tuple(matrix.shape)}"
            )
        batch = broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        k = loc.shape[-1]
        self.loc = loc.expand(*batch, k)
        self.__dict__[name] = matrix.expand(*batch, k, k)  # validated as given
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = linalg.cholesky(matrix)
        else:  # Sigma = P^{-1}
            self._unbroadcasted_scale_tril = linalg.cholesky(linalg.inv(matrix))
        super().__init__(batch, (k,), validate_args=validate_args)

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)

    @property
    def variance(self):
        L = self._unbroadcasted_scale_tril
        return L.pow(2).sum(-1).expand(*self.batch_shape, *self.event_shape)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        eps = randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        self._check(value)
        L = self._unbroadcasted_scale_tril
        m = _mahalanobis(L, value - self.loc)
        return -0.5 * (self.event_shape[0] * LOG_2PI + m) - _half_logdet(L)

    def entropy(self):
        k = self.event_shape[0]
        h = 0.5 * k * (1.0 + LOG_2PI) + _half_logdet(self._unbroadcasted_scale_tril)
        return h.expand(*self.batch_shape) if self.batch_shape else h


class LowRankMultivariateNormal(Distribution):
    """A Gaussian with :math:`\\Sigma = WW^\\top + \\mathrm{diag}(D)`, ``cov_factor``
    :math:`W` (k x r), ``cov_diag`` :math:`D`; sampled as
    :math:`\\mu + W\\epsilon_1 + \\sqrt{D}\\odot\\epsilon_2`.

    The density uses the Cholesky factor of :math:`\\Sigma` (an O(k^3) factorisation; the
    Woodbury form torch uses for large k is left to a later change)."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if (
            cov_factor.dim() < 2
            or cov_factor.shape[-2] != loc.shape[-1]
            or cov_diag.shape[-1] != loc.shape[-1]
        ):
            raise errors.ShapeError(
                "LowRankMultivariateNormal: cov_factor must be (..., k, r) and cov_diag "
                f"(..., k) for loc (..., k); got {tuple(cov_factor.shape)}, "
                f"{tuple(cov_diag.shape)}, {tuple(loc.shape)}"
            )
        k = loc.shape[-1]
        batch = broadcast_shapes(loc.shape[:-1], cov_factor.shape[:-2], cov_diag.shape[:-1])
        self.loc = loc.expand(*batch, k)
        self.cov_factor = cov_factor.expand(*batch, *cov_factor.shape[-2:])
        self.cov_diag = cov_diag.expand(*batch, k)
        super().__init__(batch, (k,), validate_args=validate_args)

    @property
    def covariance_matrix(self):
        W = self.cov_factor
        return W @ W.mT + diag_embed(self.cov_diag)

    @property
    def precision_matrix(self):
        return linalg.inv(self.covariance_matrix)

    @property
    def scale_tril(self):
        return linalg.cholesky(self.covariance_matrix)

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)
    variance = property(lambda self: self.cov_factor.pow(2).sum(-1) + self.cov_diag)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        r = self.cov_factor.shape[-1]
        e1 = randn(shape[:-1] + (r,), dtype=self.loc.dtype, device=self.loc.device)
        e2 = randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return (
            self.loc + (self.cov_factor @ e1.unsqueeze(-1)).squeeze(-1) + self.cov_diag.sqrt() * e2
        )

    def log_prob(self, value):
        self._check(value)
        L = self.scale_tril
        m = _mahalanobis(L, value - self.loc)
        return -0.5 * (self.event_shape[0] * LOG_2PI + m) - _half_logdet(L)

    def entropy(self):
        k = self.event_shape[0]
        return 0.5 * k * (1.0 + LOG_2PI) + _half_logdet(self.scale_tril)
