"""nn.utils against torch: grad clipping, parameter vectors, weight/spectral norm, packed
sequences (values and gradients)."""

import math

import numpy as np
import pytest
import torch
import torch.nn.utils.rnn as TR

import lucid
from lucid import nn
from lucid.errors import ArgumentError, ArgumentTypeError, ShapeError
from lucid.nn import utils as U
from lucid.nn.utils import rnn as R

RNG = np.random.default_rng(0)


def _params(shapes, scale=1.0):
    grads = [RNG.standard_normal(s).astype(np.float32) * scale for s in shapes]
    lp, tp = [], []
    for s, g in zip(shapes, grads):
        l, t = nn.Parameter(lucid.zeros(s)), torch.nn.Parameter(torch.zeros(s))
        l.grad, t.grad = lucid.tensor(g.copy()), torch.tensor(g.copy())
        lp.append(l)
        tp.append(t)
    return lp, tp


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3, math.inf])
@pytest.mark.parametrize("max_norm", [0.5, 1e3])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    lp, tp = _params([(3, 4), (5,), ()])
    ln = U.clip_grad_norm_(lp, max_norm, norm_type=norm_type)
    tn = torch.nn.utils.clip_grad_norm_(tp, max_norm, norm_type=norm_type)
    assert isinstance(ln, lucid.Tensor) and ln.ndim == 0
    assert ln.item() == pytest.approx(tn.item(), rel=1e-5)
    for l, t in zip(lp, tp):
        np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_clip_grad_norm_single_tensor_generator_and_no_grads():
    lp, tp = _params([(4,)])
    U.clip_grad_norm_(lp[0], 0.1)
    torch.nn.utils.clip_grad_norm_(tp[0], 0.1)
    np.testing.assert_allclose(lp[0].grad.numpy(), tp[0].grad.numpy(), rtol=1e-5)
    m = nn.Linear(2, 2)
    assert U.clip_grad_norm_(m.parameters(), 1.0).item() == 0.0
    m(lucid.ones(1, 2)).sum().backward()
    total = U.clip_grad_norm_(m.parameters(), 1e-3)
    assert total.item() > 1e-3
    after = U.get_total_norm([p.grad for p in m.parameters()])
    assert after.item() == pytest.approx(1e-3, rel=1e-3)


def test_clip_grad_norm_error_if_nonfinite():
    lp, tp = _params([(3,)])
    lp[0].grad[0] = float("nan")
    with pytest.raises(ArgumentError, match="non-finite"):
        U.clip_grad_norm_(lp, 1.0, error_if_nonfinite=True)
    lp[0].grad[0] = float("inf")
    assert math.isinf(U.clip_grad_norm_(lp, 1.0).item())  # no error by default


def test_clip_grad_value():
    lp, tp = _params([(10,), (2, 3)], scale=3)
    U.clip_grad_value_(lp, 1.5)
    torch.nn.utils.clip_grad_value_(tp, 1.5)
    for l, t in zip(lp, tp):
        np.testing.assert_array_equal(l.grad.numpy(), t.grad.numpy())
    assert max(np.abs(l.grad.numpy()).max() for l in lp) <= 1.5


