"""Every optimizer against PyTorch's on the same problem: 20 steps from the same weights,
parameters equal within float32 tolerance; state_dict round trips (Lucid's own and
PyTorch's converted), param groups with their own options, and the errors."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import ArgumentError

from ._problem import (
    INIT,
    assert_close,
    closure_for,
    loss_of,
    lucid_params,
    run,
    to_lucid,
    torch_params,
    values,
)

# (optimizer, options): every optimizer, and each option that changes the update
CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.1, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.5, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.05)),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.9), eps=1e-3)),
    ("Adam", dict(lr=0.05, amsgrad=True)),
    ("Adam", dict(lr=0.05, weight_decay=0.1)),
    ("Adam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Adam", dict(lr=0.05, maximize=True)),
    ("AdamW", dict(lr=0.05)),
    ("AdamW", dict(lr=0.05, weight_decay=0.3, amsgrad=True)),
    ("AdamW", dict(lr=0.05, maximize=True)),
    ("Adamax", dict(lr=0.05)),
    ("Adamax", dict(lr=0.05, weight_decay=0.1, maximize=True)),
    ("NAdam", dict(lr=0.05)),
    ("NAdam", dict(lr=0.05, momentum_decay=0.1)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("NAdam", dict(lr=0.05, maximize=True)),
    ("RAdam", dict(lr=0.05)),
    ("RAdam", dict(lr=0.05, weight_decay=0.1)),
    ("RAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.05, betas=(0.9, 0.5), maximize=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, eps=1e-3)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.9)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05)),
    ("Adagrad", dict(lr=0.1, initial_accumulator_value=0.5, eps=1e-3)),
    ("Adagrad", dict(lr=0.1, weight_decay=0.1, maximize=True)),
    ("Adadelta", dict(lr=1.0)),
    ("Adadelta", dict(lr=0.5, rho=0.5, eps=1e-3)),
    ("Adadelta", dict(lr=1.0, weight_decay=0.1, maximize=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, lambd=0.1, alpha=0.5, t0=5)),
    ("ASGD", dict(lr=0.05, weight_decay=0.1, maximize=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.01, etas=(0.3, 1.5), step_sizes=(1e-3, 0.05))),
    ("Rprop", dict(lr=0.01, maximize=True)),
    # LBFGS converges into a flat valley of minima where float32 rounding picks another
    # point of it after a few dozen iterations: in float32 one iteration per step (its
    # state carries over steps, so 20 iterations in all); the full defaults in float64
    ("LBFGS", dict(lr=1, max_iter=1)),
    ("LBFGS", dict(lr=1, max_iter=1, history_size=4)),
    ("LBFGS", dict(lr=1, max_iter=1, max_eval=10, line_search_fn="strong_wolfe")),
    (
        "LBFGS",
        dict(
            lr=1,
            line_search_fn="strong_wolfe",
            history_size=3,
            max_iter=1,
            max_eval=4,
            tolerance_change=1e-6,
        ),
    ),
]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for n, kw in CASES]
STEPS = 20


def _pair(name, kw, dtype=np.float32, groups=None):
    tp, lp = torch_params(dtype=dtype), lucid_params(dtype=dtype)
    if groups is None:
        return (tp, getattr(torch.optim, name)(tp, **kw)), (
            lp,
            getattr(lucid.optim, name)(lp, **kw),
        )
    return (tp, getattr(torch.optim, name)(groups(tp), **kw)), (
        lp,
        getattr(lucid.optim, name)(groups(lp), **kw),
    )


def _assert_same_state(tstate, lstate, path="state", rtol=1e-4):
    """PyTorch's optimizer state and Lucid's hold the same keys and values (tensors to
    float32 tolerance, relative for the ones that grow, like Adagrad's sums)."""
    if isinstance(tstate, torch.Tensor):
        assert isinstance(lstate, lucid.Tensor), path
        assert tuple(lstate.shape) == tuple(tstate.shape), path
        np.testing.assert_allclose(
            lstate.detach().float().numpy(),
            tstate.detach().float().numpy(),
            rtol=rtol,
            atol=2e-5,
            err_msg=path,
        )
    elif isinstance(tstate, dict):
        assert set(lstate) == set(tstate), path
        for k in tstate:
            _assert_same_state(tstate[k], lstate[k], f"{path}[{k!r}]", rtol)
    elif isinstance(tstate, (list, tuple)):
        assert len(lstate) == len(tstate), path
        for i, (a, b) in enumerate(zip(tstate, lstate)):
            _assert_same_state(a, b, f"{path}[{i}]", rtol)
    elif isinstance(tstate, float):
        assert lstate == pytest.approx(tstate, rel=rtol, abs=1e-6), path
    else:
        assert lstate == tstate, path


@pytest.mark.parametrize("name,kw", CASES, ids=IDS)
def test_trajectory_matches_torch(name, kw):
    """Parameters after 20 steps, and every state entry, as PyTorch's."""
    (tp, topt), (lp, lopt) = _pair(name, kw)
    assert_close(run(torch, topt, tp, STEPS), run(lucid, lopt, lp, STEPS))
    assert not np.allclose(values(lp)[0], INIT[0], atol=1e-3), "the parameters moved"
    # LBFGS's curvature pairs near convergence: rho = 1 / (y . s) of tiny products
    _assert_same_state(
        topt.state_dict()["state"],
        lopt.state_dict()["state"],
        rtol=1e-2 if name == "LBFGS" else 1e-4,
    )


@pytest.mark.parametrize(
    "name,kw",
    [c for c in CASES if c[0] != "LBFGS"][::3]
    + [
        ("LBFGS", dict()),
        ("LBFGS", dict(line_search_fn="strong_wolfe")),
        ("LBFGS", dict(history_size=2, tolerance_grad=1e-3)),
    ],
)
def test_trajectory_float64(name, kw):
    (tp, topt), (lp, lopt) = _pair(name, kw, np.float64)
    a, b = run(torch, topt, tp, STEPS, np.float64), run(lucid, lopt, lp, STEPS, np.float64)
    if name == "LBFGS":  # up to 400 iterations: float64 rounding grows to ~1e-8
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-7, atol=1e-7)
    else:
        assert_close(a, b, np.float64)
    assert all(
        v.dtype == lucid.float64
        for v in lopt.state[lp[0]].values()
        if isinstance(v, lucid.Tensor) and v.ndim
    )


