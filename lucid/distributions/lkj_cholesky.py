"""The LKJ distribution over Cholesky factors of correlation matrices (Lewandowski,
Kurowicka and Joe, 2009)."""

import math

from ..autograd import no_grad
from ..ops import arange, cat, diag_embed, diagonal, lgamma, randn, zeros
from .. import special
from .. import errors

from . import constraints
from .distribution import Distribution, broadcast_all
from .gamma import Beta

__all__ = ["LKJCholesky"]


class _CorrCholesky(constraints.Constraint):
    """Lower-triangular factors with a positive diagonal and unit-norm rows."""

    event_dim = 2

    def check(self, value):
        rows = (value.pow(2).sum(-1) - 1).abs() < 1e-6
        return constraints.lower_cholesky.check(value) & rows.all(-1)


class LKJCholesky(Distribution):
    """The Cholesky factor :math:`L` of a ``dim`` x ``dim`` correlation matrix
    :math:`LL^\\top` with :math:`p(LL^\\top) \\propto |LL^\\top|^{\\eta-1}`:
    :math:`\\log p(L) = \\sum_{i=2}^{d} (d - i + 2\\eta - 2)\\log L_{ii} - \\log c_d(\\eta)`,
    :math:`\\log c_d = \\frac{d-1}{2}\\log\\pi + \\log\\Gamma_{d-1}(\\eta + \\frac{d-2}{2})
    - (d-1)\\log\\Gamma(\\eta + \\frac{d-1}{2})`.

    Sampled by the onion method: row :math:`k` (:math:`k = 1..d-1`) is
    :math:`(\\sqrt{y_k}\\,u/\\|u\\|, \\sqrt{1-y_k})`, :math:`u \\sim N(0, I_k)`,
    :math:`y_k \\sim \\mathrm{Beta}(k/2, \\eta + (d-1-k)/2)`."""

    arg_constraints = {"concentration": constraints.positive}
    support = _CorrCholesky()

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if not isinstance(dim, int) or dim < 2:
            raise errors.ArgumentError(f"LKJCholesky: dim must be an int >= 2, got {dim!r}")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        super().__init__(self.concentration.shape, (dim, dim), validate_args=validate_args)

    def sample(self, sample_shape=()):
        with no_grad():
            d, eta = self.dim, self.concentration
            dt, dev = eta.dtype, eta.device
            k = arange(1, d, dtype=dt, device=dev)
            y = Beta(0.5 * k, eta.unsqueeze(-1) + 0.5 * (d - 1 - k), validate_args=False).sample(
                sample_shape
            )  # (..., d-1)
            shape = tuple(self._extended_shape(sample_shape))
            u = randn(shape, dtype=dt, device=dev).tril(-1)[..., 1:, :]
            u = u / u.pow(2).sum(-1, keepdim=True).sqrt()
            rows = u * y.sqrt().unsqueeze(-1)
            rows = rows + diag_embed((1 - y).sqrt(), offset=1)[..., :-1, :]
            first = zeros(shape[:-2] + (1, d), dtype=dt, device=dev)
            first[..., 0, 0] = 1.0
            return cat([first, rows], -2)

    def log_prob(self, value):
        self._check(value)
        d, eta = self.dim, self.concentration
        i = arange(2, d + 1, dtype=eta.dtype, device=eta.device)
        power = d - i + 2 * eta.unsqueeze(-1) - 2
        diag = diagonal(value, 0, -2, -1)[..., 1:]
        alpha = eta + 0.5 * (d - 1)
        log_c = (
            0.5 * (d - 1) * math.log(math.pi)
            + special.multigammaln(alpha - 0.5, d - 1)
            - (d - 1) * lgamma(alpha)
        )
        return (power * diag.log()).sum(-1) - log_c
