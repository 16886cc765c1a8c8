"""NoisyLinear, F.noisy_linear and F.scaled_noise (NoisyNet, factorised Gaussian noise):
values and gradients against torch's F.linear of the same perturbed weights, the mean
network in eval mode, the factorised structure of the noise, the generator, the paper's
initialisation, state dicts and errors."""

import math

import numpy as np
import pytest
import torch

import lucid
from lucid import nn
from lucid.errors import ArgumentError, ArgumentTypeError, ShapeError
from lucid.nn import functional as F

NP = {lucid.float32: np.float32, lucid.float64: np.float64}
TOL = {lucid.float32: dict(rtol=1e-5, atol=1e-5), lucid.float64: dict(rtol=1e-12, atol=1e-12)}


def _rand(shape, dt=lucid.float64, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(NP[dt])


def test_scaled_noise_is_f_of_the_generators_gaussians():
    g1, g2 = lucid.Generator().manual_seed(7), lucid.Generator().manual_seed(7)
    got = F.scaled_noise(5, 3, generator=g1, dtype=lucid.float64)
    eps = lucid.randn(5, 3, generator=g2, dtype=lucid.float64).numpy()
    np.testing.assert_allclose(got.numpy(), np.sign(eps) * np.sqrt(np.abs(eps)), rtol=1e-15)
    assert got.dtype is lucid.float64 and not got.requires_grad
    assert tuple(F.scaled_noise(0).shape) == (0,)


@pytest.mark.parametrize("dt", [lucid.float32, lucid.float64])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("xshape", [(4, 3), (2, 5, 3), (3,)])
def test_noisy_linear_matches_torch(dt, bias, xshape):
    arrs = dict(
        x=_rand(xshape, dt),
        wm=_rand((2, 3), dt, 1),
        ws=_rand((2, 3), dt, 2),
        we=_rand((2, 3), dt, 3),
        bm=_rand((2,), dt, 4),
        bs=_rand((2,), dt, 5),
        be=_rand((2,), dt, 6),
    )
    L = {k: lucid.tensor(v, requires_grad=k not in ("we", "be")) for k, v in arrs.items()}
    T = {k: torch.tensor(v, requires_grad=k not in ("we", "be")) for k, v in arrs.items()}
    ly = F.noisy_linear(
        L["x"],
        L["wm"],
        L["ws"],
        L["bm"] if bias else None,
        L["bs"] if bias else None,
        weight_epsilon=L["we"],
        bias_epsilon=L["be"] if bias else None,
    )
    ty = torch.nn.functional.linear(
        T["x"], T["wm"] + T["ws"] * T["we"], T["bm"] + T["bs"] * T["be"] if bias else None
    )
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **TOL[dt])
    g = _rand(tuple(ty.shape), dt, 9)
    ly.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    for k in ("x", "wm", "ws") + (("bm", "bs") if bias else ()):
        np.testing.assert_allclose(L[k].grad.numpy(), T[k].grad.numpy(), **TOL[dt])
    assert L["we"].grad is None


def test_eval_is_the_mean_network():
    x, wm, ws = (lucid.tensor(_rand(s, seed=i)) for i, s in enumerate([(4, 3), (2, 3), (2, 3)]))
    bm, bs = lucid.tensor(_rand((2,), seed=5)), lucid.tensor(_rand((2,), seed=6))
    np.testing.assert_allclose(
        F.noisy_linear(x, wm, ws, bm, bs, training=False).numpy(), F.linear(x, wm, bm).numpy()
    )


def test_fresh_factorised_noise_from_the_generator():
    x = lucid.tensor(_rand((4, 3)))
    wm, ws = lucid.zeros(2, 3, dtype=lucid.float64), lucid.ones(2, 3, dtype=lucid.float64)
    bm, bs = lucid.zeros(2, dtype=lucid.float64), lucid.ones(2, dtype=lucid.float64)
    y1 = F.noisy_linear(x, wm, ws, bm, bs, generator=lucid.Generator().manual_seed(3))
    y2 = F.noisy_linear(x, wm, ws, bm, bs, generator=lucid.Generator().manual_seed(3))
    y3 = F.noisy_linear(x, wm, ws, bm, bs, generator=lucid.Generator().manual_seed(4))
    np.testing.assert_array_equal(y1.numpy(), y2.numpy())
    assert not np.allclose(y1.numpy(), y3.numpy())
    g = lucid.Generator().manual_seed(3)
    e_in = F.scaled_noise(3, generator=g, dtype=lucid.float64).numpy()
    e_out = F.scaled_noise(2, generator=g, dtype=lucid.float64).numpy()
    want = x.numpy() @ np.outer(e_out, e_in).T + e_out
    np.testing.assert_allclose(y1.numpy(), want, rtol=1e-12)


