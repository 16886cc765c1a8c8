"""Every scheduler against PyTorch's: the same lr (and momentum) sequences over 30 steps on
two param groups, every option; state_dict round trips; the warnings and errors."""

import math
import warnings

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import ArgumentError

from ._problem import lucid_params, run, torch_params

STEPS = 30


def _opt(lib, name="SGD", **kw):
    ps = torch_params() if lib is torch else lucid_params()
    if name == "SGD":
        kw.setdefault("momentum", 0.9)
    return getattr(lib.optim, name)(
        [{"params": ps[:2]}, {"params": ps[2:], "lr": 0.05}], lr=0.1, **kw
    )


def _trace(opt):
    """Each group's lr and momentum (``momentum`` or ``betas[0]``)."""
    return tuple((g["lr"], g.get("momentum", g.get("betas", (None,))[0])) for g in opt.param_groups)


def _sequence(lib, make, opt_name="SGD", steps=STEPS, metrics=None, epochs=None):
    opt = _opt(lib, opt_name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = make(lib.optim.lr_scheduler, opt)
        out = [(_trace(opt), None)]
        for i in range(steps):
            opt.step()
            if metrics is not None:
                sched.step(metrics[i])
            elif epochs is not None:
                sched.step(epochs[i])
            else:
                sched.step()
            out.append((_trace(opt), tuple(sched.get_last_lr())))
    return out


def _both(make, **kw):
    a, b = _sequence(torch, make, **kw), _sequence(lucid, make, **kw)
    assert a == b
    return b


class Scale:
    """A callable object with state (its ``__dict__`` goes into the state dict)."""

    def __init__(self, factor):
        self.factor = factor

    def __call__(self, epoch):
        return self.factor**epoch


CASES = {
    "LambdaLR": lambda S, o: S.LambdaLR(o, lambda e: 0.9**e),
    "LambdaLR-per-group": lambda S, o: S.LambdaLR(o, [lambda e: 0.9**e, lambda e: 1 / (e + 1)]),
    "MultiplicativeLR": lambda S, o: S.MultiplicativeLR(o, lambda e: 0.95),
    "MultiplicativeLR-per-group": lambda S, o: S.MultiplicativeLR(
        o, [lambda e: 0.95, lambda e: 1.01]
    ),
    "StepLR": lambda S, o: S.StepLR(o, 3),
    "StepLR-gamma": lambda S, o: S.StepLR(o, 4, gamma=0.5),
    "MultiStepLR": lambda S, o: S.MultiStepLR(o, [2, 5, 9]),
    "MultiStepLR-repeated": lambda S, o: S.MultiStepLR(o, [2, 5, 5, 9], gamma=0.5),
    "ConstantLR": lambda S, o: S.ConstantLR(o),
    "ConstantLR-options": lambda S, o: S.ConstantLR(o, factor=0.5, total_iters=7),
    "LinearLR": lambda S, o: S.LinearLR(o),
    "LinearLR-options": lambda S, o: S.LinearLR(o, start_factor=0.2, end_factor=0.7, total_iters=9),
    "ExponentialLR": lambda S, o: S.ExponentialLR(o, 0.9),
    "PolynomialLR": lambda S, o: S.PolynomialLR(o),
    "PolynomialLR-options": lambda S, o: S.PolynomialLR(o, total_iters=12, power=2.0),
    "CosineAnnealingLR": lambda S, o: S.CosineAnnealingLR(o, 10),
    "CosineAnnealingLR-eta_min-past-T_max": lambda S, o: S.CosineAnnealingLR(o, 7, 0.001),
    "CosineAnnealingWarmRestarts": lambda S, o: S.CosineAnnealingWarmRestarts(o, 5),
    "CosineAnnealingWarmRestarts-T_mult": lambda S, o: S.CosineAnnealingWarmRestarts(
        o, 3, T_mult=2, eta_min=0.001
    ),
    "CyclicLR": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=4),
    "CyclicLR-down": lambda S, o: S.CyclicLR(
        o, [0.01, 0.02], [0.1, 0.2], step_size_up=4, step_size_down=2
    ),
    "CyclicLR-triangular2": lambda S, o: S.CyclicLR(o, 0.01, 0.1, 3, mode="triangular2"),
    "CyclicLR-exp_range": lambda S, o: S.CyclicLR(o, 0.01, 0.1, 3, mode="exp_range", gamma=0.9),
    "CyclicLR-scale_fn-cycle": lambda S, o: S.CyclicLR(o, 0.01, 0.1, 3, scale_fn=lambda x: 0.5**x),
    "CyclicLR-scale_fn-iterations": lambda S, o: S.CyclicLR(
        o, 0.01, 0.1, 3, scale_fn=lambda x: 0.9**x, scale_mode="iterations"
    ),
    "CyclicLR-momentum-options": lambda S, o: S.CyclicLR(
        o, 0.01, 0.1, 3, base_momentum=0.5, max_momentum=[0.95, 0.99]
    ),
    "CyclicLR-no-cycle_momentum": lambda S, o: S.CyclicLR(o, 0.01, 0.1, 3, cycle_momentum=False),
    "OneCycleLR": lambda S, o: S.OneCycleLR(o, 0.5, total_steps=STEPS),
    "OneCycleLR-linear": lambda S, o: S.OneCycleLR(
        o, [0.5, 0.3], total_steps=STEPS, anneal_strategy="linear"
    ),
    "OneCycleLR-three_phase": lambda S, o: S.OneCycleLR(
        o, 0.5, total_steps=STEPS + 1, three_phase=True
    ),
    "OneCycleLR-epochs": lambda S, o: S.OneCycleLR(
        o, 0.5, epochs=3, steps_per_epoch=10, pct_start=0.5, div_factor=5.0, final_div_factor=100.0
    ),
    "OneCycleLR-momentum-options": lambda S, o: S.OneCycleLR(
        o, 0.5, total_steps=STEPS, base_momentum=0.6, max_momentum=0.8
    ),
    "OneCycleLR-no-cycle_momentum": lambda S, o: S.OneCycleLR(
        o, 0.5, total_steps=STEPS, cycle_momentum=False
    ),
    "SequentialLR": lambda S, o: S.SequentialLR(
        o, [S.LinearLR(o, 0.1, 1.0, 5), S.CosineAnnealingLR(o, 10)], milestones=[5]
    ),
    "SequentialLR-three": lambda S, o: S.SequentialLR(
        o, [S.ConstantLR(o, 0.5, 3), S.ExponentialLR(o, 0.9), S.StepLR(o, 2)], milestones=[4, 12]
    ),
    "ChainedScheduler": lambda S, o: S.ChainedScheduler(
        [S.ExponentialLR(o, 0.9), S.StepLR(o, 4, 0.5)]
    ),
    "ChainedScheduler-optimizer": lambda S, o: S.ChainedScheduler(
        [S.ConstantLR(o, 0.3, 4), S.ExponentialLR(o, 0.95)], optimizer=o
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_sequence_matches_torch(name):
    seq = _both(CASES[name])
    assert len({trace[0][0] for trace, _ in seq}) > 1, "the lr changed"


@pytest.mark.parametrize("name", ["CyclicLR", "OneCycleLR", "OneCycleLR-three_phase"])
def test_cyclic_momentum_goes_into_adam_betas(name):
    seq = _both(CASES[name], opt_name="Adam")
    assert len({trace[0][1] for trace, _ in seq}) > 1


def test_cycle_momentum_needs_momentum():
    opt = lucid.optim.Adagrad(lucid_params())
    with pytest.raises(ArgumentError, match="CyclicLR: optimizer must support momentum"):
        lucid.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1)
    with pytest.raises(ArgumentError, match="OneCycleLR: optimizer must support"):
        lucid.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=10)


