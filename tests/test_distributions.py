"""lucid.distributions against torch.distributions: densities, moments, entropies, CDFs,
KL values and gradients in float64; sample shapes and moments; validation errors."""

import math

import numpy as np
import pytest
import torch
import torch.distributions as TD

import lucid
import lucid.distributions as D
from lucid import errors

RNG = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _seeded():
    """Each test draws the same parameters and samples however the suite is run."""
    global RNG
    RNG = np.random.default_rng(0)
    lucid.manual_seed(0)


def L(a):
    return lucid.tensor(np.asarray(a, dtype=np.float64))


def T(a):
    return torch.tensor(np.asarray(a, dtype=np.float64))


def close(a, b, tol=1e-8):
    a = a.numpy() if isinstance(a, lucid.Tensor) else np.asarray(a)
    b = b.detach().numpy()
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def pos(*shape):
    return RNG.uniform(0.5, 3.0, shape)


def unit(*shape):
    return RNG.uniform(0.1, 0.9, shape)


def simplex(*shape):
    x = RNG.uniform(0.1, 1.0, shape)
    return x / x.sum(-1, keepdims=True)


LOC_SCALE = (lambda b: dict(loc=RNG.normal(size=b), scale=pos(*b)), lambda s: RNG.normal(size=s))

# name: (param dict builder, value builder) for a batch shape; parameters broadcast
# against each other where the family allows
CASES = {
    "Normal": LOC_SCALE,
    "Laplace": LOC_SCALE,
    "Cauchy": LOC_SCALE,
    "Gumbel": LOC_SCALE,
    "Uniform": (lambda b: dict(low=-pos(*b), high=pos(*b)), lambda s: RNG.uniform(-0.4, 0.4, s)),
    "Exponential": (lambda b: dict(rate=pos(*b)), lambda s: pos(*s)),
    "Gamma": (lambda b: dict(concentration=pos(*b), rate=pos(*b)), lambda s: pos(*s)),
    "Chi2": (lambda b: dict(df=pos(*b)), lambda s: pos(*s)),
    "Beta": (lambda b: dict(concentration1=pos(*b), concentration0=pos(*b)), lambda s: unit(*s)),
    "StudentT": (
        lambda b: dict(df=pos(*b) + 2, loc=RNG.normal(size=b), scale=pos(*b)),
        lambda s: RNG.normal(size=s),
    ),
    "LogNormal": (lambda b: dict(loc=RNG.normal(size=b), scale=pos(*b)), lambda s: pos(*s)),
    "HalfNormal": (lambda b: dict(scale=pos(*b)), lambda s: pos(*s)),
    "VonMises": (
        lambda b: dict(loc=RNG.normal(size=b), concentration=pos(*b)),
        lambda s: RNG.uniform(-3, 3, s),
    ),
    "Bernoulli": (lambda b: dict(probs=unit(*b)), lambda s: RNG.integers(0, 2, s)),
    "Geometric": (lambda b: dict(probs=unit(*b)), lambda s: RNG.integers(0, 5, s)),
    "Poisson": (lambda b: dict(rate=pos(*b)), lambda s: RNG.integers(0, 6, s)),
    "NegativeBinomial": (
        lambda b: dict(total_count=pos(*b), probs=unit(*b)),
        lambda s: RNG.integers(0, 6, s),
    ),
    "HalfCauchy": (lambda b: dict(scale=pos(*b)), lambda s: pos(*s)),
    "Pareto": (lambda b: dict(scale=pos(*b) / 2, alpha=pos(*b) + 2), lambda s: pos(*s) + 1.5),
    # concentration > 1: for k < 1 torch's mode is NaN where Lucid gives the true mode, 0
    "Weibull": (lambda b: dict(scale=pos(*b), concentration=pos(*b) + 1), lambda s: pos(*s)),
    "InverseGamma": (lambda b: dict(concentration=pos(*b) + 2, rate=pos(*b)), lambda s: pos(*s)),
    "FisherSnedecor": (lambda b: dict(df1=pos(*b) + 2, df2=pos(*b) + 4), lambda s: pos(*s)),
    "Kumaraswamy": (
        lambda b: dict(concentration1=pos(*b), concentration0=pos(*b)),
        lambda s: unit(*s),
    ),
    # probabilities on both sides of 1/2 and inside the Taylor band around it
    "ContinuousBernoulli": (
        lambda b: dict(probs=RNG.choice([0.1, 0.4995, 0.5, 0.7, 0.95], b)),
        lambda s: unit(*s),
    ),
}

# what each family defines (as torch does)
HAS = {
    "cdf": {
        "Normal",
        "Laplace",
        "Cauchy",
        "Gumbel",
        "Uniform",
        "Exponential",
        "Gamma",
        "LogNormal",
        "HalfNormal",
        "HalfCauchy",
        "Pareto",
        "Weibull",
        "InverseGamma",
        "ContinuousBernoulli",
    },
    "icdf": {
        "Normal",
        "Laplace",
        "Cauchy",
        "Uniform",
        "Exponential",
        "HalfNormal",
        "HalfCauchy",
        "Pareto",
        "ContinuousBernoulli",
    },
    "no_entropy": {"Poisson", "VonMises", "NegativeBinomial", "FisherSnedecor"},
}