@pytest.mark.parametrize("name,kw", [c for c in CASES if c[0] != "LBFGS"][::4])
def test_param_groups_with_their_own_options(name, kw):
    """Two groups; the second has its own lr (and weight decay where the optimizer has
    one): both groups follow PyTorch's."""

    def groups(ps):
        extra = {"weight_decay": 0.2} if name != "Rprop" else {}
        return [{"params": ps[:2]}, {"params": ps[2:], "lr": kw["lr"] * 0.3, **extra}]

    (tp, topt), (lp, lopt) = _pair(name, kw, groups=groups)
    assert lopt.param_groups[1]["lr"] == pytest.approx(kw["lr"] * 0.3)
    assert_close(run(torch, topt, tp, STEPS), run(lucid, lopt, lp, STEPS))


def _fresh_from(params_values, name, kw):
    lp = lucid_params(params_values)
    return lp, getattr(lucid.optim, name)(lp, **kw)


@pytest.mark.parametrize("name,kw", CASES, ids=IDS)
def test_state_dict_round_trip(name, kw):
    """Save after 10 steps, load into a fresh optimizer over a copy of the parameters,
    continue: the same as 20 uninterrupted steps."""
    lp, opt = _fresh_from(INIT, name, kw)
    run(lucid, opt, lp, 10)
    sd = opt.state_dict()
    mid = values(lp)
    lp2, opt2 = _fresh_from(mid, name, kw)
    opt2.load_state_dict(sd)
    after = run(lucid, opt2, lp2, 10)
    assert_close(run(lucid, opt, lp, 10), after, np.float64)


@pytest.mark.parametrize("name,kw", CASES, ids=IDS)
def test_loads_torch_state_dict(name, kw):
    """A PyTorch optimizer's state dict, its tensors converted, continues in Lucid as in
    PyTorch; Lucid's state dict has the same structure."""
    tp = torch_params()
    topt = getattr(torch.optim, name)(tp, **kw)
    run(torch, topt, tp, 10)
    lp, lopt = _fresh_from(values(tp), name, kw)
    tsd = topt.state_dict()
    lopt.load_state_dict(to_lucid(tsd))
    assert_close(run(torch, topt, tp, 10), run(lucid, lopt, lp, 10))
    lsd = lopt.state_dict()
    assert lsd["param_groups"][0].keys() == tsd["param_groups"][0].keys()
    assert lsd["state"].keys() == tsd["state"].keys()
    for i in tsd["state"]:
        assert lsd["state"][i].keys() == tsd["state"][i].keys()


