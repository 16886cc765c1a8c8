"""lucid.amp.GradScaler against torch.amp.GradScaler("cpu"): the scale sequence, skipped
steps and final weights with injected inf/NaN gradients (with and without ``unscale_``
before ``clip_grad_norm_``), state_dict round trips (torch's included), no host read per
parameter, the error cases, and a bfloat16 autocast run that skips an injected inf."""

import numpy as np
import pytest
import torch

import lucid
from lucid.amp import GradScaler
from lucid.errors import ArgumentError, ArgumentTypeError

RNG = np.random.default_rng(0)
W1 = RNG.standard_normal((8, 4)).astype(np.float32)
W2 = RNG.standard_normal((1, 8)).astype(np.float32)
X = RNG.standard_normal((16, 4)).astype(np.float32)
Y = RNG.standard_normal((16, 1)).astype(np.float32)
INJECT = {3: float("inf"), 10: float("nan"), 11: float("-inf"), 25: float("inf")}


def _model(lib):
    nn = lib.nn
    m = nn.Sequential(nn.Linear(4, 8, bias=False), nn.Tanh(), nn.Linear(8, 1, bias=False))
    with lib.no_grad():
        m[0].weight.copy_(lib.tensor(W1))
        m[2].weight.copy_(lib.tensor(W2))
    return m


def _optimizer(lib, name, params):
    return (
        lib.optim.SGD(params, lr=0.01, momentum=0.9)
        if name == "sgd"
        else lib.optim.Adam(params, lr=0.01)
    )


def _run(lib, opt_name, clip, steps=30, scaler=None):
    """Train the same model in ``lib``; returns the scale after each update, the skipped
    steps, the final weights and the scaler's state dict."""
    m = _model(lib)
    opt = _optimizer(lib, opt_name, m.parameters())
    sc = scaler or lib.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=5)
    x, y = lib.tensor(X), lib.tensor(Y)
    scales, skipped = [], []
    for step in range(steps):
        opt.zero_grad()
        loss = ((m(x) - y) ** 2).mean()
        sc.scale(loss).backward()
        if step in INJECT:
            with lib.no_grad():
                m[0].weight.grad[1, 2] = INJECT[step]
        if clip:
            sc.unscale_(opt)
            lib.nn.utils.clip_grad_norm_(m.parameters(), 0.5)
        before = m[2].weight.detach().clone()
        sc.step(opt)
        if bool((m[2].weight.detach() == before).all()):
            skipped.append(step)
        sc.update()
        scales.append(sc.get_scale())
    return scales, skipped, [p.detach().numpy().copy() for p in m.parameters()], sc.state_dict()


