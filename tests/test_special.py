"""lucid.special against torch.special: values over each kernel's branches (float64 and
float32), edge values (0, negatives, large, inf, nan), gradients, errors; and against mpmath
where torch's own kernel is less accurate (bessel_j0/j1, gammainc for larger a, the far
tails of ndtr and erfcx)."""

import math

import numpy as np
import pytest
import torch

import lucid
import lucid.special as S
from lucid.errors import ArgumentError, AutogradError

mpmath = pytest.importorskip("mpmath")
mpmath.mp.dps = 40
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

ts = torch.special
RNG = np.random.default_rng(8)
NAN, INF = math.nan, math.inf


def _lucid(fn, *arrays):
    return fn(*(lucid.tensor(a) for a in arrays)).numpy()


def _torch(fn, *arrays):
    return fn(*(torch.from_numpy(np.asarray(a)) for a in arrays)).numpy()


def _same(got, want, rtol, atol=0.0):
    """Equal where both are nan or infinite, else within tolerance."""
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def _wide(n=400):
    return np.concatenate(
        [
            RNG.uniform(-6, 6, n),
            RNG.uniform(-40, 40, n),
            10 ** RNG.uniform(-8, 2.5, n // 4),
            -(10 ** RNG.uniform(-8, 2.5, n // 4)),
        ]
    )


POLYNOMIALS = [f"{s}chebyshev_polynomial_{k}" for s in ("", "shifted_") for k in "tuvw"] + [
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
]


# -- names ---------------------------------------------------------------------------------


def test_every_listed_torch_special_function_is_there():
    names = [
        "erf",
        "erfc",
        "erfcx",
        "erfinv",
        "gammaln",
        "digamma",
        "psi",
        "polygamma",
        "multigammaln",
        "i0",
        "i0e",
        "i1",
        "i1e",
        "ndtr",
        "ndtri",
        "log_ndtr",
        "logit",
        "expit",
        "xlogy",
        "xlog1py",
        "zeta",
        "sinc",
        "entr",
        "bessel_j0",
        "bessel_j1",
        "log_softmax",
        "softmax",
        "logsumexp",
        "exp2",
        "expm1",
        "log1p",
        "round",
        "gammainc",
        "gammaincc",
        "spherical_bessel_j0",
        "modified_bessel_i0",
        "modified_bessel_i1",
        "bessel_y0",
        "bessel_y1",
        "modified_bessel_k0",
        "modified_bessel_k1",
        "scaled_modified_bessel_k0",
        "scaled_modified_bessel_k1",
        "airy_ai",
        *POLYNOMIALS,
    ]
    for n in names:
        assert callable(getattr(S, n)) and hasattr(ts, n), n
    assert sorted(S.__all__) == sorted(names)


def test_existing_ops_are_named_not_copied():
    assert S.gammaln is lucid.lgamma and S.psi is lucid.digamma and S.expit is lucid.sigmoid
    assert S.softmax is lucid.softmax and S.logsumexp is lucid.logsumexp
    assert S.erf is lucid.erf and S.xlogy is lucid.xlogy and S.round is lucid.round


@pytest.mark.parametrize(
    "name, args, kwargs",
    [
        ("gammaln", (np.array([0.3, 2.5, 40.0]),), {}),
        ("psi", (np.array([0.3, 2.5, -1.5]),), {}),
        ("expit", (np.array([-30.0, 0.0, 3.0]),), {}),
        ("logit", (np.array([0.1, 0.5, 0.97]),), {"eps": 1e-3}),
        ("softmax", (np.arange(6.0).reshape(2, 3),), {"dim": 1}),
        ("log_softmax", (np.arange(6.0).reshape(2, 3),), {"dim": 0}),
        ("logsumexp", (np.arange(6.0).reshape(2, 3),), {"dim": 1, "keepdim": True}),
        ("round", (np.array([0.125, 2.5, -1.55]),), {"decimals": 1}),
        ("exp2", (np.array([-3.0, 0.5]),), {}),
        ("expm1", (np.array([1e-10, 2.0]),), {}),
        ("log1p", (np.array([1e-12, 3.0]),), {}),
        ("sinc", (np.array([0.0, 0.5, 3.0]),), {}),
        ("erf", (np.array([-2.0, 0.1]),), {}),
        ("erfc", (np.array([-2.0, 7.0]),), {}),
        ("erfinv", (np.array([-0.9, 0.2]),), {}),
        ("xlogy", (np.array([0.0, 2.0]), np.array([0.0, 3.0])), {}),
    ],
)
def test_named_core_ops_match_torch_special(name, args, kwargs):
    got = getattr(S, name)(*(lucid.tensor(a) for a in args), **kwargs).numpy()
    want = getattr(ts, name)(*(torch.from_numpy(a) for a in args), **kwargs).numpy()
    _same(got, want, 1e-12, 1e-15)


def test_polygamma_and_multigammaln_match_torch():
    x = np.array([1.7, 3.0, 12.5])
    _same(S.polygamma(2, lucid.tensor(x)).numpy(), ts.polygamma(2, torch.tensor(x)).numpy(), 1e-11)
    for p in (1, 3, 5):
        a = x + 2.5
        _same(
            S.multigammaln(lucid.tensor(a), p).numpy(),
            ts.multigammaln(torch.tensor(a), p).numpy(),
            1e-13,
        )
    t = lucid.tensor(x + 2, requires_grad=True)
    tt = torch.tensor(x + 2, requires_grad=True)
    S.multigammaln(t, 3).sum().backward()
    ts.multigammaln(tt, 3).sum().backward()
    _same(t.grad.numpy(), tt.grad.numpy(), 1e-10)


def test_multigammaln_errors():
    # no domain check, as PyTorch 2.13 (tests/test_regressions_issue24.py compares values)
    with pytest.raises(ArgumentError, match="multigammaln: p has to be"):
        S.multigammaln(lucid.tensor([3.0]), 0)
    with pytest.raises(ArgumentError, match="multigammaln: p must be an int"):
        S.multigammaln(lucid.tensor([3.0]), 1.5)


# -- values against torch ------------------------------------------------------------------

_K_ARGS = np.concatenate([RNG.uniform(0, 30, 600), 10 ** RNG.uniform(-300, 2.8, 200)])
UNARY = {  # name: (inputs, float64 rtol)
    "erfcx": (np.concatenate([_wide(), [-26.0, -1.0, 1.0, 1e300]]), 1e-13),
    # torch's ndtr loses the lower tail below about -2 (and so log_ndtr above 5): the
    # tails are checked against mpmath below
    "ndtr": (RNG.uniform(-2, 9, 800), 5e-14),
    "log_ndtr": (np.concatenate([RNG.uniform(-60, 5, 800), [-1e5, -1.0, 1.0]]), 1e-14),
    "i0": (np.concatenate([_wide(), [700.0, -705.0, 25.0, 24.999]]), 1e-14),
    "i0e": (np.concatenate([_wide(), [1e8, 25.0, 24.999]]), 1e-14),
    "i1": (np.concatenate([_wide(), [700.0, -705.0, 25.0, 24.999]]), 1e-14),
    "i1e": (np.concatenate([_wide(), [-1e8, 25.0, 24.999]]), 1e-14),
    "entr": (np.concatenate([10 ** RNG.uniform(-300, 300, 400), RNG.uniform(0, 3, 200)]), 1e-15),
    "spherical_bessel_j0": (np.concatenate([_wide(), [1e-300, 1e300]]), 1e-14),
    "ndtri": (
        np.concatenate(
            [
                RNG.uniform(0, 1, 600),
                10 ** RNG.uniform(-300, -1, 300),
                1 - 10 ** RNG.uniform(-15, -1, 200),
            ]
        ),
        1e-14,
    ),
    "modified_bessel_k0": (_K_ARGS, 5e-15),
    "modified_bessel_k1": (_K_ARGS, 5e-15),
    "scaled_modified_bessel_k0": (_K_ARGS * 10, 5e-15),
    "scaled_modified_bessel_k1": (_K_ARGS * 10, 5e-15),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_match_torch_float64(name):
    x, rtol = UNARY[name]
    _same(_lucid(getattr(S, name), x), _torch(getattr(ts, name), x), rtol, 1e-300)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_match_torch_float32(name):
    x = UNARY[name][0]
    # float32's normal range; torch's float32 i0/i1 overflow e^x from 88.7 (Lucid: at I's own)
    top = 85 if name in ("i0", "i1") else 3e38
    x32 = x[(np.abs(x) < top) & ((np.abs(x) > 1e-30) | (x == 0))].astype(np.float32)
    got = _lucid(getattr(S, name), x32)
    assert got.dtype == np.float32
    want = _torch(getattr(ts, name), x32)
    # torch forms e^{x^2} in float32 arithmetic (relative error ~x^2 ulp); Lucid in float64
    _same(got, want, 1e-4 if name == "erfcx" else 2e-6, 1e-37)


EDGES = {  # name: {input: the value torch.special gives}
    "erfcx": {0.0: 1.0, INF: 0.0, -INF: INF, -30.0: INF, NAN: NAN},
    "ndtr": {0.0: 0.5, INF: 1.0, -INF: 0.0, NAN: NAN},
    "log_ndtr": {0.0: -math.log(2), INF: 0.0, -INF: -INF, NAN: NAN},
    "ndtri": {0.0: -INF, 1.0: INF, 0.5: 0.0, -0.1: NAN, 1.1: NAN, NAN: NAN},
    "i0": {0.0: 1.0, NAN: NAN, 1e3: INF},
    "i0e": {0.0: 1.0, INF: 0.0, -INF: 0.0, NAN: NAN},
    "i1": {0.0: 0.0, NAN: NAN, -1e3: -INF},
    "i1e": {0.0: 0.0, INF: 0.0, -INF: 0.0, NAN: NAN},
    "entr": {0.0: 0.0, -1.0: -INF, -INF: -INF, INF: -INF, NAN: NAN},
    "spherical_bessel_j0": {0.0: 1.0, INF: 0.0, -INF: 0.0, NAN: NAN},
    "bessel_j0": {0.0: 1.0, NAN: NAN},
    "bessel_j1": {0.0: 0.0, NAN: NAN},
    "bessel_y0": {0.0: -INF, -1.0: NAN, NAN: NAN},
    "bessel_y1": {0.0: -INF, -1.0: NAN},
    "modified_bessel_k0": {0.0: INF, -1.0: NAN, INF: 0.0, NAN: NAN},
    "modified_bessel_k1": {0.0: INF, -1.0: NAN, INF: 0.0, NAN: NAN},
    "scaled_modified_bessel_k0": {0.0: INF, -1.0: NAN, INF: 0.0, NAN: NAN},
    "scaled_modified_bessel_k1": {0.0: INF, -1.0: NAN, INF: 0.0, NAN: NAN},
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_edge_values_as_torch(name):
    x = np.array(list(EDGES[name]))
    want = np.array(list(EDGES[name].values()))
    _same(_lucid(getattr(S, name), x), want, 0)
    _same(_torch(getattr(ts, name), x), want, 1e-15, 1e-15)


def test_edge_values_where_lucid_gives_the_limit_and_torch_nan():
    x = np.array([INF, -INF])
    _same(_lucid(S.i0, x), [INF, INF], 0)
    _same(_lucid(S.i1, x), [INF, -INF], 0)
    _same(_lucid(S.bessel_j0, x), [0.0, 0.0], 0)
    _same(_lucid(S.bessel_j1, x), [0.0, 0.0], 0)
    _same(_lucid(S.bessel_y0, x[:1]), [0.0], 0)
    _same(_lucid(S.bessel_y1, x[:1]), [0.0], 0)
    _same(_lucid(S.zeta, np.array([2.0, INF, INF]), np.array([INF, 1.0, 2.0])), [0, 1, 0], 0)
    # I0 and I1 stay finite up to their own overflow (torch's overflow near 709.8)
    big = np.array([713.0, -713.0])
    _same(_lucid(S.i0, big), _mp(mpmath.besseli, [0, 0], big), 1e-13)
    _same(_lucid(S.i1, big), _mp(mpmath.besseli, [1, 1], big), 1e-13)


def test_binary_values_match_torch():
    a, b = RNG.uniform(-3, 3, (5, 1)), RNG.uniform(-0.99, 30, (1, 7))
    _same(_lucid(S.xlog1py, a, b), _torch(ts.xlog1py, a, b), 1e-15)
    e = np.array([0.0, 0.0, 0.0, 2.0, 2.0, -1.0])
    f = np.array([-1.0, NAN, -3.0, -1.0, -3.0, INF])
    _same(_lucid(S.xlog1py, e, f), _torch(ts.xlog1py, e, f), 0)
    x = np.concatenate([RNG.uniform(1.01, 40, 500), np.round(RNG.uniform(2, 12, 200))])
    q = np.concatenate([10 ** RNG.uniform(-2, 3, 500), -RNG.uniform(0.05, 9, 200)])
    _same(_lucid(S.zeta, x, q), _torch(ts.zeta, x, q), 1e-13)
    ex = np.array([1.0, 0.5, 2.0, 2.0, 2.5, NAN, 3.0])
    eq = np.array([1.0, 1.0, 0.0, -1.0, -1.5, 1.0, NAN])
    _same(_lucid(S.zeta, ex, eq), _torch(ts.zeta, ex, eq), 0)
    s, t = RNG.uniform(0.05, 8, 400), RNG.uniform(0, 20, 400)
    for name in ("gammainc", "gammaincc"):
        _same(_lucid(getattr(S, name), s, t), _torch(getattr(ts, name), s, t), 1e-12, 1e-300)
    ga = np.array([0.0, 0.0, 1.0, -1.0, 1.0, 2.0, INF, 1.0])
    gx = np.array([0.0, 1.0, 0.0, 1.0, -1.0, INF, 1.0, NAN])
    for name in ("gammainc", "gammaincc"):
        _same(_lucid(getattr(S, name), ga, gx), _torch(getattr(ts, name), ga, gx), 0)


def test_integer_input_computes_in_the_default_float_dtype():
    out = S.i0(lucid.tensor([0, 1, 2]))
    assert out.dtype == lucid.float32
    _same(out.numpy(), ts.i0(torch.tensor([0, 1, 2])).numpy(), 3e-7)


# -- values against mpmath (where torch is less accurate) ---------------------------------


def _mp(fn, *cols):
    return np.array([float(fn(*(mpmath.mpf(float(v)) for v in vals))) for vals in zip(*cols)])


def test_bessel_j_match_mpmath():
    x = np.concatenate([RNG.uniform(-30, 30, 150), RNG.uniform(-200, 200, 50), [25.9, 26.0]])
    for nu, fn in ((0, S.bessel_j0), (1, S.bessel_j1)):
        want = _mp(lambda v, nu=nu: mpmath.besselj(nu, v), x)
        assert np.all(np.abs(_lucid(fn, x) - want) <= 1e-15)


def test_bessel_y_match_mpmath():
    x = np.concatenate([RNG.uniform(0, 30, 150), RNG.uniform(30, 300, 50), [1e-300, 1.9, 2.0]])
    for nu, fn in ((0, S.bessel_y0), (1, S.bessel_y1)):
        want = _mp(lambda v, nu=nu: mpmath.bessely(nu, v), x)
        assert np.all(np.abs(_lucid(fn, x) - want) <= 1e-15 + 3e-15 * np.abs(want))


def test_airy_ai_matches_mpmath():
    x = np.concatenate([RNG.uniform(-10, 10, 300), [-10.0, 0.0, 2.5, 10.0, 1e-300]])
    _same(_lucid(S.airy_ai, x), _mp(mpmath.airyai, x), 1e-14, 1e-15)
    big = RNG.uniform(10, 100, 50)
    _same(_lucid(S.airy_ai, big), _mp(mpmath.airyai, big), 2e-13)
    neg = -RNG.uniform(10, 100, 50)  # the phase's rounding: eps * zeta
    _same(_lucid(S.airy_ai, neg), _mp(mpmath.airyai, neg), 0, 5e-14)
    _same(_lucid(S.airy_ai, np.array([INF, -INF, NAN])), [0.0, 0.0, NAN], 0)


def test_gammainc_matches_mpmath_for_large_a():
    a = 10 ** RNG.uniform(0, 3, 60)
    x = a * RNG.uniform(0.5, 1.5, 60)
    p = _mp(lambda s, t: mpmath.gammainc(s, 0, t, regularized=True), a, x)
    _same(_lucid(S.gammainc, a, x), p, 1e-12)
    q = _mp(lambda s, t: mpmath.gammainc(s, t, mpmath.inf, regularized=True), a, x)
    _same(_lucid(S.gammaincc, a, x), q, 1e-12)


def test_tails_match_mpmath():
    x = -RNG.uniform(2, 38, 50)
    _same(_lucid(S.ndtr, x), _mp(mpmath.ncdf, x), 1e-14)
    _same(_lucid(S.log_ndtr, -x), _mp(lambda v: mpmath.log1p(-mpmath.ncdf(-v)), -x), 1e-14)
    _same(
        _lucid(S.erfcx, x / 1.5), _mp(lambda v: mpmath.exp(v * v) * mpmath.erfc(v), x / 1.5), 1e-14
    )
    p = 10 ** RNG.uniform(-300, -20, 50)
    got = _lucid(S.ndtri, p)
    # the root of ln(Phi(y)) = ln(p), by Newton's method from Lucid's value (the root is
    # unique, so this is a reference, not a circular check)
    want = _mp(
        lambda v, y0: mpmath.findroot(lambda y: mpmath.log(mpmath.ncdf(y)) - mpmath.log(v), y0),
        p,
        got,
    )
    _same(got, want, 1e-14)


# -- gradients -------------------------------------------------------------------------------

GRAD = {  # name: inputs (torch defines the gradient)
    "erfcx": np.array([-5.0, -0.3, 0.0, 0.8, 3.0, 8.0]),
    "ndtr": np.array([-9.0, -1.0, 0.0, 2.0]),
    "log_ndtr": np.array([-9.0, -1.0, 0.0, 2.0, 30.0]),
    "ndtri": np.array([1e-30, 0.01, 0.5, 0.7, 1 - 1e-9]),
    "i0": np.array([-30.0, -1.0, 0.0, 2.0, 100.0]),
    "i0e": np.array([-30.0, -1.0, 2.0, 100.0]),
    "i1": np.array([-30.0, -1.0, 0.0, 2.0, 100.0]),
    "i1e": np.array([-30.0, -1.0, 0.0, 2.0, 100.0]),
    "entr": np.array([0.0, 1e-5, 0.5, 3.0, -1.0]),
}


@pytest.mark.parametrize("name", sorted(GRAD))
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
def test_gradients_match_torch(name, dtype):
    x = GRAD[name].astype(dtype)
    t = lucid.tensor(x, requires_grad=True)
    tt = torch.tensor(x, requires_grad=True)
    getattr(S, name)(t).sum().backward()
    getattr(ts, name)(tt).sum().backward()
    assert t.grad.dtype == t.dtype
    # float32: both sides cancel in the same formulas (erfcx at 8, i0e at 100), ~1e-5
    _same(t.grad.numpy(), tt.grad.numpy(), 1e-12 if dtype == np.float64 else 1e-4)


def test_bessel_j_gradients():
    x = np.array([-7.0, 0.0, 0.5, 30.0])
    t = lucid.tensor(x, requires_grad=True)
    (g0,) = lucid.autograd.grad(S.bessel_j0(t).sum(), [t])
    _same(g0.numpy(), -_lucid(S.bessel_j1, x), 0)
    (g1,) = lucid.autograd.grad(S.bessel_j1(t).sum(), [t])
    want = [float(mpmath.diff(lambda v: mpmath.besselj(1, v), v)) for v in x]
    _same(g1.numpy(), want, 1e-13, 1e-16)


@pytest.mark.parametrize(
    "fn, ref",
    [
        (S.bessel_y0, lambda v: mpmath.bessely(0, v)),
        (S.bessel_y1, lambda v: mpmath.bessely(1, v)),
        (S.modified_bessel_k0, lambda v: mpmath.besselk(0, v)),
        (S.modified_bessel_k1, lambda v: mpmath.besselk(1, v)),
        (S.scaled_modified_bessel_k0, lambda v: mpmath.besselk(0, v) * mpmath.exp(v)),
        (S.scaled_modified_bessel_k1, lambda v: mpmath.besselk(1, v) * mpmath.exp(v)),
    ],
)
def test_second_kind_bessel_gradients_match_mpmath(fn, ref):
    x = np.array([0.3, 1.0, 3.7, 12.0, 40.0])
    t = lucid.tensor(x, requires_grad=True)
    (g,) = lucid.autograd.grad(fn(t).sum(), [t])
    _same(g.numpy(), [float(mpmath.diff(ref, v)) for v in x], 1e-13, 1e-16)


def test_binary_gradients_match_torch():
    a, b = RNG.uniform(-2, 2, (3, 1)), RNG.uniform(-0.9, 4, (1, 4))
    a[0, 0] = 0.0
    la, lb = lucid.tensor(a, requires_grad=True), lucid.tensor(b, requires_grad=True)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    S.xlog1py(la, lb).sum().backward()
    ts.xlog1py(ta, tb).sum().backward()
    _same(la.grad.numpy(), ta.grad.numpy(), 1e-13)
    _same(lb.grad.numpy(), tb.grad.numpy(), 1e-13)
    x, q = np.array([2.5, 3.0, 7.0]), np.array([0.3, 2.0, 15.0])
    lq, tq = lucid.tensor(q, requires_grad=True), torch.tensor(q, requires_grad=True)
    S.zeta(lucid.tensor(x), lq).sum().backward()
    ts.zeta(torch.tensor(x), tq).sum().backward()
    _same(lq.grad.numpy(), tq.grad.numpy(), 1e-13)
    for name in ("gammainc", "gammaincc"):
        lx, tx = lucid.tensor(q, requires_grad=True), torch.tensor(q, requires_grad=True)
        getattr(S, name)(lucid.tensor(x), lx).sum().backward()
        getattr(ts, name)(torch.tensor(x), tx).sum().backward()
        _same(lx.grad.numpy(), tx.grad.numpy(), 1e-12)


@pytest.mark.parametrize("fn, which", [(S.zeta, "x"), (S.gammainc, "a"), (S.gammaincc, "a")])
def test_unimplemented_derivatives_raise_at_backward_like_torch(fn, which):
    first = lucid.tensor([2.5], requires_grad=True)
    y = fn(first, lucid.tensor([1.5]))
    with pytest.raises(AutogradError, match=f"derivative with respect to {which}"):
        y.sum().backward()


def test_spherical_bessel_j0_is_not_differentiable_like_torch():
    t = lucid.tensor([0.5, 2.0], requires_grad=True)
    assert not S.spherical_bessel_j0(t).requires_grad


# -- shapes and dtypes -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "erfcx",
        "ndtr",
        "log_ndtr",
        "ndtri",
        "i0",
        "i0e",
        "i1",
        "i1e",
        "bessel_j0",
        "bessel_j1",
        "bessel_y0",
        "bessel_y1",
        "modified_bessel_k0",
        "scaled_modified_bessel_k1",
        "spherical_bessel_j0",
        "entr",
        "airy_ai",
    ],
)
def test_unary_shapes_0d_empty_and_non_contiguous(name):
    fn = getattr(S, name)
    x = RNG.uniform(0.05, 0.95, (4, 3))
    t = lucid.tensor(x).T  # non-contiguous
    out = fn(t)
    assert tuple(out.shape) == (3, 4)
    _same(out.numpy(), _lucid(fn, x.T.copy()), 0)
    assert tuple(fn(lucid.tensor(np.zeros((0, 2)))).shape) == (0, 2)
    zero_d = fn(lucid.tensor(0.5))
    assert tuple(zero_d.shape) == () and np.isfinite(zero_d.item())


@pytest.mark.parametrize("name", ["xlog1py", "zeta", "gammainc", "gammaincc"])
def test_binary_broadcasting_and_empty(name):
    fn = getattr(S, name)
    a, b = RNG.uniform(1.5, 3, (2, 1, 3)), RNG.uniform(0.5, 2, (4, 1))
    out = fn(lucid.tensor(a), lucid.tensor(b))
    assert tuple(out.shape) == (2, 4, 3)
    _same(out.numpy(), _torch(getattr(ts, name), a, b), 1e-12)
    assert tuple(fn(lucid.tensor(np.zeros((0, 3))), lucid.tensor(b[:1])).shape) == (0, 3)


@pytest.mark.parametrize("dtype", [lucid.float16, lucid.bfloat16])
def test_half_inputs_keep_their_dtype(dtype):
    x = lucid.tensor([0.25, 1.5, -2.0]).to(dtype)
    for name in ("erfcx", "i0e", "bessel_j0", "log_ndtr"):
        out = getattr(S, name)(x)
        assert out.dtype == dtype
        want = _lucid(getattr(S, name), x.to(lucid.float64).numpy())
        np.testing.assert_allclose(out.to(lucid.float64).numpy(), want, rtol=1e-2)


# -- orthogonal polynomials ----------------------------------------------------------------------


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_orthogonal_polynomials_match_torch(name):
    x = np.concatenate([RNG.uniform(-1.5, 1.5, 300), [-1.0, 0.0, 1.0, 0.5, 2.0]])
    n = RNG.integers(-2, 40, x.size).astype(np.float64)
    n[:20] += 0.7  # fractional degrees truncate
    _same(_lucid(getattr(S, name), x, n), _torch(getattr(ts, name), x, n), 1e-12, 1e-12)
    got = getattr(S, name)(lucid.tensor(x[:5]), 3).numpy()
    _same(got, getattr(ts, name)(torch.tensor(x[:5]), 3).numpy(), 1e-12, 1e-12)
    x32 = lucid.tensor(x[:5].astype(np.float32))
    assert getattr(S, name)(x32, lucid.tensor([2])).dtype == lucid.float32


def test_orthogonal_polynomials_are_not_differentiable_and_keep_nan():
    t = lucid.tensor([0.3, NAN], requires_grad=True)
    out = S.chebyshev_polynomial_u(t, 3)
    assert not out.requires_grad and np.isnan(out.numpy()[1])