METRICS = [
    5,
    4,
    4,
    4,
    4,
    4,
    3.9999,
    4,
    4,
    4,
    4,
    4,
    4,
    4,
    4,
    2,
    2,
    2,
    2,
    2,
    2,
    2,
    2,
    2,
    2,
    2,
    2,
    2,
    3,
    3,
]


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(patience=2),
        dict(patience=1, factor=0.5),
        dict(patience=1, cooldown=2),
        dict(patience=0, min_lr=[0.01, 0.001]),
        dict(patience=0, min_lr=0.02),
        dict(patience=0, factor=0.5, eps=0.02),
        dict(mode="max", patience=1),
        dict(patience=1, threshold=0.3),
        dict(mode="max", patience=1, threshold_mode="abs", threshold=0.5),
        dict(patience=1, threshold_mode="abs", threshold=0.5),
    ],
    ids=str,
)
def test_reduce_lr_on_plateau_matches_torch(kw):
    _both(lambda S, o: S.ReduceLROnPlateau(o, **kw), metrics=METRICS)


def test_reduce_lr_on_plateau_takes_tensor_metric():
    opt = _opt(lucid)
    s = lucid.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    s.step(lucid.tensor(1.0))
    s.step(lucid.tensor(2.0))
    assert s.get_last_lr() == [pytest.approx(0.01), pytest.approx(0.005)]