def test_module_init_noise_and_modes():
    lucid.manual_seed(0)
    m = nn.NoisyLinear(16, 4, sigma0=0.4, dtype=lucid.float64)
    assert list(m.state_dict()) == [
        "weight_mu",
        "weight_sigma",
        "bias_mu",
        "bias_sigma",
        "weight_epsilon",
        "bias_epsilon",
    ]
    assert [n for n, _ in m.named_parameters()] == [
        "weight_mu",
        "weight_sigma",
        "bias_mu",
        "bias_sigma",
    ]
    assert float(m.weight_mu.abs().max()) <= 1 / math.sqrt(16)
    assert float(m.bias_mu.abs().max()) <= 1 / math.sqrt(16)
    np.testing.assert_allclose(m.weight_sigma.detach().numpy(), np.full((4, 16), 0.1))
    np.testing.assert_allclose(m.bias_sigma.detach().numpy(), np.full(4, 0.1))
    we, be = m.weight_epsilon.numpy().copy(), m.bias_epsilon.numpy().copy()
    assert np.linalg.matrix_rank(we) == 1  # factorised: an outer product
    np.testing.assert_allclose(
        we / be[:, None], np.broadcast_to(we[0] / be[0], we.shape), rtol=1e-12
    )
    x = lucid.tensor(_rand((5, 16)))
    y = m(x)
    np.testing.assert_array_equal(y.detach().numpy(), m(x).detach().numpy())  # fixed noise
    want = (
        x.numpy() @ (m.weight_mu.detach().numpy() + 0.1 * we).T
        + m.bias_mu.detach().numpy()
        + 0.1 * be
    )
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-12)
    m.reset_noise()
    assert not np.allclose(m.weight_epsilon.numpy(), we)
    m.eval()
    np.testing.assert_allclose(
        m(x).detach().numpy(), F.linear(x, m.weight_mu, m.bias_mu).detach().numpy()
    )
    assert "in_features=16, out_features=4, bias=True, sigma0=0.4" in repr(m)


def test_module_generator_and_no_bias():
    a = nn.NoisyLinear(3, 2, bias=False, generator=lucid.Generator().manual_seed(5))
    b = nn.NoisyLinear(3, 2, bias=False, generator=lucid.Generator().manual_seed(5))
    assert a.bias_mu is None and a.bias_epsilon is None
    for k, v in a.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), b.state_dict()[k].numpy())
    x = lucid.tensor(_rand((2, 3), lucid.float32))
    a(x).sum().backward()
    assert a.weight_sigma.grad is not None and a.weight_mu.grad is not None


def test_errors():
    w = lucid.zeros(2, 3)
    with pytest.raises(ShapeError, match="noisy_linear: weight_sigma of shape"):
        F.noisy_linear(lucid.zeros(4, 3), w, lucid.zeros(3, 2))
    with pytest.raises(ArgumentTypeError, match="both be given"):
        F.noisy_linear(lucid.zeros(4, 3), w, w, lucid.zeros(2))
    with pytest.raises(ShapeError, match="weight_epsilon"):
        F.noisy_linear(lucid.zeros(4, 3), w, w, weight_epsilon=lucid.zeros(3))
    with pytest.raises(ShapeError, match="noisy_linear: weight_mu must be a 2-D"):
        F.noisy_linear(lucid.zeros(4, 3), lucid.zeros(3), w)
    with pytest.raises(ShapeError, match="noisy_linear"):
        F.noisy_linear(lucid.zeros(4, 5), w, w)
    with pytest.raises(ArgumentError, match="NoisyLinear: in_features"):
        nn.NoisyLinear(0, 2)
    with pytest.raises(ArgumentError, match="sigma0"):
        nn.NoisyLinear(2, 2, sigma0=-0.1)
