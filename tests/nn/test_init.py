"""nn.init: gains, fans, distributions' bounds and moments against PyTorch's formulas."""

import math
import warnings

import numpy as np
import pytest
import torch

import lucid
from lucid import nn
from lucid.errors import ArgumentError, ShapeError
from lucid.nn import init


@pytest.mark.parametrize(
    "name,param",
    [
        ("linear", None),
        ("conv2d", None),
        ("sigmoid", None),
        ("tanh", None),
        ("relu", None),
        ("leaky_relu", None),
        ("leaky_relu", 0.2),
        ("leaky_relu", 1),
        ("selu", None),
        ("conv_transpose3d", None),
    ],
)
def test_calculate_gain_matches_torch(name, param):
    assert init.calculate_gain(name, param) == pytest.approx(
        torch.nn.init.calculate_gain(name, param)
    )


def test_calculate_gain_errors():
    with pytest.raises(ArgumentError, match="unsupported nonlinearity"):
        init.calculate_gain("swish")
    with pytest.raises(ArgumentError, match="not a valid number"):
        init.calculate_gain("leaky_relu", True)


@pytest.mark.parametrize("shape", [(3, 4), (8, 3, 5), (6, 2, 3, 3), (4, 2, 1, 2, 3), (5, 0)])
def test_fans_match_torch(shape):
    assert init._calculate_fan_in_and_fan_out(
        lucid.empty(shape)
    ) == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))


def test_fans_need_two_dims():
    with pytest.raises(ShapeError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(lucid.empty(3))


def _bound_and_std(t):
    a = t.detach().numpy().astype(np.float64)
    return np.abs(a).max(), a.std(), a.mean()


@pytest.mark.parametrize("mode", ["fan_in", "fan_out"])
@pytest.mark.parametrize(
    "nonlin,a", [("leaky_relu", 0), ("relu", 0), ("leaky_relu", 0.3), ("tanh", 0)]
)
def test_kaiming_uniform_bound(mode, nonlin, a):
    w = lucid.empty(300, 40, 3)
    init.kaiming_uniform_(w, a=a, mode=mode, nonlinearity=nonlin)
    fan = 120 if mode == "fan_in" else 900
    bound = torch.nn.init.calculate_gain(nonlin, a) * math.sqrt(3.0 / fan)
    mx, std, mean = _bound_and_std(w)
    assert mx <= bound and mx > 0.99 * bound
    assert std == pytest.approx(bound / math.sqrt(3), rel=0.03)


@pytest.mark.parametrize("mode", ["fan_in", "fan_out"])
def test_kaiming_normal_std(mode):
    w = lucid.empty(200, 50, 3)
    init.kaiming_normal_(w, mode=mode, nonlinearity="relu")
    fan = 150 if mode == "fan_in" else 600
    _, std, mean = _bound_and_std(w)
    assert std == pytest.approx(math.sqrt(2.0 / fan), rel=0.03) and abs(mean) < 0.01


def test_kaiming_mode_error_and_zero_element_noop():
    with pytest.raises(ArgumentError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(lucid.empty(3, 3), mode="fan_avg")
    w = lucid.empty(0, 3)
    with pytest.warns(UserWarning, match="no-op"):
        assert init.kaiming_normal_(w) is w


@pytest.mark.parametrize("gain", [1.0, 2.5])
def test_xavier(gain):
    w = lucid.empty(250, 150)
    init.xavier_uniform_(w, gain=gain)
    bound = gain * math.sqrt(6.0 / 400)
    mx, std, _ = _bound_and_std(w)
    assert bound * 0.99 < mx <= bound
    init.xavier_normal_(w, gain=gain)
    _, std, _ = _bound_and_std(w)
    assert std == pytest.approx(gain * math.sqrt(2.0 / 400), rel=0.03)


def test_uniform_normal_constant():
    w = lucid.empty(20000)
    init.uniform_(w, -2.0, 3.0)
    a = w.numpy()
    assert a.min() >= -2.0 and a.max() < 3.0 and a.mean() == pytest.approx(0.5, abs=0.05)
    init.normal_(w, 1.0, 0.5)
    assert w.numpy().mean() == pytest.approx(1.0, abs=0.02)
    assert w.numpy().std() == pytest.approx(0.5, rel=0.03)
    assert init.constant_(w, 0.25).numpy().tolist()[:2] == [0.25, 0.25]
    assert init.ones_(w).sum().item() == 20000 and init.zeros_(w).sum().item() == 0


def test_in_place_on_parameter_without_history():
    p = nn.Parameter(lucid.empty(5, 4))
    for fn in (
        init.uniform_,
        init.normal_,
        init.xavier_uniform_,
        init.kaiming_normal_,
        init.orthogonal_,
        init.trunc_normal_,
        init.ones_,
        init.eye_,
    ):
        assert fn(p) is p
        assert p.is_leaf and p.requires_grad and p._version >= 0
    init.sparse_(p, 0.5)
    init.constant_(p, 2.0)
    assert p.grad_fn is None


def test_generator_is_honoured():
    a, b = lucid.empty(4, 5), lucid.empty(4, 5)
    for fn in (
        init.uniform_,
        init.normal_,
        init.xavier_uniform_,
        init.xavier_normal_,
        init.kaiming_uniform_,
        init.kaiming_normal_,
        init.trunc_normal_,
        init.orthogonal_,
    ):
        fn(a, generator=lucid.Generator().manual_seed(3))
        fn(b, generator=lucid.Generator().manual_seed(3))
        assert np.array_equal(a.numpy(), b.numpy()), fn.__name__
        fn(b, generator=lucid.Generator().manual_seed(4))
        assert not np.array_equal(a.numpy(), b.numpy()), fn.__name__
    init.sparse_(a, 0.5, generator=lucid.Generator().manual_seed(1))
    init.sparse_(b, 0.5, generator=lucid.Generator().manual_seed(1))
    assert np.array_equal(a.numpy(), b.numpy())


def test_trunc_normal():
    w = lucid.empty(50000, dtype=lucid.float64)
    init.trunc_normal_(w, mean=0.5, std=2.0, a=-1.0, b=2.0)
    a = w.numpy()
    assert a.min() >= -1.0 and a.max() <= 2.0
    # mean of a normal truncated to [a, b]: mu + sigma (phi(alpha) - phi(beta)) / Z
    al, be = (-1 - 0.5) / 2, (2 - 0.5) / 2
    phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda x: (1 + math.erf(x / math.sqrt(2))) / 2  # noqa: E731
    expect = 0.5 + 2 * (phi(al) - phi(be)) / (cdf(be) - cdf(al))
    assert a.mean() == pytest.approx(expect, abs=0.02)
    with pytest.warns(UserWarning, match="more than 2 std"):
        init.trunc_normal_(lucid.empty(3), mean=10.0, std=1.0)


def test_eye_and_dirac_match_torch():
    w = lucid.empty(3, 5)
    assert np.array_equal(init.eye_(w).numpy(), torch.nn.init.eye_(torch.empty(3, 5)).numpy())
    with pytest.raises(ShapeError, match="2 dimensions"):
        init.eye_(lucid.empty(3))
    for shape, groups in [((4, 3, 3), 1), ((6, 2, 3, 3), 2), ((4, 4, 3, 2, 3), 2), ((2, 5, 3), 1)]:
        got = init.dirac_(lucid.empty(shape), groups=groups).numpy()
        exp = torch.nn.init.dirac_(torch.empty(shape), groups=groups).numpy()
        assert np.array_equal(got, exp), (shape, groups)
    with pytest.raises(ShapeError, match="3, 4, or 5"):
        init.dirac_(lucid.empty(3, 3))
    with pytest.raises(ArgumentError, match="divisible by groups"):
        init.dirac_(lucid.empty(5, 2, 3), groups=2)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 3, 2), (1, 7)])