@pytest.mark.parametrize("clip", [False, True], ids=["step", "unscale_clip_step"])
@pytest.mark.parametrize("opt_name", ["sgd", "adam"])
def test_parity_with_torch(opt_name, clip):
    want = _run(torch, opt_name, clip)
    got = _run(lucid, opt_name, clip)
    assert got[0] == want[0]
    assert got[1] == want[1] == sorted(INJECT)
    for g, w in zip(got[2], want[2]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    assert got[3] == want[3]


def test_scale_sequence_backs_off_and_grows():
    scales = _run(lucid, "sgd", False)[0]
    assert scales[:4] == [1024.0, 1024.0, 1024.0, 512.0]  # inf at step 3
    assert scales[8] == 1024.0  # 5 clean steps: growth
    assert scales[10:12] == [512.0, 256.0]  # nan, -inf


def test_growth_stops_at_a_non_finite_scale():
    sc = GradScaler("cpu", init_scale=3e38, growth_interval=1)
    p = lucid.nn.Parameter(lucid.ones(2))
    opt = lucid.optim.SGD([p], lr=0.0)
    sc.scale(p.sum())
    p.grad = lucid.ones(2)
    sc.step(opt)
    sc.update()
    assert sc.get_scale() == pytest.approx(3e38, rel=1e-6) and sc._get_growth_tracker() == 0


def test_no_host_read_per_parameter(monkeypatch):
    """unscale_ reads nothing back; step reads one flag, however many parameters."""
    m = lucid.nn.Sequential(*[lucid.nn.Linear(4, 4) for _ in range(5)])
    opt = lucid.optim.SGD(m.parameters(), lr=0.1)
    sc = GradScaler("cpu")
    sc.scale(m(lucid.randn(2, 4)).sum()).backward()
    be = type(lucid.device("cpu").backend)
    reads = []
    real = be.to_numpy
    monkeypatch.setattr(
        be, "to_numpy", lambda self, a, *k, **kw: reads.append(1) or real(self, a, *k, **kw)
    )
    sc.unscale_(opt)
    assert reads == []
    sc.step(opt)
    assert len(reads) == 1
    sc.update()
    assert len(reads) == 1


def test_found_inf_per_device_and_unscaled_values():
    p = lucid.nn.Parameter(lucid.ones(3))
    q = lucid.nn.Parameter(lucid.ones(2, dtype=lucid.bfloat16))
    e = lucid.nn.Parameter(lucid.ones(0))
    opt = lucid.optim.SGD([p, q, e], lr=1.0)
    sc = GradScaler("cpu", init_scale=8.0)
    sc.scale(p.sum() + q.float().sum() + e.sum()).backward()
    np.testing.assert_allclose(p.grad.numpy(), 8.0)
    sc.unscale_(opt)
    np.testing.assert_allclose(p.grad.numpy(), 1.0)
    assert q.grad.dtype is lucid.bfloat16
    np.testing.assert_allclose(q.grad.float().numpy(), 1.0)
    found = sc._per_optimizer_states[id(opt)]["found_inf_per_device"]
    assert list(found) == [lucid.device("cpu")] and found[lucid.device("cpu")].item() == 0.0


def test_scale_nested_outputs():
    sc = GradScaler("cpu", init_scale=4.0)
    a, b, c = lucid.ones(2), lucid.ones(()), lucid.ones(1, dtype=lucid.float16)
    out = sc.scale([a, (b, [c])])
    assert isinstance(out, list) and isinstance(out[1], tuple) and isinstance(out[1][1], list)
    np.testing.assert_allclose(out[0].numpy(), 4.0)
    assert out[1][1][0].dtype is lucid.float16 and out[1][0].item() == 4.0
    assert [t.item() for t in sc.scale(t for t in (b, b))] == [4.0, 4.0]
    with pytest.raises(ArgumentTypeError, match="outputs must be a Tensor"):
        sc.scale([a, 3.0])


def test_update_with_new_scale():
    sc = GradScaler("cpu")
    sc.scale(lucid.ones(()))
    sc.update(128.0)
    assert sc.get_scale() == 128.0
    sc.update(lucid.tensor([32.0]))
    assert sc.get_scale() == 32.0
    with pytest.raises(ArgumentError, match="new_scale"):
        sc.update(lucid.tensor([1.0, 2.0]))


# -- state_dict --------------------------------------------------------------------------------


def test_state_dict_round_trip_and_resume():
    first = GradScaler("cpu", init_scale=2.0**10, growth_interval=5)
    _run(lucid, "sgd", False, steps=13, scaler=first)
    sd = first.state_dict()
    assert sd == {
        "scale": 256.0,
        "growth_factor": 2.0,
        "backoff_factor": 0.5,
        "growth_interval": 5,
        "_growth_tracker": 1,
    }
    second = GradScaler("cpu")
    second.load_state_dict(sd)
    assert second.state_dict() == sd and second.get_scale() == 256.0
    fresh = GradScaler("cpu", init_scale=7.0)
    fresh.scale(lucid.ones(()))  # a live scale tensor is refilled
    fresh.load_state_dict(sd)
    assert fresh.get_scale() == 256.0 and fresh._get_growth_tracker() == 1


def test_loads_torchs_state_dict_and_continues_the_same():
    ts = torch.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=5)
    _run(torch, "sgd", False, steps=9, scaler=ts)
    ls = GradScaler("cpu")
    ls.load_state_dict(ts.state_dict())
    assert ls.state_dict() == ts.state_dict()
    want = _run(torch, "sgd", False, steps=20, scaler=ts)
    got = _run(lucid, "sgd", False, steps=20, scaler=ls)
    assert got[0] == want[0] and got[3] == want[3]
    torch_again = torch.amp.GradScaler("cpu")
    torch_again.load_state_dict(ls.state_dict())
    assert torch_again.state_dict() == ts.state_dict()


# -- disabled scaler ---------------------------------------------------------------------------


def test_disabled_scaler_is_a_pass_through():
    p = lucid.nn.Parameter(lucid.ones(2))
    opt = lucid.optim.SGD([p], lr=1.0)
    sc = GradScaler("cpu", enabled=False)
    loss = p.sum()
    assert sc.scale(loss) is loss and not sc.is_enabled()
    loss.backward()
    sc.unscale_(opt)
    sc.step(opt)
    sc.update()
    np.testing.assert_allclose(p.detach().numpy(), 0.0)
    assert sc.get_scale() == 1.0 and sc.state_dict() == {}
    sc.load_state_dict({})


def test_cuda_scaler_without_a_gpu_warns_and_disables():
    if getattr(getattr(lucid, "cuda", None), "is_available", lambda: False)():
        pytest.skip("a GPU is present")
    with pytest.warns(UserWarning, match="CUDA is not available"):
        sc = GradScaler()
    assert not sc.is_enabled()