def make(name, params):
    return (
        getattr(D, name)(**{k: L(v) for k, v in params.items()}),
        getattr(TD, name)(**{k: T(v) for k, v in params.items()}),
    )


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("batch", [(), (3,), (2, 3)])
def test_univariate_parity(name, batch):
    params, values = CASES[name]
    d, t = make(name, params(batch))
    assert tuple(d.batch_shape) == tuple(t.batch_shape)
    x = values((4,) + batch)  # a sample dim on top of the batch
    # torch's VonMises evaluates log I0 by a polynomial fit good to ~1e-7
    close(d.log_prob(L(x)), t.log_prob(T(x)), 1e-6 if name == "VonMises" else 1e-8)
    if name not in HAS["no_entropy"]:
        close(d.entropy(), t.entropy())
    for moment in ("mean", "variance", "mode"):
        if name in ("Uniform", "Kumaraswamy", "ContinuousBernoulli") and moment == "mode":
            continue  # torch: NaN, a NaN-giving formula, none
        close(getattr(d, moment), getattr(t, moment), 1e-6 if name == "VonMises" else 1e-8)
    if name in HAS["cdf"]:
        close(d.cdf(L(x)), t.cdf(T(x)))
    if name in HAS["icdf"]:
        u = RNG.uniform(0.05, 0.95, (4,) + batch)
        close(d.icdf(L(u)), t.icdf(T(u)))


def test_generalized_pareto():
    """In float32: torch's GeneralizedPareto compares with a float32 zero and rejects
    float64. Lucid's variance is inf (not NaN) for 1/2 <= xi < 1, where it diverges."""
    loc, scale, xi = [0.0, 1.0, -1.0, 0.5], [1.0, 2.0, 0.5, 1.5], [0.0, 0.3, -0.4, 0.2]
    f = lambda a: lucid.tensor(a, dtype=lucid.float32)  # noqa: E731
    g = lambda a: torch.tensor(a, dtype=torch.float32)  # noqa: E731
    d = D.GeneralizedPareto(f(loc), f(scale), f(xi))
    t = TD.GeneralizedPareto(g(loc), g(scale), g(xi))
    x = [0.5, 2.0, -0.7, 2.5]
    for got, want in (
        (d.log_prob(f(x)), t.log_prob(g(x))),
        (d.cdf(f(x)), t.cdf(g(x))),
        (d.icdf(f(x[:1] * 4).sigmoid()), t.icdf(g(x[:1] * 4).sigmoid())),
        (d.entropy(), t.entropy()),
        (d.mean, t.mean),
        (d.variance, t.variance),
    ):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    assert D.GeneralizedPareto(0.0, 1.0, 0.7).variance.item() == math.inf
    s = d.sample((20000,)).numpy()
    se = np.sqrt(d.variance.numpy() / 20000)
    assert np.all(np.abs(s.mean(0) - d.mean.numpy()) < 5 * se)
    assert (s >= np.array(loc) - 1e-6).all() and (s[:, 2] <= 0.25 + 1e-6).all()


def test_broadcasting_of_parameters_and_values():
    d = D.Normal(L(RNG.normal(size=(2, 1))), L(pos(3)))
    assert tuple(d.batch_shape) == (2, 3)
    x = RNG.normal(size=(5, 1, 3))
    t = TD.Normal(T(d.loc.numpy()), T(d.scale.numpy()))
    close(d.log_prob(L(x)), t.log_prob(T(x)))
    assert tuple(D.Normal(0.0, 1.0).batch_shape) == ()


@pytest.mark.parametrize("given", ["probs", "logits"])
def test_categorical_family(given):
    p = simplex(2, 4)
    arg = p if given == "probs" else np.log(p) + 0.3
    d, t = D.Categorical(**{given: L(arg)}), TD.Categorical(**{given: T(arg)})
    idx = RNG.integers(0, 4, (5, 2))
    close(d.log_prob(lucid.tensor(idx)), t.log_prob(torch.tensor(idx)))
    close(d.entropy(), t.entropy())
    close(d.logits, t.logits)
    close(d.probs, t.probs)
    o, to = D.OneHotCategorical(**{given: L(arg)}), TD.OneHotCategorical(**{given: T(arg)})
    onehot = np.eye(4)[idx]
    close(o.log_prob(L(onehot)), to.log_prob(T(onehot)))
    close(o.entropy(), to.entropy())
    close(o.variance, to.variance)
    m, tm = D.Multinomial(6, **{given: L(arg)}), TD.Multinomial(6, **{given: T(arg)})
    counts = m.sample((3,))
    close(m.log_prob(counts), tm.log_prob(T(counts.numpy())))
    close(m.entropy(), tm.entropy(), 1e-6)  # torch takes log n! in float32
    close(m.variance, tm.variance)
    b, tb = D.Binomial(7, **{given: L(arg[:, 0])}), TD.Binomial(7, **{given: T(arg[:, 0])})
    k = RNG.integers(0, 8, (3, 2)).astype(float)
    close(b.log_prob(L(k)), tb.log_prob(T(k)))
    close(b.entropy(), tb.entropy())
    close(b.mean, tb.mean)
    close(b.variance, tb.variance)


