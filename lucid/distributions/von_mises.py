"""The von Mises distribution, a circular normal on :math:`[-\\pi, \\pi)`."""

import math

from ..autograd import no_grad
from ..dtypes import float64
from ..ops import ones, rand, where, zeros
from .. import dtypes as _dt
from .. import special

from . import constraints
from .distribution import Distribution, broadcast_all

__all__ = ["VonMises"]


class VonMises(Distribution):
    """:math:`p(x) = \\frac{e^{\\kappa\\cos(x-\\mu)}}{2\\pi I_0(\\kappa)}`; sampled by Best and
    Fisher's (1979) wrapped-Cauchy rejection, computed in float64."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.interval(-math.pi, math.pi)

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)

    @property
    def variance(self):
        k = self.concentration
        return 1 - (special.i1e(k) / special.i0e(k))

    def log_prob(self, value):
        self._check(value)
        k = self.concentration
        # log I0(k) = log i0e(k) + k
        return k * ((value - self.loc).cos() - 1) - math.log(2 * math.pi) - special.i0e(k).log()

    def sample(self, sample_shape=()):
        with no_grad():
            shape = tuple(self._extended_shape(sample_shape))
            k = self.concentration.to(float64).expand(*shape)
            tau = 1 + (1 + 4 * k * k).sqrt()
            rho = (tau - (2 * tau).sqrt()) / (2 * k)
            r = (1 + rho * rho) / (2 * rho)
            out = zeros(shape, dtype=float64, device=k.device)
            todo = ones(shape, dtype=_dt.bool, device=k.device)
            while bool(todo.any().item()):
                u1, u2, u3 = (rand(shape, dtype=float64, device=k.device) for _ in range(3))
                z = (math.pi * u1).cos()
                f = (1 + r * z) / (r + z)
                c = k * (r - f)
                ok = (c * (2 - c) > u2) | ((c / u2).log() + 1 - c >= 0)
                theta = (u3 - 0.5).sign() * f.clamp(min=-1.0, max=1.0).acos()
                out = where(todo & ok, theta, out)
                todo = todo & ~ok
            x = out + self.loc.to(float64)
            x = (x + math.pi).remainder(2 * math.pi) - math.pi
            return x.to(self.loc.dtype)