def test_settings():
    sc = GradScaler(
        "cpu", init_scale=3.0, growth_factor=4.0, backoff_factor=0.25, growth_interval=7
    )
    assert (
        sc.get_scale(),
        sc.get_growth_factor(),
        sc.get_backoff_factor(),
        sc.get_growth_interval(),
    ) == (3.0, 4.0, 0.25, 7)
    sc.set_growth_factor(3.0)
    sc.set_backoff_factor(0.5)
    sc.set_growth_interval(2)
    assert (sc.get_growth_factor(), sc.get_backoff_factor(), sc.get_growth_interval()) == (
        3.0,
        0.5,
        2,
    )


# -- errors ------------------------------------------------------------------------------------


def _scaled(sc):
    p = lucid.nn.Parameter(lucid.ones(2))
    opt = lucid.optim.SGD([p], lr=0.1)
    sc.scale(p.sum()).backward()
    return p, opt


def test_stage_errors():
    sc = GradScaler("cpu")
    p, opt = _scaled(sc)
    sc.unscale_(opt)
    with pytest.raises(ArgumentError, match="already been called on this optimizer"):
        sc.unscale_(opt)
    sc.step(opt)
    with pytest.raises(ArgumentError, match="after step"):
        sc.unscale_(opt)
    with pytest.raises(ArgumentError, match="step\\(\\) has already been called"):
        sc.step(opt)
    sc.update()
    sc.unscale_(opt)  # a fresh iteration after update
    with pytest.raises(ArgumentError, match="closure"):
        sc.step(opt, closure=lambda: 0.0)


def test_errors_before_scale_and_without_grads():
    sc = GradScaler("cpu")
    p = lucid.nn.Parameter(lucid.ones(2))
    opt = lucid.optim.SGD([p], lr=0.1)
    for call in (lambda: sc.unscale_(opt), lambda: sc.step(opt), sc.update):
        with pytest.raises(ArgumentError, match="_scale is None.*scaler.scale"):
            call()
    sc.scale(p.sum())  # no backward: no gradient to check
    with pytest.raises(ArgumentError, match="no inf checks were recorded for this"):
        sc.step(opt)
    fresh = GradScaler("cpu")
    fresh.scale(p.sum())
    with pytest.raises(ArgumentError, match="prior to update"):
        fresh.update()


def test_argument_errors():
    with pytest.raises(ArgumentError, match="growth factor must be > 1.0"):
        GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(ArgumentError, match="backoff factor must be < 1.0"):
        GradScaler("cpu", backoff_factor=1.0)
    with pytest.raises(ArgumentError, match="device"):
        GradScaler("tpu")
    with pytest.raises(ArgumentError, match="empty"):
        GradScaler("cpu").load_state_dict({})
    p = lucid.nn.Parameter(lucid.ones(2, dtype=lucid.float16))
    opt = lucid.optim.SGD([p], lr=0.1)
    sc = GradScaler("cpu")
    sc.scale(p.float().sum()).backward()
    with pytest.raises(ArgumentError, match="float16 gradients"):
        sc.unscale_(opt)


# -- the check: training under autocast with a scaler skips an injected inf ------------


def test_bfloat16_autocast_training_with_scaler_skips_an_injected_inf():
    def train(amp, inject=None, steps=120):
        lucid.manual_seed(0)
        rng = np.random.default_rng(1)
        x = lucid.tensor(rng.standard_normal((64, 8)).astype(np.float32))
        y = lucid.tensor(np.tanh(x.numpy() @ rng.standard_normal((8, 2)).astype(np.float32)))
        nn = lucid.nn
        m = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2))
        opt = lucid.optim.Adam(m.parameters(), lr=1e-2)
        sc = GradScaler("cpu", init_scale=2.0**8, enabled=amp)
        for step in range(steps):
            opt.zero_grad()
            with lucid.autocast("cpu", enabled=amp):
                loss = nn.functional.mse_loss(m(x), y)
            sc.scale(loss).backward()
            if step == inject:
                m[2].bias.grad[0] = float("inf")
                before = [p.detach().clone() for p in m.parameters()]
            sc.step(opt)
            if step == inject:
                assert all(bool((p.detach() == b).all()) for p, b in zip(m.parameters(), before))
                assert float(opt.state[m[0].weight]["step"]) == step
            sc.update()
            if step == inject:
                assert sc.get_scale() == 2.0**7
        with lucid.no_grad():
            return nn.functional.mse_loss(m(x), y).item()

    ref = train(False)
    got = train(True, inject=40)
    assert abs(got - ref) < 0.25 * ref + 1e-4