def test_bernoulli_logits():
    lg = RNG.normal(size=(3,)) * 3
    d, t = D.Bernoulli(logits=L(lg)), TD.Bernoulli(logits=T(lg))
    x = RNG.integers(0, 2, (4, 3))
    close(d.log_prob(L(x)), t.log_prob(T(x)))
    close(d.entropy(), t.entropy())
    close(d.probs, t.probs)


def _spd(*batch, k=3):
    a = RNG.normal(size=batch + (k, k))
    return a @ np.swapaxes(a, -1, -2) + np.eye(k)


@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_multivariate_normal(kind):
    s = _spd(2)
    m = np.linalg.cholesky(s) if kind == "scale_tril" else s
    loc = RNG.normal(size=(3,))
    d = D.MultivariateNormal(L(loc), **{kind: L(m)})
    t = TD.MultivariateNormal(T(loc), **{kind: T(m)})
    x = RNG.normal(size=(4, 2, 3))
    close(d.log_prob(L(x)), t.log_prob(T(x)))
    close(d.entropy(), t.entropy())
    close(d.variance, t.variance)
    close(d.covariance_matrix, t.covariance_matrix)
    close(d.precision_matrix, t.precision_matrix)
    assert tuple(d.sample((5,)).shape) == (5, 2, 3)


@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_wishart(kind):
    s = _spd(2)
    m = np.linalg.cholesky(s) if kind == "scale_tril" else s
    df = np.array([4.5, 7.0])
    d, t = D.Wishart(L(df), **{kind: L(m)}), TD.Wishart(T(df), **{kind: T(m)})
    b = RNG.normal(size=(5, 2, 3, 3))
    x = b @ np.swapaxes(b, -1, -2) + np.eye(3)
    close(d.log_prob(L(x)), t.log_prob(T(x)))
    for name in ("entropy", "mean", "variance", "mode"):
        got, want = getattr(d, name), getattr(t, name)
        close(got() if callable(got) else got, want() if callable(want) else want)
    samples = d.sample((4000,)).numpy()
    assert samples.shape == (4000, 2, 3, 3)
    se = np.sqrt(d.variance.numpy() / 4000)
    assert np.all(np.abs(samples.mean(0) - d.mean.numpy()) < 5 * se)
    with pytest.raises(errors.ArgumentError, match="Wishart: parameter df"):
        D.Wishart(L(1.0), covariance_matrix=L(np.eye(3)))


@pytest.mark.parametrize("dim,eta", [(2, 0.5), (4, 2.5)])
def test_lkj_cholesky(dim, eta):
    """log_prob against torch; every correlation r of LL^T has Var(r) = 1/(2 eta + d - 1)."""
    d = D.LKJCholesky(dim, L([eta, eta + 1]))
    t = TD.LKJCholesky(dim, T([eta, eta + 1]))
    s = d.sample((4000,))
    assert tuple(s.shape) == (4000, 2, dim, dim)
    assert bool(lucid.all(d.support.check(s)).item())
    close(d.log_prob(s[:5]), t.log_prob(T(s[:5].numpy())))
    corr = (s @ s.mT).numpy()
    expected = 1 / (2 * np.array([eta, eta + 1]) + dim - 1)
    for i, j in [(1, 0), (dim - 1, dim - 2)]:
        np.testing.assert_allclose(corr[..., i, j].var(0), expected, rtol=0.1)


def test_low_rank_multivariate_normal_and_dirichlet():
    loc, w, diag = RNG.normal(size=(2, 3)), RNG.normal(size=(3, 2)), pos(3)
    d = D.LowRankMultivariateNormal(L(loc), L(w), L(diag))
    t = TD.LowRankMultivariateNormal(T(loc), T(w), T(diag))
    x = RNG.normal(size=(4, 2, 3))
    close(d.log_prob(L(x)), t.log_prob(T(x)))
    close(d.entropy(), t.entropy())
    close(d.variance, t.variance)
    a = pos(2, 4)
    d, t = D.Dirichlet(L(a)), TD.Dirichlet(T(a))
    x = simplex(5, 2, 4)
    close(d.log_prob(L(x)), t.log_prob(T(x)))
    close(d.entropy(), t.entropy())
    close(d.mean, t.mean)
    close(d.variance, t.variance)


