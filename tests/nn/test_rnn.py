"""RNN, LSTM, GRU and their cells against torch with the weights copied over: outputs,
final states and gradients for the input, the initial states and every weight; layers,
directions, batch_first, projections, packed input, unbatched input, dropout."""

import math

import numpy as np
import pytest
import torch
import torch.nn.utils.rnn as TR

import lucid
from lucid import nn
from lucid.errors import ArgumentError, DTypeError, ShapeError
from lucid.nn.utils import rnn as R

NP = {lucid.float32: np.float32, lucid.float64: np.float64}
TD = {lucid.float32: torch.float32, lucid.float64: torch.float64}
TOL = {lucid.float32: dict(rtol=2e-4, atol=2e-5), lucid.float64: dict(rtol=1e-9, atol=1e-11)}
RNG = np.random.default_rng(0)
MODS = {
    "RNN": (nn.RNN, torch.nn.RNN),
    "LSTM": (nn.LSTM, torch.nn.LSTM),
    "GRU": (nn.GRU, torch.nn.GRU),
}


def _pair(kind, dt, *args, **kwargs):
    lcls, tcls = MODS[kind]
    tm = tcls(*args, **kwargs).to(TD[dt])
    lm = lcls(*args, **kwargs, dtype=dt)
    res = lm.load_state_dict(
        {k: lucid.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()}
    )
    assert not res.missing_keys and not res.unexpected_keys
    return lm, tm


def _close(l, t, dt):
    np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), **TOL[dt])


def _flat(out):
    return list(out) if isinstance(out, tuple) else [out]


def _check_grads(lm, tm, lins, tins, louts, touts, dt):
    lloss = sum((o * lucid.tensor(w)).sum() for o, w in zip(louts, _weights(touts)))
    tloss = sum((o * torch.tensor(w)).sum() for o, w in zip(touts, _weights(touts)))
    lloss.backward()
    tloss.backward()
    for l, t in zip(lins, tins):
        _close(l.grad, t.grad, dt)
    for (name, lp), (_, tp) in zip(lm.named_parameters(), tm.named_parameters()):
        assert lp.grad is not None, name
        _close(lp.grad, tp.grad, dt)


def _weights(touts):
    rng = np.random.default_rng(7)
    return [rng.standard_normal(tuple(o.shape)).astype(o.detach().numpy().dtype) for o in touts]


CONFIGS = [
    dict(),
    dict(num_layers=2),
    dict(bidirectional=True),
    dict(num_layers=2, bidirectional=True, batch_first=True),
    dict(bias=False),
]


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize(
    "cfg", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()) or "default"
)
@pytest.mark.parametrize("dt", [lucid.float32, lucid.float64])
def test_parity_padded(kind, cfg, dt):
    lm, tm = _pair(kind, dt, 3, 4, **cfg)
    t_len, batch = 5, 2
    shape = (batch, t_len, 3) if cfg.get("batch_first") else (t_len, batch, 3)
    x = RNG.standard_normal(shape).astype(NP[dt])
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lo, lh = lm(lx)
    to, th = tm(tx)
    _close(lo, to, dt)
    for a, b in zip(_flat(lh), _flat(th)):
        _close(a, b, dt)
    _check_grads(lm, tm, [lx], [tx], [lo] + _flat(lh), [to] + _flat(th), dt)


def test_parity_relu_rnn():
    dt = lucid.float64
    lm, tm = _pair("RNN", dt, 3, 4, nonlinearity="relu", num_layers=2, bidirectional=True)
    x = RNG.standard_normal((5, 2, 3))
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (lo, lh), (to, th) = lm(lx), tm(tx)
    _close(lo, to, dt)
    _check_grads(lm, tm, [lx], [tx], [lo, lh], [to, th], dt)
    tanh_m = nn.RNN(3, 4, num_layers=2, bidirectional=True, dtype=dt)
    tanh_m.load_state_dict(lm.state_dict())
    assert not np.allclose(tanh_m(lx)[0].detach().numpy(), lo.detach().numpy())


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_parity_initial_state_grads(kind):
    dt = lucid.float64
    lm, tm = _pair(kind, dt, 3, 4, num_layers=2, bidirectional=True)
    x = RNG.standard_normal((4, 3, 3))
    states = [RNG.standard_normal((4, 3, 4)) for _ in range(2 if kind == "LSTM" else 1)]
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ls = [lucid.tensor(s, requires_grad=True) for s in states]
    ts = [torch.tensor(s, requires_grad=True) for s in states]
    lo, lh = lm(lx, tuple(ls) if kind == "LSTM" else ls[0])
    to, th = tm(tx, tuple(ts) if kind == "LSTM" else ts[0])
    _close(lo, to, dt)
    _check_grads(lm, tm, [lx] + ls, [tx] + ts, [lo] + _flat(lh), [to] + _flat(th), dt)