def test_torch_state_dict_structure_without_loading():
    """A fresh run's state dict matches PyTorch's: step a float32 scalar, states per
    parameter index, params as index lists across groups."""
    tp, lp = torch_params(), lucid_params()
    topt = torch.optim.Adam([{"params": tp[:1]}, {"params": tp[1:], "lr": 0.1}], amsgrad=True)
    lopt = lucid.optim.Adam([{"params": lp[:1]}, {"params": lp[1:], "lr": 0.1}], amsgrad=True)
    run(torch, topt, tp, 2)
    run(lucid, lopt, lp, 2)
    tsd, lsd = topt.state_dict(), lopt.state_dict()
    assert [g["params"] for g in lsd["param_groups"]] == [[0], [1, 2, 3]]
    assert lsd["param_groups"] == [{k: v for k, v in g.items()} for g in tsd["param_groups"]]
    step = lsd["state"][0]["step"]
    assert step.dtype == lucid.float32 and step.ndim == 0 and step.item() == 2.0


def test_load_casts_state_to_param_dtype_and_copies():
    lp = lucid_params()
    opt = lucid.optim.Adam(lp)
    run(lucid, opt, lp, 2)
    sd = opt.state_dict()
    lp64 = lucid_params(values(lp), np.float64)
    opt64 = lucid.optim.Adam(lp64)
    opt64.load_state_dict(sd)
    st = opt64.state[lp64[0]]
    assert st["exp_avg"].dtype == lucid.float64
    assert st["step"].dtype == lucid.float32  # step is kept as saved
    before = sd["state"][0]["exp_avg"].numpy().copy()
    run(lucid, opt64, lp64, 1, np.float64)
    np.testing.assert_array_equal(sd["state"][0]["exp_avg"].numpy(), before)
    assert sd["state"][0]["step"].item() == 2.0  # the loaded dict was not aliased


def test_load_old_style_integer_step():
    """State dicts whose ``step`` is a Python number (older PyTorch) load."""
    lp = lucid_params()
    opt = lucid.optim.Adam(lp)
    run(lucid, opt, lp, 3)
    sd = opt.state_dict()
    sd["state"] = {i: {**st, "step": 3} for i, st in sd["state"].items()}
    lp2, opt2 = _fresh_from(values(lp), "Adam", {})
    opt2.load_state_dict(sd)
    assert_close(run(lucid, opt, lp, 2), run(lucid, opt2, lp2, 2), np.float64)


def test_load_state_dict_group_mismatch_errors():
    lp = lucid_params()
    opt = lucid.optim.SGD(lp, lr=0.1)
    sd = opt.state_dict()
    two = lucid.optim.SGD([{"params": lp[:2]}, {"params": lp[2:]}], lr=0.1)
    with pytest.raises(lucid.errors.ShapeError, match="SGD.load_state_dict: .*1 parameter"):
        two.load_state_dict(sd)
    fewer = lucid.optim.SGD(lp[:3], lr=0.1)
    with pytest.raises(lucid.errors.ShapeError, match="group 0 has 4 parameters"):
        fewer.load_state_dict(sd)
    with pytest.raises(ArgumentError, match="SGD.load_state_dict"):
        opt.load_state_dict({"state": {}})