def test_independent_mixture_transformed_relaxed():
    loc, scale = RNG.normal(size=(3, 2)), pos(3, 2)
    d = D.Independent(D.Normal(L(loc), L(scale)), 1)
    t = TD.Independent(TD.Normal(T(loc), T(scale)), 1)
    assert (tuple(d.batch_shape), tuple(d.event_shape)) == ((3,), (2,))
    x = RNG.normal(size=(4, 3, 2))
    close(d.log_prob(L(x)), t.log_prob(T(x)))
    close(d.entropy(), t.entropy())
    w = simplex(3)
    m = D.MixtureSameFamily(D.Categorical(probs=L(w)), d)
    tm = TD.MixtureSameFamily(TD.Categorical(probs=T(w)), t)
    close(m.log_prob(L(x[:, 0])), tm.log_prob(T(x[:, 0])))
    close(m.mean, tm.mean)
    close(m.variance, tm.variance)
    assert tuple(m.sample((6,)).shape) == (6, 2)
    chain = [D.AffineTransform(L(loc[0]), L(scale[0])), D.TanhTransform()]
    tchain = [TD.AffineTransform(T(loc[0]), T(scale[0])), TD.TanhTransform()]
    td = D.TransformedDistribution(D.Normal(L(np.zeros(2)), 1.0), chain)
    tt = TD.TransformedDistribution(TD.Normal(T(np.zeros(2)), 1.0), tchain)
    y = RNG.uniform(-0.9, 0.9, (4, 2))
    close(td.log_prob(L(y)), tt.log_prob(T(y)))
    ln, tln = D.LogisticNormal(L(loc), L(scale)), TD.LogisticNormal(T(loc), T(scale))
    y = simplex(3, 3)
    close(ln.log_prob(L(y)), tln.log_prob(T(y)))
    assert tuple(ln.sample((4,)).shape) == (4, 3, 3)
    p = unit(3)
    r = D.RelaxedBernoulli(L(0.6), probs=L(p))
    tr = TD.RelaxedBernoulli(T(0.6), probs=T(p))
    y = unit(4, 3)
    close(r.log_prob(L(y)), tr.log_prob(T(y)))
    p = simplex(2, 3)
    r = D.RelaxedOneHotCategorical(L(0.6), probs=L(p))
    tr = TD.RelaxedOneHotCategorical(T(0.6), probs=T(p))
    y = simplex(4, 2, 3)
    close(r.log_prob(L(y)), tr.log_prob(T(y)), 1e-7)


KL_PAIRS = {
    "Normal": lambda: dict(loc=RNG.normal(size=3), scale=pos(3)),
    "Laplace": lambda: dict(loc=RNG.normal(size=3), scale=pos(3)),
    "Cauchy": lambda: dict(loc=RNG.normal(size=3), scale=pos(3)),
    "Gumbel": lambda: dict(loc=RNG.normal(size=3), scale=pos(3)),
    "Exponential": lambda: dict(rate=pos(3)),
    "Gamma": lambda: dict(concentration=pos(3), rate=pos(3)),
    "Beta": lambda: dict(concentration1=pos(3), concentration0=pos(3)),
    "Dirichlet": lambda: dict(concentration=pos(2, 3)),
    "Poisson": lambda: dict(rate=pos(3)),
    "Geometric": lambda: dict(probs=unit(3)),
    "Bernoulli": lambda: dict(probs=unit(3)),
    "Categorical": lambda: dict(probs=simplex(2, 3)),
    "OneHotCategorical": lambda: dict(probs=simplex(2, 3)),
    "LogNormal": lambda: dict(loc=RNG.normal(size=3), scale=pos(3)),
    "HalfNormal": lambda: dict(scale=pos(3)),
    "MultivariateNormal": lambda: dict(loc=RNG.normal(size=(2, 3)), covariance_matrix=_spd(2)),
    "ContinuousBernoulli": lambda: dict(probs=RNG.choice([0.1, 0.4995, 0.5, 0.7, 0.95], 5)),
    "Pareto": lambda: dict(scale=pos(4), alpha=pos(4)),  # some supports not nested: inf
}


@pytest.mark.parametrize("name", sorted(KL_PAIRS))
def test_kl_parity(name):
    (p, tp), (q, tq) = make(name, KL_PAIRS[name]()), make(name, KL_PAIRS[name]())
    close(D.kl_divergence(p, q), TD.kl_divergence(tp, tq))


CROSS_KL = [
    ("Exponential", "Gamma"),
    ("Gamma", "Exponential"),
    ("Exponential", "Normal"),
    ("Laplace", "Normal"),
    ("Normal", "Laplace"),
    ("Normal", "Gumbel"),
    ("Uniform", "Normal"),
    ("Uniform", "Exponential"),
    ("Uniform", "Gamma"),
]


@pytest.mark.parametrize("pair", CROSS_KL, ids="-".join)
def test_kl_cross_family_parity(pair):
    a, b = pair
    pa = CASES[a][0]((3,))
    if a == "Uniform":  # some supports inside (0, inf), one not
        pa = dict(low=np.array([-0.5, 0.2, 0.0]), high=pos(3) + 1)
    (p, tp), (q, tq) = make(a, pa), make(b, KL_PAIRS[b]())
    close(D.kl_divergence(p, q), TD.kl_divergence(tp, tq))


