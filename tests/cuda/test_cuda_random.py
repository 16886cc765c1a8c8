"""The CUDA generator (Philox4x32-10, lucid/backend/cuda/random.py) and counter-based dropout.

The kernels' raw words are checked bit for bit against the NumPy reference
(tests/cuda/philox_reference.py, itself checked on Random123's vectors by
tests/test_philox_reference.py); each sampler's moments against its distribution (the
numbers are not the CPU generator's, only their laws); state save/restore and seeding
reproduce draws exactly; dropout's gradient follows the forward's mask.
"""

import math

import numpy as np
import pytest

import lucid
import lucid.nn.functional as F
from lucid.errors import ShapeError
from tests.cuda.philox_reference import KNOWN_ANSWERS, stream, words64

pytestmark = pytest.mark.cuda

FLOATS = [lucid.float32, lucid.float64, lucid.float16, lucid.bfloat16]
# mantissa bits of the uniform grid, and a resolution allowance of each dtype
GRID_BITS = {lucid.float64: 53, lucid.float32: 24, lucid.float16: 11, lucid.bfloat16: 8}
RES = {lucid.float64: 1e-12, lucid.float32: 1e-6, lucid.float16: 4e-3, lucid.bfloat16: 3e-2}
N = 400_000


def gen(seed, offset=None):
    """A CUDA generator seeded with ``seed``, its counter moved to ``offset``."""
    g = lucid.Generator(device="cuda").manual_seed(seed)
    if offset is not None:
        raw = bytes(g.get_state().tolist())
        g.set_state(lucid.tensor(list(raw[:16] + offset.to_bytes(8, "little")), dtype=lucid.uint8))
    return g


def offset_of(g):
    return int.from_bytes(bytes(g.get_state().tolist())[16:], "little")


def host(t):
    return t.detach().cpu().numpy().astype(np.float64)


def raw64(g, n):
    """n raw 64-bit words through randint's whole-word path (range 2**64)."""
    r = lucid.randint(-(2**63), 2**63, (n,), generator=g, device="cuda")
    return r.cpu().numpy().view(np.uint64) ^ np.uint64(1 << 63)


def check_moments(x, mean, var, dt=lucid.float64, scale=1.0):
    """Sample mean within 6 standard errors (plus the dtype's rounding), variance within
    4% of ``var``."""
    tol = 6 * math.sqrt(var / x.size) + RES[dt] * scale
    assert abs(x.mean() - mean) < tol, (x.mean(), mean, tol)
    assert abs(x.var() - var) < 0.04 * var + RES[dt] * scale * scale, (x.var(), var)


# -- the raw stream -------------------------------------------------------------------------


def test_first_block_is_the_zero_known_answer():
    w = raw64(gen(0), 2)
    words = [int(v) >> s & 0xFFFFFFFF for v in w for s in (0, 32)]
    assert words == list(KNOWN_ANSWERS[0][2])


