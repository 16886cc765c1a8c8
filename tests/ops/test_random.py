"""Random numbers: generators and seeding (reproducibility, state round trips), shapes and
dtypes of every sampler against PyTorch, distribution sanity with fixed seeds and loose
bounds, multinomial without replacement, in-place samplers, error paths."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import AutogradError, DeviceMismatchError, DTypeError, LucidError, ShapeError
from lucid.random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)


def _name(dt):
    return str(dt).rsplit(".", 1)[-1]


def _np(t):
    return t.detach().numpy().astype(np.float64)


# -- seeding and generators -----------------------------------------------------------------

SAMPLERS = [
    ("rand", lambda g: lucid.rand(3, 4, generator=g)),
    ("randn", lambda g: lucid.randn(5, generator=g, dtype=lucid.float64)),
    ("randint", lambda g: lucid.randint(-5, 5, (6,), generator=g)),
    ("randperm", lambda g: lucid.randperm(10, generator=g)),
    ("normal", lambda g: lucid.normal(lucid.zeros(4), lucid.ones(4), generator=g)),
    ("normal-size", lambda g: lucid.normal(1.0, 2.0, (3,), generator=g)),
    ("bernoulli", lambda g: lucid.bernoulli(lucid.full((8,), 0.5), generator=g)),
    ("multinomial", lambda g: lucid.multinomial(lucid.ones(2, 6), 4, generator=g)),
    ("multinomial-repl", lambda g: lucid.multinomial(lucid.ones(6), 9, True, generator=g)),
    ("rand_like", lambda g: lucid.rand_like(lucid.zeros(3), generator=g)),
    ("randn_like", lambda g: lucid.randn_like(lucid.zeros(3), generator=g)),
    ("randint_like", lambda g: lucid.randint_like(lucid.zeros(3), 2, 9, generator=g)),
    ("normal_", lambda g: lucid.zeros(4).normal_(generator=g)),
    ("uniform_", lambda g: lucid.zeros(4).uniform_(-2, 2, generator=g)),
    ("bernoulli_", lambda g: lucid.zeros(4).bernoulli_(0.3, generator=g)),
    ("random_", lambda g: lucid.zeros(4, dtype=lucid.int32).random_(generator=g)),
    ("exponential_", lambda g: lucid.zeros(4).exponential_(2.0, generator=g)),
]


@pytest.mark.parametrize("fn", [f for _, f in SAMPLERS], ids=[n for n, _ in SAMPLERS])
def test_same_seed_same_numbers(fn):
    manual_seed(123)
    a = _np(fn(None))
    manual_seed(123)
    b = _np(fn(None))
    np.testing.assert_array_equal(a, b)
    c = _np(fn(Generator().manual_seed(123)))
    d = _np(fn(Generator().manual_seed(123)))
    np.testing.assert_array_equal(c, d)
    assert not np.array_equal(_np(fn(Generator().manual_seed(7))), d) or a.size < 3


def test_generator_is_independent_of_the_default_stream():
    manual_seed(0)
    a = lucid.rand(5).numpy()
    manual_seed(0)
    g = Generator().manual_seed(0)
    lucid.rand(100, generator=g)
    np.testing.assert_array_equal(lucid.rand(5).numpy(), a)


def test_generator_api():
    g = Generator()
    assert g.initial_seed() == 67280421310721 and g.device == "cpu"
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    assert Generator(device="cpu").manual_seed(-1).initial_seed() == 2**64 - 1
    assert Generator().manual_seed(-(2**63)).initial_seed() == 2**63
    s = g.seed()
    assert isinstance(s, int) and 0 <= s < 2**64 and g.initial_seed() == s
    assert "Generator" in repr(g)


def test_module_level_seeding():
    assert manual_seed(3.7).initial_seed() == 3
    assert manual_seed(42) is default_generator and initial_seed() == 42
    a = lucid.randn(4).numpy()
    s = seed()
    assert initial_seed() == s
    manual_seed(42)
    np.testing.assert_array_equal(lucid.randn(4).numpy(), a)


def test_rng_state_round_trips_exactly():
    manual_seed(9)
    lucid.randn(3)  # move away from a fresh state
    state = get_rng_state()
    assert state.dtype is lucid.uint8 and state.ndim == 1
    a = [
        lucid.rand(7).numpy(),
        lucid.randint(0, 2**62, (3,)).numpy(),
        lucid.randn(5, dtype=lucid.float32).numpy(),
    ]
    lucid.rand(50)
    set_rng_state(state)
    b = [
        lucid.rand(7).numpy(),
        lucid.randint(0, 2**62, (3,)).numpy(),
        lucid.randn(5, dtype=lucid.float32).numpy(),
    ]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert initial_seed() == 9


def test_generator_state_restores_seed_and_stream():
    g = Generator().manual_seed(5)
    lucid.rand(3, generator=g)
    s = g.get_state()
    a = lucid.randn(4, generator=g).numpy()
    g.manual_seed(7)
    assert g.set_state(s) is g and g.initial_seed() == 5
    np.testing.assert_array_equal(lucid.randn(4, generator=g).numpy(), a)
    h = Generator().set_state(s)  # a state moves between generators
    np.testing.assert_array_equal(lucid.randn(4, generator=h).numpy(), a)


def test_bad_states_raise():
    g = Generator()
    with pytest.raises(
        DTypeError, match="set_state: RNG state must be a uint8 tensor, got float32"
    ):
        g.set_state(lucid.zeros(45))
    with pytest.raises(DTypeError, match="got list"):
        set_rng_state([0] * 45)
    with pytest.raises(LucidError, match="set_state: invalid RNG state of 3 bytes"):
        g.set_state(lucid.zeros(3, dtype=lucid.uint8))


# -- shapes, dtypes, devices vs torch --------------------------------------------------------

SHAPES = [
    ("rand", lambda m: m.rand(2, 3)),
    ("rand-tuple", lambda m: m.rand((4,), dtype=m.float64)),
    ("rand-0d", lambda m: m.rand(())),
    ("rand-empty", lambda m: m.rand(0, 2)),
    ("rand-half", lambda m: m.rand(3, dtype=m.float16)),
    ("rand-grad", lambda m: m.rand(2, requires_grad=True)),
    ("randn", lambda m: m.randn(2, 1, 3)),
    ("randn-bf16", lambda m: m.randn([2], dtype=m.bfloat16)),
    ("randn-grad", lambda m: m.randn(3, dtype=m.float64, requires_grad=True)),
    ("randint", lambda m: m.randint(3, 10, (2, 2))),
    ("randint-high", lambda m: m.randint(10, (3,))),
    ("randint-size-kw", lambda m: m.randint(10, size=(3,))),
    ("randint-kw", lambda m: m.randint(low=2, high=5, size=(3,))),
    ("randint-dtype", lambda m: m.randint(0, 3, (2,), dtype=m.float32)),
    ("randint-bool", lambda m: m.randint(0, 2, (5,), dtype=m.bool)),
    ("randint-uint8", lambda m: m.randint(0, 256, (5,), dtype=m.uint8)),
    ("randint-0d", lambda m: m.randint(0, 2, ())),
    ("randperm", lambda m: m.randperm(5)),
    ("randperm-0", lambda m: m.randperm(0)),
    ("randperm-float", lambda m: m.randperm(4, dtype=m.float32)),
    ("normal-tensors", lambda m: m.normal(m.zeros(2, 1), m.ones(3))),
    ("normal-mean", lambda m: m.normal(m.zeros(3, dtype=m.float64))),
    ("normal-std", lambda m: m.normal(0.0, m.ones(2, 2))),
    ("normal-mixed", lambda m: m.normal(m.zeros(2), m.ones(2, dtype=m.float64))),
    ("normal-size", lambda m: m.normal(2, 3, size=(2, 2))),
    ("normal-size-dtype", lambda m: m.normal(0.0, 1.0, (3,), dtype=m.float64)),
    ("bernoulli", lambda m: m.bernoulli(m.full((3,), 0.5, dtype=m.float64))),
    ("bernoulli-p", lambda m: m.bernoulli(m.zeros(2, 2), 0.5)),
    ("bernoulli-int", lambda m: m.zeros(3, dtype=m.int64).bernoulli(0.5)),
    ("multinomial", lambda m: m.multinomial(m.ones(5), 3)),
    ("multinomial-2d", lambda m: m.multinomial(m.ones(2, 5), 4, replacement=True)),
    ("multinomial-empty-rows", lambda m: m.multinomial(m.ones(0, 3), 2)),
    ("multinomial-method", lambda m: m.ones(3).multinomial(2)),
    ("rand_like", lambda m: m.rand_like(m.zeros(2, dtype=m.float64))),
    ("rand_like-dtype", lambda m: m.rand_like(m.zeros(2, dtype=m.int64), dtype=m.float32)),
    ("randn_like", lambda m: m.randn_like(m.zeros(1, 2), requires_grad=True)),
    ("randint_like", lambda m: m.randint_like(m.zeros(2), 10)),
    ("randint_like-low", lambda m: m.randint_like(m.zeros(2, dtype=m.int16), 3, 10)),
    ("normal_", lambda m: m.zeros(2, 3).normal_(1, 2)),
    ("uniform_", lambda m: m.zeros(3, dtype=m.float64).uniform_(-1, 1)),
    ("bernoulli_-bool", lambda m: m.zeros(3, dtype=m.bool).bernoulli_(m.full((3,), 0.5))),
    ("random_-float", lambda m: m.zeros(3).random_(5)),
    ("random_-int8", lambda m: m.zeros(3, dtype=m.int8).random_(-5, 0)),
    ("exponential_", lambda m: m.zeros(2, dtype=m.float16).exponential_()),
]


@pytest.mark.parametrize("fn", [f for _, f in SHAPES], ids=[n for n, _ in SHAPES])
def test_shapes_dtypes_devices_match_torch(fn):
    lt, tt = fn(lucid), fn(torch)
    assert tuple(lt.shape) == tuple(tt.shape)
    assert lt.dtype.name == _name(tt.dtype)
    assert str(lt.device) == str(tt.device)
    assert lt.requires_grad == tt.requires_grad and lt.is_leaf == tt.is_leaf


# -- distributions (fixed seeds, loose bounds) -----------------------------------------------

N = 20000


def _gen():
    return Generator().manual_seed(2024)


@pytest.mark.parametrize("dtype", [lucid.float32, lucid.float64, lucid.float16, lucid.bfloat16])
def test_uniform_moments_and_range(dtype):
    x = _np(lucid.rand(N, generator=_gen(), dtype=dtype))
    assert x.min() >= 0 and x.max() < 1
    assert abs(x.mean() - 0.5) < 0.01 and abs(x.var() - 1 / 12) < 0.005
    y = _np(lucid.empty(N, dtype=dtype).uniform_(-3, 1, generator=_gen()))
    assert y.min() >= -3 and y.max() <= 1 and abs(y.mean() + 1) < 0.05


@pytest.mark.parametrize("dtype", [lucid.float32, lucid.float64, lucid.float16])
def test_normal_moments(dtype):
    x = _np(lucid.randn(N, generator=_gen(), dtype=dtype))
    assert abs(x.mean()) < 0.03 and abs(x.std() - 1) < 0.03
    y = _np(lucid.empty(N, dtype=dtype).normal_(3, 0.5, generator=_gen()))
    assert abs(y.mean() - 3) < 0.02 and abs(y.std() - 0.5) < 0.02
    z = _np(
        lucid.normal(
            lucid.tensor([-10.0, 10.0]).reshape(2, 1),
            lucid.tensor([1.0, 0.1]).reshape(2, 1).expand(2, N),
            generator=_gen(),
        )
    )
    assert abs(z[0].mean() + 10) < 0.05 and abs(z[1].std() - 0.1) < 0.005


def test_normal_with_zero_std_is_the_mean():
    m = lucid.tensor([1.0, -2.0])
    np.testing.assert_array_equal(lucid.normal(m, 0.0).numpy(), [1, -2])


def test_integer_samplers_cover_their_range_uniformly():
    x = lucid.randint(-3, 4, (N,), generator=_gen()).numpy()
    counts = np.bincount(x + 3, minlength=7)
    assert x.min() == -3 and x.max() == 3 and np.all(np.abs(counts / N - 1 / 7) < 0.015)
    r = lucid.zeros(N, dtype=lucid.uint8).random_(generator=_gen()).numpy()
    assert r.min() == 0 and r.max() == 255
    f = lucid.zeros(N, dtype=lucid.float16).random_(generator=_gen()).numpy()
    assert f.min() >= 0 and f.max() <= 2**11 and np.all(f == np.round(f))
    b = lucid.zeros(N, dtype=lucid.bool).random_(generator=_gen()).numpy()
    assert 0.45 < b.mean() < 0.55
    big = lucid.zeros(1000, dtype=lucid.int64).random_(generator=_gen()).numpy()
    assert big.min() >= 0 and big.max() > 2**60


def test_randperm_is_a_permutation():
    for n in (1, 7, 100):
        p = lucid.randperm(n, generator=_gen()).numpy()
        assert sorted(p.tolist()) == list(range(n))


def test_bernoulli_and_exponential_means():
    p = lucid.tensor([0.0, 0.2, 0.9, 1.0]).reshape(4, 1).expand(4, N)
    x = lucid.bernoulli(p, generator=_gen()).numpy()
    np.testing.assert_allclose(x.mean(axis=1), [0, 0.2, 0.9, 1], atol=0.015)
    assert set(np.unique(x)) <= {0.0, 1.0}
    y = lucid.zeros(N, dtype=lucid.int64).bernoulli_(0.25, generator=_gen()).numpy()
    assert abs(y.mean() - 0.25) < 0.015
    e = _np(lucid.empty(N).exponential_(4.0, generator=_gen()))
    assert e.min() >= 0 and abs(e.mean() - 0.25) < 0.01 and abs(e.std() - 0.25) < 0.01


def test_multinomial_frequencies_with_replacement():
    w = lucid.tensor([[1.0, 0.0, 3.0, 4.0], [0.0, 0.0, 0.0, 2.0]])
    x = lucid.multinomial(w, N, replacement=True, generator=_gen()).numpy()
    f0 = np.bincount(x[0], minlength=4) / N
    np.testing.assert_allclose(f0, [0.125, 0, 0.375, 0.5], atol=0.015)
    assert f0[1] == 0 and np.all(x[1] == 3)


def test_multinomial_without_replacement_never_repeats():
    w = lucid.rand(200, 10, generator=_gen()) + 0.01
    x = lucid.multinomial(w, 10, generator=_gen()).numpy()
    assert all(sorted(row.tolist()) == list(range(10)) for row in x)
    y = lucid.multinomial(lucid.tensor([0.0, 1.0, 0.0, 2.0, 0.0]), 2, generator=_gen())
    assert sorted(y.tolist()) == [1, 3]  # zero weights are never drawn first
    z = lucid.multinomial(lucid.tensor([1.0, 0.0]), 2, generator=_gen())
    assert z.tolist() == [0, 1]  # ... only once the others are used up


def test_multinomial_without_replacement_first_draw_is_proportional():
    w = lucid.tensor([1.0, 2.0, 7.0]).reshape(1, 3).expand(N, 3)
    first = lucid.multinomial(w, 2, generator=_gen()).numpy()[:, 0]
    np.testing.assert_allclose(np.bincount(first, minlength=3) / N, [0.1, 0.2, 0.7], atol=0.015)


# -- autograd ---------------------------------------------------------------------------------


def test_samplers_with_tensor_parameters_give_zero_gradients_like_torch():
    for lib in (lucid, torch):
        m = lib.zeros(3, requires_grad=True)
        s = lib.ones(3, requires_grad=True)
        p = lib.full((3,), 0.5, requires_grad=True)
        out = lib.normal(m, s).sum() + lib.bernoulli(p).sum()
        assert out.requires_grad
        out.backward()
        for t in (m, s, p):
            assert t.grad.tolist() == [0.0, 0.0, 0.0]


def test_inplace_samplers_check_leaves_and_bump_versions():
    w = lucid.zeros(3, requires_grad=True)
    for call, name in (
        (lambda: w.normal_(), "normal_"),
        (lambda: w.uniform_(), "uniform_"),
        (lambda: w.bernoulli_(), "bernoulli_"),
        (lambda: w.random_(), "random_"),
        (lambda: w.exponential_(), "exponential_"),
    ):
        with pytest.raises(AutogradError, match=f"{name}: a leaf Variable"):
            call()
    with lucid.no_grad():
        w.uniform_(1, 2)
    assert w._version == 1 and w.is_leaf and np.all(_np(w) >= 1)
    y = lucid.ones(3, requires_grad=True) * 2
    y.normal_()
    assert y.requires_grad and y._version == 1
    x = lucid.ones(2, 3)
    v = x.narrow(1, 0, 2)
    v.random_(3, 4)
    assert x.tolist() == [[3, 3, 1], [3, 3, 1]] and x._version == 1


# -- errors -----------------------------------------------------------------------------------

ERRORS = [
    (lambda: lucid.rand(-1), ShapeError, "rand: .*negative dimension"),
    (
        lambda: lucid.randn(2, dtype=lucid.int64),
        DTypeError,
        "randn: expected a floating point dtype, got int64",
    ),
    (
        lambda: lucid.rand(2, generator=5),
        DTypeError,
        "rand: generator must be a lucid.Generator, got int",
    ),
    (
        lambda: lucid.randint(5, 3, (2,)),
        LucidError,
        "randint: expects 'from' to be less than 'to', but got from=5 >= to=3",
    ),
    (lambda: lucid.randint(3, 3, (2,)), LucidError, "from=3 >= to=3"),
    (lambda: lucid.randint(10), DTypeError, "randint: missing the size"),
    (lambda: lucid.randint(0, 2.5, (2,)), DTypeError, "randint: high must be an int, got float"),
    (lambda: lucid.randint(0, 3, (-1,)), ShapeError, "randint: .*negative"),
    (
        lambda: lucid.randint(0, 300, (2,), dtype=lucid.uint8),
        DTypeError,
        "randint: to - 1 = 299 is out of bounds for uint8",
    ),
    (
        lambda: lucid.randint(-1, 3, (2,), dtype=lucid.uint8),
        DTypeError,
        "randint: from=-1 is out of bounds for uint8",
    ),
    (lambda: lucid.randint(0, 3, (2,), requires_grad=True), DTypeError, "floating point"),
    (lambda: lucid.randperm(-1), ShapeError, "randperm: n must be non-negative, got -1"),
    (lambda: lucid.randperm(2.0), DTypeError, "randperm: n must be an int"),
    (
        lambda: lucid.normal(0.0, -1.0, (2,)),
        LucidError,
        "normal: expects std >= 0.0, but found std -1.0",
    ),
    (lambda: lucid.normal(lucid.zeros(2), -1.0), LucidError, "normal: expects std >= 0.0"),
    (
        lambda: lucid.normal(lucid.zeros(2), lucid.tensor([1.0, -1.0])),
        LucidError,
        "normal: expects all elements of std >= 0.0",
    ),
    (
        lambda: lucid.normal(lucid.zeros(2), lucid.tensor([1.0, float("nan")])),
        LucidError,
        "all elements of std",
    ),
    (
        lambda: lucid.normal(lucid.zeros(2), lucid.ones(3)),
        ShapeError,
        r"normal: mean of shape \(2,\) and std of shape \(3,\) cannot be broadcast",
    ),
    (
        lambda: lucid.normal(lucid.zeros(2, dtype=lucid.int64)),
        DTypeError,
        "normal: expected a floating point tensor, got int64",
    ),
    (lambda: lucid.normal(0.0, 1.0), DTypeError, "normal: expected a size"),
    (lambda: lucid.normal(lucid.zeros(2), 1.0, (2,)), DTypeError, "normal: size is only"),
    (
        lambda: lucid.bernoulli(lucid.tensor([2.0])),
        LucidError,
        r"bernoulli: expects all probabilities p to be in \[0, 1\]",
    ),
    (lambda: lucid.bernoulli(lucid.tensor([float("nan")])), LucidError, "probabilities"),
    (
        lambda: lucid.bernoulli(lucid.tensor([1, 0])),
        DTypeError,
        "bernoulli: expected a floating point tensor, got int64",
    ),
    (
        lambda: lucid.bernoulli(lucid.zeros(2), 1.5),
        LucidError,
        r"bernoulli: expects p to be in \[0, 1\], but got p=1.5",
    ),
    (lambda: lucid.bernoulli([0.5], 0.5), DTypeError, "bernoulli: expected a Tensor"),
    (lambda: lucid.zeros(2).bernoulli_(-0.1), LucidError, "bernoulli_: expects p"),
    (
        lambda: lucid.zeros(2).bernoulli_(lucid.full((3,), 0.5)),
        ShapeError,
        r"bernoulli_: p of shape \(3,\) cannot be broadcast to the tensor's shape \(2,\)",
    ),
    (
        lambda: lucid.multinomial(lucid.tensor([1.0, -1.0]), 1),
        LucidError,
        "multinomial: probability tensor contains either inf, nan or element < 0",
    ),
    (lambda: lucid.multinomial(lucid.tensor([1.0, float("nan")]), 1), LucidError, "nan"),
    (lambda: lucid.multinomial(lucid.tensor([1.0, float("inf")]), 1, True), LucidError, "inf"),
    (
        lambda: lucid.multinomial(lucid.tensor([0.0, 0.0]), 1),
        LucidError,
        r"multinomial: invalid multinomial distribution \(sum of probabilities <= 0\)",
    ),
    (lambda: lucid.multinomial(lucid.ones(0), 1, True), LucidError, "sum of probabilities"),
    (
        lambda: lucid.multinomial(lucid.ones(2), 3),
        ShapeError,
        r"multinomial: cannot sample n_sample > prob_dist.size\(-1\) samples without "
        r"replacement \(3 > 2\)",
    ),
    (
        lambda: lucid.multinomial(lucid.tensor([1, 1]), 1),
        DTypeError,
        "multinomial: expected a floating point tensor, got int64",
    ),
    (
        lambda: lucid.multinomial(lucid.ones(1, 1, 2), 1),
        ShapeError,
        "multinomial: prob_dist must be 1 or 2 dim, got 3 dims",
    ),
    (
        lambda: lucid.multinomial(lucid.ones(2), 0),
        ShapeError,
        "multinomial: cannot sample n_sample <= 0 samples",
    ),
    (
        lambda: lucid.multinomial(lucid.ones(2), 1.0),
        DTypeError,
        "multinomial: num_samples must be an int",
    ),
    (
        lambda: lucid.rand_like(lucid.zeros(2, dtype=lucid.int64)),
        DTypeError,
        "rand: expected a floating point dtype, got int64",
    ),
    (lambda: lucid.randn_like([1.0]), DTypeError, "randn_like: expected a Tensor, got list"),
    (
        lambda: lucid.zeros(2).uniform_(2, 1),
        LucidError,
        r"uniform_: expects to return a \[from, to\) range, but found from=2 > to=1",
    ),
    (
        lambda: lucid.zeros(2, dtype=lucid.int64).uniform_(),
        DTypeError,
        "uniform_: expected a floating point tensor, got int64",
    ),
    (
        lambda: lucid.zeros(2, dtype=lucid.int64).normal_(),
        DTypeError,
        "normal_: expected a floating point tensor",
    ),
    (lambda: lucid.zeros(2).normal_(0, -1), LucidError, "normal_: expects std >= 0.0"),
    (
        lambda: lucid.zeros(2).exponential_(0),
        LucidError,
        "exponential_: expects lambda > 0.0, but found lambda=0",
    ),
    (lambda: lucid.zeros(2, dtype=lucid.int32).exponential_(), DTypeError, "exponential_"),
    (
        lambda: lucid.zeros(2).random_(5, 3),
        LucidError,
        "random_: expects 'from' to be less than 'to', but got from=5 >= to=3",
    ),
    (
        lambda: lucid.zeros(2, dtype=lucid.uint8).random_(0, 300),
        DTypeError,
        "random_: to - 1 = 299 is out of bounds for uint8",
    ),
    (lambda: lucid.zeros(2).random_(0.5, 2), DTypeError, "random_: from must be an int, got float"),
    (lambda: Generator().manual_seed(1.5), DTypeError, "manual_seed: expected an int seed"),
    (
        lambda: manual_seed(2**64),
        LucidError,
        r"manual_seed: seed 18446744073709551616 is out "
        r"of range",
    ),
    (lambda: manual_seed(-(2**63) - 1), LucidError, "out of range"),
    (lambda: manual_seed("1"), DTypeError, "manual_seed: expected an int seed, got str"),
]


@pytest.mark.parametrize("fn,exc,match", ERRORS)
def test_errors(fn, exc, match):
    with pytest.raises(exc, match=match) as info:
        fn()
    assert isinstance(info.value, LucidError)


def test_value_errors_are_value_errors():
    """Bad argument values raise a LucidError that is also a ValueError."""
    for fn in (
        lambda: lucid.randint(5, 3, (2,)),
        lambda: lucid.zeros(2).bernoulli_(2.0),
        lambda: lucid.normal(0.0, -1.0, (1,)),
        lambda: manual_seed(2**70),
    ):
        with pytest.raises(ValueError):
            fn()


def test_generator_device_must_match():
    g = Generator()
    g._device = lucid.device("cuda")  # a CUDA generator, without needing a GPU
    with pytest.raises(
        DeviceMismatchError,
        match="rand: expected a 'cpu' device type for generator but found 'cuda'",
    ):
        lucid.rand(2, generator=g)
