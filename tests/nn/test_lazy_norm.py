"""LazyBatchNorm1d/2d/3d and LazyInstanceNorm1d/2d/3d against torch's: placeholders before
the first call, the module they become, outputs, gradients and running statistics over
train and eval steps, state dicts (both ways), dtype, errors; UninitializedParameterWarning
and Module.has_uninitialized_parameters."""

import warnings

import numpy as np
import pytest
import torch

import lucid
from lucid import nn
from lucid.errors import ArgumentError, ShapeError

SHAPES = {
    "BatchNorm1d": [(4, 3), (4, 3, 5)],
    "BatchNorm2d": [(2, 3, 4, 5)],
    "BatchNorm3d": [(2, 3, 2, 3, 4)],
    "InstanceNorm1d": [(2, 3, 6), (3, 6)],
    "InstanceNorm2d": [(2, 3, 4, 5), (3, 4, 5)],
    "InstanceNorm3d": [(2, 3, 2, 3, 4)],
}
CASES = [(n, s) for n, shapes in SHAPES.items() for s in shapes]


def _rand(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("name,shape", CASES)
@pytest.mark.parametrize(
    "kw", [{}, dict(affine=False), dict(track_running_stats=False), dict(bias=False, momentum=None)]
)
def test_matches_torch(name, shape, kw):
    lm = getattr(nn, "Lazy" + name)(**kw)
    if len(shape) == int(name[-2]) + 1:  # unbatched: torch's lazy layer reads the
        # length as num_features (see _LazyNorm); compare with its eager layer
        tkw = dict(dict(affine=True, track_running_stats=True), **kw)
        tm = getattr(torch.nn, name)(3, **tkw)
    else:
        tm = getattr(torch.nn, "Lazy" + name)(**kw)
    assert lm.num_features == 0 and type(lm).__name__ == "Lazy" + name
    for step in range(3):
        x = _rand(shape, step)
        lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ly, ty = lm(lx), tm(tx)
        np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-5)
        g = _rand(shape, 10 + step)
        ly.backward(lucid.tensor(g))
        ty.backward(torch.tensor(g))
        np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    assert type(lm) is getattr(nn, name) and lm.num_features == 3
    assert set(lm.state_dict()) == set(tm.state_dict())
    for k, v in tm.state_dict().items():
        np.testing.assert_allclose(lm.state_dict()[k].numpy(), v.numpy(), rtol=1e-5, atol=1e-6)
    if tm.affine:
        np.testing.assert_allclose(
            lm.weight.grad.numpy(), tm.weight.grad.numpy(), rtol=1e-4, atol=1e-5
        )
    lm.eval(), tm.eval()
    x = _rand(shape, 99)
    np.testing.assert_allclose(
        lm(lucid.tensor(x)).detach().numpy(),
        tm(torch.tensor(x)).detach().numpy(),
        rtol=1e-4,
        atol=1e-5,
    )


def test_placeholders_and_become():
    m = nn.LazyBatchNorm1d()
    assert isinstance(m.weight, nn.UninitializedParameter)
    assert isinstance(m.bias, nn.UninitializedParameter)
    assert isinstance(m.running_mean, nn.UninitializedBuffer)
    assert isinstance(m.running_var, nn.UninitializedBuffer)
    assert m.num_batches_tracked.item() == 0 and m.num_batches_tracked.dtype is lucid.int64
    assert m.has_uninitialized_parameters()
    m(lucid.tensor(_rand((4, 5))))
    assert type(m) is nn.BatchNorm1d and not m.has_uninitialized_parameters()
    assert type(m.weight) is nn.Parameter and m.weight.requires_grad
    assert type(m.running_mean) is not nn.UninitializedBuffer
    assert tuple(m.weight.shape) == (5,) and m.num_batches_tracked.item() == 1
    assert "BatchNorm1d(5, eps=1e-05" in repr(m)
    n = nn.LazyInstanceNorm2d(affine=False, track_running_stats=False)
    assert not n.has_uninitialized_parameters()
    n(lucid.tensor(_rand((2, 6, 3, 3))))
    assert type(n) is nn.InstanceNorm2d and n.num_features == 6


def test_defaults_are_pytorchs():
    # PyTorch's lazy instance norms default to affine and tracked statistics, unlike the
    # eager ones
    m = nn.LazyInstanceNorm1d()
    assert m.affine and m.track_running_stats
    m(lucid.tensor(_rand((3, 7))))  # unbatched: 3 channels
    assert m.num_features == 3 and tuple(m.weight.shape) == (3,)


def test_dtype_is_kept():
    m = nn.LazyBatchNorm2d(dtype=lucid.float64)
    m(lucid.tensor(_rand((2, 3, 2, 2)).astype(np.float64)))
    assert m.weight.dtype is lucid.float64 and m.running_var.dtype is lucid.float64