@pytest.mark.parametrize(
    "name,epochs",
    [
        ("StepLR", [3, 7, 1, 12, 12, 20]),
        ("MultiStepLR", [1, 6, 9, 3, 10, 2]),
        ("ExponentialLR", [2, 5, 1, 7, 8, 3]),
        ("CosineAnnealingLR", [3, 12, 5, 0, 7, 9]),
        ("LinearLR", [1, 3, 9, 2, 4, 4]),
        ("ConstantLR", [1, 5, 2, 9, 3, 6]),
        ("PolynomialLR", [1, 2, 8, 3, 4, 0]),
        ("LambdaLR", [4, 1, 9, 2, 3, 6]),
        ("CosineAnnealingWarmRestarts-T_mult", [0.5, 1.2, 4, 9.5, 20, 2]),
        ("CosineAnnealingWarmRestarts", [0.5, 7.25, 3, 11, 14.5, 1]),
    ],
)
def test_step_with_epoch_uses_the_closed_form(name, epochs):
    _both(CASES[name], steps=len(epochs), epochs=epochs)


@pytest.mark.parametrize("name", [n for n in CASES])
def test_state_dict_round_trip(name):
    """Save the optimizer and scheduler after 7 steps, load both into fresh ones: the
    rest of the sequence is the same as without interruption."""
    S = lucid.optim.lr_scheduler
    make = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        opt = _opt(lucid)
        sched = make(S, opt)
        for _ in range(7):
            opt.step()
            sched.step()
        osd, ssd = opt.state_dict(), sched.state_dict()
        assert "optimizer" not in ssd
        rest = []
        for _ in range(10):
            opt.step()
            sched.step()
            rest.append(_trace(opt))
        opt2 = _opt(lucid)
        sched2 = make(S, opt2)
        opt2.load_state_dict(osd)
        sched2.load_state_dict(ssd)
        rest2 = []
        for _ in range(10):
            opt2.step()
            sched2.step()
            rest2.append(_trace(opt2))
    assert rest == rest2


def test_lambda_state_dict_keeps_callable_objects_state():
    S = lucid.optim.lr_scheduler
    opt = _opt(lucid)
    s = S.LambdaLR(opt, [Scale(0.9), lambda e: 1.0])
    sd = s.state_dict()
    assert sd["lr_lambdas"] == [{"factor": 0.9}, None]
    s2 = S.LambdaLR(_opt(lucid), [Scale(0.5), lambda e: 1.0])
    s2.load_state_dict(sd)
    assert s2.lr_lambdas[0].factor == 0.9


def test_initial_lr_and_resuming():
    S = lucid.optim.lr_scheduler
    opt = _opt(lucid)
    S.StepLR(opt, 2)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.05]
    fresh = _opt(lucid)
    with pytest.raises(ArgumentError, match="StepLR: param 'initial_lr' is not specified"):
        S.StepLR(fresh, 2, last_epoch=3)
    resumed = S.StepLR(opt, 2, gamma=0.5, last_epoch=3)  # initial_lr is there now
    assert resumed.last_epoch == 4 and resumed.base_lrs == [0.1, 0.05]


def test_last_epoch_resume_matches_torch():
    def make(S, o):
        for g in o.param_groups:
            g["initial_lr"] = g["lr"]
        return S.CosineAnnealingLR(o, 10, last_epoch=4)

    _both(make, steps=8)