def test_kl_uniform_independent_binomial():
    lo, hi = -pos(3), pos(3)
    p, tp = D.Uniform(L(lo), L(hi)), TD.Uniform(T(lo), T(hi))
    q, tq = (
        D.Uniform(L(lo - 1), L(hi + np.array([1, -0.2, 1]))),
        TD.Uniform(T(lo - 1), T(hi + np.array([1, -0.2, 1]))),
    )
    close(D.kl_divergence(p, q), TD.kl_divergence(tp, tq))
    a, b = (
        make("Normal", dict(loc=RNG.normal(size=(2, 3)), scale=pos(2, 3))),
        make("Normal", dict(loc=RNG.normal(size=(2, 3)), scale=pos(2, 3))),
    )
    close(
        D.kl_divergence(D.Independent(a[0], 1), D.Independent(b[0], 1)),
        TD.kl_divergence(TD.Independent(a[1], 1), TD.Independent(b[1], 1)),
    )
    p1, p2 = unit(3), unit(3)
    close(
        D.kl_divergence(D.Binomial(5, L(p1)), D.Binomial(5, L(p2))),
        TD.kl_divergence(TD.Binomial(5, T(p1)), TD.Binomial(5, T(p2))),
    )


def test_register_kl_most_specific_match():
    class MyNormal(D.Normal):
        pass

    @D.register_kl(MyNormal, D.Normal)
    def _kl(p, q):
        return lucid.tensor(-1.0)

    assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0)).item() == -1.0
    assert D.kl_divergence(D.Normal(0.0, 1.0), MyNormal(0.0, 1.0)).item() == 0.0
    with pytest.raises(NotImplementedError, match="Normal || Gamma"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Gamma(1.0, 1.0))


def _grads(family, tfamily, params, fn, tol=1e-7):
    lp = {k: L(v).requires_grad_() for k, v in params.items()}
    tp = {k: T(v).requires_grad_() for k, v in params.items()}
    fn(family(**lp), lucid).backward()
    fn(tfamily(**tp), torch).backward()
    for k in params:
        close(lp[k].grad, tp[k].grad, tol)


@pytest.mark.parametrize(
    "name", ["Normal", "Gamma", "Beta", "StudentT", "VonMises", "Laplace", "Gumbel"]
)
def test_log_prob_gradients(name):
    params, values = CASES[name]
    x = values((5, 3))

    def loss(d, lib):
        return d.log_prob(L(x) if lib is lucid else T(x)).sum() + (
            d.entropy().sum() if name != "VonMises" else 0
        )

    _grads(
        getattr(D, name),
        getattr(TD, name),
        params((3,)),
        loss,
        1e-5 if name == "VonMises" else 1e-7,
    )


def test_kl_gradients():
    pa, pb = KL_PAIRS["MultivariateNormal"](), KL_PAIRS["MultivariateNormal"]()
    q, tq = make("MultivariateNormal", pb)

    def loss(d, lib):
        return (D if lib is lucid else TD).kl_divergence(d, q if lib is lucid else tq).sum()

    _grads(D.MultivariateNormal, TD.MultivariateNormal, pa, loss)


@pytest.mark.parametrize("dtype", [lucid.float64, lucid.float32])
def test_gamma_rsample_concentration_gradient(dtype):
    """The implicit reparameterisation: d E[x] / d alpha = 1 / rate."""
    lucid.manual_seed(1)
    a = lucid.tensor([0.4, 2.0, 6.0], dtype=dtype).requires_grad_()
    D.Gamma(a, 2.0).rsample((4000,)).mean(0).sum().backward()
    assert a.grad.dtype == dtype
    np.testing.assert_allclose(a.grad.numpy(), 0.5, atol=0.03)


def test_beta_dirichlet_rsample_gradients():
    """d E[x]/d(a, b) for Beta: (b, -a)/(a+b)^2, through the Dirichlet's gamma variates."""
    lucid.manual_seed(5)
    c = L([2.0, 3.0]).requires_grad_()
    D.Beta(c[0], c[1]).rsample((4000,)).mean().backward()
    np.testing.assert_allclose(c.grad.numpy(), [3 / 25, -2 / 25], atol=0.015)
    a = L([1.0, 2.0, 3.0]).requires_grad_()
    (D.Dirichlet(a).rsample((3000,))[:, 0]).mean().backward()
    np.testing.assert_allclose(a.grad.numpy(), [5 / 36, -1 / 36, -1 / 36], atol=0.015)


