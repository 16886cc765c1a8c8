"""frexp, ldexp, nextafter, heaviside, gcd, lcm and the bit shifts (functions, methods and
the <<, >> operators with their reflected and in-place forms) against PyTorch."""

import pickle

import numpy as np
import pytest
import torch

import lucid
from lucid.autograd.gradcheck import gradcheck
from lucid.errors import DTypeError, ShapeError

from .surface_helpers import assert_same, check

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

RNG = np.random.default_rng(11)
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8]


# -- frexp ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("shape", [(3, 4), (), (0,)])
def test_frexp_parity(dt, shape):
    x = np.asarray(RNG.uniform(-50, 50, shape)).astype(dt)
    lo, to = check(lucid.frexp, torch.frexp, x, grad=dt is not np.float16)
    assert lo.exponent.dtype is lucid.int32
    assert lucid.frexp(lucid.tensor(x)).mantissa.dtype.name == np.dtype(dt).name
    check(lambda t: t.frexp(), lambda t: t.frexp(), x, noncontig=bool(shape), grad=False)


def test_frexp_special_values_and_result_type():
    x = np.array([0.0, 1.0, -0.5, 3.0, np.inf, -np.inf, np.nan, 2.0**-1070])
    lo = lucid.frexp(lucid.tensor(x))
    assert_same(lo, torch.frexp(torch.tensor(x)))
    assert type(lo).__name__ == "frexp" and lo._fields == ("mantissa", "exponent")
    m, e = lo
    np.testing.assert_array_equal(m.numpy() * 2.0 ** e.numpy().astype(np.float64), x)


def test_frexp_bfloat16():
    x = lucid.tensor([3.0, -0.375, 96.0]).to(lucid.bfloat16)
    m, e = lucid.frexp(x)
    assert m.dtype is lucid.bfloat16
    np.testing.assert_array_equal(m.float().numpy(), [0.75, -0.75, 0.75])
    np.testing.assert_array_equal(e.numpy(), [2, -1, 7])


def test_frexp_rejects_integers():
    with pytest.raises(DTypeError, match="frexp"):
        lucid.frexp(lucid.tensor([1, 2]))


# -- ldexp ---------------------------------------------------------------------------------


@pytest.mark.parametrize("noncontig", [False, True])
def test_ldexp_float_exponents(noncontig):
    check(
        lucid.ldexp,
        torch.ldexp,
        RNG.standard_normal((3, 4)),
        RNG.uniform(-3, 3, (3, 4)),
        noncontig=noncontig,
    )
    check(lucid.ldexp, torch.ldexp, RNG.standard_normal((3, 4)), RNG.uniform(-3, 3, (4,)))
    check(lambda a, b: a.ldexp(b), lambda a, b: a.ldexp(b), np.asarray(1.5), np.asarray(2.0))


@pytest.mark.parametrize(
    "a_dt, e_dt",
    [
        (np.float32, np.int64),
        (np.float64, np.int32),
        (np.int64, np.int64),
        (np.float32, np.float64),
        (np.float16, np.int64),
        (np.int32, np.float32),
    ],
)
def test_ldexp_result_dtypes(a_dt, e_dt):
    a = np.array([1, -3, 5, 2]).astype(a_dt)
    e = np.array([1, -2, 0, 3]).astype(e_dt)
    assert_same(
        lucid.ldexp(lucid.tensor(a), lucid.tensor(e)), torch.ldexp(torch.tensor(a), torch.tensor(e))
    )


def test_ldexp_gradient_with_integer_exponent():
    # torch's backward evaluates 2 ** (negative int) in integers; the derivative is 2 ** e
    a = lucid.tensor(RNG.standard_normal(4), requires_grad=True)
    e = lucid.tensor([1, -2, 3, 0])
    (g,) = lucid.autograd.grad(lucid.ldexp(a, e).sum(), a)
    np.testing.assert_array_equal(g.numpy(), 2.0 ** e.numpy())
    assert gradcheck(lambda x: lucid.ldexp(x, e), [a])


def test_ldexp_in_place():
    la, ta = lucid.tensor([1.0, 3.0]), torch.tensor([1.0, 3.0])
    la.ldexp_(lucid.tensor([2.0, -1.0]))
    ta.ldexp_(torch.tensor([2.0, -1.0]))
    assert_same(la, ta)


# -- nextafter -----------------------------------------------------------------------------


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_nextafter_parity(dt):
    a = RNG.standard_normal((3, 4)).astype(dt)
    b = RNG.standard_normal((3, 4)).astype(dt)
    b[0, 0] = a[0, 0]
    check(lucid.nextafter, torch.nextafter, a, b, grad=False, tol=dict(rtol=0, atol=0))
    check(
        lucid.nextafter,
        torch.nextafter,
        a,
        np.asarray(np.inf, dt),
        grad=False,
        tol=dict(rtol=0, atol=0),
    )