def test_step_order_warning():
    S = lucid.optim.lr_scheduler
    opt = _opt(lucid)
    s = S.StepLR(opt, 2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        s.step()
    opt2 = _opt(lucid)
    s2 = S.StepLR(opt2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt2.step()
        s2.step()


def test_get_lr_outside_step_warns():
    s = lucid.optim.lr_scheduler.StepLR(_opt(lucid), 2)
    with pytest.warns(UserWarning, match="get_last_lr"):
        s.get_lr()


def test_one_cycle_past_total_steps_errors():
    opt = _opt(lucid)
    s = lucid.optim.lr_scheduler.OneCycleLR(opt, 0.5, total_steps=3)
    for _ in range(3):
        opt.step()
        s.step()
    with pytest.raises(ArgumentError, match="OneCycleLR: tried to step 4 times"):
        s.step()


@pytest.mark.parametrize(
    "make,match",
    [
        (lambda S, o: S.ConstantLR(o, factor=1.5), "ConstantLR: "),
        (lambda S, o: S.LinearLR(o, start_factor=0), "LinearLR: "),
        (lambda S, o: S.LinearLR(o, end_factor=2), "LinearLR: "),
        (lambda S, o: S.LambdaLR(o, [lambda e: 1]), "LambdaLR: expected 2 lr_lambdas"),
        (lambda S, o: S.CosineAnnealingWarmRestarts(o, 0), "CosineAnnealingWarmRestarts: "),
        (lambda S, o: S.CosineAnnealingWarmRestarts(o, 2, T_mult=0), "T_mult"),
        (lambda S, o: S.CyclicLR(o, 0.1, 1, mode="zigzag"), "CyclicLR: mode"),
        (lambda S, o: S.CyclicLR(o, [0.1], 1), "CyclicLR: base_lr must have one value"),
        (lambda S, o: S.OneCycleLR(o, 0.1), "OneCycleLR: you must define"),
        (lambda S, o: S.OneCycleLR(o, 0.1, total_steps=0), "OneCycleLR: .*total_steps"),
        (lambda S, o: S.OneCycleLR(o, 0.1, total_steps=5, pct_start=2.0), "pct_start"),
        (
            lambda S, o: S.OneCycleLR(o, 0.1, total_steps=5, anneal_strategy="cubic"),
            "anneal_strategy",
        ),
        (lambda S, o: S.ReduceLROnPlateau(o, factor=1.0), "ReduceLROnPlateau: factor"),
        (lambda S, o: S.ReduceLROnPlateau(o, mode="up"), "ReduceLROnPlateau: mode"),
        (lambda S, o: S.ReduceLROnPlateau(o, threshold_mode="x"), "threshold mode"),
        (lambda S, o: S.ReduceLROnPlateau(o, min_lr=[0.1]), "expected 2 min_lrs"),
        (lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2)], milestones=[3]), "SequentialLR"),
        (
            lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2), S.ReduceLROnPlateau(o)], [3]),
            "ReduceLROnPlateau",
        ),
        (lambda S, o: S.ChainedScheduler([]), "ChainedScheduler expects at least one"),
        (
            lambda S, o: S.ChainedScheduler([S.StepLR(o, 2), S.StepLR(_opt(lucid), 2)]),
            "same optimizer",
        ),
    ],
)
def test_errors_name_the_scheduler(make, match):
    with pytest.raises(ArgumentError, match=match):
        make(lucid.optim.lr_scheduler, _opt(lucid))


def test_not_an_optimizer():
    with pytest.raises(lucid.errors.ArgumentTypeError, match="StepLR: list is not an"):
        lucid.optim.lr_scheduler.StepLR([], 2)


def test_training_with_scheduler_matches_torch():
    """The lrs a scheduler writes are the ones the optimizer steps with."""
    tp, lp = torch_params(), lucid_params()
    topt, lopt = torch.optim.Adam(tp, lr=0.05), lucid.optim.Adam(lp, lr=0.05)
    ts = torch.optim.lr_scheduler.OneCycleLR(topt, 0.1, total_steps=20)
    ls = lucid.optim.lr_scheduler.OneCycleLR(lopt, 0.1, total_steps=20)
    for _ in range(20):
        a, b = run(torch, topt, tp, 1), run(lucid, lopt, lp, 1)
        ts.step()
        ls.step()
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=2e-5, atol=2e-5)
    assert math.isclose(ls.get_last_lr()[0], ts.get_last_lr()[0])