def test_lstm_proj_size():
    dt = lucid.float64
    lm, tm = _pair("LSTM", dt, 3, 5, proj_size=2, num_layers=2, bidirectional=True)
    assert repr(lm) == repr(tm)
    assert lm.weight_hr_l0.shape == (2, 5) and lm.weight_ih_l1.shape == (20, 4)
    x = RNG.standard_normal((4, 2, 3))
    h0, c0 = RNG.standard_normal((4, 2, 2)), RNG.standard_normal((4, 2, 5))
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lo, (lh, lc) = lm(lx, (lucid.tensor(h0), lucid.tensor(c0)))
    to, (th, tc) = tm(tx, (torch.tensor(h0), torch.tensor(c0)))
    assert lo.shape == to.shape == (4, 2, 4) and lh.shape == (4, 2, 2) and lc.shape == (4, 2, 5)
    _check_grads(lm, tm, [lx], [tx], [lo, lh, lc], [to, th, tc], dt)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("enforce_sorted,lengths", [(True, [5, 3, 3, 1]), (False, [2, 5, 1, 4])])
@pytest.mark.parametrize("batch_first", [False, True])
def test_parity_packed(kind, enforce_sorted, lengths, batch_first):
    dt = lucid.float64
    lm, tm = _pair(kind, dt, 3, 4, num_layers=2, bidirectional=True, batch_first=batch_first)
    seqs = [RNG.standard_normal((n, 3)) for n in lengths]
    padded = TR.pad_sequence([torch.tensor(s) for s in seqs], batch_first=batch_first).numpy()
    lx, tx = lucid.tensor(padded, requires_grad=True), torch.tensor(padded, requires_grad=True)
    lp = R.pack_padded_sequence(lx, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    tp = TR.pack_padded_sequence(
        tx, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted
    )
    h0 = RNG.standard_normal((4, 4, 4))
    lhx = (lucid.tensor(h0), lucid.tensor(h0 * 0.5)) if kind == "LSTM" else lucid.tensor(h0)
    thx = (torch.tensor(h0), torch.tensor(h0 * 0.5)) if kind == "LSTM" else torch.tensor(h0)
    lo, lh = lm(lp, lhx)
    to, th = tm(tp, thx)
    assert isinstance(lo, R.PackedSequence)
    assert lo.batch_sizes.tolist() == to.batch_sizes.tolist()
    _close(lo.data, to.data, dt)
    for a, b in zip(_flat(lh), _flat(th)):
        _close(a, b, dt)
    lpad, _ = R.pad_packed_sequence(lo, batch_first=batch_first)
    tpad, _ = TR.pad_packed_sequence(to, batch_first=batch_first)
    _close(lpad, tpad, dt)
    _check_grads(lm, tm, [lx], [tx], [lpad] + _flat(lh), [tpad] + _flat(th), dt)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_unbatched_input(kind):
    dt = lucid.float64
    lm, tm = _pair(kind, dt, 3, 4, num_layers=2)
    x = RNG.standard_normal((5, 3))
    lo, lh = lm(lucid.tensor(x))
    to, th = tm(torch.tensor(x))
    assert lo.shape == to.shape == (5, 4)
    _close(lo, to, dt)
    for a, b in zip(_flat(lh), _flat(th)):
        assert tuple(a.shape) == tuple(b.shape) == (2, 4)
        _close(a, b, dt)
    h = RNG.standard_normal((2, 4))
    lhx = (lucid.tensor(h), lucid.tensor(h)) if kind == "LSTM" else lucid.tensor(h)
    thx = (torch.tensor(h), torch.tensor(h)) if kind == "LSTM" else torch.tensor(h)
    _close(lm(lucid.tensor(x), lhx)[0], tm(torch.tensor(x), thx)[0], dt)


def test_non_contiguous_input_and_empty_batch():
    dt = lucid.float32
    lm, tm = _pair("GRU", dt, 3, 4)
    x = RNG.standard_normal((2, 5, 3)).astype(np.float32)
    _close(lm(lucid.tensor(x).transpose(0, 1))[0], tm(torch.tensor(x).transpose(0, 1))[0], dt)
    lo, lh = lm(lucid.zeros(5, 0, 3))
    assert lo.shape == (5, 0, 4) and lh.shape == (1, 0, 4)


def test_dropout_between_layers():
    lm = nn.LSTM(3, 4, num_layers=3, dropout=0.5)
    ref = nn.LSTM(3, 4, num_layers=3)
    ref.load_state_dict(lm.state_dict())
    x = lucid.randn(6, 2, 3)
    lm.eval()
    np.testing.assert_array_equal(lm(x)[0].detach().numpy(), ref(x)[0].detach().numpy())
    lm.train()
    lucid.manual_seed(0)
    a = lm(x)[0].detach().numpy()
    lucid.manual_seed(0)
    b = lm(x)[0].detach().numpy()
    np.testing.assert_array_equal(a, b)  # seeded: reproducible
    assert not np.allclose(a, ref(x)[0].detach().numpy())
    one = nn.GRU(3, 4, dropout=0.0)
    ref1 = nn.GRU(3, 4)
    ref1.load_state_dict(one.state_dict())
    np.testing.assert_array_equal(one(x)[0].detach().numpy(), ref1(x)[0].detach().numpy())
    with pytest.warns(UserWarning, match="num_layers greater than 1"):
        nn.RNN(3, 4, dropout=0.3)


def test_reprs_names_and_init():
    for kind, kw in [
        ("RNN", dict(nonlinearity="relu")),
        ("LSTM", dict(num_layers=2, bias=False, batch_first=True)),
        ("GRU", dict(dropout=0.25, num_layers=2, bidirectional=True)),
    ]:
        lcls, tcls = MODS[kind]
        lm, tm = lcls(7, 20, **kw), tcls(7, 20, **kw)
        assert repr(lm) == repr(tm)
        assert [k for k, _ in lm.named_parameters()] == [k for k, _ in tm.named_parameters()]
        assert [tuple(p.shape) for p in lm.parameters()] == [
            tuple(p.shape) for p in tm.parameters()
        ]
    m = nn.LSTM(5, 400)
    bound = 1 / math.sqrt(400)
    for p in m.parameters():
        a = p.detach().numpy()
        assert np.abs(a).max() <= bound and np.abs(a).max() > 0.98 * bound
    assert len(m.all_weights) == 1 and len(m.all_weights[0]) == 4
    assert m.all_weights[0][1] is m.weight_hh_l0
    m.flatten_parameters()  # PyTorch compatibility: no-op


def test_errors():
    with pytest.raises(ArgumentError, match="Unknown nonlinearity"):
        nn.RNN(2, 3, nonlinearity="gelu")
    with pytest.raises(ArgumentError, match="dropout should be a number"):
        nn.GRU(2, 3, dropout=1.5)
    with pytest.raises(ArgumentError, match="hidden_size must be greater than zero"):
        nn.LSTM(2, 0)
    with pytest.raises(ArgumentError, match="proj_size has to be smaller"):
        nn.LSTM(2, 3, proj_size=3)
    m = nn.LSTM(3, 4)
    with pytest.raises(ShapeError, match="input.size\\(-1\\) must be equal to input_size"):
        m(lucid.randn(5, 2, 2))
    with pytest.raises(ShapeError, match="Expected input to be 2D or 3D"):
        m(lucid.randn(3))
    with pytest.raises(ShapeError, match="Expected hidden size"):
        m(lucid.randn(5, 2, 3), (lucid.zeros(1, 3, 4), lucid.zeros(1, 2, 4)))
    with pytest.raises(DTypeError, match="LSTM: input must have the type lucid.float32"):
        m(lucid.randn(5, 2, 3, dtype=lucid.float64))
    with pytest.raises(ShapeError, match="Expected input to be 1D or 2D"):
        nn.GRUCell(3, 4)(lucid.randn(1, 2, 3))


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("with_state", [True, False])
def test_cells_parity(kind, bias, with_state):
    dt = lucid.float64
    kw = dict(bias=bias)
    if kind == "RNNCell":
        kw["nonlinearity"] = "relu"
    tm = getattr(torch.nn, kind)(3, 4, **kw).double()
    lm = getattr(nn, kind)(3, 4, **kw, dtype=dt)
    assert repr(lm) == repr(tm)
    lm.load_state_dict({k: lucid.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    x = RNG.standard_normal((5, 3))
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lins, tins = [lx], [tx]
    if with_state:
        n = 2 if kind == "LSTMCell" else 1
        st = [RNG.standard_normal((5, 4)) for _ in range(n)]
        ls = [lucid.tensor(s, requires_grad=True) for s in st]
        ts = [torch.tensor(s, requires_grad=True) for s in st]
        lins, tins = lins + ls, tins + ts
        lo = lm(lx, tuple(ls) if n == 2 else ls[0])
        to = tm(tx, tuple(ts) if n == 2 else ts[0])
    else:
        lo, to = lm(lx), tm(tx)
    for a, b in zip(_flat(lo), _flat(to)):
        _close(a, b, dt)
    _check_grads(lm, tm, lins, tins, _flat(lo), _flat(to), dt)


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_unbatched(kind):
    tm = getattr(torch.nn, kind)(3, 4).double()
    lm = getattr(nn, kind)(3, 4, dtype=lucid.float64)
    lm.load_state_dict({k: lucid.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    x = RNG.standard_normal(3)
    for a, b in zip(_flat(lm(lucid.tensor(x))), _flat(tm(torch.tensor(x)))):
        assert tuple(a.shape) == tuple(b.shape) == (4,)
        _close(a, b, lucid.float64)