def test_orthogonal(shape):
    w = lucid.empty(shape, dtype=lucid.float64)
    init.orthogonal_(w, gain=1.5)
    a = w.numpy().reshape(shape[0], -1)
    r, c = a.shape
    g = a.T @ a if r >= c else a @ a.T
    np.testing.assert_allclose(g, 2.25 * np.eye(min(r, c)), atol=1e-10)
    with pytest.raises(ShapeError, match="2 or more"):
        init.orthogonal_(lucid.empty(3))
    init.orthogonal_(lucid.empty(0, 3))


def test_sparse():
    w = lucid.empty(10, 7)
    init.sparse_(w, 0.25, std=0.5)
    zeros = (w.numpy() == 0).sum(0)
    assert (zeros == 3).all()  # ceil(0.25 * 10) per column
    big = init.sparse_(lucid.empty(400, 300), 0.5, std=0.2).numpy()
    assert big[big != 0].std() == pytest.approx(0.2, rel=0.03)
    with pytest.raises(ShapeError, match="2 dimensions"):
        init.sparse_(lucid.empty(2, 2, 2), 0.1)


def test_float64_kept():
    w = lucid.empty(3, 3, dtype=lucid.float64)
    assert init.kaiming_uniform_(w).dtype is lucid.float64
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        init.xavier_normal_(w)


DEPRECATED = [
    ("uniform", (), {}),
    ("normal", (0.0, 2.0), {}),
    ("constant", (0.5,), {}),
    ("eye", (), {}),
    ("dirac", (), {}),
    ("xavier_uniform", (), {"gain": 2.0}),
    ("xavier_normal", (), {}),
    ("kaiming_uniform", (), {"a": 1}),
    ("kaiming_normal", (), {"mode": "fan_out"}),
    ("orthogonal", (), {}),
    ("sparse", (0.5,), {}),
]


@pytest.mark.parametrize("old, args, kwargs", DEPRECATED, ids=[d[0] for d in DEPRECATED])
def test_deprecated_names_warn_as_pytorch_and_do_the_same(old, args, kwargs):
    shape = (4, 4, 3) if old == "dirac" else (6, 5)
    with pytest.warns(FutureWarning) as rec:
        getattr(torch.nn.init, old)(torch.empty(shape), *args, **kwargs)
    tmsg = str(rec[0].message)
    lucid.manual_seed(3)
    a = lucid.empty(*shape)
    with pytest.warns(
        FutureWarning, match=f"`nn.init.{old}` is now deprecated in favor of `nn.init.{old}_`"
    ) as rec:
        assert getattr(init, old)(a, *args, **kwargs) is a
    assert str(rec[0].message) == tmsg
    assert rec[0].filename == __file__  # points at the caller, as PyTorch's
    lucid.manual_seed(3)
    b = getattr(init, old + "_")(lucid.empty(*shape), *args, **kwargs)
    assert lucid.equal(a, b)
    assert getattr(init, old).__name__ == old
