"""lgamma, digamma, polygamma, softmax, log_softmax and logcumsumexp against PyTorch (and
against Python's math.lgamma / direct series where PyTorch itself is less accurate)."""

import math

import numpy as np
import pytest
import torch

import lucid
from lucid.autograd.gradcheck import gradcheck, gradgradcheck
from lucid.errors import ArgumentError, DimError, DTypeError

from .surface_helpers import assert_same, check

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

RNG = np.random.default_rng(7)
F64 = np.float64


def _points():
    """float64 points across the branches of the kernels (away from the poles)."""
    x = np.concatenate(
        [
            RNG.uniform(0.01, 3, 300),
            RNG.uniform(3, 30, 200),
            RNG.uniform(-25, 0, 300),
            10 ** RNG.uniform(-300, 300, 100),
            [0.5, 1.0, 1.5, 2.0, 2.5, 10.0, 1 + 1e-9, 2 - 1e-9, 1e-300, 1e300],
        ]
    )
    return x[(np.abs(x - np.round(x)) > 1e-6) | (x > 0)]


# -- lgamma --------------------------------------------------------------------------------


def test_lgamma_matches_math_lgamma_to_float64_precision():
    x = _points()
    got = lucid.lgamma(lucid.tensor(x)).numpy()
    want = np.array([math.lgamma(v) for v in x])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)


def test_lgamma_matches_torch():
    x = _points()
    assert_same(
        lucid.lgamma(lucid.tensor(x)),
        torch.lgamma(torch.tensor(x)),
        tol=dict(rtol=1e-12, atol=1e-13),
    )
    x32 = x[np.abs(x) < 1e30].astype(np.float32)
    assert_same(lucid.lgamma(lucid.tensor(x32)), torch.lgamma(torch.tensor(x32)))


def test_lgamma_special_values():
    x = np.array([0.0, -1.0, -2.0, -50.0, np.inf, -np.inf, np.nan, 1.0, 2.0])
    got = lucid.lgamma(lucid.tensor(x)).numpy()
    assert np.all(got[:6] == np.inf)
    assert np.isnan(got[6])
    np.testing.assert_allclose(got[7:], [0.0, 0.0], atol=1e-15)
    assert_same(lucid.lgamma(lucid.tensor(x)), torch.lgamma(torch.tensor(x)))


@pytest.mark.parametrize("noncontig", [False, True])
@pytest.mark.parametrize("shape", [(3, 4), (), (0,), (2, 0, 3)])
def test_lgamma_parity_with_gradients(shape, noncontig):
    x = np.asarray(RNG.uniform(0.2, 6, shape))
    check(
        lucid.lgamma,
        torch.lgamma,
        x,
        noncontig=noncontig and len(shape) > 0,
        tol=dict(rtol=1e-11, atol=1e-12),
    )
    check(lambda t: t.lgamma(), lambda t: t.lgamma(), x.astype(np.float32))


@pytest.mark.parametrize("dt", [np.int64, np.int32, np.uint8, np.bool_])
def test_lgamma_and_digamma_of_integers_give_the_default_float(dt):
    x = np.array([1, 2, 3, 5], dtype=dt) if dt is not np.bool_ else np.array([True, False])
    for name in ("lgamma", "digamma"):
        assert_same(getattr(lucid, name)(lucid.tensor(x)), getattr(torch, name)(torch.tensor(x)))


def test_lgamma_half_types():
    x = RNG.uniform(0.5, 8, 10)
    for ld, td in ((lucid.float16, torch.float16), (lucid.bfloat16, torch.bfloat16)):
        got = lucid.lgamma(lucid.tensor(x).to(ld))
        want = torch.lgamma(torch.tensor(x).to(td))
        assert got.dtype is ld
        np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=1e-2, atol=1e-2)


def test_lgamma_in_place():
    lx = lucid.tensor([0.5, 3.0, 7.5])
    tx = torch.tensor([0.5, 3.0, 7.5])
    lx.lgamma_()
    tx.lgamma_()
    assert_same(lx, tx)