SAMPLERS = {
    "Normal": dict(loc=[0.5, -1.0], scale=[1.0, 2.0]),
    "Gamma": dict(concentration=[0.5, 3.0], rate=[1.0, 2.0]),
    "Beta": dict(concentration1=[0.7, 3.0], concentration0=[2.0, 1.5]),
    "StudentT": dict(df=[5.0, 9.0], loc=[0.0, 1.0], scale=[1.0, 0.5]),
    "Laplace": dict(loc=[0.5, -1.0], scale=[1.0, 2.0]),
    "Gumbel": dict(loc=[0.5, -1.0], scale=[1.0, 2.0]),
    "Exponential": dict(rate=[0.5, 3.0]),
    "Uniform": dict(low=[0.0, -2.0], high=[1.0, 3.0]),
    "LogNormal": dict(loc=[0.0, 0.3], scale=[0.3, 0.5]),
    "HalfNormal": dict(scale=[1.0, 2.0]),
    "Chi2": dict(df=[3.0, 7.0]),
    "Poisson": dict(rate=[0.5, 6.0]),
    "Bernoulli": dict(probs=[0.2, 0.7]),
    "Geometric": dict(probs=[0.3, 0.8]),
    "Binomial": dict(total_count=[5.0, 12.0], probs=[0.3, 0.6]),
    "NegativeBinomial": dict(total_count=[3.0, 7.5], probs=[0.3, 0.6]),
    "Weibull": dict(scale=[1.0, 2.0], concentration=[1.5, 4.0]),
    "Pareto": dict(scale=[1.0, 2.0], alpha=[9.0, 12.0]),
    "InverseGamma": dict(concentration=[9.0, 12.0], rate=[1.0, 3.0]),
    "FisherSnedecor": dict(df1=[8.0, 20.0], df2=[40.0, 60.0]),
    "ContinuousBernoulli": dict(probs=[0.2, 0.5]),
    "Kumaraswamy": dict(concentration1=[0.8, 3.0], concentration0=[2.0, 1.5]),
}


@pytest.mark.parametrize("name", ["Normal", "LogNormal", "Laplace", "Exponential", "Uniform"])
def test_rsample_gradients_match_pathwise_formula(name):
    """A reparameterised sample's gradient equals dx/dtheta of the sampling map."""
    p = {k: L(v).requires_grad_() for k, v in SAMPLERS[name].items()}
    d = getattr(D, name)(**p)
    assert d.has_rsample
    lucid.manual_seed(0)
    x = d.rsample((2000,))
    x.mean(0).sum().backward()
    # the mean's gradient is the gradient of the analytic mean, up to Monte Carlo error
    p2 = {k: v.detach().requires_grad_() for k, v in p.items()}
    getattr(D, name)(**p2).mean.sum().backward()
    for k in p:
        expected = p2[k].grad.numpy() if p2[k].grad is not None else 0.0
        np.testing.assert_allclose(p[k].grad.numpy(), expected, rtol=0.05, atol=0.1)


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_sample_moments(name):
    lucid.manual_seed(2)
    d = getattr(D, name)(**{k: L(v) for k, v in SAMPLERS[name].items()})
    n = 4000
    s = d.sample((n, 3))
    assert tuple(s.shape) == (n, 3, 2)
    s = s.reshape(-1, 2).numpy()
    mean, var = d.mean.numpy(), d.variance.numpy()
    se = np.sqrt(var / s.shape[0])
    assert np.all(np.abs(s.mean(0) - mean) < 5 * se), (s.mean(0), mean)
    assert np.all(np.abs(s.var(0) - var) < 0.1 * var + 1e-3), (s.var(0), var)


def test_von_mises_sample_circular_moments():
    """E[cos(x - loc)] = I1(k)/I0(k) = 1 - circular variance; samples lie in [-pi, pi)."""
    lucid.manual_seed(4)
    d = D.VonMises(L([0.5, -3.0]), L([2.0, 8.0]))
    s = d.sample((4000,)).numpy()
    assert s.shape == (4000, 2) and (np.abs(s) <= math.pi).all()
    np.testing.assert_allclose(np.cos(s - d.loc.numpy()).mean(0), 1 - d.variance.numpy(), atol=0.03)
    np.testing.assert_allclose(np.sin(s - d.loc.numpy()).mean(0), 0.0, atol=0.03)


def test_multivariate_sample_moments():
    lucid.manual_seed(3)
    cov = _spd(k=3)
    d = D.MultivariateNormal(L([1.0, 0.0, -1.0]), covariance_matrix=L(cov))
    s = d.sample((20000,)).numpy()
    se = np.sqrt(cov.diagonal() / 20000)
    np.testing.assert_allclose(s.mean(0), [1.0, 0.0, -1.0], atol=5 * se.max())
    np.testing.assert_allclose(np.cov(s.T), cov, rtol=0.1, atol=0.1)
    a = L([1.0, 2.0, 3.0])
    s = D.Dirichlet(a).sample((4000,))
    assert tuple(s.shape) == (4000, 3)
    np.testing.assert_allclose(s.numpy().mean(0), [1 / 6, 2 / 6, 3 / 6], atol=0.02)
    c = D.Categorical(probs=L([0.2, 0.3, 0.5])).sample((4000,)).numpy()
    np.testing.assert_allclose(np.bincount(c, minlength=3) / 4000, [0.2, 0.3, 0.5], atol=0.03)
    m = D.Multinomial(10, probs=L([0.2, 0.3, 0.5])).sample((2000,)).numpy()
    assert (m.sum(-1) == 10).all()
    np.testing.assert_allclose(m.mean(0), [2, 3, 5], atol=0.15)
    o = D.OneHotCategorical(probs=L([[0.2, 0.8], [0.5, 0.5]])).sample((7,))
    assert tuple(o.shape) == (7, 2, 2) and (o.sum(-1).numpy() == 1).all()
    lr = D.LowRankMultivariateNormal(L(np.zeros(3)), L(np.ones((3, 1))), L(np.ones(3)))
    s = lr.sample((20000,)).numpy()
    np.testing.assert_allclose(np.cov(s.T), np.ones((3, 3)) + np.eye(3), atol=0.1)


