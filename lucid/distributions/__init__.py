"""``lucid.distributions``: probability distributions with sampling, reparameterised
sampling, densities and moments, their constraints, transforms and KL divergences, as
``torch.distributions``."""

from . import constraints, transforms
from .categorical import (
    Categorical,
    Multinomial,
    OneHotCategorical,
    OneHotCategoricalStraightThrough,
)
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .discrete import Bernoulli, Binomial, Geometric, NegativeBinomial, Poisson
from .distribution import Distribution, set_default_validate_args
from .generalized_pareto import GeneralizedPareto
from .gamma import Beta, Chi2, Dirichlet, Exponential, FisherSnedecor, Gamma, StudentT
from .independent import Independent, MixtureSameFamily
from .kl import kl_divergence, register_kl
from .lkj_cholesky import LKJCholesky
from .location_scale import Cauchy, Gumbel, Laplace, Normal, Uniform
from .multivariate_normal import LowRankMultivariateNormal, MultivariateNormal
from .relaxed import (
    ExpRelaxedCategorical,
    LogitRelaxedBernoulli,
    RelaxedBernoulli,
    RelaxedOneHotCategorical,
)
from .transformed import (
    HalfCauchy,
    HalfNormal,
    InverseGamma,
    Kumaraswamy,
    LogNormal,
    LogisticNormal,
    Pareto,
    TransformedDistribution,
    Weibull,
)
from .transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
)
from .von_mises import VonMises
from .wishart import Wishart

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Cauchy",
    "Chi2",
    "ComposeTransform",
    "ContinuousBernoulli",
    "CumulativeDistributionTransform",
    "Dirichlet",
    "Distribution",
    "ExpRelaxedCategorical",
    "ExpTransform",
    "Exponential",
    "FisherSnedecor",
    "Gamma",
    "GeneralizedPareto",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "IndependentTransform",
    "InverseGamma",
    "Kumaraswamy",
    "LKJCholesky",
    "Laplace",
    "LogNormal",
    "LogisticNormal",
    "LogitRelaxedBernoulli",
    "LowRankMultivariateNormal",
    "LowerCholeskyTransform",
    "MixtureSameFamily",
    "Multinomial",
    "MultivariateNormal",
    "NegativeBinomial",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Pareto",
    "Poisson",
    "PowerTransform",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StickBreakingTransform",
    "StudentT",
    "TanhTransform",
    "Transform",
    "TransformedDistribution",
    "Uniform",
    "VonMises",
    "Weibull",
    "Wishart",
    "biject_to",
    "constraints",
    "kl_divergence",
    "register_kl",
    "set_default_validate_args",
    "transform_to",
    "transforms",
]
