"""NoamScheduler (Vaswani et al. 2017): the closed form step for step, against the same
schedule as a torch LambdaLR over a base lr of 1; the peak at the warm-up's end, the
state-dict round trip, resuming, step(epoch), and argument errors."""

import warnings

import pytest
import torch

import lucid
from lucid.errors import ArgumentError

from ._problem import lucid_params, torch_params

S = lucid.optim.lr_scheduler


def _noam(t, d, w, f=1.0):
    return f * d**-0.5 * min(t**-0.5, t * w**-1.5)


def _opt(lib, lr=0.1):
    ps = torch_params() if lib is torch else lucid_params()
    return lib.optim.Adam([{"params": ps[:2]}, {"params": ps[2:], "lr": 0.05}], lr=lr)


def _run(opt, sched, n):
    out = []
    for _ in range(n):
        out.append([g["lr"] for g in opt.param_groups])
        opt.step()
        sched.step()
    return out


@pytest.mark.parametrize("d,w,f", [(512, 4000, 1.0), (64, 10, 2.0), (16, 1, 0.5)])
def test_closed_form_and_torch_lambda(d, w, f):
    opt = _opt(lucid)
    got = _run(opt, S.NoamScheduler(opt, d, w, factor=f), 40)
    assert got == [[_noam(t, d, w, f)] * 2 for t in range(1, 41)]
    topt = _opt(torch, lr=1.0)
    for g in topt.param_groups:
        g["lr"] = 1.0
    tsched = torch.optim.lr_scheduler.LambdaLR(topt, lambda e: _noam(e + 1, d, w, f))
    want = _run(topt, tsched, 40)
    assert sum(got, []) == pytest.approx(sum(want, []), rel=1e-12)


def test_warmup_then_decay():
    opt = _opt(lucid)
    lrs = [lr[0] for lr in _run(opt, S.NoamScheduler(opt, 128, 20), 60)]
    peak = max(range(60), key=lrs.__getitem__)
    assert peak == 19  # t = warmup_steps
    assert all(a < b for a, b in zip(lrs[:19], lrs[1:20]))  # linear warm-up
    assert all(a > b for a, b in zip(lrs[19:], lrs[20:]))  # 1/sqrt(t) decay
    assert lrs[0] == pytest.approx(lrs[19] / 20)
    assert lrs[79 - 20 - 40] == pytest.approx(_noam(20, 128, 20))


def test_state_dict_round_trip_and_resume():
    opt = _opt(lucid)
    sched = S.NoamScheduler(opt, 32, 5, factor=3.0)
    _run(opt, sched, 7)
    osd, ssd = opt.state_dict(), sched.state_dict()
    assert "optimizer" not in ssd and ssd["model_size"] == 32 and ssd["last_epoch"] == 7
    rest = _run(opt, sched, 10)
    opt2 = _opt(lucid)
    opt2.load_state_dict(osd)
    sched2 = S.NoamScheduler(opt2, 1, 1)  # other settings: the state dict wins
    sched2.load_state_dict(ssd)
    for g, lr in zip(opt2.param_groups, sched2.get_last_lr()):
        g["lr"] = lr
    assert _run(opt2, sched2, 10) == rest
    opt3 = _opt(lucid)
    for g in opt3.param_groups:
        g["initial_lr"] = g["lr"]
    sched3 = S.NoamScheduler(opt3, 32, 5, factor=3.0, last_epoch=6)
    assert sched3.get_last_lr() == [_noam(8, 32, 5, 3.0)] * 2


def test_step_with_epoch_jumps():
    opt = _opt(lucid)
    sched = S.NoamScheduler(opt, 64, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        opt.step()
        sched.step(30)
    assert sched.get_last_lr() == [_noam(31, 64, 10)] * 2


@pytest.mark.parametrize(
    "kw",
    [
        dict(model_size=0, warmup_steps=4),
        dict(model_size=8, warmup_steps=-1),
        dict(model_size=8.0, warmup_steps=4),
        dict(model_size=8, warmup_steps=4, factor=0.0),
    ],
)
def test_errors(kw):
    with pytest.raises(ArgumentError, match="NoamScheduler"):
        S.NoamScheduler(_opt(lucid), **kw)