def test_expand():
    d = D.Normal(L([0.0, 1.0]), L([1.0, 2.0])).expand((3, 2))
    assert tuple(d.batch_shape) == (3, 2)
    assert tuple(d.sample((4,)).shape) == (4, 3, 2)
    c = D.Categorical(logits=L(np.zeros(3))).expand((5,))
    assert tuple(c.probs.shape) == (5, 3) and tuple(c.sample().shape) == (5,)
    mvn = D.MultivariateNormal(L(np.zeros(2)), scale_tril=L(np.eye(2))).expand((4,))
    assert tuple(mvn.log_prob(L(np.zeros((4, 2)))).shape) == (4,)
    b = D.Beta(1.0, 2.0).expand((3,))
    assert tuple(b.sample().shape) == (3,)
    wrapped = {
        D.Multinomial(4, probs=L([0.2, 0.8])): (3, 2),
        D.OneHotCategorical(logits=L(np.zeros(3))): (3, 3),
        D.RelaxedOneHotCategorical(L(0.5), logits=L(np.zeros(3))): (3, 3),
        D.Pareto(1.0, L([3.0, 4.0])).expand((1, 2)): (3, 2),
        D.LogNormal(0.0, L([1.0, 2.0])).expand((1, 2)): (3, 2),
        D.Independent(D.Normal(L(np.zeros(3)), 1.0), 1): (3, 3),
        D.TransformedDistribution(D.Normal(L(np.zeros(3)), 1.0), D.StickBreakingTransform()): (
            3,
            4,
        ),
        D.MixtureSameFamily(D.Categorical(logits=L(np.zeros(2))), D.Normal(L(np.zeros(2)), 1.0)): (
            3,
        ),
    }
    for d, shape in wrapped.items():
        e = d.expand((3,) if len(d.batch_shape) < 2 else (3, 2))
        assert tuple(e.sample().shape) == shape, type(d).__name__
        assert tuple(e.log_prob(e.sample()).shape) == tuple(e.batch_shape)


def test_validation_errors():
    with pytest.raises(errors.ArgumentError, match="Normal: parameter scale"):
        D.Normal(L(0.0), L(-1.0))
    with pytest.raises(errors.ArgumentError, match="Bernoulli: parameter probs"):
        D.Bernoulli(probs=L(1.5))
    with pytest.raises(errors.ArgumentError, match="exactly one of probs or logits"):
        D.Categorical(probs=L([0.5, 0.5]), logits=L([0.0, 0.0]))
    with pytest.raises(errors.ArgumentError, match="Gamma: value must be in the support"):
        D.Gamma(1.0, 1.0).log_prob(L(-1.0))
    with pytest.raises(errors.ArgumentError, match="Uniform: parameter low"):
        D.Uniform(L(1.0), L(0.0))
    with pytest.raises(errors.ArgumentError, match="MultivariateNormal: parameter scale_tril"):
        D.MultivariateNormal(L(np.zeros(2)), scale_tril=L(-np.eye(2)))
    with pytest.raises(errors.ShapeError, match="event shape"):
        D.Dirichlet(L([1.0, 1.0])).log_prob(L([0.2, 0.3, 0.5]))
    with pytest.raises(NotImplementedError, match="rsample is not available"):
        D.Poisson(L(1.0)).rsample()
    # validation off: no checks, the formula's value (NaN for a negative scale)
    d = D.Normal(L(0.0), L(-1.0), validate_args=False)
    assert math.isnan(d.log_prob(L(0.0)).item())
    D.set_default_validate_args(False)
    try:
        D.Gamma(1.0, 1.0).log_prob(L(-1.0))
    finally:
        D.set_default_validate_args(True)


def test_constraints():
    C = D.constraints
    x = L([-1.0, 0.0, 0.5, 2.0])
    assert C.positive.check(x).numpy().tolist() == [False, False, True, True]
    assert C.nonnegative.check(x).numpy().tolist() == [False, True, True, True]
    assert C.unit_interval.check(x).numpy().tolist() == [False, True, True, False]
    assert C.integer_interval(0, 2).check(x).numpy().tolist() == [False, True, False, True]
    assert C.nonnegative_integer.check(x).numpy().tolist() == [False, True, False, True]
    assert C.greater_than(-1.0).check(x).numpy().tolist() == [False, True, True, True]
    assert C.interval(0.0, 0.5).check(x).numpy().tolist() == [False, True, True, False]
    assert C.boolean.check(x).numpy().tolist() == [False, True, False, False]
    assert C.simplex.check(L([[0.2, 0.8], [0.5, 0.6]])).numpy().tolist() == [True, False]
    assert C.lower_cholesky.check(
        L([[[1.0, 0.0], [2.0, 1.0]], [[1.0, 1.0], [0.0, 1.0]]])
    ).numpy().tolist() == [True, False]
    assert C.positive_definite.check(L(_spd(2))).numpy().tolist() == [True, True]
    assert not C.positive_definite.check(L(-np.eye(2))).item()
    assert C.square.check(L(np.zeros((2, 3, 3)))).numpy().tolist() == [True, True]
    assert not C.square.check(L(np.zeros((2, 3)))).item()
    assert C.symmetric.check(L(_spd(2))).numpy().tolist() == [True, True]