@pytest.mark.parametrize(
    "name,kw",
    [
        ("SGD", dict(lr=-1)),
        ("SGD", dict(momentum=-0.1)),
        ("SGD", dict(weight_decay=-1)),
        ("SGD", dict(nesterov=True)),
        ("SGD", dict(nesterov=True, momentum=0.9, dampening=0.1)),
        ("Adam", dict(lr=-1e-3)),
        ("Adam", dict(eps=-1)),
        ("Adam", dict(betas=(1.0, 0.9))),
        ("Adam", dict(betas=(0.9, -0.1))),
        ("Adam", dict(weight_decay=-1)),
        ("AdamW", dict(lr=-1)),
        ("Adamax", dict(betas=(0.9, 1.0))),
        ("NAdam", dict(lr=-1)),
        ("NAdam", dict(momentum_decay=-1)),
        ("RAdam", dict(eps=-1)),
        ("RMSprop", dict(lr=-1)),
        ("RMSprop", dict(alpha=-1)),
        ("RMSprop", dict(momentum=-1)),
        ("Adagrad", dict(lr=-1)),
        ("Adagrad", dict(lr_decay=-1)),
        ("Adagrad", dict(initial_accumulator_value=-1)),
        ("Adadelta", dict(rho=1.5)),
        ("Adadelta", dict(lr=-1)),
        ("ASGD", dict(lr=-1)),
        ("ASGD", dict(weight_decay=-1)),
        ("Rprop", dict(lr=-1)),
        ("Rprop", dict(etas=(1.2, 0.5))),
        ("LBFGS", dict(lr=-1)),
        ("LBFGS", dict(line_search_fn="armijo")),
        ("Adam", dict(differentiable=True)),
    ],
)
def test_bad_hyperparameters_name_the_optimizer(name, kw):
    with pytest.raises(ArgumentError, match=rf"^{name}: "):
        getattr(lucid.optim, name)(lucid_params(), **kw)
    with pytest.raises(ValueError):  # what PyTorch users catch
        getattr(lucid.optim, name)(lucid_params(), **kw)


# -- the base class -------------------------------------------------------------------------


def test_params_forms():
    lp = lucid_params()
    gen = lucid.optim.SGD((p for p in lp), lr=0.1)
    assert gen.param_groups[0]["params"] == lp or all(
        a is b for a, b in zip(gen.param_groups[0]["params"], lp)
    )
    named = lucid.optim.SGD([("w1", lp[0]), ("b1", lp[1])], lr=0.1)
    assert named.param_groups[0]["param_names"] == ["w1", "b1"]
    single = lucid.optim.SGD([{"params": lp[0]}], lr=0.1)
    assert single.param_groups[0]["params"][0] is lp[0]
    with pytest.raises(lucid.errors.ArgumentTypeError, match="SGD: params"):
        lucid.optim.SGD(lp[0], lr=0.1)
    with pytest.raises(ArgumentError, match="empty parameter list"):
        lucid.optim.SGD([], lr=0.1)
    with pytest.raises(lucid.errors.ArgumentTypeError, match="sets"):
        lucid.optim.SGD([{"params": set(lp)}], lr=0.1)
    with pytest.raises(lucid.errors.ArgumentTypeError, match="can only optimize Tensors"):
        lucid.optim.SGD([1.0], lr=0.1)
    with pytest.raises(ArgumentError, match="non-leaf"):
        lucid.optim.SGD([lp[0] * 2], lr=0.1)
    with pytest.raises(ArgumentError, match="more than one parameter group"):
        lucid.optim.SGD([{"params": lp[:2]}, {"params": lp[1:]}], lr=0.1)


def test_add_param_group_fills_defaults():
    lp = lucid_params()
    opt = lucid.optim.Adam(lp[:2], lr=0.01, betas=(0.8, 0.9))
    opt.add_param_group({"params": lp[2:], "lr": 0.5})
    g = opt.param_groups[1]
    assert g["lr"] == 0.5 and g["betas"] == (0.8, 0.9) and g["amsgrad"] is False
    with pytest.raises(ArgumentError, match="more than one"):
        opt.add_param_group({"params": [lp[0]]})
    with pytest.raises(lucid.errors.ArgumentTypeError, match="must be a dict"):
        opt.add_param_group(lp[0])


def test_repr_like_torch():
    tp, lp = torch_params(), lucid_params()
    for name in ("SGD", "Adam", "RMSprop", "LBFGS"):
        t = repr(getattr(torch.optim, name)(tp, lr=0.5))
        assert repr(getattr(lucid.optim, name)(lp, lr=0.5)) == t


def test_zero_grad():
    lp = lucid_params()
    opt = lucid.optim.SGD(lp, lr=0.1)
    closure_for(lucid, opt, lp)()
    g = lp[0].grad
    opt.zero_grad(set_to_none=False)
    assert lp[0].grad is g and not g.numpy().any()
    opt.zero_grad()
    assert all(p.grad is None for p in lp)


def test_params_without_grad_are_skipped_and_get_no_state():
    lp = lucid_params()
    opt = lucid.optim.Adam(lp, lr=0.1)
    loss_of(lucid, lp).backward()
    lp[3].grad = None
    before = lp[3].detach().numpy().copy()
    opt.step()
    np.testing.assert_array_equal(lp[3].detach().numpy(), before)
    assert lp[3] not in opt.state and lp[0] in opt.state