def test_nextafter_steps_one_ulp_and_promotes():
    one = lucid.tensor([1.0], dtype=lucid.float64)
    up = lucid.nextafter(one, lucid.tensor([2.0], dtype=lucid.float64))
    assert up.item() - 1.0 == np.finfo(np.float64).eps
    assert_same(
        lucid.nextafter(lucid.tensor([1.0]), lucid.tensor([2.0], dtype=lucid.float64)),
        torch.nextafter(torch.tensor([1.0]), torch.tensor([2.0], dtype=torch.float64)),
    )
    h = lucid.nextafter(lucid.tensor([1.0]).half(), lucid.tensor([2.0]).half())
    assert h.dtype is lucid.float16 and h.float().item() == 1.0 + 2.0**-10
    assert np.isnan(lucid.nextafter(lucid.tensor([np.nan]), lucid.tensor([1.0])).item())


def test_nextafter_gradient_is_the_identity_in_input():
    a = lucid.tensor(RNG.standard_normal(5), requires_grad=True)
    b = lucid.tensor(RNG.standard_normal(5), requires_grad=True)
    ga, gb = lucid.autograd.grad(lucid.nextafter(a, b).sum(), [a, b], allow_unused=True)
    np.testing.assert_array_equal(ga.numpy(), np.ones(5))
    assert gb is None or not np.any(gb.numpy())


def test_nextafter_promotes_integer_operands_with_a_float_one():
    assert_same(
        lucid.nextafter(lucid.tensor([1, 5]), lucid.tensor([2.0, 0.0])),
        torch.nextafter(torch.tensor([1, 5]), torch.tensor([2.0, 0.0])),
    )


def test_nextafter_bfloat16_steps_like_torch():
    vals = [1.0, 0.0, -0.0, -1.0, 3.5, -2.0, np.inf, -np.inf, np.nan, 1e-40, 2.0]
    towards = [2.0, 1.0, -1.0, -2.0, 3.5, 5.0, 0.0, 0.0, 1.0, -1.0, np.nan]
    got = lucid.nextafter(lucid.tensor(vals).bfloat16(), lucid.tensor(towards).bfloat16())
    want = torch.nextafter(torch.tensor(vals).bfloat16(), torch.tensor(towards).bfloat16())
    assert got.dtype is lucid.bfloat16
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())


def test_nextafter_errors():
    with pytest.raises(DTypeError, match="nextafter"):
        lucid.nextafter(lucid.tensor([1]), lucid.tensor([2]))
    with pytest.raises(ShapeError, match="nextafter"):
        lucid.nextafter(lucid.zeros(2), lucid.zeros(3))


# -- heaviside -----------------------------------------------------------------------------


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int64, np.int16, np.bool_])
def test_heaviside_parity(dt):
    x = np.array([[-2, 0, 3], [0, 1, -1]]).astype(dt)
    v = np.array([5, 0, 1]).astype(dt)
    check(lucid.heaviside, torch.heaviside, x, v, grad=False)
    check(
        lambda a, b: a.heaviside(b),
        lambda a, b: a.heaviside(b),
        x,
        v[:1],
        grad=False,
        noncontig=True,
    )


def test_heaviside_nan_and_gradient_to_values():
    x = np.array([np.nan, 0.0, -1.0, 2.0, 0.0])
    check(lucid.heaviside, torch.heaviside, x, np.array([0.25]), grad=False)
    lx = lucid.tensor(x)
    v = lucid.tensor(RNG.standard_normal(5), requires_grad=True)
    (g,) = lucid.autograd.grad(lucid.heaviside(lx, v).sum(), v)
    np.testing.assert_array_equal(g.numpy(), (x == 0).astype(np.float64))


def test_heaviside_errors():
    with pytest.raises(DTypeError, match="heaviside"):
        lucid.heaviside(lucid.tensor([1.0]), lucid.tensor([1]))
    with pytest.raises(DTypeError, match="heaviside"):
        lucid.heaviside(lucid.tensor([1.0]), 0.5)


# -- gcd and lcm ---------------------------------------------------------------------------


@pytest.mark.parametrize("dt", INTS)
@pytest.mark.parametrize("name", ["gcd", "lcm"])
def test_gcd_lcm_parity(name, dt):
    lo = 0 if dt is np.uint8 else -30
    a = RNG.integers(lo, 31, (4, 5)).astype(dt)
    b = RNG.integers(lo, 31, (4, 5)).astype(dt)
    a[0, 0] = b[0, 0] = 0
    check(getattr(lucid, name), getattr(torch, name), a, b, grad=False)
    check(
        lambda x, y: getattr(x, name)(y),
        lambda x, y: getattr(x, name)(y),
        a,
        b[0],
        grad=False,
        noncontig=True,
    )
    check(getattr(lucid, name), getattr(torch, name), np.asarray(a[1, 1]), b, grad=False)


