"""The Wishart distribution over positive-definite matrices."""

import math

from ..ops import arange, broadcast_shapes, diag_embed, diagonal, digamma, randn, where
from .. import linalg
from .. import special
from .. import errors

from . import constraints
from .distribution import Distribution, broadcast_all
from .gamma import _standard_gamma
from .multivariate_normal import ScaleTrilMatrices, _half_logdet

__all__ = ["Wishart"]


class Wishart(ScaleTrilMatrices, Distribution):
    """:math:`\\log p(X) = \\frac{\\nu-k-1}{2}\\log|X| - \\frac12\\mathrm{tr}(\\Sigma^{-1}X)
    - \\frac{\\nu k}{2}\\log 2 - \\frac{\\nu}{2}\\log|\\Sigma| - \\log\\Gamma_k(\\nu/2)` for
    :math:`k \\times k` :math:`X`; give ``df`` :math:`\\nu > k-1` and one of
    ``covariance_matrix``, ``precision_matrix``, ``scale_tril``. Sampled by Bartlett's
    decomposition :math:`X = LAA^\\top L^\\top`, :math:`A` lower triangular with
    :math:`A_{ii}^2 \\sim \\chi^2_{\\nu-i}` and standard normals below the diagonal."""

    support = constraints.positive_definite
    has_rsample = True

    def __init__(
        self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None
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
                "Wishart: give exactly one of covariance_matrix, "
                f"precision_matrix, scale_tril; got "
                f"{[n for n, _ in given] or 'none'}"
            )
        name, matrix = given[0]
        k = matrix.shape[-1]
        (df,) = broadcast_all(df)
        batch = broadcast_shapes(matrix.shape[:-2], df.shape)
        self.df = df.to(matrix.dtype).expand(*batch)
        self.__dict__[name] = matrix.expand(*batch, k, k)
        if name == "scale_tril":
            L = matrix
        elif name == "covariance_matrix":
            L = linalg.cholesky(matrix)
        else:
            L = linalg.cholesky(linalg.inv(matrix))
        self._unbroadcasted_scale_tril = L
        self.arg_constraints = {
            "df": constraints.greater_than(k - 1),
            name: constraints.lower_cholesky
            if name == "scale_tril"
            else constraints.positive_definite,
        }
        super().__init__(batch, (k, k), validate_args=validate_args)

    def _df(self):
        return self.df.reshape(*self.df.shape, 1, 1)

    mean = property(lambda self: self._df() * self.covariance_matrix)

    @property
    def mode(self):
        k = self.event_shape[0]
        m = (self._df() - k - 1) * self.covariance_matrix
        return where(self._df() > k + 1, m, math.nan)

    @property
    def variance(self):
        """:math:`\\mathrm{Var}(X_{ij}) = \\nu(\\Sigma_{ij}^2 + \\Sigma_{ii}\\Sigma_{jj})`."""
        s = self.covariance_matrix
        d = diagonal(s, 0, -2, -1)
        return self._df() * (s.pow(2) + d.unsqueeze(-1) * d.unsqueeze(-2))

    def rsample(self, sample_shape=()):
        k = self.event_shape[0]
        shape = tuple(self._extended_shape(sample_shape))[:-2]
        dt, dev = self.df.dtype, self.df.device
        offsets = arange(k, dtype=dt, device=dev)
        half_dof = 0.5 * (self.df.unsqueeze(-1) - offsets).expand(*shape, k)
        diag = (2 * _standard_gamma(half_dof)).sqrt()
        noise = randn(shape + (k, k), dtype=dt, device=dev).tril(-1)
        A = noise + diag_embed(diag)
        LA = self._unbroadcasted_scale_tril @ A
        return LA @ LA.mT

    def log_prob(self, value):
        self._check(value)
        nu, k = self.df, self.event_shape[0]
        L = self._unbroadcasted_scale_tril
        shape = broadcast_shapes(L.shape, value.shape)
        z = linalg.solve_triangular(L.expand(*shape), value.expand(*shape), upper=False)
        # tr(Sigma^{-1} X) = tr(L^{-T} L^{-1} X): solve L Z = X, then L^T W = Z
        w = linalg.solve_triangular(L.mT.expand(*shape), z, upper=True)
        trace = diagonal(w, 0, -2, -1).sum(-1)
        logdet_x = linalg.slogdet(value).logabsdet
        return (
            0.5 * (nu - k - 1) * logdet_x
            - 0.5 * trace
            - 0.5 * nu * k * math.log(2)
            - nu * _half_logdet(L)
            - special.multigammaln(0.5 * nu, k)
        )

    def entropy(self):
        nu, k = self.df, self.event_shape[0]
        offsets = arange(k, dtype=nu.dtype, device=nu.device)
        digammas = digamma(0.5 * (nu.unsqueeze(-1) - offsets)).sum(-1)
        return (
            (k + 1) * _half_logdet(self._unbroadcasted_scale_tril)
            + 0.5 * k * (k + 1) * math.log(2)
            + special.multigammaln(0.5 * nu, k)
            - 0.5 * (nu - k - 1) * digammas
            + 0.5 * nu * k
        )