def test_step_bumps_version_and_updates_in_place():
    lp = lucid_params()
    opt = lucid.optim.Adam(lp, lr=0.1)
    loss_of(lucid, lp).backward()
    data, v = lp[0]._data, lp[0]._version
    opt.step()
    assert lp[0]._data is data and lp[0]._version > v


def test_noncontiguous_and_empty_params():
    """A non-contiguous leaf (a transposed array) and a zero-size parameter update as
    PyTorch's."""
    base = np.asarray(INIT[0], dtype=np.float32)
    tw = torch.tensor(base.T.copy()).t().detach().requires_grad_()
    lw = lucid.tensor(base.T.copy()).t().detach().requires_grad_()
    assert not lw.is_contiguous()
    te, le = torch.zeros(0, 3, requires_grad=True), lucid.zeros(0, 3, requires_grad=True)
    topt = torch.optim.Adam([tw, te], lr=0.1, weight_decay=0.1)
    lopt = lucid.optim.Adam([lw, le], lr=0.1, weight_decay=0.1)
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    for lib, w, e, opt in ((torch, tw, te, topt), (lucid, lw, le, lopt)):
        for _ in range(5):
            opt.zero_grad()
            ((lib.tensor(x) @ w) ** 2).sum().add((e * 2).sum()).backward()
            opt.step()
    np.testing.assert_allclose(lw.detach().numpy(), tw.detach().numpy(), rtol=2e-5, atol=2e-5)
    assert le.shape == (0, 3)


def test_step_returns_closure_loss():
    lp = lucid_params()
    opt = lucid.optim.SGD(lp, lr=0.1)
    loss = opt.step(closure_for(lucid, opt, lp))
    assert isinstance(loss, lucid.Tensor) and loss.ndim == 0


def test_step_hooks():
    lp = lucid_params()
    opt = lucid.optim.SGD(lp, lr=0.1)
    calls = []
    pre = opt.register_step_pre_hook(lambda o, a, k: calls.append(("pre", o is opt)))
    post = opt.register_step_post_hook(lambda o, a, k: calls.append(("post", o is opt)))
    glob = lucid.optim.register_optimizer_step_pre_hook(lambda o, a, k: calls.append("g"))
    opt.step()
    assert calls == ["g", ("pre", True), ("post", True)]
    pre.remove()
    post.remove()
    glob.remove()
    opt.step()
    assert len(calls) == 3


def test_step_pre_hook_can_replace_arguments():
    lp = lucid_params()
    opt = lucid.optim.SGD(lp, lr=0.1)
    seen = []

    def closure():
        seen.append(1)
        return lucid.tensor(0.0)

    opt.register_step_pre_hook(lambda o, a, k: ((), {"closure": closure}))
    opt.step()
    assert seen == [1]


def test_lbfgs_refuses_several_groups():
    lp = lucid_params()
    with pytest.raises(ArgumentError, match="LBFGS: .*one group"):
        lucid.optim.LBFGS([{"params": lp[:2]}, {"params": lp[2:]}])


def test_functional_form_matches_class():
    """The functional update called directly gives the class's result."""
    from lucid.optim.adam import adam

    lp, lp2 = lucid_params(), lucid_params()
    opt = lucid.optim.Adam(lp, lr=0.05, amsgrad=True)
    run(lucid, opt, lp, 1)
    loss_of(lucid, lp2).backward()
    zeros = [lucid.zeros_like(p) for p in lp2]
    adam(
        lp2,
        [p.grad for p in lp2],
        [z.clone() for z in zeros],
        [z.clone() for z in zeros],
        [z.clone() for z in zeros],
        [lucid.tensor(0.0) for _ in lp2],
        amsgrad=True,
        beta1=0.9,
        beta2=0.999,
        lr=0.05,
        weight_decay=0,
        eps=1e-8,
        maximize=False,
    )
    assert_close(values(lp), values(lp2), np.float64)


def test_hooks_run_once_when_a_subclass_calls_the_base_step():
    class Logged(lucid.optim.SGD):
        def step(self, closure=None):
            return super().step(closure)

    lp = lucid_params()
    opt = Logged(lp, lr=0.1)
    calls = []
    opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    opt.step()
    assert calls == ["pre", "post"]