@pytest.mark.parametrize("name", ["gcd", "lcm"])
def test_gcd_lcm_bool_with_integers(name):
    a, b = np.array([True, False, True]), np.array([4, 6, 0], dtype=np.int32)
    check(getattr(lucid, name), getattr(torch, name), a, b, grad=False)
    check(getattr(lucid, name), getattr(torch, name), b, a, grad=False)


def test_gcd_lcm_mixed_dtypes_and_in_place():
    assert_same(
        lucid.gcd(lucid.tensor([12, 18], dtype=lucid.int16), lucid.tensor([8, 27])),
        torch.gcd(torch.tensor([12, 18], dtype=torch.int16), torch.tensor([8, 27])),
    )
    lx, tx = lucid.tensor([4, 6, 10]), torch.tensor([4, 6, 10])
    lx.lcm_(lucid.tensor([6, 4, 15]))
    tx.lcm_(torch.tensor([6, 4, 15]))
    assert_same(lx, tx)
    assert lucid.gcd(lucid.tensor([12, 18]), 8).tolist() == [4, 2]


@pytest.mark.parametrize("name", ["gcd", "lcm"])
def test_gcd_lcm_errors(name):
    fn = getattr(lucid, name)
    with pytest.raises(DTypeError, match=name):
        fn(lucid.tensor([1.0]), lucid.tensor([2.0]))
    with pytest.raises(DTypeError, match=name):
        fn(lucid.tensor([True]), lucid.tensor([False]))
    with pytest.raises(DTypeError, match=name):
        fn(lucid.tensor([4]), 2.0)


# -- shifts --------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", INTS)
@pytest.mark.parametrize("name", ["bitwise_left_shift", "bitwise_right_shift"])
def test_shift_parity(name, dt):
    lo = 0 if dt is np.uint8 else -100
    a = RNG.integers(lo, 100, (3, 5)).astype(dt)
    bits = 8 * np.dtype(dt).itemsize
    s = (
        np.array([0, 1, 3, bits - 1, bits + 4]).astype(dt if bits > 8 else np.uint8)
        if np.iinfo(dt).max >= bits + 4
        else np.array([0, 1, 3, 5, 7]).astype(dt)
    )
    check(getattr(lucid, name), getattr(torch, name), a, s, grad=False)
    check(
        lambda x, y: getattr(x, name)(y),
        lambda x, y: getattr(x, name)(y),
        a,
        s,
        grad=False,
        noncontig=True,
    )


def test_shift_operators_and_reflected_forms():
    a = np.array([[1, -8, 100], [7, 0, -1]])
    s = np.array([2, 1, 3])
    la, ta = lucid.tensor(a), torch.tensor(a)
    ls, ts = lucid.tensor(s), torch.tensor(s)
    assert_same(la << ls, ta << ts)
    assert_same(la >> ls, ta >> ts)
    assert_same(la << 3, ta << 3)
    assert_same(la >> 70, ta >> 70)
    assert_same(1 << ls, 1 << ts)
    assert_same(256 >> ls, 256 >> ts)
    assert_same(
        lucid.tensor([100], dtype=lucid.int8) << 2, torch.tensor([100], dtype=torch.int8) << 2
    )
    assert_same(lucid.tensor([True, False]) << 1, torch.tensor([True, False]) << 1)


def test_shift_in_place_operators():
    la, ta = lucid.tensor([1, 2, -3]), torch.tensor([1, 2, -3])
    before = la
    la <<= 2
    ta <<= 2
    assert la is before
    assert_same(la, ta)
    la >>= lucid.tensor([1, 0, 1])
    ta >>= torch.tensor([1, 0, 1])
    assert_same(la, ta)
    lb, tb = lucid.tensor([8, 9]), torch.tensor([8, 9])
    lb.bitwise_right_shift_(1)
    tb.bitwise_right_shift_(1)
    assert_same(lb, tb)


def test_shift_errors():
    with pytest.raises(DTypeError, match="bitwise_left_shift"):
        lucid.tensor([1.0]) << 1
    with pytest.raises(DTypeError, match="bitwise_right_shift"):
        lucid.tensor([4]) >> 1.5
    with pytest.raises(DTypeError, match="bitwise_right_shift"):
        lucid.tensor([True]) >> lucid.tensor([True])
    with pytest.raises(ShapeError, match="bitwise_left_shift"):
        lucid.tensor([1, 2]) << lucid.tensor([1, 2, 3])


def test_return_types_and_top_level_in_place_functions():
    r = lucid.frexp(lucid.tensor([3.0, -0.25]))
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is lucid.return_types.frexp
    assert_same(back, r)
    for name, a, b in (
        ("ldexp_", [1.0, 3.0], [2.0, -1.0]),
        ("gcd_", [4, 6], [6, 9]),
        ("lcm_", [4, 6], [6, 9]),
    ):
        lx, tx = lucid.tensor(a), torch.tensor(a)
        assert getattr(lucid, name)(lx, lucid.tensor(b)) is lx
        getattr(torch, name)(tx, torch.tensor(b))
        assert_same(lx, tx)