def test_straight_through_gradient():
    """x + p - stop_grad(p): a one-hot forward, d/dp of the loss backward."""
    p = L([0.2, 0.3, 0.8]).requires_grad_()
    x = D.OneHotCategoricalStraightThrough(probs=p).rsample((4,))
    assert (x.detach().sum(-1).numpy() == 1).all()
    (x * L([1.0, 2.0, 3.0])).sum().backward()
    tp = T([0.2, 0.3, 0.8]).requires_grad_()
    (tp / tp.sum() * T([1.0, 2.0, 3.0]) * 4).sum().backward()
    close(p.grad, tp.grad)


TRANSFORMS = [
    (lambda: D.ExpTransform(), lambda: TD.ExpTransform(), lambda: RNG.normal(size=(4, 3))),
    (
        lambda: D.AffineTransform(L([1.0, 2.0, -1.0]), L([2.0, -0.5, 3.0])),
        lambda: TD.AffineTransform(T([1.0, 2.0, -1.0]), T([2.0, -0.5, 3.0])),
        lambda: RNG.normal(size=(4, 3)),
    ),
    (lambda: D.SigmoidTransform(), lambda: TD.SigmoidTransform(), lambda: RNG.normal(size=(4, 3))),
    (lambda: D.TanhTransform(), lambda: TD.TanhTransform(), lambda: RNG.normal(size=(4, 3))),
    (lambda: D.PowerTransform(L(2.5)), lambda: TD.PowerTransform(T(2.5)), lambda: pos(4, 3)),
    (
        lambda: D.StickBreakingTransform(),
        lambda: TD.StickBreakingTransform(),
        lambda: RNG.normal(size=(4, 3)),
    ),
    (
        lambda: D.SoftplusTransform(),
        lambda: TD.SoftplusTransform(),
        lambda: RNG.normal(size=(4, 3)),
    ),
    (
        lambda: D.IndependentTransform(D.ExpTransform(), 1),
        lambda: TD.IndependentTransform(TD.ExpTransform(), 1),
        lambda: RNG.normal(size=(4, 3)),
    ),
    (
        lambda: D.ReshapeTransform((3,), (3, 1)),
        lambda: TD.ReshapeTransform((3,), (3, 1)),
        lambda: RNG.normal(size=(4, 3)),
    ),
    (
        lambda: D.CumulativeDistributionTransform(D.Normal(L(0.5), L(2.0))),
        lambda: TD.CumulativeDistributionTransform(TD.Normal(T(0.5), T(2.0))),
        lambda: RNG.normal(size=(4, 3)),
    ),
    (
        lambda: D.ComposeTransform([D.AffineTransform(0.5, 2.0), D.ExpTransform()]),
        lambda: TD.ComposeTransform([TD.AffineTransform(0.5, 2.0), TD.ExpTransform()]),
        lambda: RNG.normal(size=(4, 3)),
    ),
]


@pytest.mark.parametrize("i", range(len(TRANSFORMS)))
def test_transform_parity(i):
    f, tf, xs = TRANSFORMS[i]
    f, tf, x = f(), tf(), xs()
    y, ty = f(L(x)), tf(T(x))
    close(y, ty)
    close(f.inv(y), T(x), 1e-7)
    close(f.log_abs_det_jacobian(L(x), y), tf.log_abs_det_jacobian(T(x), ty))
    close(f.inv.log_abs_det_jacobian(y, L(x)), tf.inv.log_abs_det_jacobian(ty, T(x)))
    assert f.domain.event_dim == tf.domain.event_dim
    assert f.codomain.event_dim == tf.codomain.event_dim
    assert f.bijective == tf.bijective


def test_softmax_abs_and_registries():
    x = RNG.normal(size=(4, 3))
    close(D.SoftmaxTransform()(L(x)), TD.SoftmaxTransform()(T(x)))
    assert D.AbsTransform()(L([-2.0])).item() == 2.0
    C = D.constraints
    for c in (
        C.positive,
        C.unit_interval,
        C.simplex,
        C.greater_than(1.0),
        C.real,
        C.interval(-2.0, 3.0),
        C.less_than(1.0),
    ):
        t = D.biject_to(c)
        y = t(L(x))
        assert bool(lucid.all(c.check(y)).item()), c
        close(t.inv(y), T(x), 1e-6)
    assert bool(lucid.all(C.simplex.check(D.transform_to(C.simplex)(L(x)))).item())
    assert isinstance(D.transform_to(C.simplex), D.SoftmaxTransform)