def test_deepcopy_keeps_state_and_drops_hooks():
    import copy

    lp = lucid_params()
    opt = lucid.optim.LBFGS(lp, max_iter=2)
    opt.register_step_post_hook(lambda o, a, k: None)
    run(lucid, opt, lp, 1)
    dup = copy.deepcopy(opt)
    assert dup._hooks["step_post"] == [] and len(dup._params) == 4
    assert dup.state_dict()["state"][0]["n_iter"] == opt.state[lp[0]]["n_iter"]


@pytest.mark.parametrize(
    "ldt,tdt", [(lucid.float16, torch.float16), (lucid.bfloat16, torch.bfloat16)]
)
@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop"])
def test_half_precision_params_update_in_their_dtype(name, ldt, tdt):
    """Half-precision parameters and their state stay in that dtype, as PyTorch's
    (whose single-tensor path computes in it too)."""
    g = [0.1, -0.2, 0.3, 0.05]
    lp = lucid.ones(4, dtype=ldt, requires_grad=True)
    tp = torch.ones(4, dtype=tdt, requires_grad=True)
    kw = dict(lr=0.01, foreach=False) | ({"momentum": 0.9} if name != "Adam" else {})
    lo = getattr(lucid.optim, name)([lp], **kw)
    to = getattr(torch.optim, name)([tp], **kw)
    for _ in range(5):
        lp.grad, tp.grad = lucid.tensor(g, dtype=ldt), torch.tensor(g, dtype=tdt)
        lo.step()
        to.step()
    assert lp.dtype == ldt and all(
        v.dtype == ldt for v in lo.state[lp].values() if isinstance(v, lucid.Tensor) and v.ndim
    )
    np.testing.assert_allclose(
        lp.detach().float().numpy(), tp.detach().float().numpy(), rtol=1e-2, atol=1e-2
    )


def test_load_state_dict_with_string_indices():
    """A state dict whose integer keys became strings (JSON metadata) still loads."""
    lp = lucid_params()
    opt = lucid.optim.Adam(lp, lr=0.05)
    run(lucid, opt, lp, 3)
    sd = opt.state_dict()
    sd = {
        "state": {str(k): v for k, v in sd["state"].items()},
        "param_groups": [dict(g, betas=list(g["betas"])) for g in sd["param_groups"]],
    }
    lp2, opt2 = _fresh_from(values(lp), "Adam", dict(lr=0.05))
    opt2.load_state_dict(sd)
    assert set(opt2.state_dict()["state"]) == {0, 1, 2, 3}
    assert_close(run(lucid, opt, lp, 3), run(lucid, opt2, lp2, 3), np.float64)


def test_state_dict_hooks():
    lp = lucid_params()
    opt = lucid.optim.SGD(lp, lr=0.1, momentum=0.9)
    calls = []
    opt.register_state_dict_pre_hook(lambda o: calls.append("pre"))
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    opt.register_state_dict_pre_hook(lambda o: calls.append("first"), prepend=True)
    sd = opt.state_dict()
    assert calls == ["first", "pre"] and sd["extra"] == 1
    opt2 = lucid.optim.SGD(lucid_params(), lr=0.1, momentum=0.9)

    def drop_extra(o, sd):
        sd.pop("extra", None)
        return dict(sd, param_groups=[dict(g, lr=0.5) for g in sd["param_groups"]])

    opt2.register_load_state_dict_pre_hook(drop_extra)
    h = opt2.register_load_state_dict_post_hook(lambda o: calls.append("loaded"))
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.5 and calls[-1] == "loaded"
    assert "extra" in sd  # the caller's dict is not changed
    h.remove()
    opt2.load_state_dict(opt2.state_dict())
    assert calls.count("loaded") == 1


@pytest.mark.parametrize("cls", [lucid.optim.Adam, lucid.optim.AdamW])
def test_capturable_needs_a_gpu_parameter(cls):
    """capturable=True keeps the step count on the parameter's device: refused for a CPU
    parameter (as PyTorch), with the optimizer named; capturable=False is unchanged."""
    w = lucid.nn.Parameter(lucid.ones(3))
    (w * 2).sum().backward()
    with pytest.raises(ArgumentError, match="capturable=True needs parameters on a CUDA"):
        cls([w], capturable=True).step()
    cls([w], capturable=False).step()