@pytest.mark.parametrize(
    "seed, offset", [(0, 0), (1, 5), (2**64 - 1, 2**64 - 3), (0x0123456789ABCDEF, 2**40 + 7)]
)
@pytest.mark.parametrize("n", [1, 7, 1000003])
def test_words_match_reference(seed, offset, n):
    g = gen(seed, offset)
    np.testing.assert_array_equal(raw64(g, n), words64(seed, offset, n))
    assert offset_of(g) == (offset + -(-n // 2)) % 2**64


@pytest.mark.parametrize("dt", FLOATS)
def test_uniform_is_the_word_grid(dt):
    """rand(n) is exactly floor(w / 2**(32-b)) 2**-b per word (b the dtype's grid bits;
    float64: 53 bits of each 64-bit word), and successive draws continue the counter."""
    g, b = gen(123, 9), GRID_BITS[dt]
    a, c = (
        lucid.rand(7, generator=g, dtype=dt, device="cuda"),
        lucid.rand(5, generator=g, dtype=dt, device="cuda"),
    )
    if dt is lucid.float64:  # two values per block: 4 blocks, then 3

        def grid53(w):
            return (w >> np.uint64(11)).astype(np.float64) * 2.0**-53

        np.testing.assert_array_equal(host(a), grid53(words64(123, 9, 7)))
        np.testing.assert_array_equal(host(c), grid53(words64(123, 13, 5)))
        return
    w = stream(123, 9, 4)
    want = (w >> np.uint32(32 - b)).astype(np.float64) * 2.0**-b
    np.testing.assert_array_equal(host(a), want[:7])
    np.testing.assert_array_equal(host(c), want[8:13])  # block 1's last word is skipped


# -- state and seeding ----------------------------------------------------------------------


def test_state_round_trip_replays_draws():
    g = gen(42)
    lucid.randn(1000, generator=g, device="cuda")
    s = g.get_state()
    assert s.numel() == 24 and s.device.type == "cpu"
    a = lucid.randn(1001, generator=g, device="cuda")
    b = lucid.randint(0, 10, (17,), generator=g, device="cuda")
    g.set_state(s)
    assert (lucid.randn(1001, generator=g, device="cuda") == a).all().item()
    assert (lucid.randint(0, 10, (17,), generator=g, device="cuda") == b).all().item()
    with pytest.raises(ShapeError):
        g.set_state(lucid.tensor(list(range(20)), dtype=lucid.uint8))


def test_manual_seed_reproducible():
    a = lucid.randn(5, 7, generator=lucid.Generator(device="cuda").manual_seed(3), device="cuda")
    b = lucid.randn(5, 7, generator=lucid.Generator(device="cuda").manual_seed(3), device="cuda")
    c = lucid.randn(5, 7, generator=lucid.Generator(device="cuda").manual_seed(4), device="cuda")
    assert (a == b).all().item() and not (a == c).all().item()
    lucid.manual_seed(11)
    d = lucid.rand(100, device="cuda")
    lucid.manual_seed(11)
    assert (lucid.rand(100, device="cuda") == d).all().item()


def test_empty_and_zero_dim_draws():
    g = gen(5, 100)
    assert tuple(lucid.rand(0, generator=g, device="cuda").shape) == (0,)
    assert tuple(lucid.randn(3, 0, generator=g, device="cuda").shape) == (3, 0)
    assert offset_of(g) == 100
    z = lucid.rand((), generator=g, device="cuda")
    assert z.shape == () and 0 <= z.item() < 1 and offset_of(g) == 101


# -- distributions --------------------------------------------------------------------------


@pytest.mark.parametrize("dt", FLOATS)
def test_uniform(dt):
    g = gen(1)
    u = host(lucid.rand(N, generator=g, dtype=dt, device="cuda"))
    assert u.min() >= 0 and u.max() < 1
    x = host(lucid.empty(N, dtype=dt, device="cuda").uniform_(-2.0, 3.0, generator=g))
    assert x.min() >= -2 and x.max() <= 3
    check_moments(x, 0.5, 25 / 12, dt, 5)


@pytest.mark.parametrize("dt", FLOATS)
def test_normal(dt):
    g = gen(2)
    z = host(lucid.randn(1000003, generator=g, dtype=dt, device="cuda"))
    check_moments(z, 0.0, 1.0, dt, 4)
    assert abs((z**4).mean() - 3) < 0.1  # kurtosis
    assert abs((z > 1.959964).mean() - 0.025) < 0.002 + RES[dt]  # the tail
    x = host(lucid.normal(1.5, 2.0, (N,), generator=g, dtype=dt, device="cuda"))
    check_moments(x, 1.5, 4.0, dt, 8)


@pytest.mark.parametrize("dt", [lucid.float32, lucid.bfloat16])
def test_normal_with_tensor_parameters(dt):
    g = gen(3)
    mean = lucid.tensor([-1.0, 0.0, 4.0], dtype=dt, device="cuda").reshape(3, 1)
    std = lucid.tensor([0.5, 1.0, 2.0], dtype=dt, device="cuda").reshape(3, 1)
    x = lucid.normal(mean.expand(3, N // 3), std.expand(3, N // 3), generator=g)
    assert x.dtype is dt and x.device.type == "cuda"
    h = host(x)
    for r, (m, s) in enumerate([(-1.0, 0.5), (0.0, 1.0), (4.0, 2.0)]):
        check_moments(h[r], m, s * s, dt, 10)


@pytest.mark.parametrize("dt", FLOATS)
def test_exponential_log_normal_cauchy(dt):
    g = gen(4)
    e = host(lucid.empty(N, dtype=dt, device="cuda").exponential_(2.0, generator=g))
    assert e.min() >= 0 and np.isfinite(e).all()
    check_moments(e, 0.5, 0.25, dt, 4)
    ln = host(lucid.empty(N, dtype=dt, device="cuda").log_normal_(0.0, 0.5, generator=g))
    assert ln.min() > 0
    check_moments(ln, math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25), dt, 4)
    c = host(lucid.empty(N, dtype=dt, device="cuda").cauchy_(1.0, 2.0, generator=g))
    for q, v in ((0.25, -1.0), (0.5, 1.0), (0.75, 3.0)):  # median +- sigma are quartiles
        assert abs((c <= v).mean() - q) < 0.005 + RES[dt]


@pytest.mark.parametrize("dt", [lucid.int64, lucid.int32, lucid.float32, lucid.float64])
def test_geometric(dt):
    x = host(lucid.empty(N, dtype=dt, device="cuda").geometric_(0.3, generator=gen(5)))
    assert x.min() >= 1 and (x == np.round(x)).all()
    check_moments(x, 1 / 0.3, 0.7 / 0.09)
    assert abs((x == 1).mean() - 0.3) < 0.005


@pytest.mark.parametrize("dt", FLOATS + [lucid.int64, lucid.bool])
def test_bernoulli(dt):
    g = gen(6)
    x = lucid.empty(N, dtype=dt, device="cuda").bernoulli_(0.3, generator=g)
    h = host(x)
    assert set(np.unique(h)) <= {0.0, 1.0}
    check_moments(h, 0.3, 0.21)
    p = lucid.rand(N, generator=g, device="cuda")
    b = host(lucid.bernoulli(p, generator=g))
    check_moments(b - host(p), 0.0, (host(p) * (1 - host(p))).mean())
    assert host(lucid.zeros(100, device="cuda").bernoulli_(1.0, generator=g)).min() == 1
    assert host(lucid.zeros(100, device="cuda").bernoulli_(0.0, generator=g)).max() == 0


@pytest.mark.parametrize("dt", [lucid.int64, lucid.int32, lucid.int8, lucid.float32])
def test_randint(dt):
    x = host(lucid.randint(-5, 7, (N,), generator=gen(7), dtype=dt, device="cuda"))
    assert set(np.unique(x)) == set(range(-5, 7))
    check_moments(x, 0.5, (12**2 - 1) / 12)


def test_randint_wide_ranges():
    g = gen(8)
    hi = 3 * 2**61  # above 2**62: the 64-bit reduction
    x = lucid.randint(-hi, hi, (N,), generator=g, device="cuda").cpu().numpy()
    assert x.min() >= -hi and x.max() < hi
    assert abs(x.astype(np.float64).mean()) / hi < 0.01
    assert abs((x >= 0).mean() - 0.5) < 0.005
    r = host(lucid.empty(N, dtype=lucid.float32, device="cuda").random_(generator=g))
    assert r.min() >= 0 and r.max() <= 2**24 and (r == np.round(r)).all()


@pytest.mark.parametrize("n", [0, 1, 7, 1000003])
def test_randperm(n):
    p = lucid.randperm(n, generator=gen(9), device="cuda").cpu().numpy()
    assert p.dtype == np.int64
    np.testing.assert_array_equal(np.sort(p), np.arange(n))
    if n > 1000:
        assert abs(p[: n // 2].mean() / ((n - 1) / 2) - 1) < 0.01


def test_randperm_positions_uniform():
    g = gen(10)
    first = np.array([lucid.randperm(5, generator=g, device="cuda")[0].item() for _ in range(5000)])
    counts = np.bincount(first, minlength=5)
    assert (abs(counts - 1000) < 150).all(), counts


@pytest.mark.parametrize("dt", [lucid.float32, lucid.float64, lucid.float16])
def test_poisson(dt):
    rates = [0.0, 0.5, 3.0, 9.99, 10.0, 50.0, 1e4]
    lam = lucid.tensor(rates, dtype=dt, device="cuda").reshape(-1, 1).expand(-1, 40000)
    x = host(lucid.poisson(lam.contiguous(), generator=gen(11)))
    assert (x == np.round(x)).all() and x.min() >= 0
    for row, r in zip(x, rates):
        if r == 0:
            assert row.max() == 0
        elif dt is not lucid.float16 or r < 2048:
            check_moments(row, r, r)


def test_multinomial():
    g = gen(12)
    probs = lucid.tensor(
        [[0.1, 0.0, 0.6, 0.3], [0.0, 0.0, 1.0, 0.0], [1.0, 2.0, 3.0, 4.0]], device="cuda"
    )
    x = lucid.multinomial(probs, 100000, replacement=True, generator=g).cpu().numpy()
    want = probs.cpu().numpy() / probs.cpu().numpy().sum(1, keepdims=True)
    for row, w in zip(x, want):
        freq = np.bincount(row, minlength=4) / row.size
        assert abs(freq - w).max() < 0.006
        assert (freq[w == 0] == 0).all()
    two = lucid.tensor([[0.1, 0.0, 0.6, 0.3], [1.0, 2.0, 3.0, 4.0]], device="cuda")
    r = lucid.multinomial(two.repeat(2000, 1), 3, generator=g).cpu().numpy()
    assert all(len(set(row)) == 3 for row in r)  # without replacement
    assert not (r[0::2] == 1).any()  # a zero weight is never drawn
    first = np.bincount(r[1::2, 0], minlength=4) / (r.shape[0] // 2)
    assert abs(first - want[2]).max() < 0.03  # the first draw: proportional


# -- counter-based dropout ------------------------------------------------------------------


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize(
    "shape, transpose", [((1000003,), False), ((301, 507), True), ((7,), False), ((1,), False)]
)
def test_dropout_mask_semantics(dt, shape, transpose):
    """y = x m, grad = g m with m in {0, 1/(1-p)}: the gradient is zero exactly where the
    output is, and scaled by 1/(1 - p) elsewhere; no mask is kept on the node."""
    p = 0.3
    lucid.manual_seed(13)
    base = (lucid.randn(*shape, dtype=dt, device="cuda") + 5.0).detach()  # no zeros
    base.requires_grad = True
    x = base.t() if transpose else base  # non-contiguous
    y = F.dropout(x, p)
    key = y.grad_fn.extra["key"]
    assert not hasattr(key, "shape")  # a (seed, offset) key
    g = lucid.rand(*x.shape, dtype=dt, device="cuda") + 1.0
    y.backward(g)
    gx = host(base.grad)
    hx, hy, hg, gx = host(x), host(y), host(g), gx.T if transpose else gx
    kept = hy != 0
    np.testing.assert_array_equal(kept, gx != 0)
    s = 1 / (1 - p)
    tol = dict(rtol=2 * RES[dt] + 1e-7, atol=0)
    np.testing.assert_allclose(hy[kept], hx[kept] * s, **tol)
    np.testing.assert_allclose(gx[kept], hg[kept] * s, **tol)
    if x.numel() > 1000:
        assert abs(kept.mean() - (1 - p)) < 6 * math.sqrt(p * (1 - p) / kept.size)


def test_dropout_reproducible_and_graph_mode():
    x = lucid.randn(64, 33, device="cuda", requires_grad=True)
    lucid.manual_seed(21)
    y1 = F.dropout(x, 0.5)
    lucid.manual_seed(21)
    y2 = F.dropout(x, 0.5)
    assert (y1 == y2).all().item()
    g = lucid.randn(64, 33, device="cuda", requires_grad=True)
    (gx,) = lucid.autograd.grad(y1, x, g, create_graph=True)
    (eager,) = lucid.autograd.grad(y2, x, g.detach())
    assert (gx == eager).all().item() and gx.requires_grad
    v = lucid.randn(64, 33, device="cuda")
    (gg,) = lucid.autograd.grad((gx * v).sum(), g)  # d/dg (g m . v) = m v
    m = host(y1) / host(x)
    np.testing.assert_allclose(host(gg), m * host(v), rtol=1e-5, atol=1e-6)


def test_dropout_p_edges():
    x = lucid.randn(1000, device="cuda", requires_grad=True)
    y = F.dropout(x, 1.0)
    assert host(y).max() == 0 and host(y).min() == 0
    y.sum().backward()
    assert (host(x.grad) == 0).all()
    assert (F.dropout(x, 0.0) == x).all().item()
    assert (F.dropout(x, 0.5, training=False) == x).all().item()


def test_channel_and_alpha_dropout():
    lucid.manual_seed(22)
    x = (lucid.randn(64, 32, 5, 5, device="cuda") + 3.0).detach()  # no zeros
    x.requires_grad = True
    y = F.dropout2d(x, 0.4)
    h = host(y).reshape(64, 32, 25)
    zero = (h == 0).all(-1)
    assert ((h != 0).all(-1) | zero).all()  # whole channels
    assert abs(zero.mean() - 0.4) < 0.05
    y.backward(lucid.ones_like(y))
    np.testing.assert_array_equal(host(x.grad).reshape(64, 32, 25)[zero], 0)
    a = F.alpha_dropout(lucid.randn(N, device="cuda"), 0.2, training=True)
    check_moments(host(a), 0.0, 1.0, lucid.float32, 4)