def test_load_state_dict_into_lazy_then_forward():
    src = nn.BatchNorm2d(4)
    src(lucid.tensor(_rand((2, 4, 3, 3))))
    with lucid.no_grad():
        src.weight.mul_(2.0)
    m = nn.LazyBatchNorm2d()
    m.load_state_dict(src.state_dict())
    assert not m.has_uninitialized_parameters()
    x = lucid.tensor(_rand((2, 4, 3, 3), 5))
    m.eval(), src.eval()
    np.testing.assert_allclose(m(x).detach().numpy(), src(x).detach().numpy())
    assert type(m) is nn.BatchNorm2d and m.num_features == 4
    # and a torch checkpoint
    t = torch.nn.BatchNorm1d(3)
    t.running_mean += 1.0
    m = nn.LazyBatchNorm1d()
    m.load_state_dict(t.state_dict())
    np.testing.assert_array_equal(m.running_mean.numpy(), np.ones(3, np.float32))


def test_reset_parameters_before_and_after():
    m = nn.LazyBatchNorm1d()
    m.reset_parameters()  # nothing to reset yet: no error
    m(lucid.tensor(_rand((4, 2))))
    with lucid.no_grad():
        m.weight.fill_(3.0)
    m.reset_parameters()
    assert m.weight.tolist() == [1.0, 1.0] and m.num_batches_tracked.item() == 0


def test_wrong_rank_is_refused_and_stays_lazy():
    m = nn.LazyBatchNorm2d()
    with pytest.raises(ShapeError, match="expected 4D input"):
        m(lucid.zeros(2, 3))
    assert type(m) is nn.LazyBatchNorm2d and m.has_uninitialized_parameters()
    with pytest.raises(ShapeError, match="expected 2D or 3D input"):
        nn.LazyInstanceNorm1d()(lucid.zeros(2, 3, 4, 5))


def test_uninitialized_parameter_warning():
    assert issubclass(nn.UninitializedParameterWarning, UserWarning)
    m = nn.Sequential(nn.LazyLinear(3), nn.LazyBatchNorm1d(), nn.Linear(3, 2))
    assert m.has_uninitialized_parameters()
    assert not m.has_uninitialized_parameters(recurse=False)
    assert m[1].has_uninitialized_params() and not m.has_uninitialized_params()
    with pytest.warns(
        nn.UninitializedParameterWarning,
        match="parameters.. yields placeholders: .*reading nothing",
    ):
        assert len(list(m.parameters())) == 6  # the placeholders are there
    with pytest.warns(nn.UninitializedParameterWarning, match="numel"):
        assert m[0].weight.numel() == 0
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        sd = m.state_dict()
    assert [str(w.message).split(":")[0] for w in seen] == [
        "state_dict of LazyLinear holds 0.weight, 0.bias",
        "state_dict of LazyBatchNorm1d holds 1.weight, 1.bias, 1.running_mean, 1.running_var",
    ]
    assert all(w.category is nn.UninitializedParameterWarning for w in seen)
    # the placeholders themselves (as PyTorch), not empty tensors that would load as real
    assert isinstance(sd["0.weight"], nn.UninitializedParameter)
    assert isinstance(sd["1.running_mean"], nn.UninitializedBuffer)
    fresh = nn.Sequential(nn.LazyLinear(3), nn.LazyBatchNorm1d(), nn.Linear(3, 2))
    fresh.load_state_dict(sd)  # lazy into lazy: stays lazy
    assert fresh.has_uninitialized_parameters()
    with pytest.raises(ArgumentError, match="uninitialized placeholder"):
        nn.Linear(4, 3).load_state_dict({"weight": sd["0.weight"], "bias": sd["0.bias"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.zero_grad(), m.requires_grad_(True)  # walk placeholders silently
        m(lucid.zeros(4, 2))
        assert not m.has_uninitialized_parameters()
        m.state_dict()
        assert sum(p.numel() for p in m.parameters()) == 2 * 3 + 3 + 3 + 3 + 3 * 2 + 2
        list(nn.Linear(2, 2, bias=False).parameters())  # eager modules never warn


def test_an_optimizer_built_before_the_first_forward_trains():
    """The placeholders are the objects the weights become, so an optimizer built over
    them (with the warning) steps the real weights."""
    m = nn.Sequential(nn.LazyLinear(2))
    with pytest.warns(nn.UninitializedParameterWarning):
        opt = lucid.optim.SGD(m.parameters(), lr=0.5)
    x = lucid.tensor(_rand((4, 3)))
    m(x)
    before = m[0].weight.detach().numpy().copy()
    opt.zero_grad()
    (m(x) ** 2).mean().backward()
    opt.step()
    assert not np.allclose(before, m[0].weight.detach().numpy())