def test_parameters_vector_round_trip():
    m = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    tm = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Linear(2, 1))
    m.load_state_dict({k: lucid.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    v = U.parameters_to_vector(m.parameters())
    tv = torch.nn.utils.parameters_to_vector(tm.parameters())
    np.testing.assert_array_equal(v.detach().numpy(), tv.detach().numpy())
    assert v.requires_grad and v.shape == (11,)
    (v * lucid.arange(11.0)).sum().backward()
    assert m[1].bias.grad.item() == 10.0
    weights = [p for p in m.parameters()]
    U.vector_to_parameters(lucid.arange(11.0), m.parameters())
    assert m[0].weight.tolist() == [[0, 1, 2], [3, 4, 5]] and m[1].bias.tolist() == [10]
    assert [p for p in m.parameters()] == weights
    with pytest.raises(ArgumentTypeError, match="expected a Tensor"):
        U.vector_to_parameters([1.0], m.parameters())
    with pytest.raises(ShapeError, match="11 elements"):
        U.vector_to_parameters(lucid.ones(3), m.parameters())


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_torch(dim):
    tm = torch.nn.Linear(4, 3)
    m = nn.Linear(4, 3)
    m.load_state_dict({k: lucid.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    with pytest.warns(FutureWarning):
        tm = torch.nn.utils.weight_norm(tm, dim=dim)
    assert U.weight_norm(m, dim=dim) is m
    assert [k for k, _ in m.named_parameters()] == [k for k, _ in tm.named_parameters()]
    assert list(m.state_dict()) == list(tm.state_dict())
    np.testing.assert_allclose(m.weight_g.detach().numpy(), tm.weight_g.detach().numpy(), rtol=1e-6)
    with torch.no_grad():
        tm.weight_g.mul_(2)
    with lucid.no_grad():
        m.weight_g.mul_(2)
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    lo, to = m(lucid.tensor(x)), tm(torch.tensor(x))
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-5, atol=1e-6)
    (lo**2).sum().backward()
    (to**2).sum().backward()
    for name in ("weight_g", "weight_v", "bias"):
        np.testing.assert_allclose(
            getattr(m, name).grad.numpy(), getattr(tm, name).grad.numpy(), rtol=1e-4, atol=1e-6
        )
    U.remove_weight_norm(m)
    torch.nn.utils.remove_weight_norm(tm)
    assert [k for k, _ in m.named_parameters()] == ["bias", "weight"]
    np.testing.assert_allclose(m.weight.detach().numpy(), tm.weight.detach().numpy(), rtol=1e-5)
    with pytest.raises(ValueError, match="not found"):
        U.remove_weight_norm(m)


def test_weight_norm_twice_errors():
    m = U.weight_norm(nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="two weight_norm hooks"):
        U.weight_norm(m)


def test_spectral_norm_matches_torch_and_eval_mode():
    tm = torch.nn.Linear(5, 4)
    m = nn.Linear(5, 4)
    m.load_state_dict({k: lucid.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    tm = torch.nn.utils.spectral_norm(tm, n_power_iterations=2)
    U.spectral_norm(m, n_power_iterations=2)
    assert list(m.state_dict()) == list(tm.state_dict())
    assert [k for k, _ in m.named_parameters()] == [k for k, _ in tm.named_parameters()]
    # same start vectors, then the same power iterations
    with lucid.no_grad():
        m.weight_u.copy_(lucid.tensor(tm.weight_u.numpy()))
        m.weight_v.copy_(lucid.tensor(tm.weight_v.numpy()))
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    lo, to = m(lucid.tensor(x)), tm(torch.tensor(x))
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(m.weight_u.numpy(), tm.weight_u.numpy(), rtol=1e-4, atol=1e-6)
    lo.sum().backward()
    to.sum().backward()
    np.testing.assert_allclose(
        m.weight_orig.grad.numpy(), tm.weight_orig.grad.numpy(), rtol=1e-4, atol=1e-5
    )
    m.eval()
    u = m.weight_u.numpy().copy()
    m(lucid.tensor(x))
    np.testing.assert_array_equal(m.weight_u.numpy(), u)  # eval: no iteration
    m.train()
    for _ in range(30):
        m(lucid.tensor(x))
    assert np.linalg.svd(m.weight.detach().numpy())[1][0] == pytest.approx(1.0, rel=1e-4)
    U.remove_spectral_norm(m)
    assert [k for k, _ in m.named_parameters()] == ["bias", "weight"] and not m._buffers
    with pytest.raises(ArgumentError, match="positive"):
        U.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)


def test_spectral_norm_eps():
    m = U.spectral_norm(nn.Linear(3, 2), eps=1e3)  # every vector's norm is below eps
    with lucid.no_grad():
        m.weight_orig.fill_(0.01)
    m(lucid.ones(1, 3))
    assert float(m.weight_u.norm()) < 1e-2 and float(m.weight_v.norm()) < 1e-2


def test_spectral_norm_dim_and_load_from_torch():
    tm = torch.nn.utils.spectral_norm(torch.nn.Linear(3, 6), dim=1)
    tm(torch.randn(2, 3))
    m = U.spectral_norm(nn.Linear(3, 6), dim=1)
    assert m.weight_u.shape == tuple(tm.weight_u.shape) == (3,)
    m.load_state_dict({k: lucid.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    tm.eval()
    m.eval()
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(
        m(lucid.tensor(x)).detach().numpy(),
        tm(torch.tensor(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


# -- packed sequences -----------------------------------------------------------------------


def _seqs(lengths, feat=(2,), dt=np.float64):
    return [RNG.standard_normal((n,) + feat).astype(dt) for n in lengths]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("lengths", [(3, 5, 1), (4,), (2, 0, 3)])
def test_pad_sequence_matches_torch(batch_first, side, lengths):
    seqs = _seqs(lengths)
    ls = [lucid.tensor(s, requires_grad=True) for s in seqs]
    ts = [torch.tensor(s, requires_grad=True) for s in seqs]
    lo = R.pad_sequence(ls, batch_first=batch_first, padding_value=-2.0, padding_side=side)
    to = TR.pad_sequence(ts, batch_first=batch_first, padding_value=-2.0, padding_side=side)
    np.testing.assert_array_equal(lo.detach().numpy(), to.detach().numpy())
    g = RNG.standard_normal(to.shape)
    lo.backward(lucid.tensor(g))
    to.backward(torch.tensor(g))
    for l, t in zip(ls, ts):
        np.testing.assert_array_equal(l.grad.numpy(), t.grad.numpy())


def test_pad_sequence_errors():
    with pytest.raises(ArgumentError, match="padding_side"):
        R.pad_sequence([lucid.ones(2)], padding_side="middle")
    with pytest.raises(ShapeError, match="trailing"):
        R.pad_sequence([lucid.ones(2, 3), lucid.ones(2, 4)])


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted,lengths", [(True, [5, 3, 3, 1]), (False, [2, 5, 1, 3])])
def test_pack_pad_round_trip_matches_torch(batch_first, enforce_sorted, lengths):
    seqs = _seqs(lengths, feat=(3,))
    padded = TR.pad_sequence([torch.tensor(s) for s in seqs], batch_first=batch_first)
    tx = padded.clone().requires_grad_()
    lx = lucid.tensor(padded.numpy(), requires_grad=True)
    tp = TR.pack_padded_sequence(
        tx, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted
    )
    lp = R.pack_padded_sequence(lx, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    assert isinstance(lp, R.PackedSequence)
    np.testing.assert_array_equal(lp.data.detach().numpy(), tp.data.detach().numpy())
    assert lp.batch_sizes.tolist() == tp.batch_sizes.tolist()
    assert lp.batch_sizes.dtype is lucid.int64 and lp.batch_sizes.device.type == "cpu"
    if enforce_sorted:
        assert lp.sorted_indices is None and lp.unsorted_indices is None
    else:
        assert lp.sorted_indices.tolist() == tp.sorted_indices.tolist()
        assert lp.unsorted_indices.tolist() == tp.unsorted_indices.tolist()
    lo, ll = R.pad_packed_sequence(lp, batch_first=batch_first, padding_value=0.5, total_length=7)
    to, tl = TR.pad_packed_sequence(tp, batch_first=batch_first, padding_value=0.5, total_length=7)
    np.testing.assert_array_equal(lo.detach().numpy(), to.detach().numpy())
    assert ll.tolist() == tl.tolist() and ll.dtype is lucid.int64
    g = RNG.standard_normal(to.shape)
    lo.backward(lucid.tensor(g))
    to.backward(torch.tensor(g))
    np.testing.assert_array_equal(lx.grad.numpy(), tx.grad.numpy())


def test_pack_errors():
    x = lucid.zeros(4, 2, 1)
    with pytest.raises(ArgumentError, match="decreasing"):
        R.pack_padded_sequence(x, [2, 3])
    with pytest.raises(ArgumentError, match="greater than 0"):
        R.pack_padded_sequence(x, [2, 0])
    with pytest.raises(ShapeError, match="batch_size"):
        R.pack_padded_sequence(x, [2])
    with pytest.raises(ShapeError, match="exceeds"):
        R.pack_padded_sequence(x, [5, 1])
    p = R.pack_sequence([lucid.ones(3), lucid.ones(2)])
    with pytest.raises(ArgumentError, match="total_length"):
        R.pad_packed_sequence(p, total_length=2)


def test_pack_sequence_unpack_and_packed_methods():
    seqs = [lucid.tensor(s) for s in _seqs((2, 4, 3))]
    p = R.pack_sequence(seqs, enforce_sorted=False)
    tp = TR.pack_sequence([torch.tensor(s.numpy()) for s in seqs], enforce_sorted=False)
    np.testing.assert_array_equal(p.data.numpy(), tp.data.numpy())
    back = R.unpack_sequence(p)
    assert all(np.array_equal(a.numpy(), b.numpy()) for a, b in zip(back, seqs))
    f = p.float()
    assert f.data.dtype is lucid.float32 and f.batch_sizes is p.batch_sizes
    assert p.to(lucid.float64) is p and not p.is_cuda
    data, bs, si, ui = p
    assert si.tolist() == [1, 2, 0] and ui.tolist() == R.invert_permutation(si).tolist()
    padded, lengths = R.pad_packed_sequence(p)
    un = R.unpad_sequence(padded, lengths)
    assert [u.shape[0] for u in un] == [2, 4, 3]


# -- parametrize / parametrizations ---------------------------------------------------------

from lucid.nn.utils import parametrizations as LP  # noqa: E402
from lucid.nn.utils import parametrize as LPZ  # noqa: E402
import torch.nn.utils.parametrizations as TP  # noqa: E402
import torch.nn.utils.parametrize as TPZ  # noqa: E402


def _symmetric(base):
    class Symmetric(base.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(0, 1)

        def right_inverse(self, a):
            return a.triu()

    return Symmetric


def _scale(base, k):
    class Scale(base.Module):
        def forward(self, x):
            return x * k

        def right_inverse(self, a):
            return a / k

    return Scale


def test_register_parametrization_matches_torch():
    tm = torch.nn.Linear(3, 3)
    lm = nn.Linear(3, 3)
    lm.load_state_dict({k: lucid.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    TPZ.register_parametrization(tm, "weight", _symmetric(torch.nn)())
    LPZ.register_parametrization(lm, "weight", _symmetric(nn)())
    TPZ.register_parametrization(tm, "weight", _scale(torch.nn, 2.0)())
    LPZ.register_parametrization(lm, "weight", _scale(nn, 2.0)())
    assert type(lm).__name__ == "ParametrizedLinear" and repr(lm) == repr(tm)
    assert LPZ.is_parametrized(lm) and LPZ.is_parametrized(lm, "weight")
    assert not LPZ.is_parametrized(lm, "bias")
    assert LPZ.type_before_parametrizations(lm) is nn.Linear
    assert list(lm.state_dict()) == list(tm.state_dict())
    w = lm.weight.detach().numpy()
    np.testing.assert_allclose(w, tm.weight.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(w, w.T)
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    lm(lucid.tensor(x)).sum().backward()
    tm(torch.tensor(x)).sum().backward()
    lo, to = lm.parametrizations.weight.original, tm.parametrizations.weight.original
    np.testing.assert_allclose(lo.grad.numpy(), to.grad.numpy(), rtol=1e-5)
    value = np.arange(9.0, dtype=np.float32).reshape(3, 3)
    value = value + value.T
    lm.weight = lucid.tensor(value)  # through right_inverse
    tm.weight = torch.tensor(value)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy())
    np.testing.assert_allclose(lm.weight.detach().numpy(), value, rtol=1e-6)


def test_parametrization_checks_cache_and_remove():
    class Grow(nn.Module):
        def forward(self, x):
            return lucid.cat([x, x])

    m = nn.Linear(2, 2)
    with pytest.raises(ValueError, match="may not change the shape"):
        LPZ.register_parametrization(m, "weight", Grow())
    LPZ.register_parametrization(nn.Linear(2, 2), "weight", Grow(), unsafe=True)
    with pytest.raises(ValueError, match="does not have a parameter"):
        LPZ.register_parametrization(m, "nope", _scale(nn, 2.0)())

    calls = []

    class Count(nn.Module):
        def forward(self, x):
            calls.append(1)
            return x

    LPZ.register_parametrization(m, "weight", Count())
    calls.clear()
    with LPZ.cached():
        m.weight, m.weight
    assert len(calls) == 1
    m.weight, m.weight
    assert len(calls) == 3
    with pytest.raises(RuntimeError, match="does not implement right_inverse"):
        m.weight = lucid.ones(2, 2)

    for leave in (True, False):
        mm = nn.Linear(2, 2)
        orig = mm.weight.detach().numpy().copy()
        LPZ.register_parametrization(mm, "weight", _scale(nn, 3.0)())
        LPZ.remove_parametrizations(mm, "weight", leave_parametrized=leave)
        assert type(mm) is nn.Linear and "parametrizations" not in mm._modules
        assert isinstance(mm.weight, nn.Parameter)
        # registering stored right_inverse(w) = w / 3, so that the parametrized value is w
        np.testing.assert_allclose(
            mm.weight.detach().numpy(), orig / (1.0 if leave else 3.0), rtol=1e-6
        )
        assert [k for k, _ in mm.named_parameters()] == ["bias", "weight"]
    with pytest.raises(ValueError, match="does not have a parametrization"):
        LPZ.remove_parametrizations(nn.Linear(1, 1), "weight")


@pytest.mark.parametrize("dim", [0, 1, None])
def test_parametrizations_weight_norm_matches_torch(dim):
    tm = TP.weight_norm(torch.nn.Linear(4, 3), dim=dim)
    lm = LP.weight_norm(nn.Linear(4, 3), dim=dim)
    assert list(lm.state_dict()) == list(tm.state_dict()) and repr(lm) == repr(tm)
    lm.load_state_dict(tm.state_dict())
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    lo, to = lm(lucid.tensor(x)), tm(torch.tensor(x))
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-5, atol=1e-6)
    (lo**2).sum().backward()
    (to**2).sum().backward()
    for k in ("original0", "original1"):
        np.testing.assert_allclose(
            getattr(lm.parametrizations.weight, k).grad.numpy(),
            getattr(tm.parametrizations.weight, k).grad.numpy(),
            rtol=1e-4,
            atol=1e-6,
        )
    w = lm.weight.detach().numpy()
    LPZ.remove_parametrizations(lm, "weight")
    np.testing.assert_allclose(lm.weight.detach().numpy(), w, rtol=1e-6)


def test_parametrizations_weight_norm_loads_old_keys():
    old = U.weight_norm(nn.Linear(3, 2))
    new = LP.weight_norm(nn.Linear(3, 2))
    new.load_state_dict(old.state_dict())
    x = lucid.randn(4, 3)
    np.testing.assert_allclose(new(x).detach().numpy(), old(x).detach().numpy(), rtol=1e-6)


def test_parametrizations_spectral_norm_matches_torch():
    tm = TP.spectral_norm(torch.nn.Linear(5, 4), n_power_iterations=2)
    lm = LP.spectral_norm(nn.Linear(5, 4), n_power_iterations=2)
    assert list(lm.state_dict()) == list(tm.state_dict()) and repr(lm) == repr(tm)
    lm.load_state_dict(tm.state_dict())
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    lo, to = lm(lucid.tensor(x)), tm(torch.tensor(x))
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-4, atol=1e-5)
    sn_l, sn_t = lm.parametrizations.weight[0], tm.parametrizations.weight[0]
    np.testing.assert_allclose(sn_l._u.numpy(), sn_t._u.numpy(), rtol=1e-4, atol=1e-6)
    lo.sum().backward()
    to.sum().backward()
    np.testing.assert_allclose(
        lm.parametrizations.weight.original.grad.numpy(),
        tm.parametrizations.weight.original.grad.numpy(),
        rtol=1e-4,
        atol=1e-5,
    )
    lm.eval()
    u = sn_l._u.numpy().copy()
    lm(lucid.tensor(x))
    np.testing.assert_array_equal(sn_l._u.numpy(), u)
    assert np.linalg.svd(lm.weight.detach().numpy())[1][0] == pytest.approx(1.0, rel=1e-3)
    vec = LP.spectral_norm(nn.Linear(3, 2), name="bias")
    np.testing.assert_allclose(float(vec.bias.norm()), 1.0, rtol=1e-6)
    with pytest.raises(ArgumentError, match="positive"):
        LP.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