def test_lgamma_double_backward_is_trigamma():
    x = lucid.tensor(RNG.uniform(0.5, 4, 5), requires_grad=True)
    assert gradgradcheck(lucid.lgamma, [x])
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    (lg,) = lucid.autograd.grad(lucid.lgamma(x).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad(torch.lgamma(tx).sum(), tx, create_graph=True)
    (lgg,) = lucid.autograd.grad(lg.sum(), x)
    (tgg,) = torch.autograd.grad(tg.sum(), tx)
    np.testing.assert_allclose(lgg.numpy(), tgg.numpy(), rtol=1e-8)


# -- digamma and polygamma -----------------------------------------------------------------


def _trigamma_ref(x):
    """psi_1(x) = sum_k 1/(x + k)^2, directly (x > 0), with the Euler-Maclaurin tail."""
    n = 20000
    y = x + n
    return math.fsum(
        [1 / (x + k) ** 2 for k in range(n)]
        + [1 / y, 1 / (2 * y * y), 1 / (6 * y**3), -1 / (30 * y**5)]
    )


def test_digamma_matches_torch():
    x = _points()
    x = x[(x < 1e250)]
    assert_same(
        lucid.digamma(lucid.tensor(x)),
        torch.digamma(torch.tensor(x)),
        tol=dict(rtol=1e-12, atol=1e-13),
    )
    x32 = x[np.abs(x) < 1e30].astype(np.float32)
    assert_same(lucid.digamma(lucid.tensor(x32)), torch.digamma(torch.tensor(x32)))


def test_digamma_special_values():
    got = lucid.digamma(
        lucid.tensor([0.0, -1.0, -3.0, np.inf, -np.inf, np.nan, 1.0], dtype=lucid.float64)
    ).numpy()
    assert got[0] == -np.inf
    assert np.all(np.isnan(got[[1, 2, 4, 5]]))
    assert got[3] == np.inf
    np.testing.assert_allclose(got[6], -0.5772156649015329, rtol=1e-15)


@pytest.mark.parametrize("shape", [(3, 4), (), (0, 2)])
def test_digamma_values_and_gradient(shape):
    x = np.asarray(RNG.uniform(0.3, 6, shape))
    # torch's trigamma (digamma's derivative) is accurate to ~1e-9 only
    check(
        lucid.digamma,
        torch.digamma,
        x,
        tol=dict(rtol=1e-12, atol=1e-13),
        gtol=dict(rtol=1e-8, atol=1e-10),
    )
    check(
        lambda t: t.digamma(),
        lambda t: t.digamma(),
        x,
        noncontig=bool(shape),
        gtol=dict(rtol=1e-8, atol=1e-10),
    )


def test_digamma_gradient_is_trigamma_to_full_precision():
    x = np.array([0.05, 0.7, 1.3, 4.0, 11.5, 27.0])
    lx = lucid.tensor(x, requires_grad=True)
    (g,) = lucid.autograd.grad(lucid.digamma(lx).sum(), lx)
    np.testing.assert_allclose(g.numpy(), [_trigamma_ref(v) for v in x], rtol=1e-13)


def test_trigamma_reflection_for_negative_arguments():
    x = np.array([-0.5, -1.25, -7.3, -20.9])
    got = lucid.polygamma(1, lucid.tensor(x)).numpy()
    want = [math.pi**2 / math.sin(math.pi * v) ** 2 - _trigamma_ref(1 - v) for v in x]
    np.testing.assert_allclose(got, want, rtol=1e-11)
    np.testing.assert_allclose(got, torch.polygamma(1, torch.tensor(x)).numpy(), rtol=1e-8)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_polygamma_matches_torch(n):
    x = RNG.uniform(0.1, 25, 50)
    tol = dict(rtol=1e-8) if n == 1 else dict(rtol=1e-11, atol=1e-13)
    assert_same(lucid.polygamma(n, lucid.tensor(x)), torch.polygamma(n, torch.tensor(x)), tol=tol)
    assert_same(lucid.tensor(x).polygamma(n), torch.tensor(x).polygamma(n), tol=tol)


def test_polygamma_gradients():
    x = lucid.tensor(RNG.uniform(0.5, 4, 4), requires_grad=True)
    for n in (1, 2):
        assert gradcheck(lambda t: lucid.polygamma(n, t), [x])
        assert gradgradcheck(lambda t: lucid.polygamma(n, t), [x])
    assert_same(lucid.polygamma(0, x), lucid.digamma(x))


def test_polygamma_bad_order():
    with pytest.raises(ArgumentError, match="polygamma"):
        lucid.polygamma(-1, lucid.tensor([1.0]))
    with pytest.raises(ArgumentError, match="polygamma"):
        lucid.polygamma(1.5, lucid.tensor([1.0]))


# -- softmax and log_softmax ---------------------------------------------------------------

FUSED = [("softmax", torch.softmax), ("log_softmax", torch.log_softmax)]


@pytest.mark.parametrize("name, tfn", FUSED)
@pytest.mark.parametrize(
    "shape, dim",
    [
        ((3, 5), -1),
        ((3, 5), 0),
        ((2, 3, 4), 1),
        ((2, 3, 4), -3),
        ((), 0),
        ((), -1),
        ((0, 3), 1),
        ((3, 0), 1),
        ((4,), 0),
    ],
)
@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_softmax_family_parity(name, tfn, shape, dim, dt):
    x = np.asarray(RNG.standard_normal(shape) * 3).astype(dt)
    check(lambda t: getattr(lucid, name)(t, dim), lambda t: tfn(t, dim), x)
    check(
        lambda t: getattr(t, name)(dim), lambda t: getattr(t, name)(dim), x, noncontig=bool(shape)
    )


@pytest.mark.parametrize("name, tfn", FUSED)
def test_softmax_family_is_stable_for_large_and_infinite_inputs(name, tfn):
    x = np.array([[1000.0, 1001.0, -1000.0], [-np.inf, 0.0, 1.0], [-np.inf, -np.inf, 5.0]])
    check(lambda t: getattr(lucid, name)(t, 1), lambda t: tfn(t, 1), x, grad=False)
    allinf = np.array([[-np.inf, -np.inf]])
    got = getattr(lucid, name)(lucid.tensor(allinf), 1).numpy()
    want = tfn(torch.tensor(allinf), 1).numpy()
    assert np.array_equal(np.isnan(got), np.isnan(want))


@pytest.mark.parametrize("name, tfn", FUSED)
def test_softmax_family_dtype_argument(name, tfn):
    x = np.array([[1, 2, 3], [0, -1, 4]])
    assert_same(
        getattr(lucid, name)(lucid.tensor(x), 1, dtype=lucid.float64),
        tfn(torch.tensor(x), 1, dtype=torch.float64),
    )
    xf = RNG.standard_normal((2, 3)).astype(np.float32)
    lo, to = check(
        lambda t: getattr(lucid, name)(t, -1, dtype=lucid.float64),
        lambda t: tfn(t, -1, dtype=torch.float64),
        xf,
    )
    assert lo.dtype is lucid.float64


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_family_is_one_fused_node(name):
    x = lucid.randn(3, 4, requires_grad=True)
    y = getattr(lucid, name)(x, -1)
    node = y.grad_fn
    assert node.name() == {"softmax": "SoftmaxBackward", "log_softmax": "LogSoftmaxBackward"}[name]
    assert node.next_functions[0][0].name() == "AccumulateGrad"
    cls = lucid.ops.core.registry.get_op(name)
    assert cls.schema_v1.amp_policy is lucid.ops.AmpPolicy.FORCE_FP32


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_family_computes_in_float32_under_autocast(name):
    x = lucid.randn(2, 5).to(lucid.bfloat16)
    with lucid.autocast(device_type="cpu", dtype=lucid.bfloat16):
        y = getattr(lucid, name)(x, -1)
    assert y.dtype is lucid.float32
    ref = getattr(torch, name)(torch.tensor(x.float().numpy()), -1)
    np.testing.assert_allclose(y.numpy(), ref.numpy(), rtol=1e-6, atol=1e-7)
    h = getattr(lucid, name)(x, -1)
    assert h.dtype is lucid.bfloat16
    np.testing.assert_allclose(h.float().numpy(), ref.numpy(), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_family_second_derivative(name):
    x = lucid.tensor(RNG.standard_normal((2, 4)), requires_grad=True)
    assert gradgradcheck(lambda t: getattr(lucid, name)(t, 1), [x])


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_family_errors(name):
    with pytest.raises(DTypeError, match=name):
        getattr(lucid, name)(lucid.tensor([1, 2]), 0)
    with pytest.raises(DimError, match=name):
        getattr(lucid, name)(lucid.zeros(2, 3), 2)
    with pytest.raises(ArgumentError, match=name):
        getattr(lucid, name)(lucid.zeros(2, 3))


# -- logcumsumexp --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, dim",
    [((6,), 0), ((3, 5), 1), ((3, 5), -2), ((2, 3, 4), 1), ((), 0), ((0, 3), 0), ((3, 0), 1)],
)
@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_logcumsumexp_parity(shape, dim, dt):
    x = np.asarray(RNG.standard_normal(shape) * 2).astype(dt)
    check(lambda t: lucid.logcumsumexp(t, dim), lambda t: torch.logcumsumexp(t, dim), x)
    check(lambda t: t.logcumsumexp(dim), lambda t: t.logcumsumexp(dim), x, noncontig=bool(shape))


def test_logcumsumexp_wide_and_infinite_inputs():
    x = np.array([[-1000.0, 0.0, 1000.0, -np.inf], [-np.inf, -np.inf, 3.0, 2.0]])
    check(lambda t: lucid.logcumsumexp(t, 1), lambda t: torch.logcumsumexp(t, 1), x, grad=False)
    # the gradient of a wide slice stays finite (log-space backward)
    lx = lucid.tensor([-1000.0, 0.0, 1000.0], requires_grad=True)
    tx = torch.tensor([-1000.0, 0.0, 1000.0], requires_grad=True)
    g = np.array([1.0, -2.0, 0.5])
    (lg,) = lucid.autograd.grad(lucid.logcumsumexp(lx, 0), lx, lucid.tensor(g))
    (tg,) = torch.autograd.grad(torch.logcumsumexp(tx, 0), tx, torch.tensor(g))
    np.testing.assert_allclose(lg.numpy(), tg.numpy(), rtol=1e-12, atol=1e-300)


def test_logcumsumexp_second_derivative():
    x = lucid.tensor(RNG.standard_normal((2, 4)), requires_grad=True)
    assert gradgradcheck(lambda t: lucid.logcumsumexp(t, 1), [x])


def test_logcumsumexp_errors():
    with pytest.raises(DTypeError, match="logcumsumexp"):
        lucid.logcumsumexp(lucid.tensor([1, 2]), 0)
    with pytest.raises(DimError, match="logcumsumexp"):
        lucid.logcumsumexp(lucid.zeros(2, 3), -3)
