"""``lucid.distributions``: probability distributions with sampling, reparameterised
sampling, densities and moments, their constraints, transforms and KL divergences, as
``torch.distributions``."""

from . import constraints, transforms
from .categorical import Categorical, Multinomial, OneHotCategorical
from .constraint_registry import biject_to, transform_to
from .discrete import Bernoulli, Binomial, Geometric, Poisson
from .distribution import Distribution, set_default_validate_args
from .gamma import Beta, Chi2, Dirichlet, Exponential, Gamma, StudentT
from .independent import Independent, MixtureSameFamily
from .kl import kl_divergence, register_kl
from .location_scale import Cauchy, Gumbel, Laplace, Normal, Uniform
from .multivariate_normal import LowRankMultivariateNormal, MultivariateNormal
from .relaxed import (ExpRelaxedCategorical, LogitRelaxedBernoulli, RelaxedBernoulli,
                      RelaxedOneHotCategorical)
from .transformed import HalfNormal, LogNormal, TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, ComposeTransform, ExpTransform,
                         PowerTransform, SigmoidTransform, SoftmaxTransform,
                         StickBreakingTransform, TanhTransform, Transform)
from .von_mises import VonMises

__all__ = ["AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical",
           "Cauchy", "Chi2", "ComposeTransform", "Dirichlet", "Distribution", "ExpTransform",
           "ExpRelaxedCategorical", "Exponential", "Gamma", "Geometric", "Gumbel",
           "HalfNormal", "Independent", "Laplace", "LogNormal", "LogitRelaxedBernoulli",
           "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial",
           "MultivariateNormal", "Normal", "OneHotCategorical", "Poisson", "PowerTransform",
           "RelaxedBernoulli", "RelaxedOneHotCategorical", "SigmoidTransform",
           "SoftmaxTransform", "StickBreakingTransform", "StudentT", "TanhTransform",
           "Transform", "TransformedDistribution", "Uniform", "VonMises", "biject_to",
           "constraints", "kl_divergence", "register_kl", "set_default_validate_args",
           "transform_to", "transforms"]
